"""The fact-sized blocks of a markdown page: list items (with their indented continuation
lines), table rows, paragraphs, fenced code blocks and headings, each with its heading path
and its own lines. The index stores each block as a retrieval unit of its own
(index/indexer.py), and search names the block of a chunk that answers a query (search/facts.py)."""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache

from .markdown import body_offset, fenced_ranges, headings_of, line_starts

LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")  # a list item's marker and checkbox
TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$")
ENTRY = re.compile(r"^#+\s+\d{1,2}:\d{2}\b")  # a daily log entry, `## 14:05 — ...`: a heading that is a statement
EMPTY_HEADING = re.compile(r"^#{1,6}(?:[ \t]+#*)?[ \t]*$")  # `## ` or `### ###`: a heading with no title says nothing
FACT_MAX = 600  # characters: a longer block is left to its chunk (a long paragraph is no one fact)
STATEMENT_WORDS = 4  # a heading with nothing under it is a statement only from this many words (or an entry)


@dataclass(frozen=True)
class Block:
    start: int  # 1-based lines, inclusive
    end: int
    headings: tuple[str, ...]
    heading: bool = False  # a heading with text under it: a fact only when the query is about it
    title: bool = False  # a heading line (with or without text under it)
    context: str = ""  # words that belong to it without being its text (a table row's header row,
    # a nested list item's parent items: "Tom Park" for "  - Phone: 555-0134" under "- Tom Park")


def blocks(text: str) -> list[Block]:
    """The fact-sized blocks of a page, in order, each with its heading path."""
    lines = text.split("\n")
    starts = line_starts(text)
    fenced: dict[int, int] = {}  # first line -> last line of each fenced code block
    for a, b in fenced_ranges(text):
        fenced.setdefault(_line_of(starts, a), _line_of(starts, max(a, b - 1)))
    walk = _Walk(lines, {_line_of(starts, off): (level, title) for off, level, title in headings_of(text)})
    number = _line_of(starts, body_offset(text))
    while number <= len(lines):
        if number in fenced:
            number = walk.fence(number, fenced[number])
        else:
            walk.line(number)
            number += 1
    walk.close()
    return walk.out


@dataclass
class _Walk:
    """What `blocks` knows as it reads a page line by line: the blocks so far, the heading path,
    the block being built and the list item or table it belongs to."""

    lines: list[str]
    heads: dict[int, tuple[int, str]]  # line -> (level, title)
    out: list[Block] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)
    current: list[int] = field(default_factory=list)  # [start, end] of the block being built
    item_indent: int = -1
    table_head: str = ""
    parents: list[tuple[int, str, int]] = field(default_factory=list)  # (indent, text, line) of the items above
    item_context: str = ""  # the parents of the block being built

    def line(self, number: int) -> None:
        """Read one line outside a code fence."""
        line = self.lines[number - 1]
        if number in self.heads:
            self.heading(number)
        elif TABLE_RULE.match(line) and (self.current or self.out) and self.lines[number - 2].lstrip().startswith("|"):
            self.table_rule(number)
        elif not line.strip() or TABLE_RULE.match(line):
            self.close()
            self.item_indent = -1
            self.table_head = ""
        else:
            self.text(number)

    def close(self) -> None:
        """End the block being built, if there is one."""
        if self.current:
            row = self.lines[self.current[0] - 1].lstrip().startswith("|")
            self.out.append(Block(self.current[0], self.current[1], tuple(t for _, t in self.path),
                                  context=self.table_head if row else self.item_context))
            self.current.clear()

    def fence(self, first: int, last: int) -> int:
        """A fenced code block is one block; the number of the line after it."""
        self.close()
        end = min(last + 1, len(self.lines))
        self.out.append(Block(first, end, tuple(t for _, t in self.path)))
        return end + 1

    def heading(self, number: int) -> None:
        self.close()
        level, title = self.heads[number]
        self.out.append(Block(number, number, tuple(t for lv, t in self.path if lv < level),
                              heading=_has_body(self.lines, number, self.heads), title=True))
        self.parents.clear()
        self.path = [p for p in self.path if p[0] < level] + [(level, title)]

    def table_rule(self, number: int) -> None:
        """The row above is the table's header: a fact only when asked about, and every row's context."""
        self.close()
        header = self.out[-1]
        self.out[-1] = Block(header.start, header.end, header.headings, heading=True)
        self.table_head = self.lines[number - 2]

    def text(self, number: int) -> None:
        """A line of text: it starts a block (a list item, a table row, text after an item) or continues one."""
        line = self.lines[number - 1]
        item = LIST_ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        table = line.lstrip().startswith("|")
        if item or table or (self.current and self.item_indent >= 0 and indent <= self.item_indent):
            self.close()
            self.item_indent = len(item.group(1)) if item else -1
            self.start(number, indent, item is not None)
        elif self.current:
            self.current[1] = number
        else:
            self.start(number, indent, False)

    def start(self, number: int, indent: int, item: bool) -> None:
        """Begin a block at this line: its context is the list items it is nested under."""
        while self.parents and self.parents[-1][0] >= indent:
            self.parents.pop()
        self.item_context = " / ".join(text for _, text, _ in self.parents)
        if self.parents and self.out and self.out[-1].start == self.parents[-1][2]:
            self.titles(self.parents[-1][1])
        if item:
            self.parents.append((indent, _item_text(self.lines[number - 1]), number))
        self.current[:] = [number, number]

    def titles(self, text: str) -> None:
        """The block just closed is a list item with items nested under it: a name of a word or
        three ("- Tom Park", "- Apollo:") titles them as a heading does (a fact only when asked
        about); a value ("- Email: tom@park.example") stays a fact."""
        parent = self.out[-1]
        short = len(text.split()) < STATEMENT_WORDS and (":" not in text or text.endswith(":"))
        if parent.start == parent.end and short:
            self.out[-1] = Block(parent.start, parent.end, parent.headings, heading=True, context=parent.context)


