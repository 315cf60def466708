"""The current fact above the one it updates, when both lines stay on a page.

`remember` replaces the line a new fact updates, but keeps both when the old
line says more than the update touches ("I prefer dark roast coffee, no
sugar" + "I no longer drink coffee; I switched to green tea": replacing the
line would drop what the update did not say), and people write both lines by
hand. Recall links such a pair instead: when a later line of a result's page
updates the result's fact (supersede.outdates, the rules remember uses), that
line is shown just above it, at its score if that was higher, and the older
fact names it (`successor`), so a superseded fact never ranks above the fact
that took its place.

Saved sessions and documents are left alone (a chat's turns are dialogue,
several sentences a line, not a page of facts). Only lines below the fact in
its section, at its depth and under the same list item, count (remember, daily and a
person's log add lines at the end of a section; another section may be
about another subject), and only those that say they are an update (a word
of switches.py's rules: "no longer", "now", "switched", "instead of",
"moved", ...) or give the same attribute another value ("Sarah's phone is
555-1234", then "Sarah's phone is 555-9999", as a person or Anthropic's
memory tool writes them): at most JUDGED of the nearest SCANNED lines per
result, and a line's attribute is read once.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from .. import blocks, supersede, switches
from .facts import Fact, Found

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..index.pagetext import Reader
    from .hits import Hit

MARKED = re.compile(r"\b(?:no longer|not anymore|stopped|quit|gave up|now|switched|moved|changed|migrated|converted|"
                    r"instead of|replaced|as of|going forward|starting|effective|pushed|postponed|rescheduled|"
                    r"delayed|brought forward|slipped|relocated|henceforth|until further notice|"
                    rf"re(?:{switches.AGAIN}))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Update:
    """A block of a page that may update a line: its lines, text, heading path, how deep it is
    indented (a nested item belongs to the item above it) and whether it says it is an update."""

    start: int
    end: int
    text: str
    headings: tuple[str, ...]
    indent: int
    marked: bool


@lru_cache(maxsize=4096)  # as blocks.kept: a page is parsed once, query after query
def statements(text: str) -> tuple[Update, ...]:
    """The page's blocks that say something, in order (headings left out)."""
    lines = text.split("\n")
    out = []
    for b in blocks.kept(text):
        body = "\n".join(lines[b.start - 1:b.end])
        if not b.title and body.strip():
            indent = len(body) - len(body.lstrip())
            out.append(Update(b.start, b.end, body, tuple(b.headings), indent,
                              len(body) <= supersede.MAX_CHARS and MARKED.search(body) is not None))
    return tuple(out)


@lru_cache(maxsize=4096)
def _starts(text: str) -> tuple[int, ...]:
    """Where each of the page's statements starts, in order: the ones below a fact are found by
    bisection (a sync judging the lines of a 20,000-line page took 18 s walking it from each)."""
    return tuple(u.start for u in statements(text))


@lru_cache(maxsize=65536)
def _attribute(line: str) -> str | None:
    """The attribute a line gives one value of (supersede.claim: "phone", "likes jazz"), if any."""
    if len(line) > supersede.MAX_CHARS:
        return None
    found = supersede.claim(_bare(line))
    return found.attribute if found is not None else None


@lru_cache(maxsize=65536)
def _outdates(new: str, old: str) -> str | None:
    return supersede.outdates(_bare(new), old)


SCANNED = 200  # lines below a fact looked at, at most (an 800-line journal section took 10 s a query)
JUDGED = 12  # of them, lines judged by supersede's rules, at most (about 0.3 ms each)


