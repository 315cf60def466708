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

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import chunker, dates, embed
from .errors import EmptyText
from .indexer import Index, recovering
from .notebook import Notebook, decode
from .dates import iso

if TYPE_CHECKING:
    import apsw

    from .forgotten import Matcher

RENAME_SIMILARITY = 0.5
PRIVATE_NOTES = {  # (private before, private after) -> note; a missing side counts as private
    (True, True): "private page: its text is not shown",
    (True, False): "private until this commit: its earlier text is not shown",
    (False, True): "made private in this commit: its new text is not shown",
}


@dataclass
class SectionChange:
    heading: str  # "" = the part of the page before its first heading
    change: str  # added | changed | removed
    added: list[str]
    removed: list[str]


@dataclass
class PageChange:
    path: str
    change: str  # added | changed | removed | renamed
    sections: list[SectionChange]
    renamed_from: str | None = None
    note: str | None = None  # why some of the page's text is not shown (a private page)


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


@dataclass
class _Commit:
    id: int
    oid: str
    time: int
    author: str
    email: str
    subject: str
    paths: set[str]
    shown: set[str] | None = None  # --path: the names the page had in this commit


@recovering
def log(nb: Notebook, since: str | None = None, until: str | None = None, path: str | None = None,
        grep: str | None = None, limit: int | None = None) -> Timeline:
    """The commits that changed the notebook, newest first, filtered."""
    window = dates.window(since, until)
    page = nb.page(path) if path else None
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


def _commits(conn: "apsw.Connection", window: dates.Window) -> list[_Commit]:
    lo = window.start if window.start is not None else -1e18
    hi = window.end if window.end is not None else 1e18
    rows = conn.execute("""SELECT c.id, c.oid, c.time, c.author, c.email, c.subject, group_concat(ch.path, char(0))
                             FROM commits c JOIN (
                                  SELECT start_commit AS cid, path FROM versions
                                  UNION SELECT end_commit, path FROM versions WHERE end_commit IS NOT NULL) ch
                               ON ch.cid = c.id
                            WHERE c.time BETWEEN ? AND ?
                            GROUP BY c.id ORDER BY c.seq DESC""", (lo, hi)).fetchall()
    return [_Commit(r[0], r[1], r[2], r[3], r[4], r[5], set(r[6].split("\0"))) for r in rows]


def _following(commits: list[_Commit], page: str, differ: "Differ") -> list[_Commit]:
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


def _merged(nb: Notebook, parents: tuple[str, ...], hide: "Matcher") -> list[dict[str, str]]:
    out = []
    for side in parents[1:]:
        for c in reversed(list(nb.git.first_parent_log(side, parents[0], nb.prefix))):
            out.append({"commit": c.oid, "date": iso(c.time), "author": c.author, "subject": hide.subject(c.subject)})
    return out


