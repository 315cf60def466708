"""What a commit changed in the notebook, page by page and section by section.

Read from the index's versions table and git's blobs. The index uses it when a
purge must find what `log --grep` embedded; the timeline (search/timeline.py)
shows it. Forgotten lines are blanked before diffing and a private version's
body is never read. A document (PDF, DOCX, ...) is diffed as its extracted
text, never as its bytes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..markdown import body_offset, headings_of
from ..notebook import decode
from . import db, extracts

if TYPE_CHECKING:
    from .forgotten import Matcher
    from .indexer import Index

RENAME_SIMILARITY = 0.5
PRIVATE_NOTES = {  # (private before, private after) -> note; a missing side counts as private
    (True, True): "private page: its text is not shown",
    (True, False): "private until this commit: its earlier text is not shown",
    (False, True): "made private in this commit: its new text is not shown",
}
UNEXTRACTED = "document not extracted (yet, or it failed; see git mem status): its text is not shown"


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
class Commit:
    id: int
    oid: str
    time: int
    author: str
    email: str
    subject: str
    paths: set[str]
    shown: set[str] | None = None  # --path: the names the page had in this commit



class Differ:
    """Per-page, per-section changes of a commit, from the blobs of its versions."""

    def __init__(self, index: Index, hide: Matcher | None = None) -> None:
        self.index = index
        self.hide = index.forgotten if hide is None else hide
        self._texts: dict[int, str] = {}
        self._private: set[int] = set()
        self._unextracted: set[int] = set()  # documents without extracted text
        self._pages: dict[int, list[PageChange]] = {}

    def text(self, blob: int | None) -> str:
        """A version's text as the timeline may show it: forgotten lines blanked, a private page empty."""
        if blob is None:
            return ""
        if blob not in self._texts:
            oid, private = db.one(self.index.conn.execute("SELECT oid, private FROM blobs WHERE id = ?", (blob,)))
            document = None if private else extracts.text(self.index, blob)  # a document: never its bytes
            if private:
                self._private.add(blob)
                self._texts[blob] = ""
            elif document is not None:
                self._texts[blob] = self.hide.redact(document)
                if not document:
                    self._unextracted.add(blob)
            else:
                self._texts[blob] = self.hide.redact(decode(self.index.nb.git.read_blob(oid)))
        return self._texts[blob]

    def private(self, blob: int | None) -> bool:
        self.text(blob)
        return blob in self._private

    def note(self, before: int | None, after: int | None) -> str | None:
        if not (self.private(before) or self.private(after)):
            return UNEXTRACTED if {before, after} & self._unextracted else None
        return PRIVATE_NOTES[(before is None or self.private(before), after is None or self.private(after))]

    def pages(self, c: Commit, only: set[str] | None = None) -> list[PageChange]:
        if c.id not in self._pages:
            self._pages[c.id] = self._diff(c)
        changes = self._pages[c.id]
        return changes if only is None else [p for p in changes if p.path in only]

    def doc(self, c: Commit) -> str:
        """The text a commit added and removed, as one document (for --grep)."""
        lines = [line for p in self.pages(c) for s in p.sections for line in (*s.added, *s.removed)]
        return "\n".join(lines)

    def _diff(self, c: Commit) -> list[PageChange]:
        rows = cast(list[tuple[str, int, int]],
                    self.index.conn.execute("""SELECT path, blob, 0 FROM versions WHERE end_commit = ?
                                          UNION ALL SELECT path, blob, 1 FROM versions WHERE start_commit = ?""",
                                            (c.id, c.id)).fetchall())
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
    body = body_offset(text)
    parts: list[tuple[str, list[str]]] = []
    if body:
        parts.append(("frontmatter", text[:body].splitlines()))
    cuts = headings_of(text, body)
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
