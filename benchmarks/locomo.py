"""Retrieval quality on LoCoMo: evidence recall@5 and @10 of conversation search, against git grep.

Each of the four conversations in ../shared/bench-data/locomo-dev becomes a
notebook of session files (`sessions/YYYY-MM-DD-HHMM.md`, one per session,
in the shape `git mem session save` writes: a title, then one `Speaker: text`
turn per paragraph, a shared photo as its caption), each committed at the
session's date. Every question goes to `git mem search --json --limit 10
--min-score 0 --mode MODE`; its evidence recall@k is the fraction of the
question's evidence turns whose line is inside the line ranges of the first
k results. Scored overall and per category (1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial) for keyword, semantic and
hybrid, and for a `git grep` baseline: files ranked by how many of the
query's words (as recall's keyword side reads them) `git grep -i -F` finds in
them, more matching lines breaking ties; a file counts as returned whole.
k whole session files are about three times the text of k chunks, so the
baseline is also scored held to the characters hybrid returns at k for that
question ("same chars": its files in rank order, the last one cut at a line).
Questions whose evidence names no turn of the conversation are left out
(counted).

By default the questions run through the engine in this process (what the
CLI runs, model loaded once) and a sample through the real CLI, which must
agree result for result; --cli runs every question through the CLI.

Target: hybrid beats keyword by >= 5 points at @10 and beats git grep everywhere.

Run:  python benchmarks/locomo.py [--cli] [--quick]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from benchmarks.speed import grep_words  # noqa: E402

DATA = common.DATA / "locomo-dev" / "locomo-dev.json"
MODES = ("keyword", "semantic", "hybrid")
METHODS = MODES + ("git grep", "git grep, same chars")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10)
VERSION = 1  # of the notebook layout below
Turn = tuple[str, int]  # (path, line)


def sessions(conv: dict) -> list[tuple[int, datetime, list[dict]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and turns:
            when = datetime.strptime(conv[f"{key}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
            out.append((int(m.group(1)), when, turns))
    return sorted(out)


def session_page(n: int, when: datetime, turns: list[dict]) -> tuple[str, dict[str, int]]:
    """The session file's text and the line of each turn (dia_id -> line)."""
    lines = [f"# Session {n} — {when:%Y-%m-%d %H:%M}", ""]
    where = {}
    for t in turns:
        text = " ".join(t["text"].split())
        if t.get("blip_caption"):
            text += f" [shares a photo: {t['blip_caption']}]"
        where[t["dia_id"]] = len(lines) + 1
        lines += [f"{t['speaker']}: {text}", ""]
    return "\n".join(lines), where


def build(path: Path, sample: dict, settings: str) -> None:
    from tests.histories import Builder

    b = Builder()
    for i, (n, when, turns) in enumerate(sessions(sample["conversation"])):
        text, _ = session_page(n, when, turns)
        files = {f"sessions/{when:%Y-%m-%d-%H%M}.md": text}
        if i == 0:
            files[".gitmem.toml"] = settings
        b.commit(f"session {n}", when, files)
    b.write(path, notebook=False)


def evidence_map(sample: dict) -> dict[str, Turn]:
    out = {}
    for n, when, turns in sessions(sample["conversation"]):
        _, where = session_page(n, when, turns)
        out.update({dia: (f"sessions/{when:%Y-%m-%d-%H%M}.md", line) for dia, line in where.items()})
    return out


def evidence(item: dict, turns: dict[str, Turn]) -> list[Turn]:
    """The turns a question's evidence names (malformed ids like 'D8:6; D9:17' or 'D30:05' read leniently)."""
    ids = [m.groups() for e in item.get("evidence", []) for m in re.finditer(r"D(\d+):(\d+)", str(e))]
    return [turns[f"D{int(s)}:{int(t)}"] for s, t in ids if f"D{int(s)}:{int(t)}" in turns]


def grep_ranking(path: Path, question: str) -> list[dict]:
    """Files ranked by the number of the question's words git grep finds in them (ties: more matching lines)."""
    words = grep_words(question)
    if not words:
        return []
    proc = subprocess.run(["git", "grep", "-i", "-F", "-o", "-I", *(a for w in words for a in ("-e", w))],
                          cwd=path, capture_output=True, text=True)
    found: dict[str, set[str]] = defaultdict(set)
    hits: dict[str, int] = defaultdict(int)
    for line in proc.stdout.splitlines():
        file, _, match = line.partition(":")
        found[file].add(match.lower())
        hits[file] += 1
    ranked = sorted(found, key=lambda f: (-len(found[f]), -hits[f], f))
    out = []
    for f in ranked:
        text = (path / f).read_text()
        out.append({"path": f, "start": 1, "end": text.count("\n") + 1, "chars": len(text)})
    return out


def within(path: Path, files: list[dict], budget: int) -> list[dict]:
    """git grep's files in rank order, read from the top until `budget` characters are used up."""
    out = []
    for f in files:
        if budget <= 0:
            break
        if f["chars"] <= budget:
            out.append(f)
            budget -= f["chars"]
            continue
        lines = (path / f["path"]).read_text().split("\n")
        used = end = 0
        while end < len(lines) and used + len(lines[end]) + 1 <= budget:
            used += len(lines[end]) + 1
            end += 1
        if end:
            out.append({"path": f["path"], "start": 1, "end": end, "chars": used})
        break
    return out