class Differ:
    """Per-page, per-section changes of a commit, from the blobs of its versions."""

    def __init__(self, index: Index, hide: "Matcher | None" = None) -> None:
        self.index = index
        self.hide = index.forgotten if hide is None else hide
        self._texts: dict[int, str] = {}
        self._private: set[int] = set()
        self._pages: dict[int, list[PageChange]] = {}

    def text(self, blob: int | None) -> str:
        """A version's text as the timeline may show it: forgotten lines blanked, a private page empty."""
        if blob is None:
            return ""
        if blob not in self._texts:
            oid, private = self.index.conn.execute("SELECT oid, private FROM blobs WHERE id = ?", (blob,)).fetchone()
            if private:
                self._private.add(blob)
                self._texts[blob] = ""
            else:
                self._texts[blob] = self.hide.redact(decode(self.index.nb.git.read_blob(oid)))
        return self._texts[blob]

    def private(self, blob: int | None) -> bool:
        self.text(blob)
        return blob in self._private

    def note(self, before: int | None, after: int | None) -> str | None:
        if not (self.private(before) or self.private(after)):
            return None
        return PRIVATE_NOTES[(before is None or self.private(before), after is None or self.private(after))]

    def pages(self, c: _Commit, only: set[str] | None = None) -> list[PageChange]:
        if c.id not in self._pages:
            self._pages[c.id] = self._diff(c)
        changes = self._pages[c.id]
        return changes if only is None else [p for p in changes if p.path in only]

    def doc(self, c: _Commit) -> str:
        """The text a commit added and removed, as one document (for --grep)."""
        lines = [line for p in self.pages(c) for s in p.sections for line in (*s.added, *s.removed)]
        return "\n".join(lines)

    def _diff(self, c: _Commit) -> list[PageChange]:
        rows = self.index.conn.execute("""SELECT path, blob, 0 FROM versions WHERE end_commit = ?
                                          UNION ALL SELECT path, blob, 1 FROM versions WHERE start_commit = ?""",
                                       (c.id, c.id)).fetchall()
        old: dict[str, int] = {p: b for p, b, new in rows if not new}
        new: dict[str, int] = {p: b for p, b, n in rows if n}
        renames = self._renames([p for p in old if p not in new], [p for p in new if p not in old], old, new)
        changes = []
        for path in sorted(old.keys() | new.keys()):
            if path in renames.values():
                continue
            source = renames.get(path)
            before = old.get(path) if source is None else old[source]
            after = new.get(path)
            kind = "renamed" if source else "added" if before is None else "removed" if after is None else "changed"
            changes.append(PageChange(path, kind, diff_sections(self.text(before), self.text(after)), source,
                                      self.note(before, after)))
        return changes

    def _renames(self, gone: list[str], born: list[str], old: dict[str, int], new: dict[str, int]) -> dict[str, str]:
        """new path -> old path, for pages deleted and added in one commit."""
        pairs: dict[str, str] = {}
        for target in born:
            best, score = None, RENAME_SIMILARITY
            for source in gone:
                if source in pairs.values():
                    continue
                ratio = 1.0 if old[source] == new[target] else 0.0 if self.private(old[source]) or \
                    self.private(new[target]) else difflib.SequenceMatcher(
                    None, self.text(old[source]).splitlines(), self.text(new[target]).splitlines()).ratio()
                if ratio >= score:
                    best, score = source, ratio
            if best is not None:
                pairs[target] = best
        return pairs


def sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, lines) of each part of a page: its frontmatter, the text
    before the first heading, then one part per heading (any level); an H1
    title with no text of its own joins the part after it, as in chunking."""
    body = chunker.body_offset(text)
    parts: list[tuple[str, list[str]]] = []
    if body:
        parts.append(("frontmatter", text[:body].splitlines()))
    cuts = chunker.headings_of(text, body)
    preamble = text[body:cuts[0][0] if cuts else len(text)]
    if preamble.strip():
        parts.append(("", preamble.splitlines()))
    carried: list[str] = []
    for i, (off, level, title) in enumerate(cuts):
        lines = carried + text[off:cuts[i + 1][0] if i + 1 < len(cuts) else len(text)].splitlines()
        carried = []
        if level == 1 and i + 1 < len(cuts) and not any(line.strip() for line in lines[1:]):
            carried = lines
            continue
        parts.append((title, lines))
    return parts


def diff_sections(before: str, after: str) -> list[SectionChange]:
    """What changed between two texts of a page, section by section."""
    def keyed(text: str) -> dict[tuple[str, int], list[str]]:
        seen: dict[str, int] = {}
        out = {}
        for title, lines in sections(text):
            seen[title] = seen.get(title, 0) + 1
            out[(title, seen[title])] = lines
        return out

    old, new = keyed(before), keyed(after)
    order = list(new) + [k for k in old if k not in new]
    changes = []
    for key in order:
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        added, removed = _line_diff(a or [], b or [])
        if not added and not removed:
            continue  # only blank lines moved
        kind = "added" if a is None else "removed" if b is None else "changed"
        changes.append(SectionChange(key[0], kind, added, removed))
    return changes


def _line_diff(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    added: list[str] = []
    removed: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            removed.extend(line for line in a[i1:i2] if line.strip())
        if op in ("replace", "insert"):
            added.extend(line for line in b[j1:j2] if line.strip())
    return added, removed
