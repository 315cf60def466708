"""Facts inside a chunk: the list item, line or paragraph that answers a query.

A chunk is up to 1,600 characters of a section; a fact is one block of it:
a list item (with its indented continuation lines), a table row, a paragraph,
a fenced code block, or a heading that says something (a daily log entry,
`## 14:05 — ...`; never a heading alone, see blocks.statement). Each fact keeps the heading path above it and its
own line numbers, whole lines of the page, so that `git mem get PATH:START-END` prints
exactly the fact's text. A fact never reaches outside its chunk's lines: a
block the chunk holds only part of is cut to the chunk's lines.

The best fact is picked by the query's words it holds (weighted by how rare
they are among the chunk's facts) and, when the model is loaded, by meaning;
the heading path counts towards both, so "Sarah's phone" finds "- phone:
555-1234" under "## Sarah Chen".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from ..blocks import BULLET, TABLE_RULE, blocks, cut, described  # noqa: F401 (TABLE_RULE: re-exported)
from ..index import chunks, memo
from ..index.pagetext import Reader
from ..index.weighed import MAX_EMBEDDED
from .hits import STOPWORDS, WORD

if TYPE_CHECKING:
    from ..index.embed import Embedder
    from ..index.indexer import Index
    from .hits import Hit

SEMANTIC_WEIGHT = 0.6


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
    context: str = field(default="", repr=False)  # a table row's header row; a nested item's parent items
    statement: bool = field(default=True, repr=False)  # says something (not a heading alone): may answer


def said(fact: Fact) -> str:
    """The fact on one line as an agent is given it, without its bullet, after the list items it is
    nested under ("Tom Park › Phone: 555-0134": whose number), or its table's header row."""
    text = BULLET.sub("", " ".join(fact.text.split()))
    if not fact.context:
        return text
    if fact.context.lstrip().startswith("|"):
        return f"{' '.join(fact.context.split())} {text}"
    return f"{fact.context.replace(' / ', ' › ')} › {text}"


def about(fact: Fact) -> str:
    """The fact as who it is about is read: as said, but a table row without its header row (the
    row's first cell names whose it is: "| Aiko Sato | 555-0142 |")."""
    if fact.context.lstrip().startswith("|"):
        return " ".join(fact.text.split())
    return said(fact)


def within(text: str, start: int, end: int) -> list[Fact]:
    """The facts of the page `text` inside lines start..end (a chunk), cut to them."""
    return [Fact(body, {"start": lo, "end": hi}, list(headings), heading=heading, context=context,
                 statement=says) for body, lo, hi, headings, heading, context, says in cut(text, start, end)]


def at_line(text: str, line: int) -> Fact | None:
    """The whole fact of the page that holds this line (None: a blank line, a heading with text
    under it, or past the end)."""
    lines = text.split("\n")
    for b in blocks(text):
        if b.start <= line <= b.end:
            return Fact("\n".join(lines[b.start - 1:b.end]), {"start": b.start, "end": b.end}, list(b.headings),
                        context=b.context)
    return None


def words(text: str) -> list[str]:
    """Lower-cased words without stop words, cut to a crude stem so "phones" meets "phone"."""
    return list(_words(text))


@lru_cache(maxsize=65536)  # the facts of a result's chunk are weighed again on every query that finds it
def _words(text: str) -> tuple[str, ...]:
    return tuple(_stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS)


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


T = TypeVar("T")
R = TypeVar("R")
BLAME_WORKERS = 4  # git blame processes at once when naming the facts of a search's hits
@dataclass
class Found:
    """An occurrence a search found: its hit, the blob its page is, the revision to blame (None:
    the work tree) and, for a fact row of the index, the fact's lines."""

    hit: Hit
    blob: int
    rev: str | None
    span: tuple[int, int] | None = None
    named: bool = False  # its facts were weighed (choose): no fact left means nothing to show


def holder(index: Index, blob: int, start: int, end: int, heading: str, body: str,
           tid: int) -> tuple[int, int, str, str, int]:
    """(start, end, heading, text, text id) of the chunk that holds a fact row's lines (the first
    that holds most of them): a fact is shown in its chunk. The fact row's own when none does."""
    held = memo.answer(index.kept("holders"), (blob, start, end),
                       lambda: chunks.holding(index.conn, blob, start, end))
    return held or (start, end, heading, body, tid)


def choose(index: Index, found: list[Found], query: str, embedder: Embedder | None,
           reader: Reader | None = None) -> None:
    """Name the best fact of each hit, its lines within the hit's chunk (a fact row: the fact
    itself), never one that a better hit on the same page names already."""
    reader = reader or Reader(index)
    per_hit = []
    for f in found:
        text = reader.text(f.blob, f.hit.path, f.hit.page)
        lo, hi = f.span or (f.hit.lines["start"], f.hit.lines["end"])
        per_hit.append(within(text, lo, hi) if text is not None else [])
    cosine = cosines(per_hit, query, embedder, index) if embedder is not None else None
    taken: dict[tuple[str, int | None], set[tuple[int, int]]] = {}
    for i, (f, candidates) in enumerate(zip(found, per_hit)):
        named = taken.setdefault((f.hit.path, f.hit.page), set())
        f.hit.fact = best(candidates, query, cosine[i] if cosine else None, named)
        f.named = True
        if f.hit.fact is not None:
            named.add((f.hit.fact.lines["start"], f.hit.fact.lines["end"]))


