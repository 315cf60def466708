"""Where a piece of text came from: the commit that put it on its page.

A chunk's text may survive many edits of its page; its origin is the oldest
version in the unbroken run of versions of that path that all contain it.
Text that exists only in the work tree is "uncommitted".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .indexer import Index


@dataclass(frozen=True)
class Origin:
    commit: str | None
    date: str | None
    author: str | None
    subject: str | None


def iso(ts: float) -> str:
    """A timestamp as local ISO 8601 with its UTC offset."""
    return datetime.fromtimestamp(ts, tz=timezone.utc).astimezone().isoformat(timespec="seconds")


def of_text(index: "Index", path: str, version: int | None, text: int) -> Origin:
    """The commit that introduced `text` into `path` (as seen at `version`)."""
    conn = index.conn
    if version is None:
        row = conn.execute("SELECT id FROM versions WHERE path = ? AND end_commit IS NULL", (path,)).fetchone()
        if row is None or not _contains(index, row[0], text):
            return _uncommitted(index, path)
        version = int(row[0])
    rows = conn.execute("""SELECT v.id, v.start_commit, v.end_commit FROM versions v
                             JOIN commits c ON c.id = v.start_commit
                            WHERE v.path = ? AND c.seq <= (SELECT c2.seq FROM versions v2
                                  JOIN commits c2 ON c2.id = v2.start_commit WHERE v2.id = ?)
                            ORDER BY c.seq DESC""", (path, version)).fetchall()
    origin_commit = rows[0][1]
    for (vid, start, end), newer in zip(rows[1:], rows):
        if end != newer[1] or not _contains(index, vid, text):
            break
        origin_commit = start
    oid, ts, author, subject = conn.execute(
        "SELECT oid, time, author, subject FROM commits WHERE id = ?", (origin_commit,)).fetchone()
    return Origin(oid, iso(ts), author, subject)


def _contains(index: "Index", version: int, text: int) -> bool:
    return index.conn.execute("""SELECT 1 FROM versions v JOIN chunks c ON c.blob = v.blob
                                  WHERE v.id = ? AND c.text = ? LIMIT 1""", (version, text)).fetchone() is not None


def _uncommitted(index: "Index", path: str) -> Origin:
    try:
        mtime = index.nb.file(path).lstat().st_mtime
    except OSError:
        return Origin(None, None, None, "uncommitted")
    return Origin(None, iso(mtime), None, "uncommitted")