def successor(text: str, fact: Fact) -> tuple[Update, str] | None:
    """The first line below `fact` in its section of the page `text`, at its depth and under the
    same item, that updates it, and whether it updates the whole line or a part of it
    (supersede.outdates); None: none does. A line is judged when it says it is an update
    (MARKED) or gives the same attribute another value; the nearest SCANNED lines, JUDGED of them."""
    old = fact.text
    if "\n" in old.strip() or len(old) > supersede.MAX_CHARS:
        return None  # a fact of several lines is no one value to update
    attribute = _attribute(old)
    indent = len(old) - len(old.lstrip())
    found = statements(text)
    below = found[bisect.bisect_right(_starts(text), fact.lines["end"]):][:SCANNED]  # not a walk of the page
    judged = 0
    for later in below:
        if list(later.headings) != fact.headings or later.indent < indent:
            return None  # another section, or another item's ("- Sarah", "  - Phone: ...", "- Bob", ...)
        same = attribute is not None and _attribute(later.text) == attribute
        if later.indent > indent or not (later.marked or same):
            continue
        how = _outdates(later.text, old)
        if how is not None:
            return later, how
        judged += 1
        if judged >= JUDGED:
            return None
    return None


def predecessor(text: str, line: int) -> tuple[Update, str] | None:
    """The line above the statement starting at `line` that it updates (successor's pairing read from
    the later line: the nearest above it in its section, at its depth, that it names as updated or
    gives the same attribute of), and how; None if it updates none. The walk is bounded as
    successor's is: `remember` asks it of every fact it adds beside a line (a walk of a 3,000-line
    page judged by supersede's rules took 2.4 s)."""
    found = statements(text)
    at = bisect.bisect_right(_starts(text), line) - 1
    if at < 0 or found[at].start != line:
        return None
    new, judged = found[at], 0
    for old in reversed(found[max(0, at - SCANNED):at]):
        if old.headings != new.headings or old.indent < new.indent:
            return None  # another section, or the item the new line is nested under
        if old.indent > new.indent or "\n" in old.text.strip() or len(old.text) > supersede.MAX_CHARS:
            continue
        if not new.marked and (_attribute(new.text) is None or _attribute(old.text) != _attribute(new.text)):
            continue
        how = _outdates(new.text, old.text)
        if how is not None:
            later = successor(text, Fact(old.text, {"start": old.start, "end": old.end}, list(old.headings)))
            return (old, how) if later is not None and later[0].start == line else None
        judged += 1
        if judged >= JUDGED:
            return None
    return None


def _bare(text: str) -> str:
    """A list item's text without its bullet or checkbox: the fact as remember was given it."""
    return blocks.BULLET.sub("", text, count=1).strip()


LINKED = ("notebook", "daily")  # a transcript's turns are dialogue, a document's lines are not ours to judge


def link(found: list[Found], reader: Reader, full: bool = False) -> list[Found]:
    """`found` with each fact that a later line of its page updates placed just under that line
    (the line added as a result of its own when no result named it), naming it as `successor`.
    A successor that ranks above already stays where it is. With `full` (a result is its chunk)
    a successor inside the old fact's chunk is named, not added: the chunk shows it."""
    def later(old: Found) -> tuple[Update, str] | None:
        hit = old.hit
        if hit.fact is None or hit.page is not None or hit.group not in LINKED:
            return None
        text = reader.text(old.blob, hit.path)
        return successor(text, hit.fact) if text is not None else None

    def add(old: Found, line: Update) -> Found | None:
        inside = old.hit.lines["start"] <= line.start <= line.end <= old.hit.lines["end"]
        return None if full and inside else _result(old, line)

    return _linked(found, lambda f: f.hit, later, add)


def link_hits(hits: list[Hit], text_now: Callable[[str], tuple[str | None, str | None]],
              standing: Callable[[Hit, dict[str, Any]], Hit]) -> list[Hit]:
    """`link` over history's results (hits of the page as it is now: `text_now(path)` gives its
    text and the revision it was read at, None for the work tree): each current fact that a later
    line of its page updates names it as `successor`, that line just above it, added by
    `standing(old, {text, path, lines, headings, rev})` when no result holds it, and dated.
    `recall --history` ranked "I prefer dark roast coffee" above the "I no longer drink coffee"
    kept beside it, unmarked (session 16's list)."""
    read_at: dict[int, str | None] = {}

    def later(old: Hit) -> tuple[Update, str] | None:
        if not old.current or old.fact is None or old.revision is not None or old.page is not None \
                or old.group not in LINKED:
            return None  # old.revision: still true, but in an older version's words and lines
        text, read_at[id(old)] = text_now(old.path)
        return successor(text, old.fact) if text else None

    def add(old: Hit, line: Update) -> Hit:
        return standing(old, {"text": line.text, "path": old.path, "lines": {"start": line.start, "end": line.end},
                              "headings": list(line.headings), "rev": read_at.get(id(old))})

    out = _linked(hits, lambda h: h, later, add)
    dated([h for h in out if h.current and h.revision is None])  # not by an older version's same lines
    return out


