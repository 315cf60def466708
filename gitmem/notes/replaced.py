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

from .. import blocks, credentials, switches
from ..errors import PageNotFound, Refused, UsageError
from ..markdown import long_forms
from ..notebook import Notebook
from ..text import clean_text
from . import pages
from .reading import RANGE

if TYPE_CHECKING:
    from ..search.hits import Results


@dataclass(frozen=True)
class Target:
    """The fact a new one replaces: its page, where it starts and its lines (a list item with its
    continuation lines, or a line), "\r" left out. Each version of the page is searched for these
    lines, which must be there once: line numbers move, and a line said twice is no one place."""

    path: str
    line: int
    lines: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


# where a fact cannot be put: a setext underline or thematic break, HTML, a link reference definition
NOT_A_FACT = re.compile(r"^\s{0,3}(?:([-*_=])(?:\s*\1){2,}\s*$|<|\[[^\]]+\]:)")


def named(nb: Notebook, spec: str, text: str, conflicting: dict[str, bool]) -> Target:
    """The fact `spec` names: PATH:LINE (a recall result's `where`, PATH:START-END for a fact of
    several lines), or the fact's own words, on one line of the notebook (they cannot go stale);
    UsageError for anything else, or when an option that places the fact otherwise is given too
    (`conflicting`: option -> given)."""
    given = [option for option, on in conflicting.items() if on]
    if given:
        raise UsageError(f"--replaces names the line the fact takes the place of; {given[0]} cannot be given "
                         "with it", f"drop {given[0]}")
    if not spec.strip():
        raise UsageError("--replaces names no line", "give PATH:LINE, as recall prints it, or the line's words")
    if "\n" in text.strip():
        raise UsageError("a fact that replaces a line is one line", "say it in one line, or use git mem write")
    rel, start, end = _place(nb, spec)
    page = nb.read(rel).replace("\r\n", "\n")
    block = _fact_at(page, start)
    if block is not None and end != start and (block.start, block.end) != (start, end):
        raise UsageError(f"{rel}:{start}-{end} is not one fact (the fact there is lines {block.start}-{block.end})",
                         f"name the fact, as recall prints it: --replaces {rel}:{block.start}")
    if block is None:
        line = page.split("\n")[start - 1] if 1 <= start <= page.count("\n") + 1 else ""
        raise UsageError(f"{rel}:{start} holds no fact to replace"
                         + (f" ({_shown(line)})" if line.strip() else " (a blank line or past the end)"),
                         f"find the fact's line with: git mem get {rel}")
    return Target(rel, block.start, tuple(page.split("\n")[block.start - 1:block.end]))


def _place(nb: Notebook, spec: str) -> tuple[str, int, int]:
    """(page, first line, last line) that `spec` names: PATH:LINE[-END], or the one line of the
    notebook that holds its words (as forget finds a fact)."""
    from .spots import Ambiguous, locate

    match = RANGE.match(spec.strip())
    if match and not any(c.isspace() for c in spec.strip()):
        try:
            rel = nb.page(match.group("path"), must_exist=True)
        except PageNotFound:
            rel = None  # "9:30" or "db01:5432" are words, as forget reads them
        if rel is not None:
            start = int(match.group("start"))
            return rel, start, int(match.group("end") or start)
    try:
        spots, _ = locate(nb, spec, every=False)
    except Ambiguous as exc:
        raise UsageError(exc.message, "name one as PATH:LINE (recall prints it)") from exc
    words = re.compile(rf"(?<!\w){re.escape(' '.join(spec.split()))}(?!\w)", re.IGNORECASE)
    # as words: "tom" is not in "Buy tomatoes" (a review)
    here = [s for s in spots if not s.at_head and any(words.search(" ".join(line.split()))
                                                      for line in nb.read(s.path).split("\n")[s.start - 1:s.end])]
    if len(here) != 1:
        raise UsageError(f"no line of the notebook says {_shown(spec)!r} as words" if not here else
                         f"{_shown(spec)!r} is on {len(here)} lines", "name the line as PATH:LINE, as recall prints it")
    return here[0].path, here[0].start, here[0].end


def _fact_at(page: str, number: int) -> blocks.Block | None:
    """The block holding line `number` when a one-line fact can stand in its place: a list item
    (its continuation lines too, not the items nested under it) or a paragraph of one line; not
    a heading (setext too), the frontmatter, a code block, a table, HTML, a rule or a blank line."""
    lines = page.split("\n")
    for b in blocks.kept(page):
        if not b.start <= number <= b.end or b.title:
            continue
        body = lines[b.start - 1:b.end]
        item = blocks.BULLET.match(_unquoted(body[0])) is not None
        if any(NOT_A_FACT.match(line) for line in body) or body[0].lstrip().startswith(("```", "~~~", "|")) \
                or not item and (b.end != b.start or body[0].startswith(("    ", "\t"))):
            return None  # a paragraph of several lines is more than one fact; four spaces start a code block
        return b
    return None


QUOTE = re.compile(r"^\s*(?:>\s?)+")


def _unquoted(line: str) -> str:
    return QUOTE.sub("", line, count=1)


def _shown(line: str) -> str:
    line = credentials.redact(clean_text(line.strip()).replace("\n", " "))[0]
    return line if len(line) <= 60 else line[:59] + "…"


