"""The index's embeddings: which chunk texts still wait for a vector, computed in batches and kept
in the embedding cache (by model and text hash, shared by worktrees, kept across rebuilds), so a
text is embedded once per model, ever."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import apsw

from . import db
from .blobs import text_hash
from .db import LIVE_VIEW
from .indexer import Index, SyncReport

if TYPE_CHECKING:
    from .embed import Embedder

EMBED_BATCH = 256


def embed(index: Index, embedder: Embedder, live_only: bool = True, wait: float | None = 10.0,
          progress: Callable[[int, int], None] | None = None, view: str = LIVE_VIEW) -> SyncReport:
    """Embed the texts that have no vector yet: those in `view` (the live
    view unless told otherwise), or all."""
    report = SyncReport()
    if not _pending_ids(index, live_only, embedder, limit=1, view=view):
        return report
    busy = "embeddings are being computed by another process; semantic results may be behind"
    if not index.lock_or_stale(wait, report, busy):
        return report
    try:
        with db.transaction(index.conn):
            _check_model(index, embedder)
        pending = _pending_ids(index, live_only, embedder, view=view)
        done = 0
        for i in range(0, len(pending), EMBED_BATCH):
            batch = pending[i:i + EMBED_BATCH]
            _embed_batch(index, embedder, batch, report)
            done += len(batch)
            if progress:
                progress(done, len(pending))
    finally:
        index.lock.release()
    return report


def _pending_ids(index: Index, live_only: bool, embedder: Embedder, limit: int = -1,
                 view: str = LIVE_VIEW) -> list[int]:
    if index.meta("model") not in (None, embedder.key):
        return [-1]  # a model change: everything is pending
    # shortest first (a batch is padded to its longest text), but a probe for whether
    # anything is pending (limit 1, every search) must not read every pending body
    order = "" if limit == 1 else "ORDER BY length(t.body), t.id"
    if live_only:
        sql = f"""SELECT DISTINCT t.id FROM ({view}) v JOIN chunks c ON c.blob = v.blob
                  JOIN texts t ON t.id = c.text WHERE t.embedded = 0 {order} LIMIT ?"""
    else:
        sql = f"SELECT t.id FROM texts t WHERE t.embedded = 0 {order} LIMIT ?"
    return [r[0] for r in index.conn.execute(sql, (limit,))]


def _check_model(index: Index, embedder: Embedder) -> None:
    """A different model: drop every vector; texts are re-embedded lazily."""
    if index.meta("model") != embedder.key:
        index.conn.execute("DROP TABLE IF EXISTS vectors")
        index.conn.execute("UPDATE texts SET embedded = 0 WHERE embedded = 1")
        db.set_meta(index.conn, "model", embedder.key)
        db.set_meta(index.conn, "dim", embedder.dim)
        db.vectors_changed(index.conn)
    db.ensure_vectors(index.conn, embedder.dim)


def _embed_batch(index: Index, embedder: Embedder, ids: list[int], report: SyncReport) -> None:
    marks = ",".join("?" * len(ids))
    rows = index.conn.execute(f"SELECT id, hash, body FROM texts WHERE id IN ({marks})", ids).fetchall()
    vectors, computed = _through_cache(index, embedder, {digest: body for _, digest, body in rows})
    with db.transaction(index.conn):
        for tid, digest, _ in rows:
            index.conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
            index.conn.execute("INSERT INTO vectors(rowid, embedding) VALUES(?, ?)", (tid, vectors[digest]))
            index.conn.execute("UPDATE texts SET embedded = 1 WHERE id = ?", (tid,))
        db.vectors_changed(index.conn)
        db.bump_meta(index.conn, "embeddings_computed", computed)
        db.bump_meta(index.conn, "embeddings_reused", len(rows) - computed)
    report.embedded += computed
    report.reused += len(rows) - computed


def vectors_of(index: Index, embedder: Embedder, texts: list[str]) -> list[bytes]:
    """Vectors of arbitrary texts (not chunks: a fact a query weighs, a commit's diff for log
    --grep) through the embedding cache, so that a text is embedded once, ever; straight from
    the model when the cache cannot be written (read-only or full disk, a long writer): that
    only costs the embedding again."""
    keyed = {text_hash(t): t for t in texts}
    try:
        found, _ = _through_cache(index, embedder, keyed)
    except (apsw.Error, OSError):
        return embedder.embed(texts)
    return [found[text_hash(t)] for t in texts]


def _through_cache(index: Index, embedder: Embedder, texts: dict[str, str]) -> tuple[dict[str, bytes], int]:
    """hash -> vector for these texts (by hash): from the cache, the rest embedded and cached.
    Also how many were embedded."""
    cached = _cached_vectors(index, embedder.key, list(texts))
    missing = [(h, t) for h, t in texts.items() if h not in cached]
    if missing:
        vectors = embedder.embed([t for _, t in missing])
        with db.transaction(index.cache):
            index.cache.executemany("INSERT OR REPLACE INTO embeddings VALUES(?, ?, ?)",
                                    [(embedder.key, h, v) for (h, _), v in zip(missing, vectors)])
        cached.update({h: v for (h, _), v in zip(missing, vectors)})
    return cached, len(missing)


def _cached_vectors(index: Index, model: str, hashes: list[str]) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for i in range(0, len(hashes), 500):
        part = hashes[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(index.cache.execute(
            f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})", [model, *part]))
    return found
