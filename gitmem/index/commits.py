"""The commits table read back: one commit, a commit's place on the chain, and the commits
that changed pages in a time window (git mem log)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .diffs import Commit

if TYPE_CHECKING:
    import apsw


def of(conn: apsw.Connection, commit: int) -> tuple[str, int, str, str]:
    """(oid, time, author, subject) of a commit."""
    row: Any = conn.execute("SELECT oid, time, author, subject FROM commits WHERE id = ?", (commit,)).fetchone()
    return row[0], row[1], row[2], row[3]


def seq_of(conn: apsw.Connection, oid: str) -> int | None:
    """The place of a commit on the indexed first-parent chain (None: not on it)."""
    row: Any = conn.execute("SELECT seq FROM commits WHERE oid = ?", (oid,)).fetchone()
    return int(row[0]) if row is not None else None


def changing(conn: apsw.Connection, lo: float, hi: float) -> list[Commit]:
    """The commits dated between lo and hi that started or ended a version, newest first,
    each with the paths it touched."""
    rows: list[Any] = conn.execute("""
                           SELECT c.id, c.oid, c.time, c.author, c.email, c.subject, group_concat(ch.path, char(0))
                             FROM commits c JOIN (
                                  SELECT start_commit AS cid, path FROM versions
                                  UNION SELECT end_commit, path FROM versions WHERE end_commit IS NOT NULL) ch
                               ON ch.cid = c.id
                            WHERE c.time BETWEEN ? AND ?
                            GROUP BY c.id ORDER BY c.seq DESC""", (lo, hi)).fetchall()
    return [Commit(r[0], r[1], r[2], r[3], r[4], r[5], set(r[6].split("\0"))) for r in rows]
