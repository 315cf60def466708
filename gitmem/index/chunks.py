"""The chunks table read back with its texts and blobs: one chunk, the chunk that holds a
fact row, a blob's object id, a document blob's kind, the blobs holding some texts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import apsw


def of(conn: apsw.Connection, chunk: int) -> tuple[int, int, str, str, int, int | None, int]:
    """(start_line, end_line, heading, body, blob, page, fact) of a chunk."""
    row: Any = conn.execute("""SELECT ch.start_line, ch.end_line, ch.heading, t.body, ch.blob, ch.page, ch.fact
                                 FROM chunks ch JOIN texts t ON t.id = ch.text WHERE ch.id = ?""",
                            (chunk,)).fetchone()
    return row[0], row[1], row[2], row[3], row[4], row[5], row[6]


def holding(conn: apsw.Connection, blob: int, start: int, end: int) -> tuple[int, int, str, str, int] | None:
    """(start_line, end_line, heading, body, text id) of the chunk of `blob` (not a fact row)
    that holds most of the lines start..end, the first such; None if no chunk holds any."""
    row: Any = conn.execute("""SELECT ch.start_line, ch.end_line, ch.heading, t.body, t.id FROM chunks ch
                            JOIN texts t ON t.id = ch.text
                           WHERE ch.blob = ? AND ch.fact = 0 AND ch.start_line <= ? AND ch.end_line >= ?
                           ORDER BY min(ch.end_line, ?) - max(ch.start_line, ?) DESC, ch.seq LIMIT 1""",
                       (blob, end, start, end, start)).fetchone()
    return (int(row[0]), int(row[1]), row[2], row[3], int(row[4])) if row else None


def first_origin(conn: apsw.Connection, version: int, blob: int, line: str) -> str | None:
    """The origin commit (oid) recorded in `version` for the first chunk of `blob` holding `line`."""
    row: Any = conn.execute("""SELECT o.oid FROM chunks c JOIN texts t ON t.id = c.text
                            JOIN origins o ON o.version = ? AND o.text = c.text
                           WHERE c.blob = ? AND instr(t.body, ?) > 0 ORDER BY c.seq LIMIT 1""",
                       (version, blob, line)).fetchone()
    return row[0] if row else None


def blob_oid(conn: apsw.Connection, blob: int) -> str:
    """The git object id of an indexed blob."""
    row: Any = conn.execute("SELECT oid FROM blobs WHERE id = ?", (blob,)).fetchone()
    return str(row[0])


def private(conn: apsw.Connection, blob: int | None) -> bool:
    """Whether an indexed blob is a private page (its text is never indexed nor shown)."""
    row: Any = conn.execute("SELECT private FROM blobs WHERE id = ?", (blob,)).fetchone() if blob is not None else None
    return bool(row and row[0])


def document(conn: apsw.Connection, blob: int) -> tuple[str, str] | None:
    """(kind, oid) of a document blob (PDF, DOCX, ...), None if the blob is no document."""
    row: Any = conn.execute("""SELECT d.kind, b.oid FROM documents d JOIN blobs b ON b.id = d.blob
                          WHERE d.blob = ?""", (blob,)).fetchone()
    return (row[0], row[1]) if row is not None else None


def blobs_holding(conn: apsw.Connection, text_ids: list[int]) -> set[int]:
    """The blobs whose chunks hold these texts."""
    found: set[int] = set()
    for i in range(0, len(text_ids), 500):
        part = text_ids[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(f"SELECT DISTINCT blob FROM chunks WHERE text IN ({marks})", part))
    return found
