"""Code from a pull never runs: a `gitmem/` package committed in the notebook is never imported.

The notebook here commits `gitmem/__init__.py` (and a `sitecustomize.py`) whose import writes a
marker file outside the repository. Every verb, every hook fired by real git commands, the
merge driver, the background worker a read starts, the document extractor and both servers
run; the marker must never appear. The bait is checked first: a plain `python -m gitmem` in
the work tree does import it, so a test that sees no marker saw the isolation work.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitmem import launch
from tests.conftest import Mem, git
from tests.indexstate import hooks_log, wait_current

pytestmark = pytest.mark.tally("bad-input/fault matrix")

BIN = str(Path(sys.executable).parent)  # where git-mem is installed


def bait(top: Path, marker: Path) -> None:
    """A package named like gitmem (and a sitecustomize) whose import leaves the marker."""
    code = f"import sys\nopen({str(marker)!r}, 'a').write(repr(sys.argv) + '\\n')\n"
    (top / "gitmem").mkdir()
    (top / "gitmem" / "__init__.py").write_text(code)
    (top / "gitmem" / "__main__.py").write_text(code)
    (top / "sitecustomize.py").write_text(code)
    (top / "knowledge").mkdir(exist_ok=True)
    (top / "knowledge" / "manual.html").write_text(
        "<html><body><h1>Boiler</h1><p>The boiler pressure should read 1.5 bar.</p></body></html>\n")
    (top / "knowledge" / "ferns.md").write_text("# Ferns\n\n- The ferns want water on Sundays\n")


def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "GITMEM_HOOKS": "1"}


def real(top: Path, tmp_path: Path, *args: str, code: tuple[int, ...] = (0,)) -> str:
    """The real `git mem ARGS` (git finds git-mem on PATH), as a person runs it."""
    ran = subprocess.run(["git", "mem", *args], cwd=top, env=env(tmp_path), capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode in code, (args, ran.returncode, ran.stderr)
    return ran.stdout


@pytest.fixture
def poisoned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Mem, Path]:
    """A notebook with hooks on, the bait committed, and `[search] embed_on_read = 0`, so that
    any read with texts left to embed starts the background worker."""
    monkeypatch.setenv("GITMEM_HOOKS", "1")
    monkeypatch.setenv("PATH", f"{BIN}:{os.environ['PATH']}")
    marker = tmp_path / "marker"
    path = tmp_path / "notes"
    path.mkdir()
    m = Mem(path, monkeypatch)
    m("init", "--no-index", "--layout", "folders")
    bait(path, marker)
    config = path / ".gitmem.toml"
    config.write_text(config.read_text().replace("embed_on_read = 100", "embed_on_read = 0"))
    assert "embed_on_read = 0" in config.read_text()
    m.commit("notes, a manual, and a package named gitmem")
    wait_current(m)
    return m, marker


def test_the_bait_is_real(poisoned: tuple[Mem, Path]) -> None:
    """Without isolation the committed package runs: `python -m gitmem` in the work tree imports it."""
    m, marker = poisoned
    subprocess.run([sys.executable, "-m", "gitmem", "--help"], cwd=m.path, capture_output=True, timeout=60)
    assert marker.exists()
    marker.unlink()
    ran = subprocess.run(launch.python_command("gitmem", "--help"), cwd=m.path, capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0 and ran.stdout.startswith("Usage: git mem") and not marker.exists()


def test_hooks_fired_by_real_git_commands_never_import_it(poisoned: tuple[Mem, Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    m, marker = poisoned
    m.write("knowledge/tides.md", "- Spring tides peak two days after the full moon\n")
    m.commit("tides")  # post-commit
    m.git("commit", "-q", "--amend", "-m", "tides, amended")  # post-rewrite
    m.git("checkout", "-q", "-b", "side")  # post-checkout
    m.write("knowledge/side.html", "<p>A second manual about the kettle.</p>\n")
    m.commit("side manual")
    m.git("checkout", "-q", "main")
    m.git("merge", "-q", "--no-edit", "side")  # post-merge (a fast-forward)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(m.path), str(clone))
    real(clone, tmp_path, "init")  # installs the hooks in the clone
    m.write("knowledge/owls.html", "<p>The owls nest in the barn.</p>\n")
    m.commit("owls")
    git(clone, "pull", "-q", "--no-rebase")  # post-merge after a plain pull
    wait_current(m)
    pulled = Mem(clone, monkeypatch)
    wait_current(pulled)
    assert "post-merge: " in hooks_log(m) and "post-merge: indexed" in hooks_log(pulled)
    assert "failed" not in hooks_log(m) + hooks_log(pulled)
    assert not marker.exists(), marker.read_text()


def test_the_merge_driver_never_imports_it(poisoned: tuple[Mem, Path]) -> None:
    m, marker = poisoned
    day = "daily/2026-11-20.md"
    m.write(day, "# 2026-11-20\n\n## 09:00 — coffee\n")
    m.commit("day")
    m.git("checkout", "-q", "-b", "other")
    m.write(day, "# 2026-11-20\n\n## 09:00 — coffee\n\n## 10:00 — from the other branch\n")
    m.commit("other")
    m.git("checkout", "-q", "main")
    m.write(day, "# 2026-11-20\n\n## 09:00 — coffee\n\n## 11:00 — from main\n")
    m.commit("main")
    m.git("merge", "-q", "--no-edit", "other")  # the driver merges the two entries
    text = (m.path / day).read_text()
    assert "from the other branch" in text and "from main" in text
    wait_current(m)
    assert not marker.exists(), marker.read_text()


VERBS = [
    ["status"], ["index"], ["recall", "boiler pressure"], ["recall", "--mode", "semantic", "ferns water"],
    ["search", "--in", "documents", "boiler"], ["get", "knowledge/manual.html"], ["get", "knowledge/ferns.md"],
    ["remember", "The spare key is under the blue pot"], ["daily", "Watered the ferns"],
    ["write", "knowledge/plants.md", "--", "- The cactus wants no water"], ["forget", "The cactus wants no water"],
    ["why", "knowledge/ferns.md:3"], ["log"], ["context"], ["session", "save", "--chat", "7"], ["review"], ["consolidate"],
    ["confirm", "knowledge/ferns.md:3"], ["prune"], ["guard", "knowledge/ferns.md"],
    ["hooks", "status"], ["hooks", "install"], ["model", "download"], ["rebuild"], ["init"],
]


def test_every_verb_and_the_worker_a_read_starts_never_import_it(poisoned: tuple[Mem, Path]) -> None:
    """Each verb in process (the children it starts are what counts), then recall and index as the
    real command."""
    m, marker = poisoned
    for args in VERBS:
        given = "user: where is the key?\nassistant: under the blue pot\n" if args[0] == "session" else None
        result = m(*args, input=given, code=None)
        assert result.exit_code in (0, 1), (args, result.output)
    top = m.path
    out = real(top, top, "recall", "--json", "ferns")
    assert json.loads(out)["results"]
    wait_current(m)
    real(top, top, "index")
    assert not marker.exists(), marker.read_text()


def test_a_clone_then_init_and_recall_never_import_it(poisoned: tuple[Mem, Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    m, marker = poisoned
    for i in range(120):  # over 100 notes: the first recall leaves the embedding to the worker
        m.write(f"knowledge/n{i:03d}.md", f"# Note {i}\n\n- note number {i} about the garden\n")
    m.commit("many notes")
    clone = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(m.path), str(clone))
    real(clone, tmp_path, "init")
    out = json.loads(real(clone, tmp_path, "recall", "--json", "garden note"))
    assert out["results"]
    wait_current(Mem(clone, monkeypatch))
    assert not marker.exists(), marker.read_text()


def test_the_servers_never_import_it(poisoned: tuple[Mem, Path], tmp_path: Path) -> None:
    m, marker = poisoned
    serve = subprocess.Popen(["git", "mem", "serve", "--port", "0"], cwd=m.path, env=env(tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = _line(serve, 120)
        assert "http://127.0.0.1:" in line, line
        url = line[line.index("http://"):].split()[0]
        import urllib.request

        with urllib.request.urlopen(url, timeout=60) as answer:
            assert answer.status == 200
    finally:
        serve.terminate()
        serve.wait(timeout=60)
    mcp = subprocess.Popen(["git", "mem", "mcp"], cwd=m.path, env=env(tmp_path), stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                            "clientInfo": {"name": "test", "version": "1"}}}
        mcp.stdin.write(json.dumps(hello) + "\n")  # type: ignore[union-attr]
        mcp.stdin.flush()  # type: ignore[union-attr]
        assert json.loads(_line(mcp, 120))["id"] == 1
        mcp.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")  # type: ignore[union-attr]
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "recall", "arguments": {"query": "boiler pressure"}}}
        mcp.stdin.write(json.dumps(call) + "\n")  # type: ignore[union-attr]
        mcp.stdin.flush()  # type: ignore[union-attr]
        assert json.loads(_line(mcp, 120))["id"] == 2
    finally:
        mcp.stdin.close()  # type: ignore[union-attr]
        mcp.wait(timeout=60)
    assert not marker.exists(), marker.read_text()


def _line(proc: subprocess.Popen[str], seconds: float) -> str:
    """The next line the process prints (a test-side bound, so a hung server fails the test)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            return proc.stdout.readline()  # type: ignore[union-attr]
        assert proc.poll() is None, "the server ended"
    raise AssertionError("no line from the server")
