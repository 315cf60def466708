"""Anthropic's memory tool backed by the notebook: the SDK's own classes, and its tool runner
against a local scripted server that answers as the Messages API would (no network)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
from anthropic.lib.tools import ToolError  # noqa: E402
from anthropic.tools import BetaAbstractMemoryTool  # noqa: E402

from gitmem.agent.memory_tool import NotebookMemoryTool  # noqa: E402
from gitmem.gitops.repo import open_notebook  # noqa: E402
from gitmem.search import engine as search  # noqa: E402
from tests.conftest import Mem  # noqa: E402


def commits(mem: Mem) -> int:
    return int(mem.git("rev-list", "--count", "HEAD"))


@pytest.fixture
def tool(mem: Mem) -> NotebookMemoryTool:
    return NotebookMemoryTool(mem.path)


def test_it_is_the_sdks_memory_tool(tool: NotebookMemoryTool) -> None:
    assert isinstance(tool, BetaAbstractMemoryTool)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}


def test_each_write_is_one_commit_that_names_the_tool(mem: Mem, tool: NotebookMemoryTool) -> None:
    start = commits(mem)
    assert tool.call({"command": "create", "path": "/memories/trip.md", "file_text": "# Trip\n\nTrain at 08:04\n"}) \
        == "File created successfully at: /memories/trip.md"
    assert (mem.path / "memories/trip.md").read_text() == "# Trip\n\nTrain at 08:04\n"
    assert mem.git("log", "-1", "--format=%s%n%(trailers:only)") == \
        "mem: memory create memories/trip.md\nGitmem-Verb: memory\nGitmem-Tool: memory create\n\n"
    out = tool.call({"command": "str_replace", "path": "/memories/trip.md", "old_str": "08:04", "new_str": "09:10"})
    assert out.startswith("The memory file has been edited.") and "     3\tTrain at 09:10" in out
    assert tool.call({"command": "insert", "path": "/memories/trip.md", "insert_line": 1, "insert_text": "Lyon"}) \
        == "The file /memories/trip.md has been edited."
    assert (mem.path / "memories/trip.md").read_text() == "# Trip\nLyon\n\nTrain at 09:10\n"
    assert tool.call({"command": "rename", "old_path": "/memories/trip.md", "new_path": "/memories/old/trip.md"}) \
        == "Successfully renamed /memories/trip.md to /memories/old/trip.md"
    assert tool.call({"command": "delete", "path": "/memories/old"}) == "Successfully deleted /memories/old"
    assert commits(mem) == start + 5
    tools = mem.git("log", f"-{5}", "--format=%(trailers:key=Gitmem-Tool,valueonly)").split()
    assert [t for t in tools if t != "memory"] == ["delete", "rename", "insert", "str_replace", "create"]
    assert mem.git("status", "--porcelain") == "" and not (mem.path / "memories/old").exists()


def test_view_lists_and_numbers_lines(mem: Mem, tool: NotebookMemoryTool) -> None:
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\nthree\n"})
    listing = tool.call({"command": "view", "path": "/memories"})
    assert listing.startswith("Here're the files and directories up to 2 levels deep in /memories, excluding "
                              "hidden items:\n") and listing.endswith("\t/memories/a.md")
    assert tool.call({"command": "view", "path": "/memories/a.md", "view_range": [2, 3]}) == \
        "Here's the content of /memories/a.md with line numbers:\n     2\ttwo\n     3\tthree"


@pytest.mark.parametrize("command, error", [
    ({"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": "y"},
     "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 2. Please ensure it is unique"),
    ({"command": "str_replace", "path": "/memories/a.md", "old_str": "zzz", "new_str": "y"},
     "No replacement was performed, old_str `zzz` did not appear verbatim in /memories/a.md."),
    ({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"},
     "The destination /memories/b.md already exists"),
    ({"command": "delete", "path": "/memories"}, "Cannot delete the /memories directory itself"),
    ({"command": "create", "path": "/memories/a.md", "file_text": "again"}, "File /memories/a.md already exists"),
    ({"command": "view", "path": "/memories/nope.md"},
     "The path /memories/nope.md does not exist. Please provide a valid path."),
    ({"command": "insert", "path": "/memories/a.md", "insert_line": 9, "insert_text": "x"},
     "Invalid `insert_line` parameter: 9. It should be within the range [0, 2]."),
    ({"command": "create", "path": "/etc/passwd", "file_text": "x"}, "Path must start with /memories, got: /etc/passwd"),
    ({"command": "create", "path": "/memories/../../x.md", "file_text": "x"},
     "error: 'memories/../../x.md' leaves the notebook ('..') (use a path inside the notebook)"),
    ({"command": "create", "path": "/memories/.git/config.md", "file_text": "x"},
     "error: 'memories/.git/config.md' names a hidden file (gitmem pages cannot be hidden files (.git, .gitmem.toml))"),
    ({"command": "create", "path": "/memories/run.sh", "file_text": "x"},
     "/memories/run.sh is not a memory file gitmem keeps: name it with .md, e.g. /memories/notes.md"),
    # a newcomer's (2026-11-27): an AttributeError, and a 14 MB page that held the index 40 minutes
    ({"command": "create", "path": "/memories/c.md"}, "error: no text given (file_text is required)"),
    ({"command": "create", "path": "/memories/c.md", "file_text": "- line\n" * 200_000},
     "error: the file would hold 1,400,000 characters; a memory file holds at most 1,048,576: split it into "
     "smaller files"),
])
def test_errors_are_tool_results_in_the_sdks_words(mem: Mem, tool: NotebookMemoryTool, command: dict,
                                                   error: str) -> None:
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "x\nx\n"})
    tool.call({"command": "create", "path": "/memories/b.md", "file_text": "b\n"})
    start = commits(mem)
    with pytest.raises(ToolError) as caught:
        tool.call(command)
    assert str(caught.value) == error
    assert commits(mem) == start and (mem.path / "memories/a.md").read_text() == "x\nx\n"


def test_a_nul_from_the_agent_is_taken_out(mem: Mem, tool: NotebookMemoryTool) -> None:
    """It made the page a binary file, which gitmem then refused to read (a newcomer's, 2026-11-27)."""
    tool.call({"command": "create", "path": "/memories/nul.md", "file_text": "a\x00b\n"})
    assert (mem.path / "memories/nul.md").read_text() == "ab\n"
    assert mem("get", "memories/nul.md").stdout == "ab\n"


def test_no_symlinks_and_the_guard_applies(mem: Mem, tool: NotebookMemoryTool, tmp_path) -> None:
    (mem.path / "memories").mkdir()
    (tmp_path / "outside").mkdir()
    (mem.path / "memories/link").symlink_to(tmp_path / "outside")
    with pytest.raises(ToolError, match="symlink"):
        tool.call({"command": "create", "path": "/memories/link/x.md", "file_text": "x"})
    assert not (tmp_path / "outside/x.md").exists()
    with pytest.raises(ToolError, match="(?i)secret|refused|key"):
        tool.call({"command": "create", "path": "/memories/keys.md",
                   "file_text": "aws key AKIAIOSFODNN7EXAMPLE secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
    assert not (mem.path / "memories/keys.md").exists()


def test_what_it_writes_is_recalled_like_any_page(mem: Mem, tool: NotebookMemoryTool) -> None:
    tool.call({"command": "create", "path": "/memories/prefs.md", "file_text": "# Prefs\n\n- Likes oat milk\n"})
    found = search.run(open_notebook(mem.path), search.Query("oat milk", mode="keyword"))
    assert [h.path for h in found.results] == ["memories/prefs.md"]


def test_a_persons_uncommitted_edit_is_never_deleted(mem: Mem, tool: NotebookMemoryTool) -> None:
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a\n\nb\n\nc\n"})
    (mem.path / "memories/a.md").write_text("a\n\nb\n\nc\nmine, not committed\n")
    with pytest.raises(ToolError, match="changes not committed yet"):
        tool.call({"command": "delete", "path": "/memories/a.md"})
    assert (mem.path / "memories/a.md").read_text() == "a\n\nb\n\nc\nmine, not committed\n"
    tool.call({"command": "str_replace", "path": "/memories/a.md", "old_str": "a\n", "new_str": "A\n"})
    assert (mem.path / "memories/a.md").read_text() == "A\n\nb\n\nc\nmine, not committed\n"  # the edit stays
    assert mem.git("show", "HEAD:memories/a.md") == "A\n\nb\n\nc\n"  # ... and out of gitmem's commit


class Messages:
    """A local server answering POST /v1/messages as the Messages API would, from a script."""

    def __init__(self, script: list[list[dict[str, Any]]]) -> None:
        self.script, self.requests = list(script), []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                owner.requests.append(body)
                content = owner.script.pop(0)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
                data = json.dumps({"id": f"msg_{len(owner.requests)}", "type": "message", "role": "assistant",
                                   "model": body["model"], "content": content, "stop_reason": stop,
                                   "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def use(n: int, **command: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": command}


def test_end_to_end_with_the_sdks_tool_runner(mem: Mem) -> None:
    server = Messages([
        [use(1, command="view", path="/memories")],
        [use(2, command="create", path="/memories/user.md", file_text="# User\n\n- Prefers the 08:04 train\n")],
        [use(3, command="str_replace", path="/memories/user.md", old_str="- ", new_str="* ")],
        [use(4, command="delete", path="/memories")],
        [{"type": "text", "text": "Noted: you prefer the 08:04 train."}],
    ])
    try:
        client = anthropic.Anthropic(api_key="test", base_url=server.url, max_retries=0)
        runner = client.beta.messages.tool_runner(model="claude-test", max_tokens=256,
                                                  tools=[NotebookMemoryTool(mem.path)],
                                                  messages=[{"role": "user", "content": "I like the 08:04 train"}])
        final = runner.until_done()
    finally:
        server.close()
    assert final.content[0].text == "Noted: you prefer the 08:04 train."
    results = [m["content"][0] for r in server.requests[1:] for m in r["messages"][-1:]]
    assert [r.get("is_error", False) for r in results] == [False, False, False, True]
    assert results[0]["content"].startswith("Here're the files and directories")
    error = results[3]["content"]
    assert (error if isinstance(error, str) else error[0]["text"]) == "Cannot delete the /memories directory itself"
    assert (mem.path / "memories/user.md").read_text() == "# User\n\n* Prefers the 08:04 train\n"
    assert mem.git("log", "-2", "--format=%s").splitlines() == [
        "mem: memory str_replace memories/user.md", "mem: memory create memories/user.md"]


def test_without_the_sdk_the_import_says_how_to_add_it(tmp_path) -> None:
    import subprocess
    import sys

    (tmp_path / "anthropic").mkdir()
    (tmp_path / "anthropic" / "__init__.py").write_text("raise ImportError('no anthropic here')\n")
    code = "import gitmem.agent.memory_tool"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1
    assert "pip install 'gitmem-notebook[anthropic]'" in run.stderr


def test_a_file_git_does_not_hold_is_never_deleted(mem: Mem, tool: NotebookMemoryTool) -> None:
    mem.write("memories/mine.md", "# Mine\n\nwritten by hand, never committed\n")
    with pytest.raises(ToolError, match="changes not committed yet"):
        tool.call({"command": "delete", "path": "/memories/mine.md"})
    with pytest.raises(ToolError, match="changes not committed yet"):
        tool.call({"command": "rename", "old_path": "/memories/mine.md", "new_path": "/memories/x.md"})
    assert (mem.path / "memories/mine.md").read_text() == "# Mine\n\nwritten by hand, never committed\n"


def test_a_rename_never_replaces_a_file_made_at_its_new_name_meanwhile(mem: Mem, tool: NotebookMemoryTool,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An attack run (2026-11-27): the destination was checked, then os.rename replaced whatever was made
    there in between (a person's editor takes no lock). Here the check sees nothing, as in that moment."""
    import gitmem.agent.memory_tool as memory_tool

    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "# A\n"})
    (mem.path / "memories/b.md").write_text("# B, a person's\n")
    real = memory_tool.os.path.lexists
    monkeypatch.setattr(memory_tool.os.path, "lexists", lambda p: False if str(p).endswith("b.md") else real(p))
    with pytest.raises(ToolError, match="already exists"):
        tool.call({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"})
    assert (mem.path / "memories/b.md").read_text() == "# B, a person's\n"
    assert (mem.path / "memories/a.md").read_text() == "# A\n"
