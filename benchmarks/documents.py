"""Documents: extraction and indexing throughput, and SciFact nDCG@10 through PDFs and DOCX.

The SciFact abstracts (../shared/bench-data, read at run time) are written
into documents, about twenty abstracts a document, generated at run time into
the benchmark cache and never committed: PDFs (fpdf2, the DejaVu font when the
system has it, so that Greek letters and symbols survive) with each abstract's
title as a bold line and its text as a paragraph, flowing from page to page
like a printed report; and DOCX (python-docx) with each title a Heading 2.
Each set is one notebook, committed once and indexed by `git mem index`.

Measured:
- extraction: documents, pages, MB and seconds as gitmem extracts them (one
  fenced child process per document, the `extracts.seconds` the index
  records), and the wall time of the whole `git mem index` (sync, extraction,
  chunking, embedding) from an empty cache;
- quality: the 300 SciFact test queries through `search --in documents`
  (in-process, as scifact.py does), against the markdown notebook of
  scifact.py (one page per abstract). A result is a chunk of a document that
  can hold several abstracts, or part of one: it stands for the abstracts
  whose 6-word shingles it holds, most first, and an abstract is ranked at
  its best chunk.

Run:  python benchmarks/documents.py [--quick] [--queries N --others M] [--kinds pdf,docx]
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common, scifact  # noqa: E402

PER_DOCUMENT = 20
SHINGLE = 6
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
FONT_BOLD = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
WORDS = re.compile(r"\w+")
VERSION = 1


def batches(corpus: list[dict]) -> list[list[dict]]:
    return [corpus[i:i + PER_DOCUMENT] for i in range(0, len(corpus), PER_DOCUMENT)]


def make_pdf(docs: list[dict], out: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=15)
    if FONT.exists() and FONT_BOLD.exists():
        pdf.add_font("body", "", str(FONT))
        pdf.add_font("body", "B", str(FONT_BOLD))
        family, clean = "body", (lambda s: s)
    else:  # the core fonts hold Latin-1 only
        family, clean = "Helvetica", (lambda s: s.encode("latin-1", "replace").decode("latin-1"))
    pdf.add_page()
    for doc in docs:
        pdf.set_font(family, "B", 12)
        pdf.multi_cell(0, 6, clean(_title(doc)), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(family, "", 10)
        pdf.multi_cell(0, 5, clean(" ".join(doc["text"].split())), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    pdf.output(str(out))


def make_docx(docs: list[dict], out: Path) -> None:
    from docx import Document

    doc = Document()
    for item in docs:
        doc.add_heading(_title(item), 2)
        doc.add_paragraph(" ".join(item["text"].split()))
    doc.save(str(out))


def _title(doc: dict) -> str:
    return " ".join(doc["title"].split()) or doc["_id"]


def build(path: Path, corpus: list[dict], kind: str) -> None:
    folder = path / "papers"
    folder.mkdir(parents=True)
    (path / ".gitmem.toml").write_text(common.SETTINGS)
    make = make_pdf if kind == "pdf" else make_docx
    started = time.perf_counter()
    groups = batches(corpus)
    for n, docs in enumerate(groups):
        make(docs, folder / f"scifact-{n:04d}.{kind}")
    common.log(f"generated {len(groups)} {kind.upper()} files in {time.perf_counter() - started:.1f}s")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", f"SciFact as {kind}"]):
        common.git(path, *args)


class Shingles:
    """Which abstracts a chunk of extracted text holds, by 6-word shingles."""

    def __init__(self, corpus: list[dict]) -> None:
        self.owner: dict[tuple[str, ...], str] = {}
        for doc in corpus:
            words = WORDS.findall(f"{_title(doc)} {doc['text']}".lower())
            for i in range(max(1, len(words) - SHINGLE + 1)):
                self.owner.setdefault(tuple(words[i:i + SHINGLE]), doc["_id"])

    def abstracts(self, text: str) -> list[str]:
        words = WORDS.findall(text.lower())
        seen: dict[str, int] = {}
        for i in range(max(1, len(words) - SHINGLE + 1)):
            doc = self.owner.get(tuple(words[i:i + SHINGLE]))
            if doc:
                seen[doc] = seen.get(doc, 0) + 1
        return sorted(seen, key=lambda d: -seen[d])


def evaluate(path: Path, shingles: Shingles, queries: dict[str, str], qrels: dict[str, dict[str, int]],
             modes: tuple[str, ...]) -> dict[str, Any]:
    from gitmem import records
    from gitmem.gitops.repo import open_notebook
    from gitmem.index import embed
    from gitmem.search import engine as search

    nb = open_notebook(path)
    embed.load(embed.resolve(nb.git))
    out = {}
    for mode in modes:
        nd, rc = [], []
        for qid, rels in qrels.items():
            res = records.jsonable(search.run(nb, search.Query(queries[qid], mode=mode, groups=("documents",),
                                                               limit=100, min_score=0.0)))
            ranked = list(dict.fromkeys(d for r in res["results"] for d in shingles.abstracts(r["text"])))
            nd.append(scifact.ndcg(ranked, rels))
            rc.append(sum(1 for d in rels if d in ranked[:100]) / len(rels))
        out[mode] = {"ndcg@10": round(sum(nd) / len(nd), 4), "recall@100": round(sum(rc) / len(rc), 4)}
        common.log(f"{path.name} {mode}: nDCG@10 {out[mode]['ndcg@10']:.4f}  recall@100 {out[mode]['recall@100']:.4f}")
    return out


def extraction(path: Path) -> dict[str, Any]:
    """What the index recorded: documents, pages, bytes, extraction seconds (summed per document)."""
    import apsw

    cache = apsw.Connection(str(path / ".git" / "gitmem" / "embeddings.db"), flags=apsw.SQLITE_OPEN_READONLY)
    rows = cache.execute("SELECT pages, failed, seconds FROM extracts").fetchall()
    cache.close()
    status = json.loads(common.git_mem(path, "status", "--json").stdout)
    docs = status["documents"]
    seconds = sum(r[2] for r in rows)
    return {"documents": len(rows), "failed": sum(1 for r in rows if r[1]), "pages": docs["pages"],
            "bytes": docs["bytes"], "extract_seconds": round(seconds, 2),
            "docs_per_s": round(len(rows) / seconds, 2) if seconds else None,
            "pages_per_s": round(docs["pages"] / seconds, 1) if seconds and docs["pages"] else None,
            "mb_per_s": round(docs["bytes"] / 1e6 / seconds, 2) if seconds else None,
            "chunks": status["counts"]["chunks"]}


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--kinds", default="pdf,docx", help="document kinds to build (pdf, docx)")
    p.add_argument("--modes", default="keyword,semantic,hybrid")
    p.add_argument("--queries", type=int, help="only the first N test queries, over their relevant abstracts "
                                               "and --others more (--quick: 30 and 300)")
    p.add_argument("--others", type=int, default=300)
    args = p.parse_args()
    env = common.setup()
    corpus, queries, qrels = scifact.load()
    if args.quick or args.queries:
        qrels = dict(list(qrels.items())[:args.queries or 30])
        keep = {d for rels in qrels.values() for d in rels} | {d["_id"] for d in corpus[:args.others]}
        corpus = [d for d in corpus if d["_id"] in keep]
    modes = tuple(args.modes.split(","))
    shingles = Shingles(corpus)
    result: dict[str, Any] = {"quick": args.quick, "queries": len(qrels), "abstracts": len(corpus),
                              "per_document": PER_DOCUMENT, "machine": common.machine()}
    for kind in args.kinds.split(","):
        name = f"scifact-{kind}{VERSION}-{len(corpus)}"
        fresh = not (common.cache_dir() / "notebooks" / name / ".git" / "gitmem" / "built").exists()
        started = time.perf_counter()
        path = common.cached_notebook(name, lambda p, k=kind: build(p, corpus, k), env)
        wall = time.perf_counter() - started
        result[kind] = {"index_wall_seconds": round(wall, 1) if fresh else None, **extraction(path),
                        "scores": evaluate(path, shingles, queries, qrels, modes)}
    md_path = common.cached_notebook(f"scifact{scifact.VERSION}-{len(corpus)}",
                                     lambda p: scifact.build(p, corpus, common.SETTINGS), env)
    engine = common.Engine(md_path)
    md = {}
    for mode in modes:
        nd = [scifact.ndcg(scifact.docs_of(engine.search(queries[q], mode, 100)), rels) for q, rels in qrels.items()]
        md[mode] = {"ndcg@10": round(sum(nd) / len(nd), 4)}
    result["markdown"] = {"scores": md}
    rows = [[f"{k} {m}", result[k]["scores"][m]["ndcg@10"]] for k in [*args.kinds.split(","), "markdown"]
            for m in modes]
    common.table(["", "nDCG@10"], rows, f"SciFact through documents, {len(qrels)} queries, {len(corpus):,} abstracts")
    throughput = [[k, result[k]["documents"], result[k]["pages"], round(result[k]["bytes"] / 1e6, 1),
                   result[k]["extract_seconds"], result[k]["docs_per_s"], result[k]["pages_per_s"],
                   result[k]["index_wall_seconds"]] for k in args.kinds.split(",")]
    common.table(["kind", "docs", "pages", "MB", "extract s", "docs/s", "pages/s", "index wall s"], throughput,
                 "extraction (fenced child per document) and git mem index from an empty cache")
    common.save("documents", result)


if __name__ == "__main__":
    main()
