"""Documents in the index: extracted once per blob, chunked by page, never on the hook path.

A sync that meets a document blob (a path the settings call a document)
records it and moves on: the blob gets a `documents` row, `pending`, and no
chunks. `run()` extracts pending documents (documents.py, in a fenced child
process) outside the index lock, so readers and keyword search answer
meanwhile, and then, under the lock, chunks the text: a PDF page by page
(chunks carry their page; lines count within the page), any other kind as one
text. The background worker (`git mem index`, the hooks' catch-up) runs it
unbounded; a read runs it for small documents within a short budget, and
says what is still waiting.

The extracted text is cached by blob id in the shared embeddings.db
(`extracts`), so no revision, rebuild or worktree extracts the same content
twice; a failure is cached for the limits it met, and tried again when they
change. Forgotten text is blanked in documents as in pages (Index.pieces).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..errors import GitmemError
from ..gitops.lock import FileLock
from . import db, documents, provenance
from .blobs import Parsed
from .db import LIVE_VIEW, IndexBusy

if TYPE_CHECKING:
    from ..notebook import Notebook
    from .indexer import Index, SyncReport

READ_SECONDS = 3.0  # how long a read may spend extracting before it answers with what it has
READ_BYTES = 2_000_000  # a read extracts documents up to this size; larger ones wait for the worker
OVERSIZE = "oversize:"  # a work-tree document too large to read gets a made-up blob id of its size
PENDING = "SELECT count(*) FROM documents WHERE state = 'pending'"


@dataclass
class ExtractReport:
    extracted: int = 0
    failed: int = 0
    left: int = 0  # still pending when the run stopped
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def limits(nb: Notebook) -> documents.Limits:
    s = nb.settings
    return documents.Limits(s.doc_max_bytes, s.doc_max_pages, s.doc_seconds, s.doc_memory_mb)


def kind_of(nb: Notebook, rel: str) -> str | None:
    """The document kind of a notebook path (None: not a document, or a private one)."""
    return documents.kind_of(rel) if nb.settings.is_document(rel) else None


def blob_kind(index: Index, bid: int) -> str | None:
    row = index.conn.execute("SELECT kind FROM documents WHERE blob = ?", (bid,)).fetchone()
    return row[0] if row else None


def add(index: Index, oid: str, kind: str, data: bytes | None, row: tuple[int, int] | None,
        report: SyncReport) -> int:
    """A document blob met by a sync: chunked at once from the cache, refused at once (too
    large, an LFS pointer), extracted at once if it is plain text, else left pending."""
    conn = index.conn
    if row:
        bid = int(row[0])
        conn.execute("UPDATE blobs SET chunked = 1 WHERE id = ?", (bid,))
    else:
        bid = db.one(conn.execute("INSERT INTO blobs(oid, chunked) VALUES(?, 1) RETURNING id", (oid,)))[0]
    report.blobs_chunked += 1
    got = cached(index, oid, kind)
    if got is None:
        size = _size(index, oid, data)
        head = data if data is not None else (index.nb.git.read_blob(oid) if size <= documents.LFS_MAX else b"")
        why = documents.refusal(kind, size, head[:documents.LFS_MAX], limits(index.nb))
        if why:
            got = documents.Extract(kind, failed=why)
        elif kind == "txt":
            got = _extract(index, oid, kind, data if data is not None else index.nb.git.read_blob(oid))
        else:
            conn.execute("INSERT OR REPLACE INTO documents(blob, kind, size, state) VALUES(?,?,?, 'pending')",
                         (bid, kind, size))
            return bid
        store(index, bid, got, report, size)
        return bid
    store(index, bid, got, report, _size(index, oid, data))  # from the cache (a rebuild): no row holds its size yet
    return bid


def _size(index: Index, oid: str, data: bytes | None) -> int:
    if data is not None:
        return len(data)
    if oid.startswith(OVERSIZE):
        return int(oid[len(OVERSIZE):])
    return index.nb.git.blob_size(oid)


def store(index: Index, bid: int, got: documents.Extract, report: SyncReport | None = None,
          size: int | None = None) -> None:
    """Chunks of an extracted document (a PDF page by page), its state, and the origins of its text;
    `size` in bytes, else the size its pending row holds."""
    conn = index.conn
    conn.execute("DELETE FROM chunks WHERE blob = ?", (bid,))
    if size is None:
        row = conn.execute("SELECT size FROM documents WHERE blob = ?", (bid,)).fetchone()
        size = row[0] if row else 0
    seq = 0
    for number, page in enumerate(got.pages, start=1):
        for _, piece, body in index.pieces(Parsed(page, 0)):
            conn.execute("""INSERT INTO chunks(blob, seq, start_line, end_line, heading, text, page)
                            VALUES(?,?,?,?,?,?,?)""",
                         (bid, seq, piece.start_line, piece.end_line, piece.heading, index.text_row(body, report),
                          number if got.kind == "pdf" else None))
            seq += 1
    state = "failed" if got.failed else "done"
    pages = len(got.pages) if got.kind == "pdf" and not got.failed else None
    conn.execute("INSERT OR REPLACE INTO documents(blob, kind, size, state, pages, note) VALUES(?,?,?,?,?,?)",
                 (bid, got.kind, size, state, pages, got.failed or got.note))
    provenance.fill(index, bid)


# -- the cache of extracted text (shared embeddings.db) ---------------------
def cached(index: Index, oid: str, kind: str) -> documents.Extract | None:
    """A blob's extraction from an earlier run: any success; a failure only under the same limits."""
    if oid.startswith(OVERSIZE):
        return None
    row = index.cache.execute("SELECT signature, pages, failed, note, total_pages FROM extracts "
                              "WHERE oid = ? AND kind = ?", (oid, kind)).fetchone()
    if row is None or (row[2] and row[0] != index.nb.settings.extract_signature()):
        return None
    return documents.Extract(kind, json.loads(row[1]), row[2], row[3], row[4])


