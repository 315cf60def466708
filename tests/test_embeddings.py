"""Embedding the index's texts (index/embeddings.py): a long run lets reads in between batches."""

from __future__ import annotations

import pytest

from gitmem.gitops.lock import FileLock
from gitmem.gitops.repo import open_notebook
from gitmem.index import embed, embeddings
from gitmem.index.indexer import Index
from tests.conftest import Mem


def _history(mem: Mem, versions: int) -> Index:
    for i in range(versions):
        mem.write("knowledge/log.md", f"# Log\n\n- entry number {i}\n")
        mem.commit(f"entry {i}")
    index = Index(open_notebook(mem.path))
    index.sync()
    return index


def test_a_long_run_lets_the_lock_go_between_batches(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process may take the write lock between two batches of a history embedded in the
    background (a read catching up with a new commit), and the run goes on after it."""
    index = _history(mem, 6)
    seen: list[bool] = []

    def pause(_seconds: float) -> None:  # what a reader polling for the lock meets in the pause
        other = FileLock(index.lock.path)
        seen.append(other.acquire(timeout=0))
        other.release()

    monkeypatch.setattr(embeddings, "EMBED_BATCH", 2)
    monkeypatch.setattr(embeddings, "_pause", pause)
    try:
        report = embeddings.embed(index, embed.load(embed.resolve(index.nb.git)), live_only=False)
        assert seen and all(seen)
        assert report.embedded + report.reused >= 6
        assert embeddings.waiting(index, embed.load(embed.resolve(index.nb.git))) == 0
    finally:
        index.close()


def test_a_read_keeps_the_lock_for_its_few_texts(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _history(mem, 6)
    paused: list[float] = []
    monkeypatch.setattr(embeddings, "EMBED_BATCH", 2)
    monkeypatch.setattr(embeddings, "_pause", paused.append)
    try:
        embeddings.embed(index, embed.load(embed.resolve(index.nb.git)), live_only=True)
        assert paused == []
    finally:
        index.close()
