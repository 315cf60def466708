"""The temp.cand table: the chunk occurrences a query may return (see search/candidates.py),
read back per text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dates

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


def hit_rows(conn: apsw.Connection, text: int) -> list[tuple[Any, ...]]:
    """(path, grp, version, start_line, end_line, heading, body, blob, page, fact) of every candidate
    occurrence of a text, by path and place in the page."""
    return conn.execute("""SELECT cand.path, cand.grp, cand.version, ch.start_line, ch.end_line,
                                  ch.heading, t.body, cand.blob, ch.page, ch.fact
                             FROM cand JOIN chunks ch ON ch.id = cand.chunk JOIN texts t ON t.id = cand.text
                            WHERE cand.text = ? ORDER BY cand.path, ch.seq, ch.id""", (text,)).fetchall()


def hit_rows_in(conn: apsw.Connection, view_sql: str, where: list[str], args: list[Any],
                texts: list[int]) -> dict[int, list[tuple[Any, ...]]]:
    """hit_rows of each of these texts, read from the view (row v, blob b, chunk c) where it meets
    `where` instead of from temp.cand (a text without such an occurrence has no entry)."""
    found: dict[int, list[tuple[Any, ...]]] = {}
    for row in conn.execute(f"""SELECT c.text, v.path, v.grp, v.version, c.start_line, c.end_line, c.heading,
                                       t.body, v.blob, c.page, c.fact
          FROM ({view_sql}) v JOIN blobs b ON b.id = v.blob JOIN chunks c ON c.blob = v.blob
               JOIN texts t ON t.id = c.text
         WHERE {' AND '.join(where)} AND c.text IN ({','.join('?' * len(texts))})
         ORDER BY v.path, c.seq, c.id""", [*args, *texts]):
        found.setdefault(int(row[0]), []).append(tuple(row[1:]))
    return found


def texts(conn: apsw.Connection) -> list[int]:
    """Every candidate text."""
    return [int(r[0]) for r in conn.execute("SELECT DISTINCT text FROM temp.cand")]


def listed(conn: apsw.Connection, texts: list[int]) -> set[int]:
    """Which of these texts are in temp.cand (at most SQLite's 32,766 parameters: the caller slices)."""
    rows = conn.execute(f"SELECT DISTINCT text FROM temp.cand WHERE text IN ({','.join('?' * len(texts))})", texts)
    return {int(r[0]) for r in rows}


def fill(conn: apsw.Connection, view_sql: str, where: list[str], args: list[Any]) -> None:
    """temp.cand anew: the occurrences in the view (row v, blob b, chunk c) that meet `where`."""
    conn.execute("DROP TABLE IF EXISTS temp.cand")
    conn.execute(f"""CREATE TEMP TABLE cand AS
        SELECT c.text AS text, c.id AS chunk, v.path, v.grp, v.blob, v.version
          FROM ({view_sql}) v JOIN blobs b ON b.id = v.blob JOIN chunks c ON c.blob = v.blob
         WHERE {' AND '.join(where)}""", args)
    conn.execute("CREATE INDEX temp.cand_text ON cand(text)")


def meeting(conn: apsw.Connection, view_sql: str, where: list[str], args: list[Any], texts: list[int]) -> set[int]:
    """Which of these texts have an occurrence in the view that meets `where` (at most
    SQLite's 32,766 parameters in all: the caller slices)."""
    rows = conn.execute(f"""SELECT DISTINCT c.text
          FROM ({view_sql}) v JOIN blobs b ON b.id = v.blob JOIN chunks c ON c.blob = v.blob
         WHERE {' AND '.join(where)} AND c.text IN ({','.join('?' * len(texts))})""", [*args, *texts])
    return {int(r[0]) for r in rows}


def files_per_group(conn: apsw.Connection, view_sql: str) -> dict[str, int]:
    """How many files of the view each group holds."""
    return dict(conn.execute(f"SELECT grp, count(*) FROM ({view_sql}) GROUP BY grp"))


def in_groups(groups: tuple[str, ...] | list[str]) -> tuple[str, list[Any]]:
    """The condition on view row v: in one of these groups."""
    return f"v.grp IN ({','.join('?' * len(groups))})", list(groups)


def not_at(paths: tuple[str, ...]) -> tuple[str, list[Any]]:
    """The condition on view row v: at none of these notebook paths."""
    return f"v.path NOT IN ({','.join('?' * len(paths))})", list(paths)


def tagged(tag: str) -> tuple[str, list[Any]]:
    """The condition on blob b: it carries this tag (lower-cased, matched whole; "#apollo" is apollo, as
    `git mem tags` reads it)."""
    return "b.tags LIKE ? ESCAPE '\\'", ["%," + _like(tag.strip().lstrip("#").lower()) + ",%"]


def carried(conn: apsw.Connection, view: str, tag: str) -> bool:
    """Whether any page of the view (its SQL) carries this tag."""
    where, args = tagged(tag)
    return conn.execute(f"SELECT 1 FROM ({view}) v JOIN blobs b ON b.id = v.blob WHERE {where} LIMIT 1",
                        args).fetchone() is not None


def typed(kind: str) -> tuple[str, list[Any]]:
    """The condition on blob b: its type is `kind`."""
    return "b.type = ?", [kind.strip().lower()]


def dated(time_sql: str, lo: float, hi: float, by: str) -> tuple[str, list[Any]]:
    """A date filter: on the commit date of each text (`commit`, `time_sql`), on the date
    in the file name (`file`: daily logs, sessions), or `auto`: the file name
    for daily logs and sessions that have a date in it, the commit date for
    everything else. A named day matches if it overlaps the window. Needs name_functions."""
    commit = f"{time_sql} BETWEEN ? AND ?"
    named = "gitmem_name_start(v.path) <= ? AND gitmem_name_end(v.path) >= ?"
    if by == "commit":
        return f"({commit})", [lo, hi]
    if by == "file":
        return f"(gitmem_name_start(v.path) IS NOT NULL AND {named})", [hi, lo]
    has_name = "v.grp IN ('daily', 'sessions') AND gitmem_name_start(v.path) IS NOT NULL"
    return f"(CASE WHEN {has_name} THEN {named} ELSE {commit} END)", [hi, lo, lo, hi]


def name_functions(conn: apsw.Connection) -> None:
    """gitmem_name_start(path) and gitmem_name_end(path): the time a file's name gives it."""
    def start(*args: Any) -> float | None:  # apsw passes the SQL arguments as they come
        span = dates.name_span(args[0])
        return span[0] if span else None

    def end(*args: Any) -> float | None:
        span = dates.name_span(args[0])
        return span[1] if span else None

    conn.create_scalar_function("gitmem_name_start", start, 1, deterministic=True)
    conn.create_scalar_function("gitmem_name_end", end, 1, deterministic=True)


def _like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