def _extract(index: Index, oid: str, kind: str, data: bytes,
             fence: documents.Extractor | None = None) -> documents.Extract:
    started = time.monotonic()
    got = fence.extract(kind, data) if fence is not None else documents.extract(kind, data, limits(index.nb))
    with db.transaction(index.cache):
        index.cache.execute("INSERT OR REPLACE INTO extracts VALUES(?,?,?,?,?,?,?,?)",
                            (oid, kind, index.nb.settings.extract_signature(), json.dumps(got.pages), got.failed,
                             got.note, got.total_pages, round(time.monotonic() - started, 3)))
    return got


class Unreadable(GitmemError):
    """A document whose text cannot be extracted (the note says why)."""


def read(index: Index, rel: str, kind: str, data: bytes) -> documents.Extract:
    """A document's text for `git mem get` (any revision): from the cache, or extracted now;
    forgotten lines blanked as the index blanks them. Unreadable if extraction failed."""
    from ..gitops.git import blob_id

    oid = blob_id(data)
    got = cached(index, oid, kind) or _extract(index, oid, kind, data)
    if got.failed:
        raise Unreadable(f"{rel}: {got.failed}", "git mem status lists every document and why any failed")
    got.pages = [index.forgotten.redact(page) for page in got.pages]
    return got


# -- the extraction step ------------------------------------------------------
def pending(index: Index) -> int:
    return int(db.one(index.conn.execute(PENDING))[0])


def run(index: Index, max_seconds: float | None = None, max_size: int | None = None,
        wait: float | None = 60.0, sync: SyncReport | None = None) -> ExtractReport:
    """Extract pending documents, those the notebook holds now first, smallest first. Bounded
    (a read): stops starting new ones after `max_seconds`, skips those over `max_size`.
    New chunk texts are counted in `sync`, if given."""
    report = ExtractReport()
    if not pending(index):
        return report
    started = time.monotonic()
    fence = FileLock(index.nb.shared_dir / "extract.lock")
    if not fence.acquire(timeout=0 if max_seconds is not None else wait):
        report.left = pending(index)
        report.notes.append(f"{_count(report.left)} being extracted by another process; "
                            "results may miss them for now")
        return report
    try:
        _run(index, report, started, max_seconds, max_size, wait, sync)
    finally:
        fence.release()
    report.seconds = round(time.monotonic() - started, 3)
    if report.left:
        report.notes.append(f"{_count(report.left)} not extracted yet, so results leave them out; "
                            "the background worker extracts them, or run 'git mem index'")
    return report


