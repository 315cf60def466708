"""What a query searches: the notebook now, as it stood at a revision, or all
of its history.

A view is SQL giving rows (path, grp, blob, version) that the search builds
its candidates from, plus `time_sql`, an expression for the commit date of
chunk `c` in view row `v` (what date filters compare). The live view is HEAD
overlaid by the work tree. A revision on the indexed first-parent chain is
answered from the versions table; any other revision (a commit on a merged
branch, another branch, a commit rebased away) from `git ls-tree`, chunking
whatever blobs the index has not seen yet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .. import dates
from ..dates import iso
from ..errors import GitmemError, UsageError
from ..index import commits, embeddings, extracts
from ..index import views as sql
from ..index.db import LIVE_VIEW
from ..index.provenance import Origin, of_text
from ..index.views import EMPTY_VIEW, HISTORY_VIEW, ORIGIN_TIME

if TYPE_CHECKING:
    from ..index.indexer import Index
    from ..notebook import Notebook

REV_HINT = "give a commit, branch or tag, a date (2026-02-20) or a period (7d); see 'git mem log'"


class UnknownRevision(GitmemError):
    pass


@dataclass(frozen=True)
class Revision:
    """A revision as asked for (REV, DATE or period) and the commit it names."""

    asked: str
    commit: str
    time: int
    subject: str

    @property
    def date(self) -> str:
        return iso(self.time)


@dataclass
class View:
    kind: str  # live | at | history
    sql: str
    time_sql: str = ORIGIN_TIME
    revision: Revision | None = None
    first_parent: bool = True  # the revision is on the indexed first-parent chain
    pages: dict[str, Origin] | None = None  # off the chain: the commit that last changed each page
    notes: list[str] = field(default_factory=list)

    @property
    def lasting(self) -> bool:
        """Whether what a query learns about this view holds while the index is unchanged: its
        SQL reads the index's own tables only (off the chain it reads a connection's temp table)."""
        return self.pages is None

    def origin(self, index: Index, path: str, version: int | None, text: int) -> Origin:
        """Where a chunk's text in this view came from."""
        if self.pages is not None:
            return self.pages.get(path, Origin(None, None, None, None))
        kept = index.kept("origins")  # a page's lines at a version came from one commit, asked query after query
        key = (path, version, text)
        found: Origin | None = kept.get(key)
        if found is None:
            found = of_text(index, path, version, text)
            if found.commit is not None:  # an uncommitted text is dated by its file, which may be touched
                kept[key] = found
        return found

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.revision:
            r = self.revision
            out.update(asked=r.asked, commit=r.commit, date=r.date, subject=r.subject,
                       first_parent=self.first_parent)
        return out


def live() -> View:
    return View("live", LIVE_VIEW)


def history() -> View:
    return View("history", HISTORY_VIEW)


def build(index: Index, at: str | None, whole_history: bool) -> View:
    if at and whole_history:
        raise UsageError("--at and --history do not go together",
                         "use --at REV for one revision, or --history for all of them")
    if whole_history:
        return history()
    return at_revision(index, at) if at else live()


def resolve(nb: Notebook, value: str) -> Revision:
    """The commit a REV, DATE or period names. A date (or a period back from
    now) names the last commit on HEAD's first-parent chain, by commit date, at
    or before it that changed the notebook."""
    git = nb.git
    head = git.head()
    if head is None:
        raise UnknownRevision("the notebook has no commits yet", "commit something first")
    if value.strip() and dates.is_date(value):
        moment = dates.parse(value, end_of_day=True).timestamp()
        chain = git.touching(head, nb.prefix)
        found = next((oid for oid, ts in chain if ts <= moment), None)
        if found is None:
            first = iso(chain[-1][1])[:16] if chain else "none"
            raise UnknownRevision(f"the notebook has no commits at or before {value}",
                                  f"its history starts {first}; see 'git mem log'")
        oid = found
    else:
        resolved = git.resolve(value) if value.strip() else None
        if resolved is None and re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}(?:[T ].*)?", value.strip()):
            dates.parse(value)  # a date that is none ("2026-13-45"): said as --from says it, not "unknown revision"
        if resolved is None:
            raise UnknownRevision(f"unknown revision {value!r}", REV_HINT)
        oid = resolved
    c = git.describe(oid)
    return Revision(value, c.oid, c.time, c.subject)


def at_revision(index: Index, value: str) -> View:
    """The notebook exactly as it stood at a revision."""
    nb = index.nb
    rev = resolve(nb, value)
    rev = replace(rev, subject=index.forgotten.subject(rev.subject))
    tip = nb.git.touching(rev.commit, nb.prefix, limit=1)
    if not tip:
        return View("at", EMPTY_VIEW, revision=rev,
                    notes=[f"the notebook had no pages at {value} ({rev.commit[:7]})"])
    seq = commits.seq_of(index.conn, tip[0][0])
    if seq is not None:
        return View("at", sql.at_seq(seq), revision=rev)
    return _off_chain(index, rev)


def _off_chain(index: Index, rev: Revision) -> View:
    nb = index.nb
    entries = {}
    for entry in nb.git.tree(rev.commit, nb.prefix):
        rel = nb.rel(entry.path)
        if rel is not None and nb.settings.is_indexed(rel):
            entries[rel] = entry.oid
    kinds = {oid: extracts.kind_of(nb, rel) for rel, oid in entries.items()}
    blobs = index.add_blobs(sorted(set(entries.values())), kinds=kinds)
    pages: dict[str, Origin] = {}
    times: dict[str, int] = {}
    for c in nb.git.first_parent_log(rev.commit, None, nb.prefix):
        for change in c.changes:
            rel = nb.rel(change.path)
            if rel in entries:
                pages[rel] = Origin(c.oid, iso(c.time), c.author, index.forgotten.subject(c.subject))
                times[rel] = c.time
    sql.fill_at_table(index.conn, [(rel, nb.settings.group_of(rel), blobs[oid], times.get(rel, rev.time))
                                   for rel, oid in entries.items()])
    return View("at", sql.AT_TABLE_VIEW, time_sql=sql.AT_TABLE_TIME,
                revision=rev, first_parent=False, pages=pages)


def pending(index: Index, view: View, facts: bool = True) -> int:
    """How many texts of the view have no embedding yet (`facts` False: chunks' texts only)."""
    if embeddings.view_waits(index, view.sql, chunks_only=not facts) is False:
        return 0  # the few waiting texts are elsewhere: no need to count over the view
    return sql.pending(index.conn, view.sql, facts)


def total(index: Index, view: View) -> int:
    """How many texts the view has (all of them wait for a new model)."""
    return sql.total(index.conn, view.sql)
