"""Keyword queries through FTS5 (BM25, the porter stemmer): the texts' full-text table
(texts_fts), and a throwaway one over given documents (git mem log --grep)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import db

if TYPE_CHECKING:
    import apsw


def scored(conn: apsw.Connection, docs: list[tuple[int, str]], match: str) -> list[tuple[int, float]]:
    """(id, -bm25) of the documents (id, text) that match an FTS5 query."""
    conn.execute("DROP TABLE IF EXISTS temp.logdocs")
    conn.execute(f"CREATE VIRTUAL TABLE temp.logdocs USING fts5(body, tokenize='{db.FTS_TOKENIZE}')")
    conn.executemany("INSERT INTO temp.logdocs(rowid, body) VALUES(?, ?)", docs)
    rows: list[Any] = conn.execute("SELECT rowid, -bm25(logdocs) FROM temp.logdocs WHERE logdocs MATCH ?",
                                   (match,)).fetchall()
    conn.execute("DROP TABLE temp.logdocs")
    return rows


def ranked(conn: apsw.Connection, match: str, n: int, among: bool) -> list[tuple[int, float]]:
    """(text id, -bm25) of the n texts that best match an FTS5 query, best first, ties by id;
    `among`: only the candidates in temp.cand."""
    # "+rowid": the candidate filter must not reach FTS5 as a rowid constraint, or FTS5
    # re-runs the whole MATCH once per candidate (392 s for a common word over 100,000
    # pages; 0.06 s this way: match first, then keep the candidates)
    keep = "AND +rowid IN (SELECT text FROM temp.cand)" if among else ""
    rows: list[Any] = conn.execute(f"""SELECT rowid, -bm25(texts_fts) FROM texts_fts WHERE texts_fts MATCH ? {keep}
                                        ORDER BY bm25(texts_fts), rowid LIMIT ?""", (match, n)).fetchall()
    return rows


def scores(conn: apsw.Connection, match: str, texts: list[int]) -> dict[int, float]:
    """text id -> -bm25 of those of these texts that match an FTS5 query (the MATCH runs once,
    then the texts are kept: see ranked)."""
    if not texts:
        return {}
    rows: list[Any] = conn.execute(f"""SELECT rowid, -bm25(texts_fts) FROM texts_fts WHERE texts_fts MATCH ?
                                        AND +rowid IN ({','.join('?' * len(texts))})""", (match, *texts)).fetchall()
    return {int(r[0]): float(r[1]) for r in rows}


def texts(conn: apsw.Connection) -> int:
    """How many texts the index holds."""
    row: Any = conn.execute("SELECT count(*) FROM texts").fetchone()
    return int(row[0])


def matching(conn: apsw.Connection, term: str) -> int:
    """How many texts match an FTS5 phrase (its document frequency)."""
    row: Any = conn.execute("SELECT count(*) FROM texts_fts WHERE texts_fts MATCH ?", (term,)).fetchone()
    return int(row[0])


def bodies(conn: apsw.Connection, term: str, most: int) -> list[str]:
    """The texts of at most `most` texts that match an FTS5 phrase, lowest id first."""
    rows: list[Any] = conn.execute("""SELECT body FROM texts_fts WHERE texts_fts MATCH ? ORDER BY rowid LIMIT ?""",
                                   (term, most)).fetchall()
    return [str(r[0]) for r in rows]


def holds(conn: apsw.Connection, term: str, text: int) -> bool:
    """Whether a text matches an FTS5 phrase."""
    return conn.execute("SELECT 1 FROM texts_fts WHERE texts_fts MATCH ? AND rowid = ?",
                        (term, text)).fetchone() is not None


def composite(conn: apsw.Connection, texts: list[int]) -> set[int]:
    """Those of these texts that are a chunk of two facts or more (chunks.fact rows within its
    lines) and no fact themselves: their words may come from different facts."""
    if not texts:
        return set()
    marks = ",".join("?" * len(texts))
    rows = conn.execute(f"""SELECT DISTINCT c.text FROM chunks c
         WHERE c.fact = 0 AND c.text IN ({marks})
           AND c.text NOT IN (SELECT text FROM chunks WHERE fact = 1 AND text IN ({marks}))
           AND (SELECT count(*) FROM chunks f WHERE f.blob = c.blob AND f.fact = 1
                   AND f.start_line >= c.start_line AND f.end_line <= c.end_line) >= 2""", texts + texts)
    return {int(r[0]) for r in rows}
