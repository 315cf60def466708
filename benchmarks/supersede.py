"""Supersession on write: precision and recall of `remember` replacing the fact a new one updates.

The labelled sets are benchmarks/sets/supersede.jsonl (tuned: the rules were
written against it) and benchmarks/sets/supersede-heldout.jsonl (held out:
labelled before the rules for updates said in time were written, and never
used to tune them). Each holds pairs of an old line and a new fact, labelled
`update` (the new fact replaces the old: the same subject and attribute with
another value, a preference that flips, an update said in time such as "moved
to", "no longer", "switched from A to B", "is now", "as of") or not (near
neighbours that must both stay: another person's phone, another project's
date, a work phone beside a home phone, two likes of different things, "no
longer drinks soda" beside "prefers coffee"). Each pair is judged the way
`remember` judges it: gitmem.notes.supersede.find() over a page holding the
old line among other lines, so a rule that fires on the wrong line counts as a
wrong replacement. A wrong replacement destroys a current fact: the target is
precision >= 0.97 on both parts.

The second table judges the same pairs as recall links them when both lines
stay on a page (a line `remember` keeps because it says more, or lines a
person or Anthropic's memory tool wrote): the new line below the old in one
section, gitmem.search.current.successor().

Run:  python benchmarks/supersede.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

SETS = Path(__file__).resolve().parent / "sets"
PARTS = {"tuned": SETS / "supersede.jsonl", "held out": SETS / "supersede-heldout.jsonl"}
FILLER = ["# Notes", "", "- The office wifi is called Larch", "- Standup is daily at the office"]


def judge(old: str, new: str) -> bool:
    from gitmem import supersede

    page = "\n".join([*FILLER, old, ""])
    found = supersede.find(page, new)
    return found is not None and found[1] == old


def linked(old: str, new: str) -> bool:
    """Whether recall links the pair when both lines stay on a page, the new one below (the old
    line ranked under it and naming it: gitmem.search.current)."""
    from gitmem.search import current
    from gitmem.search.facts import Fact

    line = new if new.lstrip().startswith(("- ", "* ")) else f"- {new}"
    at = len(FILLER) + 1
    return current.successor("\n".join([*FILLER, old, line, ""]), Fact(old, {"start": at, "end": at}, ["Notes"])) \
        is not None


def score(pairs: list[dict[str, Any]], judge: Callable[[str, str], bool] = judge) -> dict[str, Any]:
    """Precision, recall and the pairs judged wrongly."""
    tp = fp = fn = tn = 0
    wrong: list[dict[str, Any]] = []
    for pair in pairs:
        said = judge(pair["old"], pair["new"])
        tp += said and pair["update"]
        fp += said and not pair["update"]
        fn += not said and pair["update"]
        tn += not said and not pair["update"]
        if said != pair["update"]:
            wrong.append({"old": pair["old"], "new": pair["new"], "labelled": pair["update"], "kind": pair["kind"]})
    return {"pairs": len(pairs), "updates": tp + fn, "neighbours": fp + tn, "true_positive": tp,
            "false_positive": fp, "false_negative": fn, "true_negative": tn,
            "precision": round(tp / (tp + fp) if tp + fp else 1.0, 4),
            "recall": round(tp / (tp + fn) if tp + fn else 1.0, 4), "wrong": wrong}


def main() -> None:
    p = common.parser(__doc__)
    p.parse_args()
    sets = {name: [json.loads(line) for line in path.open()] for name, path in PARTS.items()}
    results = {name: score(pairs) for name, pairs in sets.items()}
    links = {name: score(pairs, linked) for name, pairs in sets.items()}
    for title, found in (("supersession on remember", results), ("linked on recall, both lines kept", links)):
        common.table(["part", "pairs", "updates", "neighbours", "precision", "recall", "wrong", "missed"],
                     [[name, r["pairs"], r["updates"], r["neighbours"], f"{r['precision']:.3f}", f"{r['recall']:.3f}",
                       r["false_positive"], r["false_negative"]] for name, r in found.items()],
                     title=f"{title} (benchmarks/sets/supersede*.jsonl)")
        for name, r in found.items():
            for w in r["wrong"]:
                print(f"  {name}: {'missed' if w['labelled'] else 'WRONG '} [{w['kind']}] {w['old']!r} <- {w['new']!r}")
    common.save("supersede", {"machine": common.machine(), "parts": results, "linked": links})


if __name__ == "__main__":
    main()
