"""The index's embeddings: which chunk texts still wait for a vector, computed in batches and kept
in the embedding cache (by model and text hash, shared by worktrees, kept across rebuilds), so a
text is embedded once per model, ever."""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import apsw

from ..errors import GitmemError
from . import chunks, db, sharing, weighed
from .blobs import text_hash
from .db import LIVE_VIEW
from .indexer import Index, SyncReport

if TYPE_CHECKING:
    from .embed import Embedder

EMBED_BATCH = 256


def embed(index: Index, embedder: Embedder, live_only: bool = True, wait: float | None = 10.0,
          progress: Callable[[int, int], None] | None = None, view: str = LIVE_VIEW) -> SyncReport:
    """Embed the texts that have no vector yet: those in `view` (the live
    view unless told otherwise), or all; and the facts search weighs on those texts' pages
    (weighed.py) into the embedding cache. Embedding all weighs every page once per rule."""
    report = SyncReport()
    every = not live_only and index.meta("weighed") != weighed.VERSION
    if not every and not _pending_ids(index, live_only, embedder, limit=1, view=view):
        return report
    busy = "embeddings are being computed by another process; semantic results may be behind"
    if not index.lock_or_stale(wait, report, busy):
        return report
    held = True
    try:
        # pages are read with the forgotten lines blanked: a forget may have landed since this
        # Index was opened, and a stale record would put the forgotten line's vector back
        index.reload_forgotten()
        with db.transaction(index.conn):
            _check_model(index, embedder)
        # the pages before vectors are adopted: an adopted text is no longer pending, its page's facts are
        pages = weighed.every_blob(index.conn) if every else chunks.blobs_holding(
            index.conn, _pending_ids(index, live_only, embedder, view=view))
        _adopt(index, embedder, report)
        pending = _pending_rows(index, live_only, embedder, view=view)
        facts = _uncached(index, embedder, weighed.of_blobs(index, pages))
        # texts and facts in one order, shortest first: a batch is padded to its longest text
        work = list(heapq.merge(((n, tid, "") for tid, n in pending), ((len(t), h, t) for h, t in facts),
                                key=lambda item: item[0]))
        for i in range(0, len(work), EMBED_BATCH):
            batch = work[i:i + EMBED_BATCH]
            _embed_batch(index, embedder, [w[1] for w in batch if isinstance(w[1], int)],
                         {w[1]: w[2] for w in batch if isinstance(w[1], str)}, report)
            if progress:
                progress(i + len(batch), len(work))
            if not live_only and i + EMBED_BATCH < len(work):
                held, go_on = _let_readers_in(index, wait)
                if not go_on:
                    return report  # the rest waits for the next catch-up
        if every:
            with db.transaction(index.conn):
                db.set_meta(index.conn, "weighed", weighed.VERSION)
    finally:
        if held:
            index.lock.release()
    return report


YIELD_SECONDS = 0.1  # between two batches of a bulk run: five times the lock's poll (gitops/lock.py)
_pause = time.sleep  # the pause itself (tests look into it)


def _let_readers_in(index: Index, wait: float | None) -> tuple[bool, bool]:
    """Between two batches of a long run (a history embedded in the background: minutes), the
    write lock is let go for a moment, so that a read catches up with a new commit instead of
    answering from the index as it was (a newcomer's recall answered the old value for minutes).
    (whether the lock is held again, whether to go on): not when the lock was not had back
    within `wait`, nor when a forget landed meanwhile (pages read for facts may hold its line)."""
    before = index.forgotten.key
    index.lock.release()
    _pause(YIELD_SECONDS)
    if not index.lock.acquire(timeout=wait):
        return False, False
    index.reload_forgotten()
    return True, index.forgotten.key == before


def _uncached(index: Index, embedder: Embedder, texts: dict[str, str]) -> list[tuple[str, str]]:
    """(hash, text) of those texts the embedding cache holds no vector of, shortest first (a
    batch is padded to its longest text)."""
    held = sharing.cached(index, embedder.key, list(texts))
    return sorted(((h, t) for h, t in texts.items() if h not in held), key=lambda item: (len(item[1]), item[0]))


def _adopt(index: Index, embedder: Embedder, report: SyncReport) -> None:
    """Vectors another clone computed (refs/gitmem/embeddings) into the cache, before embedding;
    a ref that cannot be read costs only the embedding."""
    try:
        sharing.adopt(index, embedder)
    except (GitmemError, apsw.Error, OSError) as exc:
        report.notes.append(f"shared embeddings (refs/gitmem/embeddings) could not be read: {exc}")


PROBED_BLOBS = 500  # pages holding waiting texts that view_waits looks up itself


def view_waits(index: Index, view: str, chunks_only: bool = False) -> bool | None:
    """Whether any text of `view` waits for its vector; None when too many pages do to tell
    cheaply (then count). Every search asks: joining the view to its chunks took 15-30 ms at
    10k chunks, where the few waiting texts (the partial index texts_pending) and their pages
    take well under one."""
    only = "AND c.fact = 0" if chunks_only else ""
    blobs = [r[0] for r in index.conn.execute(
        f"""SELECT DISTINCT c.blob FROM texts t CROSS JOIN chunks c ON c.text = t.id
             WHERE t.embedded = 0 {only} LIMIT ?""", (PROBED_BLOBS + 1,))]
    if not blobs:
        return False
    if len(blobs) > PROBED_BLOBS:
        return None
    marks = ",".join("?" * len(blobs))
    return index.conn.execute(f"SELECT 1 FROM ({view}) v WHERE v.blob IN ({marks}) LIMIT 1",
                              blobs).fetchone() is not None


