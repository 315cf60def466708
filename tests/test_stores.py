"""Every store gitmem writes is covered by forget: each file it makes in the git dir and the work
tree, and each table of each of its databases, is listed here with how forget reaches it, and the
bytes of every one (SQLite free pages and WAL included) are searched for the forgotten text.

A store added later that this list does not name fails the test: say how forget covers it, then
add it here (and to 'Forgetting' in docs/safety.md)."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Iterator

import apsw
import pytest

from gitmem.index.db import _load_vec
from tests.conftest import Mem
from tests.llmserver import LLMServer

WORD = b"zanzibarquux"
SECRET = "The zanzibarquux vault code is 9911"
STATE = Path(".git") / "gitmem"

# file (a glob, in .git/gitmem) -> how forget covers it
FILES = {
    "index.db": "texts, FTS, vectors, chunks, links, roles purged; secure_delete, FTS optimize, WAL checkpoint",
    "index.db-wal": "checkpointed (TRUNCATE) after every purge",
    "index.db-shm": "WAL index: page numbers, no text",
    "embeddings.db": "embeddings of purged texts and of every text the index no longer holds; extracts blanked",
    "embeddings.db-wal": "checkpointed (TRUNCATE) after every purge",
    "embeddings.db-shm": "WAL index: page numbers, no text",
    "blames.db": "every kept blame dropped (secure_delete): a commit subject may quote the text",
    "blames.db-wal": "checkpointed (TRUNCATE) after the drop",
    "blames.db-shm": "WAL index: page numbers, no text",
    "confidence.db": "records of served facts holding forgotten text dropped (secure_delete)",
    "confidence.db-wal": "checkpointed (TRUNCATE) after the drop",
    "confidence.db-shm": "WAL index: page numbers, no text",
    "consolidate.json": "reasons kept with quoted values elided; strings quoting forgotten text withheld",
    "*.log": "lines quoting forgotten text withheld (error.log, hooks.log)",
    "forgotten": "salted hashes only",
    "*.lock": "empty lock files",
    "identity-noted": "a fixed sentence",
    "commit-index.*": "a private git index of one commit: paths and blob ids, removed after it",
    "plumbing-*.index": "a private git index of one merge: paths and blob ids, removed after it",
    "vectors-*.index": "a private git index of one embeddings commit: paths and blob ids, removed after it",
}
# database -> its tables (FTS5 and sqlite-vec shadow tables included)
TABLES = {
    "index.db": {"meta", "migrations", "blobs", "texts", "texts_fts", "texts_fts_config", "texts_fts_data",
                 "texts_fts_docsize", "texts_fts_idx", "chunks", "commits", "versions", "worktree", "origins",
                 "merged", "forgotten", "documents", "aliases", "links", "sqlite_sequence", "vectors", "vectors_chunks",
                 "vectors_info", "vectors_rowids", "vectors_vector_chunks00"},
    "embeddings.db": {"migrations", "embeddings", "extracts", "shared_blobs", "shared", "shared_state"},
    "confidence.db": {"migrations", "reinforced"},
    "blames.db": {"migrations", "blames"},
}


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMServer]:
    from gitmem.agent import llm as client

    server = LLMServer()
    monkeypatch.setenv("GITMEM_LLM_URL", server.url)
    monkeypatch.setenv("GITMEM_LLM_MODEL", "test-model")
    monkeypatch.setenv("GITMEM_LLM_TIMEOUT", "2")
    monkeypatch.setattr(client, "BACKOFF", 0.01)
    yield server
    server.close()


def covered(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in FILES)


def tables(path: Path) -> set[str]:
    conn = apsw.Connection(str(path))
    try:
        _load_vec(conn)
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def everywhere(mem: Mem) -> dict[str, bytes]:
    """Every file gitmem made (its state folder, and the work tree's files git does not track),
    checked against the lists above."""
    found = {}
    for path in sorted((mem.path / STATE).rglob("*")):
        if path.is_file():
            assert covered(path.name), f"{path.name}: a store forget does not cover (see this module's docstring)"
            found[str(path.relative_to(mem.path))] = path.read_bytes()
    for db, known in TABLES.items():
        if (mem.path / STATE / db).exists():
            extra = tables(mem.path / STATE / db) - known
            assert not extra, f"{db}: tables forget does not cover: {sorted(extra)}"
    loose = mem.git("status", "--porcelain", "--ignored", "--untracked-files=all").split("\n")
    assert [line for line in loose if line.strip()] == []  # no untracked file in the work tree
    for path in sorted((mem.path / ".git").rglob("*")):  # git's own files, and what gitmem adds there
        inside = path.relative_to(mem.path / ".git").parts
        if path.is_file() and inside[0] not in ("gitmem", "objects", "logs"):  # history: see docs/safety.md
            found[str(path.relative_to(mem.path))] = path.read_bytes()
    return found


def furnish(mem: Mem, llm: LLMServer, document: bool) -> None:
    """The secret in every store: a learned fact served to an agent, a document (then removed),
    a session whose consolidation failed quoting it, embeddings, the index."""
    # its line links a page: the index keeps that line with the link (index/links.py)
    mem.write("knowledge/facts.md", f"# Facts\n\n- {SECRET}, see [[vault]] "
                                    "<!-- gitmem: inferred 0.70 from sessions/s.md -->\n"
                                    "- Cats like warm windowsills\n")
    if document:
        mem.write("docs/vault.txt", f"{SECRET}, said the note by the door.\n")
        mem.write("docs/vault.html", f"<html><body><p>{SECRET}, said the page.</p></body></html>\n")
    mem.commit("facts")
    chat = [{"role": "user", "content": f"remember: {SECRET}", "timestamp": "2026-11-20T09:30:00+00:00"}]
    mem("session", "save", "--chat", "c1", input="\n".join(json.dumps(m) for m in chat) + "\n")
    llm.then(("json", {"facts": SECRET, "preferences": [], "corrections": [], "summary": "s", "topics": []}))
    run = mem.json("consolidate")
    assert run["sessions"][0]["status"] == "failed" and "zanzibarquux" in run["sessions"][0]["reason"]
    mem("index")
    hits = mem.json("recall", "zanzibarquux vault code")["results"]  # served: reinforced in confidence.db
    assert hits and any("zanzibarquux" in h["text"] for h in hits)
    if document:
        assert "zanzibarquux" in mem("get", "docs/vault.html").stdout  # extracted, cached
        mem.git("rm", "-q", "docs/vault.txt", "docs/vault.html")
        mem.git("commit", "-q", "-m", "the vault documents go")
        mem("index")
    assert any(WORD in data for data in everywhere(mem).values())


@pytest.mark.parametrize("how", ["forget", "forget PATH:LINE", "forget --everything"])
def test_forget_leaves_no_copy_in_any_store(mem: Mem, llm: LLMServer, how: str) -> None:
    furnish(mem, llm, document=how == "forget")
    if how == "forget":
        mem("forget", "--all", "--yes", "zanzibarquux vault")
    elif how == "forget PATH:LINE":
        mem("forget", "knowledge/facts.md:3")
        session = next(p for p in (mem.path / "sessions").rglob("*.md"))
        rel = str(session.relative_to(mem.path))
        number = next(i for i, line in enumerate(session.read_text().split("\n"), 1) if "zanzibarquux" in line)
        mem("forget", f"{rel}:{number}")
    else:
        mem("forget", "--everything", "--yes")
    mem("recall", "zanzibarquux vault code")  # a read after the forget brings nothing back
    leaks = [name for name, data in everywhere(mem).items() if WORD in data]
    assert leaks == []
    assert "zanzibarquux" not in "".join((mem.path / p).read_text() for p in mem.git("ls-files").split())