Item = TypeVar("Item")


def _linked(items: list[Item], hit_of: Callable[[Item], Hit], later: Callable[[Item], tuple[Update, str] | None],
            add: Callable[[Item, Update], Item | None]) -> list[Item]:
    """The items with each one whose fact a later line updates (`later`) naming that line as its
    successor, and the item holding the line just above it: the one already among them (left where
    it is when it ranks above), else `add`'s (None: named, not added), linked in turn (A -> B -> C)."""
    out, pending = list(items), list(items)
    while pending:
        old = pending.pop(0)
        update = later(old)
        if update is None:
            continue
        line, how = update
        hit = hit_of(old)
        lines = {"start": line.start, "end": line.end}
        hit.successor = {"path": hit.path, "text": line.text, "lines": lines, "part": how == "part"}
        new = next((x for x in out if _holds(hit_of(x), hit, lines)), None)
        if new is None:
            new = add(old, line)
            if new is None:
                continue
            pending.append(new)
        elif out.index(new) < out.index(old):
            continue
        else:
            out.remove(new)
        hit_of(new).score = max(hit_of(new).score, hit.score)
        out.insert(out.index(old), new)
    return out


def _holds(hit: Hit, old: Hit, lines: dict[str, int]) -> bool:
    """Whether `hit` is the fact at `lines` of `old`'s page, in the same version of it."""
    return hit.path == old.path and hit.page is None and hit.fact is not None and hit.fact.lines == lines \
        and hit.current == old.current and hit.revision == old.revision


def ordered(hits: list[Hit]) -> None:
    """Each successor just above the fact it replaced, when a later re-sort (a score halved for
    being about someone else, confidence) put it below: in place."""
    for old in list(hits):
        later = old.successor if old.current else None
        if later is None:
            continue
        new = next((h for h in hits if h.path == later["path"] and h.fact is not None
                    and h.fact.lines == later["lines"]), None)
        if new is not None and hits.index(new) > hits.index(old):
            hits.remove(new)
            new.score = max(new.score, old.score)
            new.weak = new.weak and old.weak  # what replaced a strong answer answers as well
            hits.insert(hits.index(old), new)


def _result(old: Found, later: Update) -> Found:
    """The later line as a result: the old result's page and chunk, naming the later line's fact."""
    lines = {"start": later.start, "end": later.end}
    fact = Fact(later.text, lines, list(later.headings))
    hit = dataclasses.replace(old.hit, fact=fact, successor=None)
    hit_lines = hit.lines
    if not hit_lines["start"] <= later.start <= later.end <= hit_lines["end"]:
        hit.lines, hit.text, hit.snippet = lines, later.text, later.text  # outside the chunk: its own lines
    return Found(hit, old.blob, old.rev, span=None, named=True)


def dated(hits: list[Hit]) -> None:
    """Each successor named with the date and short commit git gives its line, when it is shown."""
    cited = {(h.path, h.fact.lines["start"], h.fact.lines["end"]): h.fact for h in hits if h.fact is not None}
    for hit in hits:
        if hit.successor is None or not hit.current:
            continue
        lines = hit.successor["lines"]
        fact = cited.get((hit.successor["path"], lines["start"], lines["end"]))
        if fact is not None:
            hit.successor["date"], hit.successor["commit"] = fact.date, fact.commit
