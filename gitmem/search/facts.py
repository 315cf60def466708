"""Facts inside a chunk: the list item, line or paragraph that answers a query.

A chunk is up to 1,600 characters of a section; a fact is one block of it:
a list item (with its indented continuation lines), a table row, a paragraph,
a fenced code block, or a heading (a one-line daily log entry; a heading with
text under it is the fact only when the query is about the heading itself). Each fact keeps the heading path above it and its own line
numbers, whole lines of the page, so that `git mem get PATH:START-END` prints
exactly the fact's text. A fact never reaches outside its chunk's lines: a
block the chunk holds only part of is cut to the chunk's lines.

The best fact is picked by the query's words it holds (weighted by how rare
they are among the chunk's facts) and, when the model is loaded, by meaning;
the heading path counts towards both, so "Sarah's phone" finds "- phone:
555-1234" under "## Sarah Chen".
"""

from __future__ import annotations

import math
import re
import threading
from functools import lru_cache
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ..markdown import body_offset, fenced_ranges, headings_of
from .hits import STOPWORDS, WORD

if TYPE_CHECKING:
    from ..index.embed import Embedder
    from ..index.indexer import Index
    from .hits import Hit

LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$")
MAX_EMBEDDED = 48  # facts embedded per query at most; the rest are judged by their words
SEMANTIC_WEIGHT = 0.6
HEADING_WEIGHT = 0.8


@dataclass
class Fact:
    text: str
    lines: dict[str, int]
    headings: list[str]
    score: float = 0.0
    commit: str | None = None  # what `git blame` names for the fact's lines (the newest of them)
    date: str | None = None
    author: str | None = None
    subject: str | None = None
    wrote: dict[str, str] = field(default_factory=dict)  # gitmem's commit trailers (Gitmem-Verb, ...)
    blamed: dict[str, Any] | None = None  # {path, lines}: where those lines were in `commit`'s tree
    heading: bool = field(default=False, repr=False)  # a heading with text under it
    context: str = field(default="", repr=False)  # a table row's header row


@dataclass(frozen=True)
class Block:
    start: int  # 1-based lines, inclusive
    end: int
    headings: tuple[str, ...]
    heading: bool = False  # a heading with text under it: a fact only when the query is about it
    context: str = ""  # words that belong to it without being its text (a table row's header row)


def blocks(text: str) -> list[Block]:
    """The fact-sized blocks of a page, in order, each with its heading path."""
    lines = text.split("\n")
    starts = _line_starts(text)
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
                                  context=self.table_head if row else ""))
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
                              heading=_has_body(self.lines, number, self.heads)))
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
            self.current[:] = [number, number]
        elif self.current:
            self.current[1] = number
        else:
            self.current[:] = [number, number]


def _has_body(lines: list[str], number: int, heads: dict[int, tuple[int, str]]) -> bool:
    """Whether a heading has text or deeper headings under it (else it is itself a fact)."""
    for n in range(number + 1, len(lines) + 1):
        if n in heads:
            return heads[n][0] > heads[number][0]
        if lines[n - 1].strip():
            return True
    return False


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)


@lru_cache(maxsize=256)
def _blocks_of(text: str) -> tuple[Block, ...]:
    """blocks(text), kept: a page is parsed once for all the hits on it, query after query."""
    return tuple(blocks(text))


def within(text: str, start: int, end: int) -> list[Fact]:
    """The facts of the page `text` inside lines start..end (a chunk), cut to them."""
    lines = text.split("\n")
    found = []
    for b in _blocks_of(text):
        lo, hi = max(b.start, start), min(b.end, end)
        if lo > hi:
            continue
        body = "\n".join(lines[lo - 1:hi])
        if body.strip():
            found.append(Fact(body, {"start": lo, "end": hi}, list(b.headings), heading=b.heading,
                              context=b.context))
    return found


def at_line(text: str, line: int) -> Fact | None:
    """The whole fact of the page that holds this line (None: a blank line, a heading with text
    under it, or past the end)."""
    lines = text.split("\n")
    for b in blocks(text):
        if b.start <= line <= b.end:
            return Fact("\n".join(lines[b.start - 1:b.end]), {"start": b.start, "end": b.end}, list(b.headings))
    return None


def words(text: str) -> list[str]:
    """Lower-cased words without stop words, cut to a crude stem so "phones" meets "phone"."""
    return [_stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS]


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


T = TypeVar("T")
R = TypeVar("R")
BLAME_WORKERS = 4  # git blame processes at once when naming the facts of a search's hits
_PARSED: dict[tuple[str, str], str] = {}  # (git dir, blob oid) -> the page's text, see Reader._read
PARSED_KEPT = 256
_PARSED_LOCK = threading.Lock()


