"""The temp.cand table: the chunk occurrences a query may return (see search/candidates.py),
read back per text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import apsw


def occurrences(conn: apsw.Connection, text: int) -> list[tuple[Any, ...]]:
    """(path, grp, version, chunk) of every candidate occurrence of a text, by path."""
    return conn.execute("""SELECT path, grp, version, chunk FROM cand WHERE text = ?
                            ORDER BY path""", (text,)).fetchall()


def current_bodies(conn: apsw.Connection, path: str) -> list[str]:
    """The texts of the current candidates of `path`: the work tree's, or HEAD's when the work
    tree has no row of its own for the page."""
    return [r[0] for r in conn.execute(
        """SELECT t.body FROM cand JOIN texts t ON t.id = cand.text
            LEFT JOIN versions v ON v.id = cand.version
            WHERE cand.path = ? AND (cand.version IS NULL OR (v.end_commit IS NULL
                  AND cand.path NOT IN (SELECT path FROM worktree)))""", (path,))]