PARENT_CHARS = 80  # of a parent item's line kept as a nested item's context: its subject, not its whole text


def _item_text(line: str) -> str:
    """A list item's line as a nested item's context: without its bullet or checkbox, cut short."""
    text = BULLET.sub("", line, count=1).strip()
    return text if len(text) <= PARENT_CHARS else text[:PARENT_CHARS].rsplit(" ", 1)[0] + "…"


def _has_body(lines: list[str], number: int, heads: dict[int, tuple[int, str]]) -> bool:
    """Whether a heading has text or deeper headings under it (else it is itself a fact)."""
    for n in range(number + 1, len(lines) + 1):
        if n in heads:
            return heads[n][0] > heads[number][0]
        if lines[n - 1].strip():
            return True
    return False


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)


def statement(block: Block, line: str) -> bool:
    """Whether a block says something: not a heading that titles what is under it (`## Risks`),
    nor a bare heading of a word or two (`# Todos`); a daily entry heading (`## 14:05 — ...`)
    or a longer one with nothing under it is a statement."""
    if EMPTY_HEADING.match(line.strip()):
        return False
    if not block.title:
        return not block.heading  # a table's header row is its rows' context, not a fact
    if block.heading:
        return False
    return bool(ENTRY.match(line.strip())) or len(line.strip("# ").split()) >= STATEMENT_WORDS


@lru_cache(maxsize=4096)  # as many pages as search keeps in a 10k-chunk notebook: parsing is 24 ms a query
def kept(text: str) -> tuple[Block, ...]:
    """blocks(text), kept: a page is parsed once for all the hits on it, query after query."""
    return tuple(blocks(text))


@lru_cache(maxsize=64)  # the pages being cut now: a page is cut once a chunk
def _lines_and_ends(text: str) -> tuple[list[str], list[int]]:
    """A page's lines, and the last line of each of its blocks, in order."""
    return text.split("\n"), [b.end for b in kept(text)]


# (text, start, end, heading path, heading with text under it, context, statement) of a block cut to a chunk
Cut = tuple[str, int, int, tuple[str, ...], bool, str, bool]


@lru_cache(maxsize=8192)  # a chunk's facts, as plain values: each query makes Facts of its own to fill
def cut(text: str, start: int, end: int) -> tuple[Cut, ...]:
    """The blocks of the page `text` inside lines start..end (a chunk), cut to them: the facts
    search weighs for a hit on those lines (search/facts.py)."""
    lines, ends = _lines_and_ends(text)
    found = []
    every = kept(text)
    # from the first block that ends at or after `start` (blocks follow each other down the page): a walk
    # of the whole page for each chunk took time in the page's square (20k list items: 3 s, a newcomer)
    for b in itertools.islice(every, bisect.bisect_left(ends, start), None):
        if b.start > end:
            break
        lo, hi = max(b.start, start), min(b.end, end)
        if lo > hi:
            continue
        body = "\n".join(lines[lo - 1:hi])
        if body.strip():
            found.append((body, lo, hi, tuple(b.headings), b.heading, b.context, statement(b, lines[b.start - 1])))
    return tuple(found)


def described(headings: list[str] | tuple[str, ...], context: str, text: str) -> str:
    """A fact as it is keyed and embedded: its heading path, a table row's header, then its text."""
    # the fact's own lines stay whole, on lines of their own: forgetting a line finds every text
    # that holds it line by line (index/forgotten.py), facts' texts included
    path = " / ".join([*headings, *([context] if context else [])])
    return f"{path}\n{text}" if path else text


def units(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, nearest heading, described text) of each block of a page that is a retrieval unit of its own:
    every statement (see `statement`) of at most FACT_MAX characters."""
    lines = text.split("\n")
    out = []
    for b in blocks(text):
        body = "\n".join(lines[b.start - 1:b.end])
        if body.strip() and len(body) <= FACT_MAX and statement(b, lines[b.start - 1]):
            out.append((b.start, b.end, b.headings[-1] if b.headings else "", described(b.headings, b.context, body)))
    return out
