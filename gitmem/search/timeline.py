"""The memory timeline: what each commit changed in the notebook, newest first.

Built from the index's first-parent history (the notebook as HEAD's branch
saw it), so a merge is one entry holding everything it brought in, with the
merged commits listed. Per page: added, changed, removed or renamed (a page
deleted and added in one commit with mostly the same lines), and per
section, named by its heading, the lines added and removed.

What the index keeps out stays out here too: forgotten lines are blanked
before diffing (so they are neither shown nor matched by --grep), subjects and
message lines that quote forgotten text are withheld, and the body of a
version marked `private: true` is never read into a diff: the page is listed
as changed, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import dates
from ..dates import iso
from ..errors import EmptyText
from ..index import commits as indexed
from ..index import embed
from ..index.diffs import Commit, Differ, PageChange
from ..index.documents import kind_of
from ..index.indexer import Index, recovering
from ..notebook import Notebook

if TYPE_CHECKING:
    import apsw

    from ..index.forgotten import Matcher



@dataclass
class Entry:
    commit: str
    date: str
    author: str
    email: str
    subject: str
    message: str
    pages: list[PageChange]
    merged: list[dict[str, str]] = field(default_factory=list)  # a merge: the commits it brought in
    score: float | None = None  # --grep: how well the changed text matches


@dataclass
class Timeline:
    entries: list[Entry]
    filters: dict[str, Any]
    semantic: bool | None = None  # --grep: whether meaning was used as well as keywords
    notes: list[str] = field(default_factory=list)



@recovering
def log(nb: Notebook, since: str | None = None, until: str | None = None, path: str | None = None,
        grep: str | None = None, limit: int | None = None) -> Timeline:
    """The commits that changed the notebook, newest first, filtered."""
    window = dates.window(since, until)
    # a document: as named
    page = nb.page(path, default_suffix="" if path and kind_of(path) else ".md") if path else None
    filters = {"since": since, "until": until, **window.describe(), "path": page, "grep": grep, "limit": limit}
    if grep is not None and not grep.strip():
        raise EmptyText("empty --grep query", "say what to look for, e.g. git mem log --grep \"Sarah's phone\"")
    index = Index(nb)  # opened before the model thread starts, see db.vec_extension
    loader = embed.Background(embed.resolve(nb.git)) if grep is not None else None
    try:
        report = index.sync()
        commits = _commits(index.conn, window)
        differ = Differ(index)
        if page:
            commits = _following(commits, page, differ)
        timeline = Timeline([], filters, notes=list(report.notes))
        if grep is not None:
            from . import grep as matcher

            docs = [(c.id, differ.doc(c)) for c in commits]
            scores, timeline.semantic, notes = matcher.scores(index, grep, docs, loader)
            timeline.notes.extend(notes)
            commits = [c for c in commits if c.id in scores]
        commits = commits[:limit] if limit else commits
        details = nb.git.messages([c.oid for c in commits])
        hide = index.forgotten
        for c in commits:
            parents, message = details.get(c.oid, ((), c.subject))
            entry = Entry(c.oid, iso(c.time), c.author, c.email, hide.subject(c.subject), hide.message(message),
                          differ.pages(c, c.shown))
            if len(parents) > 1:
                entry.merged = _merged(nb, parents, hide)
            if grep is not None:
                entry.score = round(scores[c.id], 4)
            timeline.entries.append(entry)
        return timeline
    finally:
        index.close()


def _commits(conn: apsw.Connection, window: dates.Window) -> list[Commit]:
    lo = window.start if window.start is not None else -1e18
    hi = window.end if window.end is not None else 1e18
    return indexed.changing(conn, lo, hi)


def _following(commits: list[Commit], page: str, differ: Differ) -> list[Commit]:
    """The commits that changed `page`, following it back through renames."""
    names = {page}
    kept = []
    for c in commits:
        touched = c.paths & names
        if not touched:
            continue
        kept.append(c)
        c.shown = set(touched)
        for change in differ.pages(c, touched):
            if change.renamed_from:
                names.add(change.renamed_from)
    return kept


def _merged(nb: Notebook, parents: tuple[str, ...], hide: Matcher) -> list[dict[str, str]]:
    out = []
    for side in parents[1:]:
        for c in reversed(list(nb.git.first_parent_log(side, parents[0], nb.prefix))):
            out.append({"commit": c.oid, "date": iso(c.time), "author": c.author, "subject": hide.subject(c.subject)})
    return out
