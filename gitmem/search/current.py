"""The current fact above the one it updates, when both lines stay on a page.

`remember` replaces the line a new fact updates, but keeps both when the old
line says more than the update touches ("I prefer dark roast coffee, no
sugar" + "I no longer drink coffee; I switched to green tea": replacing the
line would drop what the update did not say), and people write both lines by
hand. Recall links such a pair instead: when a later line of a result's page
updates the result's fact (supersede.updates, the rules remember uses), that
line is shown just above it, at its score if that was higher, and the older
fact names it (`successor`), so a superseded fact never ranks above the fact
that took its place.

Saved sessions are left alone (a chat's turns are dialogue, several
sentences a line, not a page of facts). Only lines below the fact in its section count (remember, daily and a
person's log add lines at the end of a section; another section may be
about another subject), and only those that say they are an update (a word
of switches.py's rules: "no longer", "now", "switched", "instead of",
"moved", ...) or give the same attribute another value ("Sarah's phone is
555-1234", then "Sarah's phone is 555-9999", as a person or Anthropic's
memory tool writes them): a query judges a few lines per result, and a
line's attribute is read once.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .. import blocks, supersede
from .facts import Fact, Found

if TYPE_CHECKING:
    from ..index.pagetext import Reader
    from .hits import Hit

MARKED = re.compile(r"\b(?:no longer|not anymore|stopped|quit|gave up|now|switched|moved|changed|migrated|converted|"
                    r"instead of|replaced|as of|going forward|starting|effective|pushed|postponed|rescheduled|"
                    r"delayed|brought forward|slipped)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Update:
    """A block of a page that reads as an update: its lines, text and heading path."""

    start: int
    end: int
    text: str
    headings: tuple[str, ...]


@lru_cache(maxsize=4096)  # as blocks.kept: a page is parsed once, query after query
def statements(text: str) -> tuple[Update, ...]:
    """The blocks of a page that may update a line: statements short enough to judge."""
    lines = text.split("\n")
    out = []
    for b in blocks.kept(text):
        body = "\n".join(lines[b.start - 1:b.end])
        if not b.title and body.strip() and len(body) <= supersede.MAX_CHARS:
            out.append(Update(b.start, b.end, body, tuple(b.headings)))
    return tuple(out)


@lru_cache(maxsize=65536)
def _attribute(line: str) -> str | None:
    """The attribute a line gives one value of (supersede.claim: "phone", "likes jazz"), if any."""
    found = supersede.claim(_bare(line))
    return found.attribute if found is not None else None


def successor(text: str, fact: Fact) -> tuple[Update, str] | None:
    """The first line below `fact` in its section of the page `text` that updates it, and whether
    it updates the whole line or a part of it (supersede.outdates); None: none does. A line is
    judged when it says it is an update (MARKED) or gives the same attribute another value."""
    old = fact.text
    if "\n" in old.strip() or len(old) > supersede.MAX_CHARS:
        return None  # a fact of several lines is no one value to update
    attribute = _attribute(old)
    for later in statements(text):
        if later.start <= fact.lines["end"] or list(later.headings) != fact.headings:
            continue  # another section may be another subject ("## Apollo", "## Zeus": "Status: done")
        if MARKED.search(later.text) or (attribute is not None and _attribute(later.text) == attribute):
            how = supersede.outdates(_bare(later.text), old)
            if how is not None:
                return later, how
    return None


def _bare(text: str) -> str:
    """A list item's text without its bullet or checkbox: the fact as remember was given it."""
    return supersede.BULLET.sub("", text, count=1).strip()


def link(found: list[Found], reader: Reader) -> list[Found]:
    """`found` with each fact that a later line of its page updates placed just under that line
    (the line added as a result of its own when no result named it), naming it as `successor`."""
    out, pending = list(found), list(found)
    while pending:
        old = pending.pop(0)
        fact, hit = old.hit.fact, old.hit
        if fact is None or hit.page is not None or hit.group == "sessions":
            continue  # a transcript's later turn is no update of an earlier one by its place
        text = reader.text(old.blob, hit.path)
        update = successor(text, fact) if text is not None else None
        if update is None:
            continue
        later, how = update
        hit.successor = {"path": hit.path, "text": later.text, "lines": {"start": later.start, "end": later.end},
                         "part": how == "part"}
        new = next((f for f in out if f.hit.path == hit.path and f.hit.page is None and f.hit.fact is not None
                    and f.hit.fact.lines == hit.successor["lines"]), None)
        if new is None:
            new = _result(old, later)
            pending.append(new)  # a line updated in turn (A -> B -> C) names its own successor
        else:
            out.remove(new)
        new.hit.score = max(new.hit.score, hit.score)
        out.insert(out.index(old), new)
    return out


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