class Reader:
    """Page texts by blob as the index sees them (forgotten lines blanked), read once each. A
    document's text is its extracted text (page `page` of a PDF), never its source: an HTML
    comment or script that extraction drops must not come back as a hit's fact."""

    def __init__(self, index: "Index") -> None:
        self.index = index
        self._texts: dict[tuple[int, int | None], str | None] = {}

    def text(self, blob: int, path: str, page: int | None = None) -> str | None:
        if (blob, page) not in self._texts:
            document = self._document(blob, page)
            self._texts[(blob, page)] = document if document is not False else self._read(blob, path)
        return self._texts[(blob, page)]

    def _document(self, blob: int, page: int | None) -> str | None | bool:
        """A document blob's extracted text (None: not extracted), or False: not a document."""
        from ..index import extracts

        row = self.index.conn.execute("""SELECT d.kind, b.oid FROM documents d JOIN blobs b ON b.id = d.blob
                                         WHERE d.blob = ?""", (blob,)).fetchone()
        if row is None:
            return False
        got = extracts.cached(self.index, row[1], row[0])
        if got is None or got.failed or not 1 <= (page or 1) <= len(got.pages):
            return None
        return self.index.forgotten.redact(got.pages[(page or 1) - 1])

    def _read(self, blob: int, path: str) -> str | None:
        from ..errors import PathOutside
        from ..index.blobs import parse

        oid = self.index.conn.execute("SELECT oid FROM blobs WHERE id = ?", (blob,)).fetchone()[0]
        key = (str(self.index.nb.git.git_dir), oid)
        kept = _PARSED.get(key)
        if kept is not None:  # a blob never changes: parsed once per process
            return self.index.forgotten.redact(kept)
        data: bytes | None
        try:
            data = self.index.nb.git.read_blob(oid)
        except Exception:  # a work-tree file git has not stored (gitdb raises its own BadObject/ValueError)
            try:
                data = self.index.nb.read_bytes(path)  # never through a symlink
            except PathOutside:
                data = None
            if data is None:
                return None
            return self.index.forgotten.redact(parse(data).text)
        text = parse(data).text
        with _PARSED_LOCK:  # a server reads pages for queries at once
            while len(_PARSED) >= PARSED_KEPT:
                _PARSED.pop(next(iter(_PARSED)))
            _PARSED[key] = text
        return self.index.forgotten.redact(text)  # not _PARSED[key]: another thread may have evicted it


def attach(index: "Index", found: list[tuple["Hit", int, str | None]], query: str, embedder: "Embedder | None",
           reader: Reader | None = None) -> None:
    """Name the best fact of each hit (hit, blob, revision; None: the work tree), its lines within
    the hit's chunk, and what `git blame` says of them."""
    reader = reader or Reader(index)
    per_hit = []
    for hit, blob, _rev in found:
        text = reader.text(blob, hit.path, hit.page)
        per_hit.append(within(text, hit.lines["start"], hit.lines["end"]) if text is not None else [])
    cosine = cosines(per_hit, query, embedder, index) if embedder is not None else None
    for i, ((hit, _blob, _rev), candidates) in enumerate(zip(found, per_hit)):
        hit.fact = best(candidates, query, cosine[i] if cosine else None)
    cite(index, [(hit.fact, hit.path, rev) for hit, _blob, rev in found if hit.fact is not None])
    for hit, _blob, _rev in found:
        if hit.fact is not None and hit.fact.commit is None and hit.fact.date is None:
            # git cannot blame a page it does not track: the chunk's own answer (uncommitted, mtime)
            hit.fact.date, hit.fact.author, hit.fact.subject = hit.date, hit.author, hit.subject


def cite(index: "Index", facts: list[tuple[Fact, str, str | None]]) -> None:
    """Fill each fact's commit, date, author, subject and trailers from `git blame` of its lines
    on page `path` at the revision (None: the work tree): one blame per page and revision."""
    from ..errors import GitFailed
    from ..index import provenance

    pages: dict[tuple[str, str | None], list[Fact]] = {}
    for fact, path, rev in facts:
        pages.setdefault((path, rev), []).append(fact)
    head = index.nb.git.head() if pages else None  # read once, not once a page
    now = (None, "HEAD", head)  # the work tree, or the page as HEAD has it
    at_head = provenance.bases(index, head, [path for path, rev in pages if rev in now])

    def base(path: str, rev: str | None) -> str | None:
        return at_head.get(path) if rev in now else None

    keyed = {(path, rev): provenance.blame_key(index.nb, rev, path, head, base(path, rev)) for path, rev in pages}
    keys = [key for key in keyed.values() if key is not None]
    unknown = provenance.load(index, keys)  # what earlier processes blamed

    def blame(key: tuple[str, str | None]) -> dict[tuple[int, int], "provenance.Blame"]:
        (path, rev), group = key, pages[key]
        try:
            return provenance.of_lines(index.nb, index.forgotten, rev, path,
                                       [(f.lines["start"], f.lines["end"]) for f in group], with_trailers=False,
                                       head=head, base=base(path, rev))
        except GitFailed:  # a page git does not track (an untracked file): no commit to name
            return {}

    to_blame = sum(1 for key in keyed.values() if key is None or not provenance.is_kept(key))
    blames = dict(zip(pages, _side_by_side(blame, list(pages), to_blame > 1)))
    provenance.keep(index, unknown)  # for the next process
    named: list[tuple[Fact, "provenance.Blame"]] = []
    for key, group in pages.items():
        named += [(fact, blames[key][span]) for fact in group
                  if (span := (fact.lines["start"], fact.lines["end"])) in blames[key]]
    provenance.fill_trailers(index.nb, [b for _, b in named])  # one git call for every page's commits
    for fact, b in named:
        fact.commit, fact.date, fact.author, fact.subject, fact.wrote = (b.commit, b.date, b.author, b.subject, b.wrote)
        if b.path is not None:
            fact.blamed = {"path": index.nb.rel(b.path) or b.path, "lines": b.lines}


