"""BM25 over postings a warm process keeps: FTS5's own ranking, without FTS5 at query time.

A warm process (the daemon, the MCP server, the web face) asked FTS5 to rank every text that
holds one of the query's words on every query: 8-13 ms at 10,000 chunks, 66-74 ms at 100,000,
the largest part of a warm hybrid query. The words repeat from query to query, and while the
index is unchanged so does what FTS5 knows of each: which texts hold it, how often, and how
long each text is. So a phrase asked again in the same index generation (index/memo.py) gets
its postings read once from FTS5 (through auxiliary functions: the counts are FTS5's, its
tokenizer's and its phrase matching's), and the ranking is computed from them with numpy:
about 1 ms at 10,000 chunks.

The scores are FTS5's bm25() to the bit: the same formula (k1 = 1.2, b = 0.75, an IDF of
log((N - n + 0.5) / (n + 0.5)), at least 1e-6), the same operations in the same order, in
double precision, each phrase added in query order; ties broken by id, as `fts.ranked`
orders. tests/test_postings.py compares the two on every query it makes. A phrase asked for
the first time, a cold process (one query) and an untrusted generation (a write in the last
two seconds) use FTS5 as before: reading postings costs 1-3 times one FTS5 query.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import apsw
    import numpy as np

K1 = 1.2
B = 0.75
BUDGET = 4_000_000  # postings kept per index (16 bytes each: 64 MB at most)
ASKED, TOTALS, HELD = "asked", "totals", "held"  # keys of the kept dict beside the phrases


class Ranker:
    """The keyword ranking of one query: from kept postings when every phrase of it was asked
    in an earlier query of this index generation, else none (`ready` False: ask FTS5)."""

    def __init__(self, conn: apsw.Connection, kept: dict[Any, Any], match: str | None) -> None:
        self.phrases = match.split(" OR ") if match else []
        self.ready = bool(self.phrases) and _prepared(conn, kept, self.phrases)
        self._kept = kept
        self._scores: np.ndarray | None = None

    def top(self, n: int, among: Collection[int] | None = None) -> list[tuple[int, float]]:
        """(text id, -bm25) of the n best texts (of those ids, if given), best first, ties by id
        (fts.ranked's order)."""
        import numpy as np

        scores = self.scores_all()
        hit = np.flatnonzero(scores)
        if among is not None:
            hit = hit[np.isin(hit, np.fromiter(among, dtype=np.int64, count=len(among)))]
        if len(hit) > n:  # every text as good as the n-th best, so that ties are cut by id below
            nth = np.partition(-scores[hit], n - 1)[n - 1]
            hit = hit[-scores[hit] <= nth]
        order = np.lexsort((hit, -scores[hit]))[:n]
        return [(int(hit[i]), float(scores[hit[i]])) for i in order]

    def of(self, texts: list[int]) -> dict[int, float]:
        """text id -> -bm25 of those of these texts that hold a phrase (fts.scores)."""
        scores = self.scores_all()
        return {t: float(scores[t]) for t in texts if 0 <= t < len(scores) and scores[t] != 0.0}

    def scores_all(self) -> np.ndarray:
        """-bm25 of every text by id (0 where no phrase is held), computed once per query."""
        import numpy as np

        if self._scores is None and TOTALS not in self._kept:
            self._scores = np.zeros(0)  # no phrase is held by any text
        if self._scores is None:
            tokens, rows = self._kept[TOTALS]
            avgdl = tokens / rows
            held = [self._kept[p] for p in self.phrases]
            scores = np.zeros(max((int(ids[-1]) + 1 for ids, _, _ in held if len(ids)), default=0))
            for ids, freq, size in held:
                if len(ids):
                    idf = math.log((rows - len(ids) + 0.5) / (len(ids) + 0.5))
                    idf = idf if idf > 0.0 else 1e-6
                    # fts5Bm25Function's expression, operation for operation
                    scores[ids] += idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * size / avgdl)))
            self._scores = scores
        return self._scores


def _prepared(conn: apsw.Connection, kept: dict[Any, Any], phrases: list[str]) -> bool:
    """Whether every phrase has postings, reading those asked before; phrases asked now are noted."""
    asked: set[str] = kept.setdefault(ASKED, set())
    missing = [p for p in phrases if p not in kept]
    ready = all(p in asked for p in missing)
    asked.update(phrases)
    if not ready:
        return False
    for phrase in missing:
        if not _read(conn, kept, phrase):
            return False
    return True


def _read(conn: apsw.Connection, kept: dict[Any, Any], phrase: str) -> bool:
    """Keep a phrase's postings (ids ascending, phrase frequency, text length in tokens), and
    the table's totals once; False when the budget is spent."""
    import numpy as np

    _functions(conn)
    rows: list[Any] = conn.execute("SELECT rowid, gitmem_hits(texts_fts), gitmem_tokens(texts_fts) FROM texts_fts "
                                   "WHERE texts_fts MATCH ? ORDER BY rowid", (phrase,)).fetchall()
    if kept.get(HELD, 0) + len(rows) > BUDGET:
        return False
    table = np.array(rows, dtype=np.int64).reshape(-1, 3)
    kept[phrase] = (table[:, 0].copy(), table[:, 1].astype(np.int32), table[:, 2].astype(np.int32))
    kept[HELD] = kept.get(HELD, 0) + len(rows)
    if TOTALS not in kept and rows:  # FTS5's counts for the whole table, as bm25() reads them
        total: Any = conn.execute("SELECT gitmem_all_tokens(texts_fts), gitmem_rows(texts_fts) FROM texts_fts "
                                  "WHERE texts_fts MATCH ? LIMIT 1", (phrase,)).fetchone()
        kept[TOTALS] = (int(total[0]), int(total[1]))
    return True


def _functions(conn: apsw.Connection) -> None:
    """FTS5 auxiliary functions that say what bm25() reads: a row's phrase hits and length, and
    the table's total tokens and rows."""
    conn.register_fts5_function("gitmem_hits", lambda api, *args: api.inst_count)
    conn.register_fts5_function("gitmem_tokens", lambda api, *args: api.column_size(-1))
    conn.register_fts5_function("gitmem_all_tokens", lambda api, *args: api.column_total_size(-1))
    conn.register_fts5_function("gitmem_rows", lambda api, *args: api.row_count)
