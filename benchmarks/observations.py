"""LoCoMo observations as a notebook, asked over MCP: answer@5 at default settings.

LoCoMo (../shared/bench-data/locomo-dev, read at run time) gives, per session,
observations about each speaker ("Caroline attended an LGBTQ support group
recently ...", with the dialogue turn it comes from). Each conversation becomes
a notebook: one page per speaker (people/NAME.md), a section per session date,
the observations as list items. The questions are those whose evidence turns
are among the observations (any of them). Every question goes to the real MCP
server (`git-mem mcp`, the installed entry point, over stdio: the `recall` tool with
nothing but the query and limit 5), and a question is answered when one of the
five results' PATH:LINES is an observation of one of its evidence turns.

Run:  python benchmarks/observations.py [--samples 4] [--questions N]
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

from benchmarks import common, locomo  # noqa: E402


def pages(sample: dict) -> tuple[dict[str, str], dict[str, set[tuple[str, int]]]]:
    """The notebook's pages, and for each dialogue turn the (page, line) of its observations."""
    conv = sample["conversation"]
    dates = {int(m.group(1)): conv[k] for k in conv if (m := re.fullmatch(r"session_(\d+)_date_time", k))}
    texts: dict[str, list[str]] = {}
    where: dict[str, set[tuple[str, int]]] = {}
    for key in sorted(sample["observation"], key=lambda k: int(re.findall(r"\d+", k)[0])):
        n = int(re.findall(r"\d+", key)[0])
        for speaker, items in sample["observation"][key].items():
            path = f"people/{speaker.lower()}.md"
            lines = texts.setdefault(path, [f"# {speaker}", ""])
            lines += [f"## {dates.get(n, f'session {n}')}", ""]
            for item in items:
                text, turns = item[0], item[1] if len(item) > 1 else ""
                lines.append("- " + " ".join(str(text).split()))
                for turn in re.findall(r"D\d+:\d+", str(turns)):
                    where.setdefault(turn, set()).add((path, len(lines)))
            lines.append("")
    return {p: "\n".join(ls) for p, ls in texts.items()}, where


def questions(sample: dict, where: dict[str, set[tuple[str, int]]]) -> list[tuple[str, set[tuple[str, int]]]]:
    out = []
    for q in sample["qa"]:
        turns = [f"D{int(s)}:{int(t)}" for e in q.get("evidence", []) for s, t in re.findall(r"D(\d+):(\d+)", str(e))]
        lines = set().union(*(where.get(t, set()) for t in turns)) if turns else set()
        if lines and q.get("question"):
            out.append((str(q["question"]), lines))
    return out


def build(path: Path, files: dict[str, str]) -> None:
    from tests.histories import Builder

    b = Builder()
    b.commit("observations", datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc),
             {".gitmem.toml": common.SETTINGS, **files})
    b.write(path, notebook=False)


def answered(result: dict[str, Any], lines: set[tuple[str, int]]) -> bool:
    for hit in result.get("results", [])[:5]:
        page, _, span = hit["where"].rpartition(":")
        lo, _, hi = span.partition("-")
        if any(p == page and int(lo) <= line <= int(hi or lo) for p, line in lines):
            return True
    return False


def ask_over_mcp(path: Path, asked: list[str]) -> tuple[list[dict[str, Any]], list[int]]:
    """Each question through the recall tool of one real MCP server over stdio; the replies and their sizes."""
    import os

    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    # the installed entry point beside this interpreter, as an agent's MCP configuration names it
    params = StdioServerParameters(command=str(Path(sys.executable).parent / "git-mem"), args=["mcp"],
                                   cwd=str(path), env=dict(os.environ))
    replies: list[dict[str, Any]] = []
    sizes: list[int] = []

    async def session() -> None:
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    for q in asked:
                        reply = await client.call_tool("recall", {"query": q, "limit": 5})
                        sizes.append(len(reply.content[0].text.encode()))
                        replies.append(json.loads(reply.content[0].text) if not reply.is_error else {})

    anyio.run(session)
    return replies, sizes


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--samples", type=int, default=4)
    p.add_argument("--questions", type=int, default=0, help="at most this many questions per sample (0: all)")
    args = p.parse_args()
    common.setup()
    from benchmarks.paraphrase import index_all
    from gitmem.gitops.repo import open_notebook

    data = json.loads(locomo.DATA.read_text())[:args.samples]
    rows = []
    for sample in data:
        files, where = pages(sample)
        asked = questions(sample, where)
        if args.questions:
            asked = asked[:args.questions]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "notebook"
            build(path, files)
            index_all(open_notebook(path))
            replies, sizes = ask_over_mcp(path, [q for q, _ in asked])
        hits = [answered(r, lines) for r, (_, lines) in zip(replies, asked)]
        weak = [bool(r.get("results")) and all(h.get("weak") for h in r["results"]) for r in replies]
        empty = [not r.get("results") for r in replies]
        rows.append({"sample": sample["sample_id"], "questions": len(asked),
                     "observations": sum(len(t.splitlines()) for t in files.values()),
                     "answer@5": round(sum(hits) / len(hits), 4), "empty": sum(empty), "weak only": sum(weak),
                     "reply bytes (median)": sorted(sizes)[len(sizes) // 2]})
        common.log(json.dumps(rows[-1]))
    total = sum(r["questions"] for r in rows)
    overall = round(sum(r["answer@5"] * r["questions"] for r in rows) / total, 4)
    common.table(["sample", "questions", "answer@5", "empty", "weak only", "reply bytes (median)"],
                 [[r["sample"], r["questions"], r["answer@5"], r["empty"], r["weak only"], r["reply bytes (median)"]]
                  for r in rows] + [["all", total, overall, sum(r["empty"] for r in rows),
                                     sum(r["weak only"] for r in rows), ""]],
                 "LoCoMo observations over MCP (recall, limit 5, default settings)")
    common.save("observations", {"rows": rows, "answer@5": overall, "questions": total})


if __name__ == "__main__":
    main()
