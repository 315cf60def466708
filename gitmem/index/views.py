"""The SQL of the views a query searches (see search/views.py): rows (path, grp, blob,
version) to build candidates from, and an expression for the commit date of chunk `c` in
view row `v`. The live view (HEAD overlaid by the work tree) is db.LIVE_VIEW."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import apsw

HISTORY_VIEW = """
    SELECT path, grp, blob, id AS version FROM versions
    UNION ALL
    SELECT path, grp, blob, NULL AS version FROM worktree WHERE blob IS NOT NULL
"""
# The commit date of a text: its origin in that version; in the work tree, its
# origin in the HEAD version if it is there, else the file's mtime (uncommitted).
ORIGIN_TIME = """coalesce(
    (SELECT o.time FROM origins o WHERE o.version = v.version AND o.text = c.text),
    (SELECT o.time FROM versions h INDEXED BY versions_current JOIN origins o ON o.version = h.id
      WHERE v.version IS NULL AND h.path = v.path AND h.end_commit IS NULL AND o.text = c.text),
    (SELECT CAST(w.mtime AS INTEGER) FROM worktree w WHERE v.version IS NULL AND w.path = v.path))"""
EMPTY_VIEW = "SELECT NULL AS path, NULL AS grp, NULL AS blob, NULL AS version WHERE 0"
# a revision off the indexed chain: its pages in temp.atview, each dated by the commit that last changed it
AT_TABLE_VIEW = "SELECT path, grp, blob, version FROM temp.atview"
AT_TABLE_TIME = "(SELECT a.time FROM temp.atview a WHERE a.path = v.path)"


def at_seq(seq: int) -> str:
    """The versions that stood at the commit at place `seq` of the indexed chain."""
    return f"""SELECT v.path, v.grp, v.blob, v.id AS version FROM versions v
                    JOIN commits s ON s.id = v.start_commit LEFT JOIN commits e ON e.id = v.end_commit
                   WHERE s.seq <= {int(seq)} AND (e.seq IS NULL OR e.seq > {int(seq)})"""


def fill_at_table(conn: apsw.Connection, rows: list[tuple[str, str, int, int]]) -> None:
    """temp.atview anew, holding (path, grp, blob, time) rows."""
    conn.execute("DROP TABLE IF EXISTS temp.atview")
    conn.execute("CREATE TEMP TABLE atview(path TEXT PRIMARY KEY, grp TEXT, blob INTEGER, version INTEGER, "
                 "time INTEGER)")
    for row in rows:
        conn.execute("INSERT INTO atview VALUES(?, ?, ?, NULL, ?)", row)


def pending(conn: apsw.Connection, view_sql: str, facts: bool = True) -> int:
    """How many texts of the view have no embedding yet (`facts` False: chunks' texts only)."""
    only = "" if facts else "AND c.fact = 0"
    row: Any = conn.execute(f"""SELECT count(DISTINCT c.text) FROM ({view_sql}) v
                                 JOIN chunks c ON c.blob = v.blob JOIN texts t ON t.id = c.text
                                WHERE t.embedded = 0 {only}""").fetchone()
    return int(row[0])


def total(conn: apsw.Connection, view_sql: str) -> int:
    """How many texts the view has."""
    row: Any = conn.execute(f"""SELECT count(DISTINCT c.text) FROM ({view_sql}) v
                                 JOIN chunks c ON c.blob = v.blob""").fetchone()
    return int(row[0])