def waiting(index: Index, embedder: Embedder) -> int:
    """How many texts, of every version the index holds, wait for a vector the model must compute:
    one the embedding cache holds (shared through git, or kept by a rebuild) is no wait."""
    hashes = [r[0] for r in index.conn.execute("SELECT hash FROM texts WHERE embedded = 0")]
    return len(hashes) - len(sharing.held(index, embedder.key, hashes))


def _pending_ids(index: Index, live_only: bool, embedder: Embedder, limit: int = -1,
                 view: str = LIVE_VIEW) -> list[int]:
    return [tid for tid, _ in _pending_rows(index, live_only, embedder, limit, view)]


def _pending_rows(index: Index, live_only: bool, embedder: Embedder, limit: int = -1,
                  view: str = LIVE_VIEW) -> list[tuple[int, int]]:
    """(id, length) of the texts waiting for a vector, shortest first."""
    if index.meta("model") not in (None, embedder.key):
        return [(-1, 0)]  # a model change: everything is pending
    if live_only and view_waits(index, view) is False:
        return []
    # shortest first (a batch is padded to its longest text), but a probe for whether
    # anything is pending (limit 1, every search) must not read every pending body
    order = "" if limit == 1 else "ORDER BY length(t.body), t.id"
    if live_only:
        sql = f"""SELECT DISTINCT t.id, length(t.body) FROM ({view}) v JOIN chunks c ON c.blob = v.blob
                  JOIN texts t ON t.id = c.text WHERE t.embedded = 0 {order} LIMIT ?"""
    else:
        sql = f"SELECT t.id, length(t.body) FROM texts t WHERE t.embedded = 0 {order} LIMIT ?"
    return [(r[0], r[1]) for r in index.conn.execute(sql, (limit,))]


def _check_model(index: Index, embedder: Embedder) -> None:
    """A different model: drop every vector; texts are re-embedded lazily."""
    if index.meta("model") != embedder.key:
        index.conn.execute("DROP TABLE IF EXISTS vectors")
        index.conn.execute("UPDATE texts SET embedded = 0 WHERE embedded = 1")
        db.set_meta(index.conn, "model", embedder.key)
        db.set_meta(index.conn, "dim", embedder.dim)
        db.vectors_changed(index.conn)
    db.ensure_vectors(index.conn, embedder.dim)


def _embed_batch(index: Index, embedder: Embedder, ids: list[int], facts: dict[str, str],
                 report: SyncReport) -> None:
    """Embed these texts (by id) into the index and these facts (hash -> text, weighed.py) into
    the embedding cache, in one call of the model."""
    rows: list[tuple[int, str, str]] = []
    if ids:
        marks = ",".join("?" * len(ids))
        rows = cast(list[tuple[int, str, str]],
                    index.conn.execute(f"SELECT id, hash, body FROM texts WHERE id IN ({marks})", ids).fetchall())
    texts = {digest: body for _, digest, body in rows}
    vectors, computed = _through_cache(index, embedder, {**facts, **texts})
    report.facts_embedded += len(computed - texts.keys())
    computed_texts = len(computed & texts.keys())
    if rows:
        with db.transaction(index.conn):
            for tid, digest, _ in rows:
                index.conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
                index.conn.execute("INSERT INTO vectors(rowid, embedding) VALUES(?, ?)", (tid, vectors[digest]))
                index.conn.execute("UPDATE texts SET embedded = 1 WHERE id = ?", (tid,))
            db.vectors_changed(index.conn)
            db.bump_meta(index.conn, "embeddings_computed", computed_texts)
            db.bump_meta(index.conn, "embeddings_reused", len(rows) - computed_texts)
    report.embedded += computed_texts
    report.reused += len(rows) - computed_texts


KEPT_VECTORS = 20_000  # fact vectors a warm process keeps in memory (1.5 KB each at 384 dimensions)
_kept: dict[tuple[str, str], bytes] = {}  # (model key, text hash) -> vector: what the cache holds, by content
_kept_lock = threading.Lock()


def vectors_of(index: Index, embedder: Embedder, texts: list[str]) -> list[bytes]:
    """Vectors of these texts through the embedding cache, so that a text (a fact a query
    weighs, say) is embedded once, ever; straight from the model when the cache cannot be
    written (read-only or full disk, a long writer): that only costs the embedding again.
    A warm process keeps what it read (keyed by content, so never stale): the same facts come
    back query after query, and opening the cache took a warm query 2-20 ms."""
    keyed = {text_hash(t): t for t in texts}
    with _kept_lock:
        held = {h: v for h in keyed if (v := _kept.get((embedder.key, h))) is not None}
    wanted = {h: t for h, t in keyed.items() if h not in held}
    if wanted:
        try:
            found, _ = _through_cache(index, embedder, wanted)
        except (apsw.Error, OSError):
            return embedder.embed(texts)
        with _kept_lock:
            while _kept and len(_kept) + len(found) > KEPT_VECTORS:
                _kept.pop(next(iter(_kept)))
            _kept.update({(embedder.key, h): v for h, v in found.items()})
        held.update(found)
    return [held[text_hash(t)] for t in texts]


def _through_cache(index: Index, embedder: Embedder, texts: dict[str, str]) -> tuple[dict[str, bytes], set[str]]:
    """hash -> vector for these texts (by hash): from the cache, the rest embedded and cached.
    Also the hashes of those embedded."""
    cached = sharing.cached(index, embedder.key, list(texts))
    missing = [(h, t) for h, t in texts.items() if h not in cached]
    if missing:
        vectors = embedder.embed([t for _, t in missing])
        with db.transaction(index.cache):
            index.cache.executemany("INSERT OR REPLACE INTO embeddings VALUES(?, ?, ?)",
                                    [(embedder.key, h, v) for (h, _), v in zip(missing, vectors)])
        cached.update({h: v for (h, _), v in zip(missing, vectors)})
    return cached, {h for h, _ in missing}