def cite_found(index: Index, found: list[Found]) -> None:
    """What `git blame` says of each named fact's lines (else the chunk's own answer)."""
    cite(index, [(f.hit.fact, f.hit.path, f.rev) for f in found if f.hit.fact is not None])
    for f in found:
        hit = f.hit
        if hit.fact is not None and hit.fact.commit is None and hit.fact.date is None:
            # git cannot blame a page it does not track: the chunk's own answer (uncommitted, mtime)
            hit.fact.date, hit.fact.author, hit.fact.subject = hit.date, hit.author, hit.subject


def cite(index: Index, facts: list[tuple[Fact, str, str | None]]) -> None:
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

    def blame(key: tuple[str, str | None]) -> dict[tuple[int, int], provenance.Blame]:
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
    named: list[tuple[Fact, provenance.Blame]] = []
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


def best(facts: list[Fact], query: str, cosine: list[float] | None = None,
         taken: set[tuple[int, int]] | None = None) -> Fact | None:
    """The fact that best answers the query, scored in [0, 1] (ties: the first); `cosine`: each
    fact's similarity to the query, when the model is loaded. A heading alone never answers
    (its words count as the heading path of the facts under it); None when no fact does, or
    when the best is in `taken` (lines another, better result already names)."""
    if not facts:
        return None
    lexical = _lexical(facts, query)
    scores = lexical
    if cosine is not None and len(facts) > 1:
        scores = [SEMANTIC_WEIGHT * c + (1 - SEMANTIC_WEIGHT) * k for c, k in zip(cosine, lexical)]
    able = [i for i, f in enumerate(facts) if f.statement]
    if not able:
        return None
    top = max(able, key=lambda i: (scores[i], -i))
    if (facts[top].lines["start"], facts[top].lines["end"]) in (taken or set()):
        return None  # the result that names it stands for this one (its other facts are units of their own)
    facts[top].score = round(scores[top], 4)
    return facts[top]


def _described(fact: Fact) -> str:
    return described(fact.headings, fact.context, fact.text)  # as the index keys and embeds it


def _lexical(facts: list[Fact], query: str) -> list[float]:
    wanted = set(_words(query))
    if not wanted:
        return [0.0] * len(facts)
    bags = [set(_words(fact.text)) for fact in facts]
    heads = [set(_words(" ".join([*fact.headings, fact.context]))) for fact in facts]
    # a word that few facts hold tells them apart; one every fact holds tells nothing
    weight = {w: math.log(1 + len(facts) / (1 + sum(w in b for b in bags))) + 0.1 for w in wanted}
    total = sum(weight.values())
    return [(sum(weight[w] for w in wanted if w in bag) + 0.5 * sum(weight[w] for w in wanted
                                                                      if w in head and w not in bag)) / total
            for bag, head in zip(bags, heads)]


def cosines(per_hit: list[list[Fact]], query: str, embedder: Embedder,
            index: Index | None = None) -> list[list[float] | None]:
    """Each fact's cosine similarity to the query, in one batch: the facts of hits that have
    more than one that may answer (a statement), best hits first, while they fit in
    MAX_EMBEDDED (None for the other hits: they are judged by their words alone). With the
    index, facts' vectors come from its embedding cache, where the index put them
    (index/weighed.py: the same rule)."""
    from ..index import embeddings
    from .vectors import cosines

    wanted: list[tuple[int, int]] = []
    for i, fs in enumerate(per_hit):
        # meaning chooses between facts that may answer: a heading alone never does (best), so a
        # hit with one statement is judged by its words, as a hit of one fact is
        if sum(f.statement for f in fs) > 1 and len(wanted) + len(fs) <= MAX_EMBEDDED:
            wanted.extend((i, j) for j in range(len(fs)) if fs[j].statement)
    out: list[list[float] | None] = [[0.0] * len(fs) if any(w[0] == i for w in wanted) else None
                                     for i, fs in enumerate(per_hit)]
    if not wanted:
        return out
    described = [_described(per_hit[i][j]) for i, j in wanted]
    # from the embedding cache (a fact the index did not weigh, of a work-tree page changed since
    # the index read it, say, is embedded and kept there)
    vectors = (embeddings.vectors_of(index, embedder, described) if index is not None
               else embedder.embed(described))
    for (i, j), sim in zip(wanted, cosines(embedder.embed_query(query), vectors)):
        row = out[i]
        assert row is not None
        row[j] = max(0.0, float(sim))
    return out


def as_record(fact: Fact | None) -> dict[str, Any] | None:
    return None if fact is None else {"text": fact.text, "lines": fact.lines, "headings": fact.headings}
