"""Recall inside an agent's loop (issue 23): `git mem recall` as a process, with and without the
warm daemon, as ratios to a bare `python -c pass` and to `git grep` in the same run; warm
in-process hybrid; and commit -> findable with the daemon.

On a copy of the generated notebook (benchmarks/corpus.py, default 10k chunks):

- cold processes, in rotating order, query by query: `python -c pass`, `git grep -i -F -e WORD...`
  (the query's words), `git mem recall --json Q` hybrid and `--mode keyword`, first with no daemon
  (GITMEM_DAEMON=0: everything in the process), then with `git mem daemon start` running;
- warm: search.run in one process with the model loaded (speed.warm), p50 and p95;
- commit -> findable: with gitmem's hooks installed and the daemon running, a one-line change
  committed by `git commit`, then the index polled until that commit is indexed and its new
  text embedded (what a hybrid recall needs to find it), --commits times.

The load average (1 min) is recorded before and after each part: this machine is shared, and
every figure says what the load was when it was taken.

Run:  python benchmarks/agent_loop.py [--size 10k] [--runs 2] [--queries 20] [--commits 10] [--quick]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common, corpus, speed  # noqa: E402
from gitmem.index import memo  # noqa: E402

TARGETS = {"hybrid daemon / python": 8, "hybrid in-process / python": 40, "keyword daemon / python": 5,
           "keyword in-process / python": 12, "warm hybrid p50 ms": 15, "commit -> findable p50 s": 0.5}


def load() -> float:
    return round(os.getloadavg()[0], 2)


def cold(path: Path, queries: list[str], rounds: int, env: dict[str, str], daemon: bool) -> dict[str, list[float]]:
    exe = str(Path(sys.executable).parent / "git-mem")
    run_env = {**env, "GITMEM_DAEMON": "1" if daemon else "0"}
    kinds = {
        "python -c pass": lambda q: [sys.executable, "-c", "pass"],
        "git grep": lambda q: ["git", "grep", "-i", "-F", *(a for w in speed.grep_words(q) for a in ("-e", w))],
        "hybrid": lambda q: [exe, "recall", "--json", q],
        "keyword": lambda q: [exe, "recall", "--json", "--mode", "keyword", q],
    }
    return common.rotating(kinds, queries, rounds, path, run_env)


def summary(samples: dict[str, list[float]], before: float) -> dict:
    stats = {k: common.stats(v) for k, v in samples.items()}
    py, grep = stats["python -c pass"]["median_ms"], stats["git grep"]["median_ms"]
    return {"load_before": before, "load_after": load(), "stats": stats,
            "ratios": {k: {"python": round(stats[k]["median_ms"] / py, 1), "git grep": round(stats[k]["median_ms"] / grep, 1)}
                       for k in ("hybrid", "keyword")}}


def state(path: Path) -> tuple[str | None, int]:
    """(indexed commit, texts waiting for an embedding), straight from the index."""
    from gitmem.index import db

    conn = db.connect(path / ".git" / "gitmem" / "index.db")
    try:
        return db.get_meta(conn, "commit"), conn.execute("SELECT count(*) FROM texts WHERE embedded = 0").fetchone()[0]
    finally:
        conn.close()


def findable(path: Path, env: dict[str, str], commits: int) -> dict:
    """Seconds from `git commit` returning to the index holding the commit, its text embedded."""
    pages = sorted(str(p.relative_to(path)) for p in (path / "knowledge").glob("*.md"))[:20] or \
        sorted(str(p.relative_to(path)) for p in path.glob("*/*.md"))[:20]
    before = load()
    seconds = []
    for n in range(commits):
        page = path / pages[n % len(pages)]
        with page.open("a") as out:
            out.write(f"- Loop {n}: the keeper logged a northerly gale at {n % 24:02d}:00 near pier {n}.\n")
        common.git(path, "add", "-A", env=env)
        subprocess.run(["git", "commit", "-q", "-m", f"loop {n}"], cwd=path, env=env, check=True, capture_output=True)
        started = time.perf_counter()
        head = common.git(path, "rev-parse", "HEAD", env=env).strip()
        while True:
            commit, pending = state(path)
            if commit == head and pending == 0:
                break
            if time.perf_counter() - started > 120:
                raise SystemExit("the index did not catch up within 120 s")
            time.sleep(0.005)
        seconds.append(time.perf_counter() - started)
        time.sleep(0.3)
    return {"load_before": before, "load_after": load(), **common.stats(seconds)}


def settle(path: Path, env: dict[str, str]) -> None:
    """Wait (at most 120 s) until no hook's worker runs, the index is caught up, and its files are
    older than the window in which a warm process trusts nothing (index/memo.py)."""
    from gitmem.gitops import hookrun

    state = path / ".git" / "gitmem"
    deadline = time.monotonic() + 120
    while hookrun.busy(state) and time.monotonic() < deadline:
        time.sleep(0.2)
    common.git_mem(path, "index", env=env)
    while hookrun.busy(state) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(memo.RACY_SECONDS + 0.5)


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--size", default="10k")
    p.add_argument("--runs", type=int, default=2, help="rounds over the queries")
    p.add_argument("--queries", type=int, default=20)
    p.add_argument("--commits", type=int, default=10)
    args = p.parse_args()
    env = common.setup()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    rounds = 1 if args.quick else args.runs
    queries = corpus.queries(n=6 if args.quick else args.queries)
    source = common.notebook(common.size(args.size), env=env)
    result: dict = {"size": args.size, "counts": common.counts(source, env), "machine": common.machine()}
    with tempfile.TemporaryDirectory(prefix="gitmem-loop-") as tmp:
        path = Path(tmp) / "nb"
        shutil.copytree(source, path, symlinks=True)
        common.refresh(path)
        common.git_mem(path, "recall", "warm the page cache", env=env)
        common.log("cold processes, no daemon")
        before = load()
        result["in_process"] = summary(cold(path, queries, rounds, env, daemon=False), before)
        common.log("starting the daemon")
        common.git_mem(path, "daemon", "start", env=env)
        common.log("cold processes, daemon running")
        before = load()
        result["daemon"] = summary(cold(path, queries, rounds, env, daemon=True), before)
        common.log("commit -> findable, daemon running")
        common.git_mem(path, "hooks", "install", env=env)
        result["findable"] = findable(path, env, 3 if args.quick else args.commits)
        common.git_mem(path, "daemon", "stop", env=env)
        # the last commit's catch-up done and its writes settled: the warm figure is a notebook at
        # rest between commits (commit -> findable is measured above), not one still being written
        # (the hooks' worker went on writing for seconds after the index held the last commit)
        settle(path, env)
        common.log("warm in-process")
        before = load()
        warm = speed.warm(path, queries, rounds * 3)
        result["warm"] = {"load_before": before, "load_after": load(), **warm}
    rows = []
    for where in ("in_process", "daemon"):
        r = result[where]
        for kind in ("python -c pass", "git grep", "keyword", "hybrid"):
            s = r["stats"][kind]
            ratio = r["ratios"].get(kind)
            rows.append([where, kind, s["median_ms"], s["p95_ms"], f"{ratio['python']}x" if ratio else "",
                         f"{ratio['git grep']}x" if ratio else "", f"{r['load_before']}-{r['load_after']}"])
    common.table(["", "command", "p50 ms", "p95 ms", "/ python", "/ git grep", "load"], rows,
                 f"git mem recall as a process, {result['counts']['chunks']} chunks, {result['counts']['files']} files")
    w, f = result["warm"], result["findable"]
    checks = {"hybrid daemon / python": result["daemon"]["ratios"]["hybrid"]["python"],
              "hybrid in-process / python": result["in_process"]["ratios"]["hybrid"]["python"],
              "keyword daemon / python": result["daemon"]["ratios"]["keyword"]["python"],
              "keyword in-process / python": result["in_process"]["ratios"]["keyword"]["python"],
              "warm hybrid p50 ms": w["hybrid"]["median_ms"], "commit -> findable p50 s": round(f["median_ms"] / 1000, 3)}
    result["targets"] = [{"target": f"{k} <= {TARGETS[k]}", "measured": v, "met": v <= TARGETS[k]} for k, v in checks.items()]
    common.table(["target", "measured", "met"], [[t["target"], t["measured"], "yes" if t["met"] else "NO"]
                                                 for t in result["targets"]],
                 f"warm: keyword {w['keyword']['median_ms']} / hybrid {w['hybrid']['median_ms']} ms p50 "
                 f"(first round: {w['keyword']['first_round_median_ms']} / {w['hybrid']['first_round_median_ms']}) "
                 f"(load {w['load_before']}-{w['load_after']}); commit -> findable p50 {f['median_ms']} ms, "
                 f"p95 {f['p95_ms']} ms (load {f['load_before']}-{f['load_after']})")
    common.save("agent_loop", result)


if __name__ == "__main__":
    main()
