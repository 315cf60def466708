"""Checks shared by the hook and sync tests: is the index exactly what git says?"""

from __future__ import annotations

import os
import time
from pathlib import Path

from gitmem.gitops.git import blob_id
from gitmem.index.db import LIVE_VIEW
from gitmem.index.indexer import Index
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem, git


def wait_current(m: Mem, timeout: float = 90.0) -> dict:
    """Poll `status --json` until the index is current, no worker runs (hooks are asynchronous)
    and, when there is a model to embed with, nothing waits to be embedded."""
    embeds = "GITMEM_MODEL_DIR" in os.environ
    deadline = time.monotonic() + timeout
    while True:
        st = m.json("status", "--no-model")
        if st["index"]["state"] == "current" and (st["counts"]["pending_embeddings"] == 0 or not embeds):
            return st
        if time.monotonic() > deadline:
            raise AssertionError(f"index not current after {timeout}s: {st['index']}\n{hooks_log(m)}")
        time.sleep(0.05)


def hooks_log(m: Mem) -> str:
    log = Path(git(m.path, "rev-parse", "--absolute-git-dir").strip()) / "gitmem" / "hooks.log"
    return log.read_text() if log.exists() else ""


def disk_notes(m: Mem) -> dict[str, str]:
    """Every note in the work tree (tracked or not) and its blob id."""
    nb = open_notebook(m.path)
    found = {}
    for folder, dirs, files in os.walk(nb.root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(nb.root).as_posix()
            if nb.settings.is_note(rel) and path.is_file() and not path.is_symlink():
                found[rel] = blob_id(path.read_bytes())
    return found


def assert_exact(m: Mem) -> None:
    """The index's current view is the work tree, and its history is HEAD's first-parent chain."""
    nb = open_notebook(m.path)
    index = Index(nb)
    try:
        live = dict(index.conn.execute(f"SELECT v.path, b.oid FROM ({LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob"))
        chain = [oid for (oid,) in index.conn.execute("SELECT oid FROM commits ORDER BY seq")]
        indexed = index.meta("commit")
    finally:
        index.close()
    assert live == disk_notes(m)
    assert indexed == git(m.path, "rev-parse", "HEAD").strip()
    assert chain == git(m.path, "rev-list", "--first-parent", "--reverse", "HEAD").split()


def keyword(m: Mem, *words: str) -> list[str]:
    """Paths recall finds for these words (keyword mode: the model is not needed)."""
    out = m.json("recall", "--mode", "keyword", "--min-score", "0", *words)
    return sorted({hit["path"] for hit in out["results"]})
