"""The lean cold path: a read imports only what it uses (no GitPython ever; no numpy, onnxruntime
or fastembed without the model; no fastembed even with a local model), and the catch-up check
of a current index costs one git call."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.gitops.git import Git
from gitmem.gitops.repo import open_notebook
from gitmem.index.indexer import Index
from tests.conftest import Mem

NEVER = ("git", "gitdb", "fastembed", "huggingface_hub", "requests", "httpx", "starlette", "uvicorn", "jinja2", "mcp")
MODEL = ("numpy", "onnxruntime", "tokenizers")


def imported(path: Path, *args: str) -> set[str]:
    """Top-level packages a fresh `python -m gitmem ARGS` imports (no daemon)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitmem", *args], cwd=path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "GITMEM_DAEMON": "0"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.fixture
def notebook(mem: Mem) -> Path:
    mem.write("people/sarah.md", "# Sarah\n\n- Sarah's phone is 555-1234\n")
    mem.commit("sarah")
    mem("index")
    return mem.path


@pytest.mark.parametrize("args, model", [
    (["recall", "--mode", "keyword", "Sarah"], False),
    (["search", "--mode", "keyword", "--json", "Sarah"], False),
    (["get", "people/sarah.md"], False),
    (["log", "-n", "3"], False),
    (["why", "people/sarah.md:3"], False),
    (["status", "--no-model"], False),
    (["recall", "Sarah"], True),
])
def test_a_read_imports_only_what_it_uses(notebook: Path, args: list[str], model: bool) -> None:
    found = imported(notebook, *args)
    assert "gitmem" in found
    assert found & set(NEVER) == set()
    assert (found & set(MODEL) == set(MODEL)) if model else (found & set(MODEL) == set())


def test_the_catch_up_check_of_a_current_index_is_one_git_call(notebook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = open_notebook(notebook)
    Index(nb).sync()
    calls: list[tuple[str, ...]] = []
    original = Git.call
    monkeypatch.setattr(Git, "call", lambda self, *a, **kw: calls.append(a) or original(self, *a, **kw))
    index = Index(nb)
    report = index.sync()
    index.close()
    assert report.commits == 0 and not report.stale
    assert [c[:2] for c in calls] == [("--no-optional-locks", "status")]


def test_blobs_and_head_without_a_library(notebook: Path) -> None:
    """Blobs come through one long-lived `git cat-file`; a missing one is a ValueError, as before."""
    g = Git.find(notebook)
    head = g.head()
    entry = next(e for e in g.tree(head, ".") if e.path == "people/sarah.md")
    assert g.read_blob(entry.oid) == (notebook / "people/sarah.md").read_bytes()
    assert g.blob_size(entry.oid) == len((notebook / "people/sarah.md").read_bytes())
    assert g.blob_or_none("0" * 40) is None
    with pytest.raises(ValueError):
        g.read_blob("1" * 40)
    assert g.read_blob(entry.oid) == (notebook / "people/sarah.md").read_bytes()  # the process survived
    assert not g.detached()
    assert "git" not in sys.modules or Git.__module__ == "gitmem.gitops.git"
