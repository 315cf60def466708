"""The facts a query weighs by meaning, embedded when the index is.

Search names the best fact of each hit (search/facts.py `choose`, and `recall --history`) by
its words and by the cosine of the query to each fact of the hit's chunk: the blocks of the
chunk's lines cut to them, each keyed as its heading path then its text (blocks.cut,
blocks.described), when more than one of them may answer. Those strings are not all texts of
the index: a block longer than FACT_MAX gets no fact row, a block a chunk's border cuts is
weighed as the chunk holds it, and a fact that is the only statement of a chunk (the chunk is
its unit) is not weighed by meaning at all. Embedding them on the first query
that reached a page cost that query 0.8-10 s under load, so `embeddings.embed` puts them in
the embedding cache for every page whose texts it embeds: a query embeds nothing but itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from ..blocks import cut, described
from .blobs import text_hash
from .pagetext import Reader

if TYPE_CHECKING:
    import apsw

    from .indexer import Index

MAX_EMBEDDED = 48  # facts a query embeds at most (search/facts.cosines): a chunk with more is judged by its words
# of the rule in `texts`: an index whose meta 'weighed' differs weighs every page once more (a build
# made before the rule, or before a change of it)
VERSION = "1"


def texts(page: str, start: int, end: int) -> list[str]:
    """What search weighs by meaning for a hit on lines start..end of a page (search/facts.py
    `cosines`): each statement among the facts of those lines, described, when the lines hold
    more than one statement and no more than MAX_EMBEDDED facts; else nothing."""
    found = cut(page, start, end)
    says = [described(headings, context, body) for body, _, _, headings, _, context, said in found if said]
    return says if len(says) > 1 and len(found) <= MAX_EMBEDDED else []


def every_blob(conn: apsw.Connection) -> set[int]:
    return {r[0] for r in conn.execute("SELECT DISTINCT blob FROM chunks WHERE fact = 0")}


def of_blobs(index: Index, blobs: Iterable[int]) -> dict[str, str]:
    """text hash -> text of every fact search may weigh on a hit in these blobs' chunks (a fact
    row's hit weighs only itself, an index text already), read as search reads the pages."""
    conn = index.conn
    out: dict[str, str] = {}
    for blob in sorted(blobs):
        reader = Reader(index, keep=False)  # one page at a time: indexing reads every page once
        path = _path(conn, blob)
        spans = cast(list[tuple[int, int, int | None]], conn.execute(
            "SELECT start_line, end_line, page FROM chunks WHERE blob = ? AND fact = 0", (blob,)).fetchall())
        for start, end, page in spans:
            text = reader.text(blob, path, page)
            if text is not None:
                out.update((text_hash(t), t) for t in texts(text, start, end))
    return out


def _path(conn: apsw.Connection, blob: int) -> str | None:
    """A path the blob was met at (read from there when git does not store it: a work-tree file)."""
    row = conn.execute("""SELECT path FROM worktree WHERE blob = ?
                          UNION ALL SELECT path FROM versions WHERE blob = ? LIMIT 1""", (blob, blob)).fetchone()
    return str(row[0]) if row else None
