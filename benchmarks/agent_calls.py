"""How long an agent waits: cold `git mem` processes versus calls to one warm MCP server.

Run:  python benchmarks/agent_calls.py [--quick]

It makes a notebook of a few hundred facts in a temporary folder, then times,
in the same run: `git mem context`, `git mem session save` and `git mem recall`
as fresh processes, and `context` and `recall` as tool calls to one
`git mem mcp` server over stdio (first call and warm calls). Prints a table
of medians and p95s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

RUNS = 7
QUERIES = ["how do I reach Sarah", "what does the user drink", "when is the launch", "allergies",
           "project apollo status", "favourite restaurant", "who is Dana"]


def git_mem(cwd: Path, *args: str, stdin: str | None = None) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "gitmem", *args], cwd=cwd, input=stdin, text=True, check=True,
                   capture_output=True)
    return (time.perf_counter() - started) * 1000


def make_notebook(root: Path) -> None:
    subprocess.run([sys.executable, "-P", "-m", "gitmem", "init", "--layout", "folders", "--agent-instructions"],
                   cwd=root, check=True, capture_output=True)
    facts = "".join(f"- Fact {i}: person {i} likes topic {i % 17} and lives in city {i % 23}\n" for i in range(400))
    (root / "knowledge").mkdir(exist_ok=True)
    (root / "knowledge" / "facts.md").write_text("# Facts\n\n" + facts)
    (root / "reference" / "contacts.md").write_text("# Contacts\n\n- Sarah Chen's phone is 555-1234\n")
    (root / "MEMORY.md").write_text("# Memory\n\n" + facts[:6000])
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "facts"], cwd=root, check=True)
    subprocess.run([sys.executable, "-P", "-m", "gitmem", "index"], cwd=root, check=True, capture_output=True)


async def mcp_timings(root: Path) -> dict[str, list[float]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-P", "-m", "gitmem", "mcp"], cwd=str(root),
                                   env=dict(os.environ))
    out: dict[str, list[float]] = {"start": [], "first": [], "warm": [], "context": []}
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                out["start"].append((time.perf_counter() - started) * 1000)
                for i, query in enumerate(QUERIES):
                    t = time.perf_counter()
                    result = await client.call_tool("recall", {"query": query})
                    assert not result.is_error, result.content[0].text
                    out["first" if i == 0 else "warm"].append((time.perf_counter() - t) * 1000)
                for _ in range(RUNS):
                    t = time.perf_counter()
                    await client.call_tool("context", {})
                    out["context"].append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    global RUNS
    args = common.parser(__doc__).parse_args()
    if args.quick:
        RUNS = 3
    common.setup()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_notebook(root)
        transcript = "".join(f"user: question {i}\nassistant: answer {i}\n" for i in range(50))
        rows = [
            ("git mem context (process)", [git_mem(root, "context") for _ in range(RUNS)]),
            ("git mem session save (process, 100 messages)",
             [git_mem(root, "session", "save", "--chat", f"c{i}", stdin=transcript) for i in range(RUNS)]),
            ("git mem recall (process, hybrid)", [git_mem(root, "recall", q) for q in QUERIES]),
        ]
        mcp = anyio.run(mcp_timings, root)
        rows += [
            ("mcp: server start + initialize", mcp["start"]),
            ("mcp: first recall call", mcp["first"]),
            ("mcp: recall call, warm", mcp["warm"]),
            ("mcp: context call", mcp["context"]),
        ]
    stats = {name: common.stats([v / 1000 for v in values]) for name, values in rows}
    common.table(["operation", "median ms", "p95 ms", "runs"],
                 [[name, s["median_ms"], s["p95_ms"], s["n"]] for name, s in stats.items()],
                 "agent paths: cold processes vs one warm MCP server")
    common.save("agent_calls", {"results": stats})


if __name__ == "__main__":
    main()