def edit(target: Target, text: str) -> Callable[[str], pages.Edit]:
    """The change that puts `text` in place of the target's lines, in whichever version of the
    page (the work tree's, HEAD's), keeping the first line's quote marks, indentation and bullet
    (a checked box unchecked: the new fact is not done yet), and taking out a copy of the new line
    that a remember just added to the page. Refused when the version does not hold the lines
    exactly once (changed since they were read; a person's uncommitted line, which HEAD does not
    hold; a line said twice, which is no one place)."""
    first = target.lines[0]
    quote = QUOTE.match(first)
    rest = first[quote.end():] if quote else first
    marker = blocks.BULLET.match(rest)
    prefix = (quote.group(0) if quote else "") + (marker.group(0) if marker else rest[:len(rest) - len(rest.lstrip())])
    line = re.sub(r"\[[xX]\]", "[ ]", prefix) + " ".join(text.split())

    def put(page: str) -> pages.Edit:
        lines = [ln.rstrip("\r") for ln in page.split("\n")]
        size = len(target.lines)
        found = [i for i in range(len(lines) - size + 1) if tuple(lines[i:i + size]) == target.lines]
        if len(found) != 1:
            said = f"says it {len(found)} times" if found else f"no longer says {_shown(target.lines[0])!r}"
            raise Refused(f"{target.where}: the page {said} (changed, not committed, or said twice); nothing was "
                          "written", f"look at the page again: git mem get {target.path}")
        at = found[0]
        ends = page.split("\n")
        ending = "\r" if ends[at].endswith("\r") else ""
        section = _sections(lines)
        # the copy a remember just added, in the old line's section: one a person wrote elsewhere is theirs (a review)
        kept = [i for i, said in enumerate(lines) if said == line and not at <= i < at + size
                and section[i] == section[at]]
        ends[at:at + size] = [line + ending]
        for i in sorted(kept, reverse=True):  # the fact now stands in the old line's place
            del ends[i - (size - 1) if i > at else i]
        start = at + 1 - sum(1 for i in kept if i < at)
        return pages.Edit("\n".join(ends), start, start)

    return put


def _sections(lines: list[str]) -> list[int]:
    """For each line, the number of the heading it is under (0 before the first): which section it is in."""
    out, at, fence = [], 0, False
    for i, line in enumerate(lines):
        fence = fence != line.lstrip().startswith(("```", "~~~"))
        at = i + 1 if not fence and re.match(r"^#{1,6}\s", line) else at
        out.append(at)
    return out


def _content(text: str) -> set[str]:
    """A text's content words, stemmed, a short form being its word ("prod db": "production database");
    an address, host or file name left out (its parts, "example" and "com", say nothing of a subject)."""
    from ..search import facts

    return set(facts.words(long_forms(_undotted(text).lower())))


def _undotted(text: str) -> str:
    """The text without its addresses, hosts and file names (a word with a dot or an @ inside); word
    by word, as a pattern over a long word took time in its square (a review: 12 s for 19,000 x's)."""
    return " ".join(word for word in text.split() if not DOTTED.search(word))


DOTTED = re.compile(r"\w[.@]\w")
# where the subject of an update ends: a link verb or a word that says it is an update
SUBJECT_END = re.compile(r"\b(?:is|are|was|were|has|have|had|got|gets|will|runs?|goes|go|needs?|uses?)\b")


def _said_first(text: str) -> str:
    """A fact's subject as said: the text before its first link verb or update word ('' if none)."""
    from ..search import current

    ends = [m.start() for m in (current.MARKED.search(text), SUBJECT_END.search(text)) if m is not None]
    return text[:min(ends)] if ends else ""


def _subject(text: str) -> list[str]:
    """The content words of a fact's subject, in order."""
    from ..search import facts

    return facts.words(long_forms(_undotted(_said_first(text)).lower()))


def _related(new: str, old: str) -> float:
    """How much a line may be the one a fact updates: the content words they share, each that the
    line says only as a name (capitalised) counting half, when that is 2 or more ("The new on-call
    lead is Jonas Weber": "Priya is the on-call lead" before "Jonas Weber does backend work"; a
    name has many facts); or 1 when the one word shared is what both subjects end with, a thing
    ("Standup moved to 10:00", "The team standup is at 9:30"; not "The team offsite is now in
    Lisbon" of "We use Slack for team chat"); else 0, and 0 when the fact's subject says a name
    the line does not ("Apollo launch moved to ..." of "Hermes launch is on ...")."""
    names = _content(" ".join(w for w in re.findall(r"\w+", _said_first(new)) if w[:1].isupper()))
    if not names <= _content(old):
        return 0.0
    shared = _content(new) & _content(old)
    things = shared & _content(" ".join(w for w in re.findall(r"\w+", _undotted(old)) if w[:1].islower()))
    score = len(things) + 0.5 * len(shared - things)
    if score >= 2:
        return score
    mine, theirs = _subject(new), _subject(old)
    head = mine[-1] if mine else ""
    # the line's subject may end in a kind word the update leaves out: "Staging" of "The staging server"
    ends = theirs[-1:] if not theirs or theirs[-1] not in switches.KIND_WORDS else theirs[-2:]
    return 1.0 if head in things and head in ends else 0.0


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


def fix(maybe: dict[str, Any], stored: str, text: str) -> str:
    """The hint beside `maybe`: on the page the fact went to, the command that puts it in the old
    line's place (taking out the copy just added); on another, the one that takes the old line out."""
    where = f"{maybe['path']}:{maybe['lines']['start']}"
    if maybe["path"] == stored:
        return f"if it updates that line, put it in its place: git mem remember --replaces {where} {_quoted(text)}"
    return f"if it updates that line, take that line out: git mem forget {where}"


def _quoted(text: str) -> str:
    """The fact as a shell word, in the hint's command."""
    import shlex

    return shlex.quote(" ".join(text.split()))