def _run(index: Index, report: ExtractReport, started: float, max_seconds: float | None, max_size: int | None,
         wait: float | None, sync: SyncReport | None) -> None:
    """The loop of `run`, with one fenced child for all the documents it extracts."""
    rows = cast(list[tuple[int, str, str, int]], index.conn.execute(f"""SELECT d.blob, b.oid, d.kind, d.size
                                    FROM documents d
                                    JOIN blobs b ON b.id = d.blob WHERE d.state = 'pending'
                                   ORDER BY d.blob IN (SELECT blob FROM ({LIVE_VIEW})) DESC, d.size, d.blob
                               """).fetchall())
    with documents.Extractor(limits(index.nb)) as child:
        for bid, oid, kind, size in rows:
            if (max_size is not None and size > max_size) or \
                    (max_seconds is not None and time.monotonic() - started > max_seconds):
                report.left += 1
                continue
            data = _data(index, bid, oid)
            got = cached(index, oid, kind) or (_extract(index, oid, kind, data, child) if data is not None else None)
            _keep(index, bid, got, wait, sync)
            if got is not None:
                report.failed += bool(got.failed)
                report.extracted += not got.failed


def _keep(index: Index, bid: int, got: documents.Extract | None, wait: float | None,
          sync: SyncReport | None) -> None:
    """Store an extraction under the index lock (only the few milliseconds that takes)."""
    if not index.lock.acquire(timeout=wait):
        raise IndexBusy("the index is being updated by another process", "try again in a moment")
    try:
        with db.transaction(index.conn):
            if got is None:  # a work-tree file gone since: the next sync forgets it
                index.conn.execute("DELETE FROM documents WHERE blob = ?", (bid,))
                return
            still = index.conn.execute("SELECT state FROM documents WHERE blob = ?", (bid,)).fetchone()
            if still and still[0] == "pending":
                index.reload_forgotten()
                store(index, bid, got, sync)
    finally:
        index.lock.release()


def _count(n: int) -> str:
    return f"{n} document{'s' if n != 1 else ''}"


def _data(index: Index, bid: int, oid: str) -> bytes | None:
    """A pending blob's bytes: from git, or from the work-tree file that holds it."""
    from ..errors import PathOutside
    from ..gitops.git import blob_id

    if index.nb.git.has_object(oid, "blob"):
        return index.nb.git.read_blob(oid)
    for (path,) in cast(list[tuple[str]],
                        index.conn.execute("SELECT path FROM worktree WHERE blob = ?", (bid,)).fetchall()):
        try:
            data = index.nb.read_bytes(path)
        except PathOutside:
            continue
        if data is not None and blob_id(data) == oid:
            return data
    return None


def text(index: Index, bid: int) -> str | None:
    """A document blob's extracted text as the index holds it (None: not a document, or not extracted)."""
    row = index.conn.execute("""SELECT d.kind, b.oid FROM documents d JOIN blobs b ON b.id = d.blob
                                 WHERE d.blob = ?""", (bid,)).fetchone()
    if row is None:
        return None
    got = cached(index, row[1], row[0])
    return got.text if got is not None and not got.failed else ""


# -- status ---------------------------------------------------------------------
def summary(index: Index) -> dict[str, Any]:
    """Documents the notebook holds now: how many, their pages, what is pending, what failed and why."""
    rows = listing(index)
    by_state = {s: sum(1 for r in rows if r["state"] == s) for s in ("done", "pending", "failed")}
    return {
        "files": len(rows), "extracted": by_state["done"], "pending": by_state["pending"],
        "failed": by_state["failed"], "pages": sum(r["pages"] or 0 for r in rows if r["state"] == "done"),
        "bytes": sum(r["size"] or 0 for r in rows),
        "kinds": {k: sum(1 for r in rows if r["kind"] == k) for k in sorted({r["kind"] for r in rows})},
        "problems": [{"path": r["path"], "state": r["state"], "note": r["note"]} for r in rows if r["note"]],
    }


def listing(index: Index) -> list[dict[str, Any]]:
    """Each document the notebook holds now: path, kind, size, state (done, pending, failed),
    pages (PDF) and the note that says why it failed or waits."""
    rows = index.conn.execute(f"""SELECT v.path, d.kind, d.state, d.pages, d.note, d.size FROM ({LIVE_VIEW}) v
                                   JOIN documents d ON d.blob = v.blob ORDER BY v.path""").fetchall()
    return [{"path": r[0], "kind": r[1], "state": r[2], "pages": r[3], "note": r[4], "size": r[5]} for r in rows]
