"""Routing on `remember`: how often a fact goes to the page a person would pick.

The labelled set is benchmarks/sets/routing.json: memories (contacts,
preferences, infrastructure, rules, todos, decisions, events, shopping,
facts) with the category a person would file each under, in two parts:
`tune` (the rules in gitmem/notes/routing.py were written against these) and
`heldout` (labelled before the rules and never used to tune them). Each is
judged the way `remember` routes it: gitmem.notes.routing.classify(). The
target is 90% on each part. Pass --misses to list the held-out misses too
(the tuned ones are always listed).

Run:  python benchmarks/routing.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

DATA = Path(__file__).resolve().parent / "sets" / "routing.json"


def score(items: list[dict[str, Any]]) -> dict[str, Any]:
    from gitmem.notes import routing

    wrong = []
    by_category: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for item in items:
        said, rule = routing.explain(item["text"])
        by_category[item["category"]] += 1
        if said == item["category"]:
            right[item["category"]] += 1
        else:
            wrong.append({"text": item["text"], "labelled": item["category"], "routed": said, "rule": rule})
    total = sum(by_category.values())
    return {"items": total, "right": total - len(wrong), "accuracy": round((total - len(wrong)) / total, 4),
            "by_category": {c: f"{right[c]}/{n}" for c, n in sorted(by_category.items())}, "wrong": wrong}


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--misses", action="store_true", help="list the held-out misses too")
    args = p.parse_args()
    items = json.loads(DATA.read_text())["items"]
    parts = {name: score([i for i in items if i["split"] == split])
             for name, split in (("tuned", "tune"), ("held out", "heldout"))}
    common.table(["part", "facts", "right", "accuracy"],
                 [[name, r["items"], r["right"], f"{r['accuracy']:.3f}"] for name, r in parts.items()],
                 title="routing on remember (benchmarks/sets/routing.json)")
    for name, r in parts.items():
        print(f"  {name} by category: " + ", ".join(f"{c} {v}" for c, v in r["by_category"].items()))
    for name, r in parts.items():
        if name == "tuned" or args.misses:
            for w in r["wrong"]:
                print(f"  {name}: {w['labelled']} -> {w['routed']} ({w['rule']}): {w['text']}")
    common.save("routing", {"machine": common.machine(), "parts": parts})


if __name__ == "__main__":
    main()
