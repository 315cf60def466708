"""The relevance floor: unanswerable queries answered "no good match", and what it costs answerable ones.

Two notebooks: a SciFact subset (the first N test queries' relevant
abstracts plus other abstracts up to --docs; default 100 queries, 1,000
abstracts) and one LoCoMo conversation (its sessions, as locomo.py builds
them). Answerable: SciFact queries on SciFact, LoCoMo questions on LoCoMo.
Unanswerable: each corpus's questions asked of the other notebook. Every
query runs in hybrid mode with --min-score 0 (the floor off: today's
ranking, so nDCG@10 and recall@10 are today's by construction) and records
its confidence (gitmem/search/scale.py); the floor then turns every query
whose confidence is below it into "no good match". Reported: the share of
unanswerable queries answered "no good match", the share of answerable
queries lost that way, and nDCG@10 (SciFact) and evidence recall@10 (LoCoMo)
with and without the floor, for FLOOR and a sweep around it.

A subset, not the full benchmarks: on the shared 2-core machine the full
SciFact notebook takes longer to embed than there was time for (2026-11-23).

Run:  python benchmarks/floor.py [--queries 100] [--docs 1000] [--quick]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common, locomo, scifact  # noqa: E402

SWEEP = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def run(nb: Any, text: str, limit: int) -> tuple[list[dict], dict]:
    from gitmem import records
    from gitmem.search import engine as search

    query = search.Query(text, mode="hybrid", groups=common.Engine.GROUPS, limit=limit, min_score=0.0, detail=False)
    data = records.jsonable(search.run(nb, query))
    ranked = [{"path": r["path"], "start": r["lines"]["start"], "end": r["lines"]["end"]} for r in data["results"]]
    return ranked, data["evidence"]


def main() -> None:
    from gitmem.gitops.repo import open_notebook
    from gitmem.index import embed
    from gitmem.search import scale

    p = common.parser(__doc__)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--conversation", type=int, default=0)
    args = p.parse_args()
    if args.quick:
        args.queries, args.docs = 20, 200
    settings, _ = common.settings(argparse_defaults())
    env = common.setup()
    corpus, queries, qrels = scifact.load()
    qrels = dict(list(qrels.items())[:args.queries])
    keep = {d for rels in qrels.values() for d in rels}
    keep |= set([d["_id"] for d in corpus if d["_id"] not in keep][:max(0, args.docs - len(keep))])
    docs = [d for d in corpus if d["_id"] in keep]
    sf_path = common.cached_notebook(f"scifact{scifact.VERSION}-floor-{len(docs)}",
                                     lambda p: scifact.build(p, docs, settings), env)
    sample = json.loads(locomo.DATA.read_text())[args.conversation]
    lc_path = common.cached_notebook(f"locomo{locomo.VERSION}-{sample['sample_id']}",
                                     lambda p: locomo.build(p, sample, settings), env)
    sf, lc = open_notebook(sf_path), open_notebook(lc_path)
    embed.load(embed.resolve(sf.git))
    turns = locomo.evidence_map(sample)
    questions = [(str(q["question"]), locomo.evidence(q, turns)) for q in sample["qa"]]
    questions = [(q, ev) for q, ev in questions if ev]
    if args.quick:
        questions = questions[:40]
    rows: list[dict[str, Any]] = []
    for qid, rels in qrels.items():
        ranked, ev = run(sf, queries[qid], 10)
        rows.append({"set": "scifact", "answerable": True, "evidence": ev,
                     "quality": scifact.ndcg(scifact.docs_of(ranked), rels)})
        rows.append({"set": "scifact on locomo", "answerable": False, "evidence": run(lc, queries[qid], 10)[1]})
    for q, evidence in questions:
        ranked, ev = run(lc, q, 10)
        rows.append({"set": "locomo", "answerable": True, "evidence": ev, "quality": locomo.recall(ranked, evidence, 10)})
        rows.append({"set": "locomo on scifact", "answerable": False, "evidence": run(sf, q, 10)[1]})
    table = []
    for floor in sorted(set(SWEEP) | {scale.FLOOR}):
        row: list[Any] = [f"{floor:.2f}" + (" (default)" if floor == scale.FLOOR else "")]
        for name in ("scifact", "locomo"):
            ans = [r for r in rows if r["set"] == name]
            kept = [r["quality"] if r["evidence"]["confidence"] >= floor else 0.0 for r in ans]
            lost = sum(r["evidence"]["confidence"] < floor for r in ans) / len(ans)
            row += [round(sum(r["quality"] for r in ans) / len(ans), 4), round(sum(kept) / len(kept), 4),
                    f"{100 * lost:.1f}%"]
        for name in ("scifact on locomo", "locomo on scifact"):
            un = [r for r in rows if r["set"] == name]
            row.append(f"{100 * sum(r['evidence']['confidence'] < floor for r in un) / len(un):.1f}%")
        table.append(row)
    common.table(["floor", "SciFact nDCG@10", "with floor", "lost", "LoCoMo recall@10", "with floor", "lost",
                  "SciFact qs on LoCoMo: no match", "LoCoMo qs on SciFact: no match"], table,
                 f"relevance floor, hybrid: {len(qrels)} SciFact queries over {len(docs):,} abstracts, "
                 f"{len(questions)} LoCoMo questions ({sample['sample_id']})")
    common.save("floor", {"queries": len(qrels), "docs": len(docs), "questions": len(questions),
                          "constants": {k: getattr(scale, k) for k in ("COSINE_NONE", "COSINE_FULL", "KEYWORD_NONE",
                                                                        "KEYWORD_FULL", "FLOOR")},
                          "table": table, "rows": rows})


def argparse_defaults() -> Any:
    import argparse

    return argparse.Namespace(max_chars=None, overlap=None, fusion=None)


if __name__ == "__main__":
    main()
