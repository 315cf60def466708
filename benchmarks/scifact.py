"""Retrieval quality on BEIR SciFact: nDCG@10 and recall@100 for keyword, semantic and hybrid.

A notebook with one page per abstract (`abstracts/ID.md`: the title as its H1,
then the text; 5,183 pages, one commit), read from ../shared/bench-data at
run time and built in the benchmark cache, never in the repository. Each of
the 300 test queries goes to the search engine exactly as `git mem search
--json --limit 100 --min-score 0 --mode MODE` runs it (in this process, the
model loaded once; a sample also goes through the real CLI, and the two must
agree result for result). A document is retrieved at the rank of its best
chunk. nDCG@10 is the standard (trec_eval) formula on the graded qrels;
recall@100 counts the relevant documents among the documents of the first
100 results.

Published nDCG@10 anchors (BEIR, MTEB): BM25 0.665, all-MiniLM-L6-v2 about
0.645-0.674, bge-small-en-v1.5 0.713. Target with the int8 MiniLM:
hybrid >= 0.70 and above both single modes.

Run:  python benchmarks/scifact.py [--quick] [--cli-sample 10]
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

DATA = common.DATA / "scifact"
MODES = ("keyword", "semantic", "hybrid")
ANCHORS = {"BM25 (BEIR)": 0.665, "all-MiniLM-L6-v2 (MTEB)": "0.645-0.674", "bge-small-en-v1.5 (MTEB)": 0.713}
VERSION = 1  # of the notebook layout below


def load() -> tuple[list[dict], dict[str, str], dict[str, dict[str, int]]]:
    corpus = [json.loads(line) for line in (DATA / "corpus.jsonl").open()]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (DATA / "queries.jsonl").open())}
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in list((DATA / "qrels" / "test.tsv").open())[1:]:
        qid, doc, score = line.split()
        qrels[qid][doc] = int(score)
    return corpus, queries, dict(qrels)


def build(path: Path, corpus: list[dict], settings: str) -> None:
    pages = path / "abstracts"
    pages.mkdir(parents=True)
    (path / ".gitmem.toml").write_text(settings)
    for doc in corpus:
        title = " ".join(doc["title"].split()) or doc["_id"]
        (pages / f"{doc['_id']}.md").write_text(f"# {title}\n\n{doc['text'].strip()}\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "SciFact corpus"]):
        subprocess.run(["git", *args], cwd=path, check=True)


def ndcg(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sum(r / math.log2(i + 2) for i, r in enumerate(sorted(rels.values(), reverse=True)[:k]))
    return dcg / ideal if ideal else 0.0


def docs_of(results: list[dict]) -> list[str]:
    """Documents in the order of their best chunk."""
    return list(dict.fromkeys(Path(r["path"]).stem for r in results))


def evaluate(engine: common.Engine, queries: dict[str, str], qrels: dict[str, dict[str, int]]) -> dict:
    out = {}
    for mode in MODES:
        nd, rc = [], []
        for qid, rels in qrels.items():
            docs = docs_of(engine.search(queries[qid], mode, 100))
            nd.append(ndcg(docs, rels))
            rc.append(sum(1 for d in rels if d in docs[:100]) / len(rels))
        out[mode] = {"ndcg@10": round(sum(nd) / len(nd), 4), "recall@100": round(sum(rc) / len(rc), 4),
                     "queries": len(nd)}
        common.log(f"{mode}: nDCG@10 {out[mode]['ndcg@10']:.4f}  recall@100 {out[mode]['recall@100']:.4f}")
    return out


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--cli-sample", type=int, default=10, help="queries also run through the CLI (per mode)")
    common.setting_options(p)
    args = p.parse_args()
    settings, suffix = common.settings(args)
    env = common.setup()
    corpus, queries, qrels = load()
    if args.quick:  # the first 30 queries over their own relevant abstracts plus 300 others
        qrels = dict(list(qrels.items())[:30])
        keep = {d for rels in qrels.values() for d in rels} | {d["_id"] for d in corpus[:300]}
        corpus = [d for d in corpus if d["_id"] in keep]
    name = f"scifact{VERSION}-{len(corpus)}{suffix}"
    path = common.cached_notebook(name, lambda p: build(p, corpus, settings), env)
    engine = common.Engine(path, args.floor)
    scores = evaluate(engine, queries, qrels)
    sample = [queries[q] for q in list(qrels)[:args.cli_sample]]
    agree = common.agreement(engine, sample, MODES, 100, env)
    counts = common.counts(path, env)
    rows = [[f"gitmem {m}", scores[m]["ndcg@10"], scores[m]["recall@100"]] for m in MODES]
    rows += [[f"published: {k}", v, None] for k, v in ANCHORS.items()]
    common.table(["", "nDCG@10", "recall@100"], rows,
                 f"BEIR SciFact, {len(qrels)} test queries, {len(corpus):,} abstracts "
                 f"({counts['chunks']:,} chunks), model {common.machine()['model']}")
    print(f"CLI agreement: {agree['identical']}/{agree['checked']} query x mode rankings identical\n")
    h = scores["hybrid"]["ndcg@10"]
    met = h >= 0.70 and h > scores["keyword"]["ndcg@10"] and h > scores["semantic"]["ndcg@10"]
    print(f"target (hybrid >= 0.70 and above both single modes): {'met' if met else 'MISSED'} (hybrid {h:.4f})\n")
    common.save("scifact", {"quick": args.quick, "queries": len(qrels), "documents": len(corpus), "counts": counts,
                            "floor": args.floor,
                            "settings": settings, "scores": scores, "anchors": ANCHORS, "cli_agreement": agree, "target_met": met})


if __name__ == "__main__":
    main()
