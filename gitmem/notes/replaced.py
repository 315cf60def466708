"""`remember --replaces PATH:LINE`: a fact put in place of the line it updates, named by the writer.

remember's rules recognise an update said in many ways (supersede.py, switches.py), not all:
"Marcus is no longer our PM" of "Marcus Ortiz, product manager", "The new on-call lead is Jonas"
of "On-call lead: Priya", "Standup moved to 10:00" of "The team standup is at 9:30" (an agent
developer's run, 2026-11-27: 6 of 18 updates stood beside the line they updated). An agent has
the line from recall (a result's `where`), a person from recall or `get`: with it, the fact takes
that line's place in one commit, named in a `Gitmem-Supersedes` trailer as a recognised update is,
so that `recall --history` says which commit replaced it.

When remember stored a fact that says it is an update (no longer, now, moved, ...) and no rule
found the line it updates, `maybe` names the closest line the keyword search found, for the hint.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import blocks, credentials
from ..errors import Refused, UsageError
from ..markdown import long_forms
from ..notebook import Notebook
from . import pages
from .reading import RANGE

if TYPE_CHECKING:
    from ..search.hits import Results


@dataclass(frozen=True)
class Target:
    """The line a fact replaces: its page, its number when named and its text (line numbers move:
    each version of the page is searched for the text, nearest the number)."""

    path: str
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def named(nb: Notebook, spec: str, text: str, conflicting: dict[str, bool]) -> Target:
    """The line `spec` (PATH:LINE, the path as `--to` reads it) names, checked to be one line
    that says something; UsageError for anything else, or when an option that places the fact
    otherwise is given too (`conflicting`: option -> given)."""
    given = [option for option, on in conflicting.items() if on]
    if given:
        raise UsageError(f"--replaces names the line the fact takes the place of; {given[0]} cannot be given "
                         "with it", f"drop {given[0]}")
    match = RANGE.match(spec.strip())
    if not match or (match.group("end") and match.group("end") != match.group("start")):
        raise UsageError(f"--replaces takes one line, PATH:LINE, not {spec!r}",
                         "name the line a recall result gives, e.g. --replaces knowledge/events.md:4")
    rel = nb.page(match.group("path"), must_exist=True)
    number = int(match.group("start"))
    lines = nb.read(rel).split("\n")
    line = lines[number - 1] if 1 <= number <= len(lines) else ""
    if not _statement(nb.read(rel), number):
        raise UsageError(f"{rel}:{number} holds no fact to replace"
                         + (f" ({_shown(line)})" if line.strip() else " (a blank line or past the end)"),
                         f"find the fact's line with: git mem get {rel}")
    if "\n" in text.strip():
        raise UsageError("a fact that replaces a line is one line", "say it in one line, or use git mem write")
    return Target(rel, number, line)


def _statement(page: str, number: int) -> bool:
    """Whether line `number` of the page says something: a line of a list item or of a paragraph
    (blocks.kept), not a heading, the frontmatter, a blank line, a code block or a table."""
    lines = page.split("\n")
    said = 1 <= number <= len(lines) and lines[number - 1].strip() != ""
    return said and any(b.start <= number <= b.end and not b.title and not _structured(lines[b.start - 1])
                        for b in blocks.kept(page))


def _structured(first: str) -> bool:
    """A block whose lines a one-line fact cannot stand in: a code fence, a table (`write` edits them)."""
    return first.lstrip().startswith(("```", "~~~", "|"))


def _shown(line: str) -> str:
    line = credentials.redact(line.strip())[0]
    return line if len(line) <= 60 else line[:59] + "…"


def edit(target: Target, text: str) -> Callable[[str], pages.Edit]:
    """The change that puts `text` in place of the target line, in whichever version of the page
    (the work tree's, HEAD's): the line with the target's text nearest its number, keeping its
    indentation, bullet and checkbox. Refused when no version line holds that text any more
    (changed since it was read, or the person's uncommitted line, which HEAD does not hold)."""
    marker = blocks.BULLET.match(target.text)
    prefix = marker.group(0) if marker else target.text[:len(target.text) - len(target.text.lstrip())]

    def put(page: str) -> pages.Edit:
        lines = page.split("\n")
        found = [i for i, line in enumerate(lines) if line == target.text]
        if not found:
            raise Refused(f"{target.where} no longer says {_shown(target.text)!r} (changed, or not committed); "
                          "nothing was written", f"look at the page again: git mem get {target.path}")
        at = min(found, key=lambda i: abs(i + 1 - target.line))
        lines[at] = prefix + " ".join(text.split())
        return pages.Edit("\n".join(lines), at + 1, at + 1)

    return put


def _content(text: str) -> set[str]:
    """A text's content words, stemmed, a short form being its word ("prod db": "production database")."""
    from ..search import facts

    return set(facts.words(long_forms(text.lower())))


# where the subject of an update ends: a link verb or a word that says it is an update
SUBJECT_END = re.compile(r"\b(?:is|are|was|were|has|have|had|got|gets|will|runs?|goes|go|needs?)\b")


def _related(new: str, old: str) -> float:
    """How much a line may be the one a fact updates: the content words they share, each that the
    line says only as a name (capitalised) counting half, when that is 2 or more ("The new on-call
    lead is Jonas Weber": "Priya is the on-call lead" before "Jonas Weber does backend work"; a
    name has many facts); or 1 when the one word shared is a thing the fact's subject says
    ("Standup moved to 10:00", "The team standup is at 9:30"); else 0, and 0 when the subject
    says a name the line does not (the words before its verb or update word)."""
    from ..search import current

    ends = [m.start() for m in (current.MARKED.search(new), SUBJECT_END.search(new)) if m is not None]
    said = new[:min(ends)] if ends else ""
    subject = _content(said)
    if not _content(" ".join(w for w in re.findall(r"\w+", said) if w[:1].isupper())) <= _content(old):
        return 0.0  # another name: "Apollo launch moved to ..." of "Hermes launch is on ..."
    shared = _content(new) & _content(old)
    things = shared & _content(" ".join(w for w in re.findall(r"\w+", old) if w[:1].islower()))
    score = len(things) + 0.5 * len(shared - things)
    if score >= 2:
        return score
    return 1.0 if things & subject else 0.0


# besides search/current.py's MARKED, words a fact says an update with when remember has no rule for it
ALSO_MARKED = re.compile(r"\b(?:new|lowered|raised|increased|decreased|reduced|bumped|upgraded|downgraded|extended|"
                         r"renamed|cut)\b", re.IGNORECASE)


def maybe(nb: Notebook, text: str, near: Callable[[], Results | None],
          stored: dict[str, Any]) -> dict[str, Any] | None:
    """The line a fact that says it is an update ("no longer", "now", "moved", "new": MARKED and
    ALSO_MARKED) may update when no rule found one: among the notebook's one-line facts the keyword
    search found, the most related (`_related`; the better keyword match between equals), but the
    line just stored ({path, lines}), as the page now says it ({path, lines, text}); None when the
    fact says no such thing, or no line is related."""
    from ..search import current

    if current.MARKED.search(text) is None and ALSO_MARKED.search(text) is None:
        return None
    found = near()
    best: tuple[float, dict[str, Any]] | None = None
    for hit in found.results if found is not None else []:
        fact = hit.fact
        if hit.group != "notebook" or fact is None or "\n" in fact.text.strip():
            continue
        related = _related(text, fact.text)
        if not related or (best is not None and best[0] >= related):
            continue
        number = _spot(nb, hit.path, fact.text, fact.lines["start"])
        if number is not None and (hit.path, number) != (stored["path"], stored["lines"]["start"]):
            best = related, {"path": hit.path, "lines": {"start": number, "end": number}, "text": _shown(fact.text)}
    return best[1] if best is not None else None


def _spot(nb: Notebook, rel: str, line: str, near: int) -> int | None:
    """The number of the page's line that says `line` nearest `near` (the new fact may have moved it)."""
    page = nb.read(rel).split("\n") if nb.file(rel).is_file() else []
    spots = [i + 1 for i, said in enumerate(page) if said == line]
    return min(spots, key=lambda n: abs(n - near)) if spots else None
