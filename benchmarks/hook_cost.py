"""What gitmem's git hooks add to `git commit`, and how soon the index is current after it.

Three identical notebooks (20 pages, indexed): one with gitmem's hooks, one
without hooks, and one whose four hooks are an empty `#!/bin/sh` script (what
any hook costs git, whatever it does). Each round makes the same one-page
change in each and times a plain `git commit` (wall time of the whole git
process, as a shell sees it), in rotating order. After the hooked commit it polls the index until it is
current (the commit indexed and its new chunk embedded) and records how long
that took; then it waits for any background work to end, so that no round
competes with the previous one's worker. It also times a 30-commit rebase with
and without hooks.

Run it by hand (it is not part of the test suite):

    GITMEM_MODEL_DIR=../shared/models/all-MiniLM-L6-v2-onnx-int8 python benchmarks/hook_cost.py [--rounds 60]

It prints a table and writes benchmarks/results/hook_cost-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gitmem import db, hookrun  # noqa: E402

PAGES = 20


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=True)
    return out.stdout


def setup_git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    """git with no hook at all: setting up a round must leave no background work behind."""
    return git(cwd, "-c", "core.hooksPath=/nonexistent", *args, env=env)


def gitmem(cwd: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-m", "gitmem", *args], cwd=cwd, env=env, check=True, capture_output=True)


NOOP = "#!/bin/sh\nexit 0\n"
HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


def make_notebook(path: Path, env: dict[str, str], hooks: str) -> None:
    """hooks: "gitmem", "none" or "noop" (empty sh scripts)."""
    path.mkdir()
    gitmem(path, "init", "--no-index", *([] if hooks == "gitmem" else ["--no-hooks"]), env=env)
    for name in HOOKS if hooks == "noop" else ():
        (path / ".git" / "hooks" / name).write_text(NOOP)
        (path / ".git" / "hooks" / name).chmod(0o755)
    for i in range(PAGES):
        page = path / "knowledge" / f"page-{i:02d}.md"
        page.parent.mkdir(exist_ok=True)
        lines = [f"- Fact {j} of page {i}: the {j}th lighthouse on the {i}th coast is painted red." for j in range(30)]
        page.write_text(f"# Page {i}\n\n" + "\n".join(lines) + "\n")
    setup_git(path, "add", "-A", env=env)
    setup_git(path, "commit", "-q", "-m", "pages", env=env)
    gitmem(path, "index", env=env)


def state(path: Path) -> tuple[str | None, int, bool]:
    """(indexed commit, texts waiting for an embedding, a worker running) straight from the index."""
    folder = path / ".git" / "gitmem"
    if not (folder / "index.db").exists():
        return None, 0, hookrun.busy(folder)
    conn = db.connect(folder / "index.db")
    try:
        commit = db.get_meta(conn, "commit")
        pending = conn.execute("SELECT count(*) FROM texts WHERE embedded = 0").fetchone()[0]
    finally:
        conn.close()
    return commit, pending, hookrun.busy(folder)


def wait_current(path: Path, head: str, timeout: float = 120.0) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        commit, pending, running = state(path)
        if commit == head and pending == 0 and not running:
            return time.perf_counter() - started
        time.sleep(0.005)
    raise SystemExit(f"index of {path} not current after {timeout}s")


def timed_commit(path: Path, round_no: int, env: dict[str, str]) -> float:
    page = path / "knowledge" / f"page-{round_no % PAGES:02d}.md"
    with page.open("a") as out:
        out.write(f"- Round {round_no}: the keeper logged a northerly gale at {round_no % 24:02d}:00.\n")
    git(path, "add", "-A", env=env)
    started = time.perf_counter()
    subprocess.run(["git", "commit", "-q", "-m", f"round {round_no}"], cwd=path, env=env, check=True,
                   capture_output=True)
    return time.perf_counter() - started


def rebase_time(path: Path, env: dict[str, str], hooked: bool, rep: int) -> float:
    setup_git(path, "checkout", "-q", "-b", "topic", env=env)
    for i in range(30):
        (path / "knowledge" / f"topic-{rep}-{i}.md").write_text(f"- topic fact {rep}.{i}\n")
        setup_git(path, "add", "-A", env=env)
        setup_git(path, "commit", "-q", "-m", f"topic {i}", env=env)
    setup_git(path, "checkout", "-q", "main", env=env)
    (path / "knowledge" / "main.md").write_text(f"- main moved ({rep})\n")
    setup_git(path, "add", "-A", env=env)
    setup_git(path, "commit", "-q", "-m", "main moved", env=env)
    setup_git(path, "checkout", "-q", "topic", env=env)
    started = time.perf_counter()
    git(path, "rebase", "-q", "main", env=env)
    took = time.perf_counter() - started
    if hooked:
        wait_current(path, git(path, "rev-parse", "HEAD").strip())
    setup_git(path, "checkout", "-q", "main", env=env)
    setup_git(path, "branch", "-q", "-D", "topic", env=env)
    return took


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered) * 1000, 1), "p95_ms": round(p95 * 1000, 1),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 1), "n": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--rebases", type=int, default=3)
    args = parser.parse_args()
    if not os.environ.get("GITMEM_MODEL_DIR"):
        raise SystemExit("set GITMEM_MODEL_DIR to the local model (see the docstring)")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gitmem-hook-cost-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n"
                                         "[init]\n\tdefaultBranch = main\n")
        env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
               "GIT_CONFIG_NOSYSTEM": "1", "XDG_CACHE_HOME": str(home / ".cache")}
        env.pop("GITMEM_HOOKS", None)
        hooked, plain, noop = Path(tmp) / "hooked", Path(tmp) / "plain", Path(tmp) / "noop"
        make_notebook(hooked, env, "gitmem")
        make_notebook(plain, env, "none")
        make_notebook(noop, env, "noop")
        with_hooks, without, with_noop, to_current = [], [], [], []
        order = [(hooked, with_hooks), (plain, without), (noop, with_noop)]
        for n in range(args.rounds):
            for path, bucket in order[n % 3:] + order[:n % 3]:
                bucket.append(timed_commit(path, n, env))
                if path == hooked:
                    started = time.perf_counter() - bucket[-1]
                    wait_current(path, git(path, "rev-parse", "HEAD").strip())
                    to_current.append(time.perf_counter() - started)
        rebase_with = [rebase_time(hooked, env, True, rep) for rep in range(args.rebases)]
        rebase_without = [rebase_time(plain, env, False, rep) for rep in range(args.rebases)]
        rebase_noop = [rebase_time(noop, env, False, rep) for rep in range(args.rebases)]
    result = {
        "when": datetime.now().isoformat(timespec="seconds"), "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
        "commit_without_hooks": summary(without), "commit_with_empty_hooks": summary(with_noop),
        "commit_with_hooks": summary(with_hooks),
        "added_by_hooks_median_ms": round((statistics.median(with_hooks) - statistics.median(without)) * 1000, 1),
        "commit_to_index_current": summary(to_current),
        "rebase_30_without_hooks": summary(rebase_without), "rebase_30_with_empty_hooks": summary(rebase_noop),
        "rebase_30_with_hooks": summary(rebase_with),
    }
    print(f"git commit of a one-page change, {args.rounds} rounds, {result['git']}, {result['cpus']} cpus, "
          f"load {result['load_before']} -> {result['load_after']}")
    print(f"{'':34} {'median':>9} {'p95':>9} {'mean':>9}")
    for key in ("commit_without_hooks", "commit_with_empty_hooks", "commit_with_hooks", "commit_to_index_current",
                "rebase_30_without_hooks", "rebase_30_with_empty_hooks", "rebase_30_with_hooks"):
        s = result[key]
        print(f"{key.replace('_', ' '):34} {s['median_ms']:>7.1f}ms {s['p95_ms']:>7.1f}ms {s['mean_ms']:>7.1f}ms")
    print(f"hooks add {result['added_by_hooks_median_ms']} ms to the median commit (target: under 50 ms)")
    out = ROOT / "benchmarks" / "results" / f"hook_cost-{datetime.now():%Y%m%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
