"""What gitmem's git hooks add to `git commit`, and how soon the index is current after it.

Three copies of the generated notebook (benchmarks/corpus.py, 10k chunks by
default, indexed): one with gitmem's hooks, one without hooks, and one whose
four hooks are an empty `#!/bin/sh` script (what any hook costs git, whatever
it does). Each round makes the same one-page change in each (a bullet added
to a page) and times a plain `git commit` (wall time of the whole git
process, as a shell sees it), in rotating order. After the hooked commit it
polls the index until it is current (the commit indexed and its new chunk
embedded) and records how long that took; then it waits for any background
work to end, so that no round competes with the previous one's worker. It
also times a 30-commit rebase with and without hooks.

Run:  python benchmarks/hook_cost.py [--size 10k] [--rounds 60] [--quick]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from gitmem.index import db
from gitmem import hookrun  # noqa: E402

TARGET_ADDED_MS = 50
TARGET_CURRENT_S = 1.5


git = common.git


def setup_git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    """git with no hook at all: setting up a round must leave no background work behind."""
    return git(cwd, "-c", "core.hooksPath=/nonexistent", *args, env=env)


NOOP = "#!/bin/sh\nexit 0\n"
HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")


def make_notebook(source: Path, path: Path, env: dict[str, str], hooks: str) -> None:
    """A copy of the generated notebook, index included. hooks: "gitmem", "none" or "noop" (empty sh scripts)."""
    shutil.copytree(source, path, symlinks=True)
    if hooks == "gitmem":
        common.git_mem(path, "hooks", "install", env=env)
    for name in HOOKS if hooks == "noop" else ():
        (path / ".git" / "hooks" / name).write_text(NOOP)
        (path / ".git" / "hooks" / name).chmod(0o755)


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


def timed_commit(path: Path, pages: list[str], round_no: int, env: dict[str, str]) -> float:
    page = path / pages[round_no % len(pages)]
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


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--size", default="10k", help="1k, 10k, 100k or a number of chunks")
    p.add_argument("--rounds", type=int, default=60)
    p.add_argument("--rebases", type=int, default=3)
    args = p.parse_args()
    size, rounds, rebases = ("1k", 6, 1) if args.quick else (args.size, args.rounds, args.rebases)
    env = common.setup()
    source = common.notebook(common.size(size), env=env)
    pages = sorted(str(p.relative_to(source)) for p in (source / "people").glob("*.md"))[:20]
    with tempfile.TemporaryDirectory(prefix="gitmem-hook-cost-") as tmp:
        hooked, plain, noop = Path(tmp) / "hooked", Path(tmp) / "plain", Path(tmp) / "noop"
        make_notebook(source, hooked, env, "gitmem")
        make_notebook(source, plain, env, "none")
        make_notebook(source, noop, env, "noop")
        with_hooks, without, with_noop, to_current = [], [], [], []
        order = [(hooked, with_hooks), (plain, without), (noop, with_noop)]
        common.log(f"{size}: {rounds} rounds of three commits")
        for n in range(rounds):
            for path, bucket in order[n % 3:] + order[:n % 3]:
                bucket.append(timed_commit(path, pages, n, env))
                if path == hooked:
                    started = time.perf_counter() - bucket[-1]
                    wait_current(path, git(path, "rev-parse", "HEAD").strip())
                    to_current.append(time.perf_counter() - started)
        common.log(f"{size}: {rebases} rebases of 30 commits each way")
        rebase_with = [rebase_time(hooked, env, True, rep) for rep in range(rebases)]
        rebase_without = [rebase_time(plain, env, False, rep) for rep in range(rebases)]
        rebase_noop = [rebase_time(noop, env, False, rep) for rep in range(rebases)]
    s = common.stats
    result = {
        "size": size, "rounds": rounds, "commit_without_hooks": s(without), "commit_with_empty_hooks": s(with_noop),
        "commit_with_hooks": s(with_hooks),
        "added_by_hooks_median_ms": round((statistics.median(with_hooks) - statistics.median(without)) * 1000, 1),
        "commit_to_index_current": s(to_current),
        "rebase_30_without_hooks": s(rebase_without), "rebase_30_with_empty_hooks": s(rebase_noop),
        "rebase_30_with_hooks": s(rebase_with),
    }
    rows = [[key.replace("_", " "), result[key]["median_ms"], result[key]["p95_ms"], result[key]["mean_ms"]]
            for key in ("commit_without_hooks", "commit_with_empty_hooks", "commit_with_hooks",
                        "commit_to_index_current", "rebase_30_without_hooks", "rebase_30_with_empty_hooks",
                        "rebase_30_with_hooks")]
    common.table(["", "median ms", "p95 ms", "mean ms"], rows,
                 f"git commit of a one-page change in the {size} notebook, {rounds} rounds")
    added, current = result["added_by_hooks_median_ms"], result["commit_to_index_current"]["median_ms"] / 1000
    result["targets"] = {"added_ms": added, "added_met": added < TARGET_ADDED_MS,
                         "current_s": current, "current_met": current <= TARGET_CURRENT_S}
    print(f"hooks add {added} ms to the median commit (target: under {TARGET_ADDED_MS} ms); the index is current "
          f"{current:.2f} s after the commit (median; target: <= {TARGET_CURRENT_S} s)\n")
    common.save("hook_cost", result)


if __name__ == "__main__":
    main()
