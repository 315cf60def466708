"""The write guard's false positives on real ordinary text: every SciFact abstract and every LoCoMo turn.

Nobody wrote these texts to fool the guard, so every line it flags is a false
positive. Each abstract is scanned whole (one line), and each chat turn,
observation, session summary and question as one line, the way `remember`
and `session save` would see them; the data is read
from ../shared/bench-data at run time, never copied. Prints lines scanned,
lines flagged and each flagged line with the rule that fired; `--quick` scans
the first 500 abstracts and the first conversation only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from gitmem.notes import guard  # noqa: E402


def texts(quick: bool) -> dict[str, list[str]]:
    """The benchmark texts by source, each flattened to one line."""
    abstracts = []
    with (common.DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8") as corpus:
        for number, line in enumerate(corpus):
            if quick and number >= 500:
                break
            abstracts.append(json.loads(line)["text"])
    turns, other = [], []
    samples = json.loads((common.DATA / "locomo-dev" / "locomo-dev.json").read_text(encoding="utf-8"))
    for sample in samples[:1] if quick else samples:
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [turn["text"] for turn in session]
        other += [o[0] for session in sample["observation"].values() for obs in session.values() for o in obs]
        other += list(sample["session_summary"].values()) + [q["question"] for q in sample["qa"]]
    flat = lambda items: [" ".join(t.split()) for t in items if t.strip()]  # noqa: E731
    return {"SciFact abstracts": flat(abstracts), "LoCoMo turns": flat(turns),
            "LoCoMo observations, summaries, questions": flat(other)}


def main() -> None:
    args = common.parser(__doc__).parse_args()
    rows, flagged_all, result = [], [], {"sources": {}}
    for source, lines in texts(args.quick).items():
        findings = guard.scan("\n".join(lines))
        flagged = sorted({f.line for f in findings})
        rows.append([source, len(lines), len(flagged)])
        result["sources"][source] = {"lines": len(lines), "flagged": len(flagged)}
        flagged_all += [(source, f.rule, f.excerpt) for f in findings]
    common.table(["source", "lines scanned", "lines flagged"], rows, "write guard false positives")
    for source, rule, excerpt in flagged_all:
        print(f"  {source}: {rule}: {excerpt}")
    result["findings"] = [list(f) for f in flagged_all]
    common.save("guard_fp", result)


if __name__ == "__main__":
    main()