def recall(results: list[dict], turns: list[Turn], k: int) -> float:
    top = results[:k]
    covered = sum(1 for p, line in turns if any(r["path"] == p and r["start"] <= line <= r["end"] for r in top))
    return covered / len(turns)


def score(path: Path, sample: dict, engine: common.Engine, use_cli: bool, env: dict[str, str]) -> list[dict]:
    """One row per question with evidence: its recall@k and text returned for every method."""
    turns = evidence_map(sample)
    rows = []
    for item in sample["qa"]:
        ev = evidence(item, turns)
        if not ev:
            continue
        q = str(item["question"])
        row = {"category": item["category"], "question": q, "evidence": len(ev)}
        found = {m: (engine.cli(q, m, max(KS), env) if use_cli else engine.search(q, m, max(KS))) for m in MODES}
        found["git grep"] = grep_ranking(path, q)
        for k in KS:
            for method, res in found.items():
                row[f"{method}@{k}"] = recall(res, ev, k)
                row[f"{method} chars@{k}"] = sum(r["chars"] for r in res[:k])
            # git grep held to the text hybrid returns at k: whole files, the last one cut
            same = within(path, found["git grep"], row[f"hybrid chars@{k}"])
            row[f"git grep, same chars@{k}"] = recall(same, ev, len(same))
            row[f"git grep, same chars chars@{k}"] = sum(r["chars"] for r in same)
        rows.append(row)
    return rows


def summarise(rows: list[dict]) -> dict:
    groups: dict[str, list[dict]] = {"all": rows}
    for c, name in CATEGORIES.items():
        groups[f"{c} {name}"] = [r for r in rows if r["category"] == c]
    out = {}
    for g, rs in groups.items():
        if rs:
            out[g] = {"questions": len(rs), **{f"{m}@{k}": round(100 * sum(r[f"{m}@{k}"] for r in rs) / len(rs), 1)
                                               for m in METHODS for k in KS}}
    out["chars_returned"] = {f"{m}@{k}": round(sum(r[f"{m} chars@{k}"] for r in rows) / len(rows))
                             for m in METHODS for k in KS}
    return out


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--cli", action="store_true", help="every question through `git mem search --json`")
    p.add_argument("--cli-sample", type=int, default=15, help="questions per conversation also run via the CLI")
    common.setting_options(p)
    args = p.parse_args()
    settings, suffix = common.settings(args)
    env = common.setup()
    samples = json.loads(DATA.read_text())
    if args.quick:
        samples = samples[:1]
        samples[0]["qa"] = samples[0]["qa"][:40]
    rows, agree, skipped = [], {"checked": 0, "identical": 0, "differing": []}, 0
    for sample in samples:
        path = common.cached_notebook(f"locomo{VERSION}-{sample['sample_id']}{suffix}",
                                      lambda p: build(p, sample, settings), env)
        engine = common.Engine(path, args.floor)
        common.log(f"{sample['sample_id']}: {len(sample['qa'])} questions {'via the CLI' if args.cli else ''}")
        got = score(path, sample, engine, args.cli, env)
        skipped += len(sample["qa"]) - len(got)
        rows += got
        if not args.cli:
            a = common.agreement(engine, [r["question"] for r in got[:args.cli_sample]], MODES, max(KS), env)
            agree = {"checked": agree["checked"] + a["checked"], "identical": agree["identical"] + a["identical"],
                     "differing": agree["differing"] + a["differing"]}
    s = summarise(rows)
    table = [[g, v["questions"], *(v[f"{m}@{k}"] for k in KS for m in METHODS)]
             for g, v in s.items() if g != "chars_returned"]
    table.append(["characters returned (mean)", None, *(s["chars_returned"][f"{m}@{k}"] for k in KS for m in METHODS)])
    common.table(["questions", "n", *(f"{m} @{k}" for k in KS for m in METHODS)], table,
                 f"LoCoMo evidence recall (%), {len(samples)} conversations, {len(rows)} questions "
                 f"({skipped} without usable evidence left out)")
    if not args.cli:
        print(f"CLI agreement: {agree['identical']}/{agree['checked']} question x mode rankings identical\n")
    cats = [g for g in s if g not in ("chars_returned",)]
    gap = s["all"]["hybrid@10"] - s["all"]["keyword@10"]
    beats = {b: [f"{g} @{k}" for g in cats for k in KS if s[g][f"hybrid@{k}"] <= s[g][f"{b}@{k}"]]
             for b in ("git grep", "git grep, same chars")}
    met = gap >= 5 and not beats["git grep"]
    print(f"target: hybrid - keyword @10 = {gap:+.1f} points (>= 5); hybrid not above git grep in: "
          f"{', '.join(beats['git grep']) or 'none'}; not above git grep held to the same text in: "
          f"{', '.join(beats['git grep, same chars']) or 'none'} -> {'met' if met else 'MISSED'}\n")
    common.save("locomo", {"quick": args.quick, "via_cli": args.cli, "settings": settings, "questions": len(rows),
                           "floor": args.floor,
                           "skipped": skipped,
                           "summary": s, "cli_agreement": None if args.cli else agree, "hybrid_minus_keyword_at_10": round(gap, 1),
                           "hybrid_not_above": beats, "target_met": met})


if __name__ == "__main__":
    main()
