"""Many writers, one git server: how long `git mem sync` takes to converge, and facts lost.

For N writers (1, 4, 8 by default) a bare repository is served by `git daemon` on 127.0.0.1
(started and stopped here) and cloned N times; every clone runs `git mem init`. Each writer then
remembers 25 facts (each its own commit, in knowledge/facts.md, the page they all share) in
batches of 5, running `git mem sync` after each batch, all writers at once as separate processes.
When every writer is done, each clone syncs again in turn until all hold the same commit (at most
3 rounds). Reported: wall time from the first write to convergence, the syncs run, the push
rounds they needed (more than one: the remote moved meanwhile), syncs that ran out of rounds (the
writer's next sync goes on), and facts lost: facts some writer remembered that the converged
notebook lacks (target 0), and conflict markers left (target 0).

Run:  python benchmarks/sync.py [--writers 1,4,8] [--facts 25] [--quick]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from tests.gitservers import GitDaemon, bare  # noqa: E402

BATCH = 5
ROUNDS = 3

WRITER = """
import json, subprocess, sys
from gitmem.gitops.repo import open_notebook
from gitmem.notes import memory
i, facts, batch = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
attempts, incomplete = [], 0
for start in range(0, facts, batch):
    nb = open_notebook(".")
    for k in range(start, min(facts, start + batch)):
        memory.remember(nb, f"Writer {i} planted bed {k} of the garden with w{i}k{k}x roses", keep_both=True)
    out = subprocess.run([sys.executable, "-P", "-m", "gitmem", "sync", "--json"], capture_output=True, text=True)
    if out.returncode and "kept moving" in out.stderr:  # bounded rounds ran out: the next sync goes on
        incomplete += 1
        continue
    if out.returncode:
        print(json.dumps({"error": out.stderr.strip()}))
        sys.exit(1)
    attempts.append(json.loads(out.stdout)["attempts"])
print(json.dumps({"attempts": attempts, "incomplete": incomplete}))
"""


def run(writers: int, facts: int, env: dict[str, str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="gitmem-sync-bench-") as tmp:
        base = Path(tmp) / "server"
        base.mkdir()
        bare(base)
        server = GitDaemon(base)
        try:
            clones = []
            for i in range(writers):
                path = Path(tmp) / f"c{i}"
                common.git(Path(tmp), "clone", "-q", server.url(), path.name, env=env)
                common.git_mem(path, "init", "--no-index", env=env)
                if i == 0:
                    common.git_mem(path, "sync", env=env)
                clones.append(path)
            for path in clones[1:]:
                common.git_mem(path, "sync", env=env)
            started = time.perf_counter()
            procs = [subprocess.Popen([sys.executable, "-P", "-c", WRITER, str(i), str(facts), str(BATCH)], cwd=path,
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for i, path in enumerate(clones)]
            results = []
            for proc in procs:
                out, err = proc.communicate(timeout=1800)
                results.append(json.loads(out.strip().splitlines()[-1]) if out.strip() else {"error": err})
            writing = time.perf_counter() - started
            extra = 0
            for _ in range(ROUNDS):
                if len({common.git(p, "rev-parse", "HEAD", env=env) for p in clones}) == 1:
                    break
                for path in clones:
                    common.git_mem(path, "sync", env=env)
                    extra += 1
            converged = time.perf_counter() - started
            heads = {common.git(p, "rev-parse", "HEAD", env=env) for p in clones}
            text = common.git(clones[0], "show", "HEAD:knowledge/facts.md", env=env)
            wanted = [f"w{i}k{k}x" for i in range(writers) for k in range(facts)]
            lost = [w for w in wanted if w not in text]
            attempts = [a for r in results for a in r.get("attempts", [])]
            return {"writers": writers, "facts_each": facts, "facts": len(wanted), "seconds_writing": round(writing, 2),
                    "seconds_to_converge": round(converged, 2), "converged": len(heads) == 1,
                    "syncs": len(attempts) + extra, "push_rounds": sum(attempts) + extra,
                    "syncs_retried": sum(1 for a in attempts if a > 1),
                    "syncs_incomplete": sum(int(r.get("incomplete", 0)) for r in results), "facts_lost": len(lost),
                    "conflict_markers": text.count("<<<<<<<"),
                    "errors": [r["error"] for r in results if "error" in r]}
        finally:
            server.stop()


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--writers", default="1,4,8", help="comma-separated writer counts [1,4,8]")
    p.add_argument("--facts", type=int, default=25, help="facts each writer remembers [25]")
    args = p.parse_args()
    env = common.setup()
    env["GITMEM_HOOKS"] = "0"  # the hooks' background indexing would compete with the writers
    counts = [1, 2] if args.quick else [int(n) for n in args.writers.split(",")]
    facts = 5 if args.quick else args.facts
    rows = []
    for n in counts:
        common.log(f"{n} writer(s) x {facts} facts")
        rows.append(run(n, facts, env))
    common.table(["writers", "facts", "s to converge", "syncs", "push rounds", "retried", "ran out", "lost",
                  "markers"],
                 [[r["writers"], r["facts"], r["seconds_to_converge"], r["syncs"], r["push_rounds"],
                   r["syncs_retried"], r["syncs_incomplete"], r["facts_lost"], r["conflict_markers"]] for r in rows],
                 title="git mem sync through git daemon on 127.0.0.1")
    common.save("sync", {"runs": rows})


if __name__ == "__main__":
    main()
