"""The versions and worktree tables read back: a page's versions in commit order, what
came before and after one, and the work tree's row of a page (recall over history, --at)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import apsw


def in_order(conn: apsw.Connection, ids: list[int]) -> list[tuple[int, int, int | None]]:
    """(id, start_commit, end_commit) of these versions, oldest first."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows: list[Any] = conn.execute(f"""SELECT v.id, v.start_commit, v.end_commit FROM versions v
                                         JOIN commits s ON s.id = v.start_commit
                                        WHERE v.id IN ({marks}) ORDER BY s.seq""", ids).fetchall()
    return rows


def of(conn: apsw.Connection, version: int) -> tuple[str, int, int]:
    """(path, blob, start_commit) of a version."""
    row: Any = conn.execute("SELECT path, blob, start_commit FROM versions WHERE id = ?", (version,)).fetchone()
    return row[0], row[1], row[2]


def path_of(conn: apsw.Connection, version: int) -> str:
    row: Any = conn.execute("SELECT path FROM versions WHERE id = ?", (version,)).fetchone()
    return str(row[0])


def started(conn: apsw.Connection, path: str, commit: int) -> tuple[int, int | None] | None:
    """(blob, end_commit) of the version of `path` that `commit` made, if any."""
    row: Any = conn.execute("SELECT blob, end_commit FROM versions WHERE path = ? AND start_commit = ?",
                       (path, commit)).fetchone()
    return (row[0], row[1]) if row is not None else None


def ended(conn: apsw.Connection, path: str, commit: int) -> int | None:
    """The blob of the version of `path` that `commit` ended, if any."""
    row: Any = conn.execute("SELECT blob FROM versions WHERE path = ? AND end_commit = ?", (path, commit)).fetchone()
    return row[0] if row is not None else None


def started_elsewhere(conn: apsw.Connection, commit: int, path: str) -> Iterator[tuple[str, int, int | None]]:
    """(path, blob, end_commit) of the versions of other pages than `path` that `commit` made."""
    yield from conn.execute("""SELECT path, blob, end_commit FROM versions WHERE start_commit = ? AND path != ?
                                ORDER BY path""", (commit, path))


def before(conn: apsw.Connection, path: str, start: int) -> list[tuple[int, int, int]]:
    """(id, blob, start_commit) of the versions that `start` ended: the page's own, and those of
    pages the commit deleted (a rename or a move)."""
    rows: list[Any] = conn.execute("""SELECT id, blob, start_commit FROM versions WHERE path = ? AND end_commit = ?
                            UNION ALL
                           SELECT v.id, v.blob, v.start_commit FROM versions v
                            WHERE v.end_commit = ? AND v.path != ? AND NOT EXISTS (
                                  SELECT 1 FROM versions n WHERE n.path = v.path AND n.start_commit = ?)
                            ORDER BY 1""", (path, start, start, path, start)).fetchall()
    return rows


def revision(conn: apsw.Connection, version: int | None) -> str:
    """The commit (oid) that made a version."""
    row: Any = conn.execute("""SELECT c.oid FROM versions v JOIN commits c ON c.id = v.start_commit
                                 WHERE v.id = ?""", (version,)).fetchone()
    return str(row[0])


def in_worktree(conn: apsw.Connection, path: str) -> bool:
    return conn.execute("SELECT 1 FROM worktree WHERE path = ?", (path,)).fetchone() is not None


def worktree_blob(conn: apsw.Connection, path: str) -> tuple[int | None] | None:
    """The work tree's row of `path` as (blob,), None if the work tree has no such page."""
    row: Any = conn.execute("SELECT blob FROM worktree WHERE path = ?", (path,)).fetchone()
    return (row[0],) if row is not None else None


def head_blob(conn: apsw.Connection, path: str) -> int | None:
    """The blob of `path` at HEAD, None if HEAD has no such page (on versions_current, as the
    indexer finds a current version: never by walking the page's past ones)."""
    row: Any = conn.execute("SELECT blob FROM versions INDEXED BY versions_current WHERE path = ? "
                            "AND end_commit IS NULL", (path,)).fetchone()
    return row[0] if row is not None else None


def worktree_mtime(conn: apsw.Connection, path: str) -> Any:
    """The modification time recorded for a work-tree page (None if there is none)."""
    row: Any = conn.execute("SELECT mtime FROM worktree WHERE path = ?", (path,)).fetchone()
    return row[0] if row else None
