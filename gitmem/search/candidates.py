"""The candidate set of a query, and how the two rankers keep to it.

The view (the notebook now, at a revision, or all of its history) and the
filters (groups, tags, type, dates) decide which chunk occurrences a query may
return. Both rankers return the best DEPTH candidates, exactly; a filter never
cuts a top-k after ranking. There are two ways to get there, with the same
results:

- listed: temp.cand holds every candidate occurrence before ranking, and each
  ranker searches only among them. Any filter works this way.
- checked: when the candidates are most of the notebook (the notebook now or
  at a revision, narrowed only by groups that hold at least half of its
  files), each ranker ranks every text, keeps those that are candidates, and
  ranks deeper (4x at a time) until it has DEPTH of them or has run out, so
  its list is the same as the listed way's. The occurrences of the best
  texts are then read from the view, a few dozen at a time, as far as the
  results need. Listing 100,000 candidates took 57 ms of a 167 ms query;
  checking a few hundred takes 3 ms. Superseded versions of a page (history)
  are most of what is checked and dropped: a section edited ten times has ten
  old texts close to the query.

A warm process keeps what checking learned (whether a text is a candidate,
where it occurs) while the index is unchanged (index/memo.py): most texts a
query checks, an earlier query checked (the 10k-chunk benchmark notebook:
11 ms of a 76 ms warm query went to checking, 5 ms to reading occurrences).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from .. import config, dates
from ..index import cand, memo

if TYPE_CHECKING:
    import apsw

    from .engine import Query
    from .views import View

DEPTH = 100  # how many candidates each ranker contributes to the fusion
SLICE = 10_000  # text ids checked per statement
OCCURRENCES = 32  # texts whose occurrences are read per statement (a query shows the first few dozen)
BROAD = 0.5  # the share of the view's files the groups must hold for checking to pay
Rows = list[tuple[Any, ...]]
Fetch = Callable[[int, bool], Rows]  # (how many, among temp.cand only?) -> rows, text id first, best first


class Candidates:
    """The candidates of one query on one connection (temp.cand when listed)."""

    def __init__(self, conn: apsw.Connection, query: Query, view: View,
                 kept: Callable[[Hashable], dict[Any, Any]] | None = None) -> None:
        """`kept(kind)`: answers this process keeps while the index is unchanged (Index.kept)."""
        self.conn = conn
        self.view = view
        self.where, self.args = _filters(conn, query, view)
        self._kept = kept if kept is not None and view.lasting else (lambda kind: {})
        self.checked = _broad(conn, query, view, self._kept("groups"))
        if not self.checked:
            self._list()

    def top(self, fetch: Fetch) -> Rows:
        """The ranker's best DEPTH candidates, best first. `fetch(n, False)` must return the first
        n rows of one fixed order (ties broken by id), so that a deeper fetch extends a shallower one."""
        if not self.checked:
            return fetch(DEPTH, True)
        kept: Rows = []
        seen = 0
        n = 2 * DEPTH
        while True:
            rows = fetch(n, False)
            fresh = rows[seen:]
            keep = self._among([r[0] for r in fresh])
            kept += [r for r in fresh if r[0] in keep]
            seen = len(rows)
            if len(kept) >= DEPTH or len(rows) < n:
                return kept[:DEPTH]
            n *= 4

    def among(self, texts: list[int]) -> set[int]:
        """Which of these texts are candidates."""
        if self.checked:
            return self._among(texts)
        return {t for i in range(0, len(texts), SLICE) for t in cand.listed(self.conn, texts[i:i + SLICE])}

    def texts(self) -> list[int]:
        """Every candidate text (listed)."""
        return cand.texts(self.conn)

    def occurrences(self, texts: list[int]) -> Iterator[tuple[int, Rows]]:
        """Each text with its candidate occurrences (cand.hit_rows), in the order given; read
        OCCURRENCES texts at a time when checked, so that a caller who stops early reads few."""
        if not self.checked:
            for tid in texts:
                yield tid, cand.hit_rows(self.conn, tid)
            return
        known = self._kept(("occurrences", *self._key()))
        for i in range(0, len(texts), OCCURRENCES):
            batch = texts[i:i + OCCURRENCES]
            missing = [t for t in batch if t not in known]
            if missing:
                found = cand.hit_rows_in(self.conn, self.view.sql, self.where, self.args, missing)
                known.update({t: found.get(t, []) for t in missing})
            for tid in batch:
                yield tid, known[tid]

    def _list(self) -> None:
        cand.fill(self.conn, self.view.sql, list(self.where), list(self.args))

    def _key(self) -> tuple[Any, ...]:
        return (self.view.sql, tuple(self.where), tuple(self.args))

    def _among(self, texts: list[int]) -> set[int]:
        """Which of these texts are candidates, asked in slices (SQLite takes at most 32,766
        parameters; a deep fetch can check more texts than that). The answers are kept: most
        of the texts a query checks were checked by an earlier one."""
        known = self._kept(("among", *self._key()))
        missing = [t for t in texts if t not in known]
        for i in range(0, len(missing), SLICE):
            part = missing[i:i + SLICE]
            found = cand.meeting(self.conn, self.view.sql, self.where, self.args, part)
            known.update({t: t in found for t in part})
        return {t for t in texts if known[t]}


def _broad(conn: apsw.Connection, query: Query, view: View, kept: dict[Any, Any]) -> bool:
    """Whether the candidates are most of the view: then checking beats listing."""
    if view.kind == "history" or query.tags or query.type or dates.window(query.since, query.until):
        return False
    files = memo.answer(kept, view.sql, lambda: cand.files_per_group(conn, view.sql))
    total = sum(files.values())
    return total > 0 and sum(files.get(g, 0) for g in query.groups) >= BROAD * total


def _filters(conn: apsw.Connection, query: Query, view: View) -> tuple[list[str], list[Any]]:
    """SQL conditions (index/cand.py) on view row v, blob b and chunk c that a candidate meets."""
    conditions = [cand.in_groups(query.groups), *(cand.tagged(tag) for tag in query.tags)]
    if not query.instructions:
        conditions.append(cand.not_at((config.INSTRUCTIONS_PAGE, config.WATCH_PAGES[0])))
    if query.type:
        conditions.append(cand.typed(query.type))
    window = dates.window(query.since, query.until)
    if window:
        cand.name_functions(conn)
        lo = window.start if window.start is not None else -1e18
        hi = window.end if window.end is not None else 1e18
        conditions.append(cand.dated(view.time_sql, lo, hi, query.by))
    return [c for c, _ in conditions], [a for _, more in conditions for a in more]
