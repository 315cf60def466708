"""Keyword queries through FTS5 (BM25, the porter stemmer): the texts' full-text table
(texts_fts), and a throwaway one over given documents (git mem log --grep)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import db

if TYPE_CHECKING:
    import apsw


def scored(conn: apsw.Connection, docs: list[tuple[int, str]], match: str) -> list[tuple[int, float]]:
    """(id, -bm25) of the documents (id, text) that match an FTS5 query."""
    conn.execute("DROP TABLE IF EXISTS temp.logdocs")
    conn.execute(f"CREATE VIRTUAL TABLE temp.logdocs USING fts5(body, tokenize='{db.FTS_TOKENIZE}')")
    conn.executemany("INSERT INTO temp.logdocs(rowid, body) VALUES(?, ?)", docs)
    rows = conn.execute("SELECT rowid, -bm25(logdocs) FROM temp.logdocs WHERE logdocs MATCH ?", (match,)).fetchall()
    conn.execute("DROP TABLE temp.logdocs")
    return rows