def _side_by_side(work: Callable[[T], R], items: list[T], parallel: bool) -> list[R]:
    """work(item) for each item; side by side when `parallel`: each page to blame is one `git blame`
    process, mostly waiting on git (a warm process has them all kept: no threads to start)."""
    if not parallel:
        return [work(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=BLAME_WORKERS) as pool:
        return list(pool.map(work, items))


def best(facts: list[Fact], query: str, cosine: list[float] | None = None) -> Fact | None:
    """The fact that best answers the query, scored in [0, 1] (ties: the first); `cosine`: each
    fact's similarity to the query, when the model is loaded."""
    if not facts:
        return None
    lexical = _lexical(facts, query)
    scores = lexical
    if cosine is not None and len(facts) > 1:
        scores = [SEMANTIC_WEIGHT * c + (1 - SEMANTIC_WEIGHT) * k for c, k in zip(cosine, lexical)]
    # a heading that has text under it answers only a query about the heading itself
    scores = [x * HEADING_WEIGHT if f.heading else x for f, x in zip(facts, scores)]
    top = max(range(len(facts)), key=lambda i: (scores[i], -i))
    facts[top].score = round(scores[top], 4)
    return facts[top]


def _described(fact: Fact) -> str:
    return " / ".join([*fact.headings, *([fact.context] if fact.context else []), fact.text])


def _lexical(facts: list[Fact], query: str) -> list[float]:
    wanted = set(words(query))
    if not wanted:
        return [0.0] * len(facts)
    bags = [set(words(fact.text)) for fact in facts]
    heads = [set(words(" ".join([*fact.headings, fact.context]))) for fact in facts]
    # a word that few facts hold tells them apart; one every fact holds tells nothing
    weight = {w: math.log(1 + len(facts) / (1 + sum(w in b for b in bags))) + 0.1 for w in wanted}
    total = sum(weight.values())
    return [(sum(weight[w] for w in wanted if w in bag) + 0.5 * sum(weight[w] for w in wanted
                                                                      if w in head and w not in bag)) / total
            for bag, head in zip(bags, heads)]


def cosines(per_hit: list[list[Fact]], query: str, embedder: "Embedder",
            index: "Index | None" = None) -> list[list[float] | None]:
    """Each fact's cosine similarity to the query, in one batch: the facts of hits that have
    more than one, best hits first, while they fit in MAX_EMBEDDED (None for the other hits:
    they are judged by their words alone). With the index, facts' vectors go through its
    embedding cache."""
    import numpy as np

    from ..index import embeddings

    wanted: list[tuple[int, int]] = []
    for i, fs in enumerate(per_hit):
        if len(fs) > 1 and len(wanted) + len(fs) <= MAX_EMBEDDED:
            wanted.extend((i, j) for j in range(len(fs)))
    out: list[list[float] | None] = [[0.0] * len(fs) if any(w[0] == i for w in wanted) else None
                                     for i, fs in enumerate(per_hit)]
    if not wanted:
        return out
    described = [_described(per_hit[i][j]) for i, j in wanted]
    # facts through the embedding cache: the same facts come back query after query
    vectors = [embedder.embed_query(query)] + (embeddings.vectors_of(index, embedder, described)
                                               if index is not None else embedder.embed(described))
    matrix = np.stack([np.frombuffer(v, dtype=np.float32) for v in vectors])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    for (i, j), sim in zip(wanted, matrix[1:] @ matrix[0]):
        row = out[i]
        assert row is not None
        row[j] = max(0.0, float(sim))
    return out


def as_record(fact: Fact | None) -> dict[str, Any] | None:
    return None if fact is None else {"text": fact.text, "lines": fact.lines, "headings": fact.headings}
