"""Answers in other words: a personal + project notebook asked questions worded unlike its facts.

The set (benchmarks/sets/paraphrase.json, written before any tuning) holds the
notebook's pages, >= 150 fact/question pairs whose question shares at most one
content word with its fact (`--check` verifies it: words lower-cased, gitmem's
stop words dropped, crudely stemmed), and >= 40 questions the notebook cannot
answer. Every third item is held out: tuning looks only at the `tuning` part;
both parts are reported apart.

Each question runs through the engine at DEFAULT settings (recall's groups,
limit and min score). Reported per part:
- answer@1 / answer@3: the fact's line is among the lines of the first / first
  three results' facts;
- suppressed: answerable questions whose fact is not shown at all by default
  but is in the top 3 with the floor off (--min-score 0);
- no results: answerable questions answered with nothing;
- unanswerable flagged: unanswerable questions answered "no good match" or
  with weak matches only.

Run:  python benchmarks/paraphrase.py [--check] [--part tuning|held-out|all] [--show-misses]
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

SET = Path(__file__).resolve().parent / "sets" / "paraphrase.json"


def load() -> dict[str, Any]:
    return json.loads(SET.read_text())


def content_words(text: str) -> set[str]:
    from gitmem.search.hits import STOPWORDS

    def stem(w: str) -> str:
        for suffix in ("ing", "ies", "es", "s", "ed"):
            if len(w) > len(suffix) + 3 and w.endswith(suffix):
                return w[: -len(suffix)]
        return w

    return {stem(w) for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS and len(w) > 1}


def check(data: dict[str, Any]) -> list[str]:
    """Pairs whose question shares more than one content word with its fact, and facts not on their page."""
    bad = []
    for p in data["pairs"]:
        shared = content_words(p["fact"]) & content_words(p["question"])
        if len(shared) > 1:
            bad.append(f"{p['id']}: shares {sorted(shared)}: {p['question']!r}")
        if p["fact"] not in data["pages"][p["page"]].split("\n"):
            bad.append(f"{p['id']}: fact not on {p['page']}")
    return bad


def build(path: Path, data: dict[str, Any]) -> None:
    from tests.histories import Builder

    b = Builder()
    files = {".gitmem.toml": common.SETTINGS, **data["pages"]}
    b.commit("notebook", datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc), files)
    b.write(path, notebook=False)


def index_all(nb: Any) -> None:
    """Index and embed the notebook, as `git mem index` does (a notebook in use is embedded)."""
    from gitmem.index import embed, embeddings
    from gitmem.index.indexer import Index

    index = Index(nb)
    try:
        index.sync()
        embeddings.embed(index, embed.load(embed.resolve(nb.git)))
    finally:
        index.close()


def line_of(data: dict[str, Any], pair: dict[str, Any]) -> int:
    return data["pages"][pair["page"]].split("\n").index(pair["fact"]) + 1


def ask(nb: Any, text: str, min_score: float | None = None) -> Any:
    from gitmem.search import engine as search

    return search.run(nb, search.Query(text, min_score=min_score))


def rank_of(results: Any, page: str, line: int) -> int | None:
    """1-based rank of the first result whose fact (else chunk) lines hold the line on that page."""
    for i, hit in enumerate(results.results, start=1):
        lines = hit.fact.lines if hit.fact is not None else hit.lines
        if hit.path == page and lines["start"] <= line <= lines["end"]:
            return i
    return None


def weak_only(results: Any) -> bool:
    return not results.results or all(getattr(h, "weak", False) for h in results.results)


def evaluate(nb: Any, data: dict[str, Any], part: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    pairs = [p for p in data["pairs"] if part in ("all", p["split"])]
    unanswerable = [u for u in data["unanswerable"] if part in ("all", u["split"])]
    rows = []
    for p in pairs:
        line = line_of(data, p)
        res = ask(nb, p["question"])
        rank = rank_of(res, p["page"], line)
        open_rank = rank if rank is not None else rank_of(ask(nb, p["question"], 0.0), p["page"], line)
        rows.append({"id": p["id"], "question": p["question"], "fact": p["fact"], "rank": rank,
                     "floor_off_rank": open_rank, "results": len(res.results),
                     "weak": weak_only(res), "confidence": res.evidence.confidence if res.evidence else None,
                     "top": res.results[0].fact.text if res.results and res.results[0].fact else None})
    flagged = []
    for u in unanswerable:
        res = ask(nb, u["question"])
        flagged.append({"id": u["id"], "question": u["question"], "flagged": weak_only(res),
                        "results": len(res.results),
                        "confidence": res.evidence.confidence if res.evidence else None})
    n = len(rows) or 1
    summary = {
        "part": part, "answerable": len(rows), "unanswerable": len(flagged),
        "answer@1": round(sum(r["rank"] == 1 for r in rows) / n, 4),
        "answer@3": round(sum(r["rank"] is not None and r["rank"] <= 3 for r in rows) / n, 4),
        "answer@shown": round(sum(r["rank"] is not None for r in rows) / n, 4),
        "suppressed": sum(r["rank"] is None and r["floor_off_rank"] is not None and r["floor_off_rank"] <= 3
                          for r in rows),
        "no results": sum(r["results"] == 0 for r in rows),
        "answerable shown weak only": sum(r["weak"] and r["results"] > 0 for r in rows),
        "unanswerable flagged": round(sum(f["flagged"] for f in flagged) / (len(flagged) or 1), 4),
    }
    return summary, rows + flagged


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--check", action="store_true", help="only check the set's word overlap")
    p.add_argument("--part", default="tuning", choices=("tuning", "held-out", "all", "both"))
    p.add_argument("--show-misses", action="store_true")
    args = p.parse_args()
    data = load()
    bad = check(data)
    print(f"{len(data['pairs'])} pairs, {len(data['unanswerable'])} unanswerable; "
          f"{len(bad)} over the one-shared-word limit")
    for line in bad:
        print("  " + line)
    if args.check:
        sys.exit(1 if bad else 0)
    common.setup()
    from gitmem.gitops.repo import open_notebook

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "notebook"
        build(path, data)
        nb = open_notebook(path)
        index_all(nb)
        parts = ("tuning", "held-out") if args.part == "both" else (args.part,)
        out = {}
        for part in parts:
            summary, rows = evaluate(nb, data, part)
            out[part] = {"summary": summary, "rows": rows}
            print(json.dumps(summary))
            if args.show_misses:
                for r in rows:
                    if r.get("rank", 1) != 1 or r.get("flagged") is False:
                        print("  ", json.dumps(r, ensure_ascii=False))
        common.save("paraphrase", out)


if __name__ == "__main__":
    main()
