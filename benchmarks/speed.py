"""Query speed: `git mem recall` against `git grep -i`, cold and warm, at 1k, 10k and 100k chunks.

On each generated notebook (benchmarks/corpus.py: daily logs, pages, sessions
and a history of edits; built once and cached with its embeddings):

- cold: `git mem recall --mode keyword Q`, `git mem recall Q` (hybrid, model
  load included) and `git grep -i -F -e WORD ...` for the same words (the
  query's words as recall's keyword side reads them: stopwords dropped), each
  a fresh process started as a shell starts it, in rotating order, same run;
- warm: `search.run` in one process with the model loaded, which is what
  each call to the MCP server runs (index catch-up check, candidates, both
  rankers, fusion, provenance).

Run:  python benchmarks/speed.py [--sizes 1k,10k,100k] [--rounds 2] [--quick]
The first run at a size builds and embeds its notebook (100k: about half an hour).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common, corpus  # noqa: E402

TARGETS = {"10k": {"keyword_cold_s": 0.3, "hybrid_cold_s": 1.0, "hybrid_warm_p50_ms": 30},
           "100k": {"hybrid_warm_p50_ms": 150}}


def grep_words(query: str) -> list[str]:
    """The words recall's keyword side searches for (see search/rankers.py fts_query)."""
    from gitmem.search.hits import STOPWORDS, WORD

    words = [w.lower() for w in WORD.findall(query)]
    return list(dict.fromkeys([w for w in words if w not in STOPWORDS] or words))


def cold(path: Path, queries: list[str], rounds: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Wall seconds of fresh processes, the three kinds interleaved query by query."""
    kinds = {
        "keyword": lambda q: ["git", "mem", "recall", "--mode", "keyword", q],
        "hybrid": lambda q: ["git", "mem", "recall", q],
        "git grep": lambda q: ["git", "grep", "-i", "-F", *(a for w in grep_words(q) for a in ("-e", w))],
    }
    return common.rotating(kinds, queries, rounds, path, env)


def warm(path: Path, queries: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """In one process, model loaded: what the MCP server runs per recall call."""
    from gitmem.index import embed, memo
    from gitmem.search import engine as search
    from gitmem.gitops.repo import open_notebook

    nb = open_notebook(path)
    embed.load(embed.resolve(nb.git))
    out = {}
    for mode in ("keyword", "hybrid"):
        search.run(nb, search.Query("gitmem warm-up", mode=mode))  # first call: opens caches, reads vectors
        # its catch-up may have written the index (a file read again, vectors of new text): a warm
        # process keeps nothing until the index's files are RACY_SECONDS old (index/memo.py), so
        # without the wait the first two seconds of samples measured a notebook being written
        time.sleep(memo.RACY_SECONDS + 0.5)
        samples, parts = [], []
        for q in queries * rounds:
            started = time.perf_counter()
            parts.append(search.run(nb, search.Query(q, mode=mode)).timing)
            samples.append(time.perf_counter() - started)
        # the first round asks each query for the first time: nothing of its own is kept yet
        # (its vector, its pages, their facts), as for an agent's new question
        first = common.stats(samples[:len(queries)])
        out[mode] = {**common.stats(samples), "first_round_median_ms": first["median_ms"],
                     "first_round_p95_ms": first["p95_ms"],
                     **{k: round(statistics.median(p[k] for p in parts), 1)
                        for k in ("index_ms", "model_ms", "search_ms")}}
    return out


def measure(size: str, rounds: int, queries: list[str], env: dict[str, str]) -> dict:
    path = common.notebook(common.size(size), env=env)
    counts = common.counts(path, env)
    common.log(f"{size}: cold processes ({rounds} x {len(queries)} queries x 3)")
    c = cold(path, queries, rounds, env)
    common.log(f"{size}: warm queries")
    w = warm(path, queries, rounds * 3)
    cs = {k: common.stats(v) for k, v in c.items()}
    grep = cs["git grep"]["median_ms"]
    return {"size": size, "counts": counts, "queries": queries, "cold": cs, "warm": w,
            "ratio_to_git_grep": {k: round(cs[k]["median_ms"] / grep, 1) for k in ("keyword", "hybrid")}}


def report(results: list[dict]) -> None:
    rows = []
    for r in results:
        for kind in ("keyword", "hybrid", "git grep"):
            s = r["cold"][kind]
            ratio = r["ratio_to_git_grep"].get(kind)
            rows.append([r["size"], r["counts"]["chunks"], f"cold {kind}", s["median_ms"], s["p95_ms"],
                         f"{ratio}x" if ratio else "1x"])
        for mode in ("keyword", "hybrid"):
            s = r["warm"][mode]
            rows.append([r["size"], r["counts"]["chunks"], f"warm {mode}", s["median_ms"], s["p95_ms"], None])
            rows.append([r["size"], r["counts"]["chunks"], f"warm {mode}, first round", s["first_round_median_ms"],
                         s["first_round_p95_ms"], None])
    common.table(["size", "chunks", "query", "p50 ms", "p95 ms", "vs git grep"], rows,
                 "git mem recall vs git grep -i (cold: fresh processes; warm: in-process, model loaded)")
    rows = [[r["size"], m, r["warm"][m]["index_ms"], r["warm"][m]["model_ms"], r["warm"][m]["search_ms"]]
            for r in results for m in ("keyword", "hybrid")]
    common.table(["size", "warm mode", "catch-up check ms", "model wait + pending ms", "rank ms"], rows,
                 "where a warm query's time goes (medians of Results.timing)")


def verdicts(results: list[dict]) -> list[dict]:
    out = []
    for r in results:
        t = TARGETS.get(r["size"], {})
        checks = {"keyword_cold_s": r["cold"]["keyword"]["median_ms"] / 1000,
                  "hybrid_cold_s": r["cold"]["hybrid"]["median_ms"] / 1000,
                  "hybrid_warm_p50_ms": r["warm"]["hybrid"]["median_ms"]}
        for key, limit in t.items():
            out.append({"size": r["size"], "target": f"{key} <= {limit}", "measured": round(checks[key], 3),
                        "met": checks[key] <= limit})
    return out


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--sizes", default="1k,10k,100k")
    p.add_argument("--rounds", type=int, default=2, help="cold runs per query and kind")
    p.add_argument("--queries", type=int, default=20, help="how many of the generated queries to ask")
    args = p.parse_args()
    env = common.setup()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if shutil.which("git-mem", path=env["PATH"]) is None:
        raise SystemExit("git-mem is not on PATH: pip install -e . in this virtualenv first")
    sizes = ["1k"] if args.quick else args.sizes.split(",")
    rounds = 1 if args.quick else args.rounds
    queries = corpus.queries(n=8 if args.quick else args.queries)
    results = [measure(size, rounds, queries, env) for size in sizes]
    report(results)
    checks = verdicts(results)
    if checks:
        common.table(["size", "target", "measured", "met"], [[c["size"], c["target"], c["measured"],
                                                              "yes" if c["met"] else "NO"] for c in checks])
    common.save("speed", {"rounds": rounds, "results": results, "targets": checks})


if __name__ == "__main__":
    main()
