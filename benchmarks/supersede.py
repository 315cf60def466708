"""Supersession on write: precision and recall of `remember` replacing the fact a new one updates.

The labelled set is tests/data/supersede.jsonl: pairs of an old line and a new
fact, labelled `update` (the new fact replaces the old: the same subject and
attribute with another value, or a preference that flips) or not (near
neighbours that must both stay: another person's phone, a work phone beside a
home phone, two likes of different things, a second child, the same value
said more fully). Each pair is judged the way `remember` judges it:
gitmem.notes.supersede.find() over a page holding the old line among other
lines, so a rule that fires on the wrong line counts as a wrong replacement.
A wrong replacement destroys a current fact: the target is precision >= 0.97.

Caveat: the rules and the set were written together (by the same person, on
2026-11-23), so the figures say the rules do what the set describes, not how
they fare on facts nobody anticipated.

Run:  python benchmarks/supersede.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "supersede.jsonl"
FILLER = ["# Notes", "", "- The office wifi is called Larch", "- Standup is daily at the office"]


def judge(old: str, new: str) -> bool:
    from gitmem.notes import supersede

    page = "\n".join([*FILLER, old, ""])
    found = supersede.find(page, new)
    return found is not None and found[1] == old


def main() -> None:
    p = common.parser(__doc__)
    p.parse_args()
    pairs = [json.loads(line) for line in DATA.open()]
    tp = fp = fn = tn = 0
    errors: Counter[str] = Counter()
    wrong: list[dict[str, str]] = []
    for pair in pairs:
        said = judge(pair["old"], pair["new"])
        if said and pair["update"]:
            tp += 1
        elif said:
            fp += 1
        elif pair["update"]:
            fn += 1
        else:
            tn += 1
        if said != pair["update"]:
            errors[pair["kind"]] += 1
            wrong.append({"old": pair["old"], "new": pair["new"], "labelled": pair["update"], "kind": pair["kind"]})
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    result = {"pairs": len(pairs), "updates": tp + fn, "neighbours": fp + tn, "true_positive": tp,
              "false_positive": fp, "false_negative": fn, "true_negative": tn,
              "precision": round(precision, 4), "recall": round(recall, 4), "errors_by_kind": dict(errors),
              "wrong": wrong}
    common.table(["pairs", "updates", "neighbours", "precision", "recall", "wrong replacements", "missed"],
                       [[len(pairs), tp + fn, fp + tn, f"{precision:.3f}", f"{recall:.3f}", fp, fn]],
                       title="supersession on remember (tests/data/supersede.jsonl)")
    for w in wrong:
        print(f"  {'missed' if w['labelled'] else 'WRONG '} [{w['kind']}] {w['old']!r} <- {w['new']!r}")
    common.save("supersede", {"machine": common.machine(), **result})


if __name__ == "__main__":
    main()
