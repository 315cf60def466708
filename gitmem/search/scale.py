"""One score scale for every mode, and the floor below which nothing is a good match.

The rankers' own scores say nothing across queries: BM25 grows with the
query's length and the corpus, cosine similarity sits between 0.1 and 0.3 for
unrelated text with this model, and the fusion is relative to each query's
best. So each query gets a confidence in [0, 1], how well its best match
answers it, from two pieces of evidence that mean the same in every corpus:
- keyword: the share of the query's words (weighted by how rare they are in
  the index, BM25's idf) that the best keyword match holds, judged by FTS5
  itself (same tokenizer and stemmer);
- meaning: the best cosine similarity, mapped linearly from COSINE_NONE (as
  close as unrelated text gets) to COSINE_FULL (a clear answer).
The confidence is the larger of the two (keyword mode has only the first: it
never loads the model). A hit's score is the confidence times its score
relative to the query's best in that mode, so the best hit of a query scores
the same in hybrid and in semantic mode, and 0.8 means the same in both. A
query whose confidence is below FLOOR gets no results and a note instead of
the least bad chunks (in hybrid and semantic mode: keyword evidence alone is
too thin to refuse on), unless it names someone the notebook knows by a role:
then the closest of that person's facts are shown, weak (aliases.unnamed). The
constants were fitted on SciFact and LoCoMo (benchmarks/floor.py; figures in
docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..index import fts, memo

if TYPE_CHECKING:
    import apsw

COSINE_NONE = 0.25
COSINE_FULL = 0.50
KEYWORD_NONE = 0.30
KEYWORD_FULL = 0.80
FLOOR = 0.20
KEYWORD_WEIGHT_FLOOR = 0.0  # the keyword ranking's weight when its best match holds none of the query's words
WEAK_CONFIDENCE = 0.56  # under it (and not standing out) the best match is weak
ABOVE_CLEAR = 4.0  # spreads above the background that make a match stand out whatever its cosine
ABOVE_NONE = 2.0  # under it no candidate stands above the background: no good match
BACKGROUND_MIN = 20  # texts a notebook needs before its background says anything
CHECKED = 3  # best keyword matches whose coverage is measured


@dataclass
class Evidence:
    keyword: float | None = None  # idf-weighted share of the query's words in the best keyword match
    semantic: float | None = None  # best cosine similarity
    confidence: float = 0.0  # how well the best match answers the query, in [0, 1]
    above: float | None = None  # how far the best cosine stands above the notebook's background, in its spreads


def _line(x: float, lo: float, hi: float) -> float:
    return min(1.0, max(0.0, (x - lo) / (hi - lo)))


def confidence(keyword: float | None, semantic: float | None) -> float:
    parts = [] if keyword is None else [_line(keyword, KEYWORD_NONE, KEYWORD_FULL)]
    parts += [] if semantic is None else [_line(semantic, COSINE_NONE, COSINE_FULL)]
    return round(max(parts, default=0.0), 4)


def weak(evidence: Evidence) -> bool:
    """Whether the query's best match may well not answer it: its confidence is low and it does
    not stand out from the notebook's background either (fitted on the tuning part of
    benchmarks/sets/paraphrase.json: 77% of questions the notebook cannot answer are weak)."""
    if evidence.confidence >= WEAK_CONFIDENCE:
        return False
    return evidence.above is None or evidence.above < ABOVE_CLEAR


def nothing(evidence: Evidence) -> bool:
    """No good match: the confidence is under FLOOR (neither the words nor the meaning of the
    best match come near the query) and no candidate stands above the notebook's background
    either. A notebook about one thing (two people's lives) has a high background, so a clear
    cosine there stands out little: either piece of evidence keeps the results. Keyword evidence
    alone is too thin to refuse on (a notebook of a few pages, a long query): keyword mode never
    refuses."""
    if evidence.semantic is None or evidence.confidence >= FLOOR:
        return False
    return evidence.above is None or evidence.above < ABOVE_NONE


def above(best: float, mean: float, std: float, n: int) -> float | None:
    """How many background spreads (standard deviations of the similarities of every text of the
    notebook to the query) the best match stands above their mean; None with too few texts to tell."""
    if n < BACKGROUND_MIN or std <= 1e-6:
        return None
    return round((best - mean) / std, 3)


def keyword_weight(keyword: float | None) -> float:
    """How much the keyword ranking counts beside the meaning ranking in hybrid mode: as much as
    meaning when its best match holds the query's words (a name, a code), little when it holds
    few of them (a question in other words: its best match shares a common word by chance)."""
    if keyword is None:
        return 1.0
    return KEYWORD_WEIGHT_FLOOR + (1 - KEYWORD_WEIGHT_FLOOR) * _line(keyword, KEYWORD_NONE, KEYWORD_FULL)


def coverage(conn: apsw.Connection, terms: list[str], texts: list[int],
             kept: dict[Any, Any] | None = None, names: Collection[str] = ()) -> float | None:
    """The best idf-weighted share of `terms` (FTS5 phrases) that one of `texts` holds; `kept`:
    answers kept while the index is unchanged (Index.kept), as a warm process asks them again.
    With `names` (the terms that name people the question asks about) a text counts only when it
    holds a name and another term, and a chunk of several facts does not count: "Tom's mother
    lives in Galway" and "Lucy's birthday is ..." each hold a part of "when is Tom's birthday"."""
    if not terms or not texts:
        return None if not terms else 0.0
    kept = {} if kept is None else kept
    total = memo.answer(kept, "texts", lambda: fts.texts(conn)) or 1
    weights = {}
    for term in terms:
        df = memo.answer(kept, ("df", term), lambda: fts.matching(conn, term))  # noqa: B023 (called at once)
        # smoothed so that a notebook of a few pages does not make one absent word outweigh all the rest
        weights[term] = math.log(1 + (total + 1) / (df + 1))
    whole = sum(weights.values()) or 1.0
    best = 0.0
    names = set(names)
    rest = {t for t in terms if t not in names and len(t.strip('"')) > 1}  # not the "s" of "Tom's"
    if names:  # a person and something of theirs, said in two facts of a chunk, answer nothing
        some = texts[:CHECKED * 4]
        spread = memo.answer(kept, ("composite", tuple(some)), lambda: fts.composite(conn, some))
        texts = [t for t in some if t not in spread]
    for tid in texts[:CHECKED]:
        holds = {term for term in weights
                 if memo.answer(kept, ("holds", term, tid), lambda: fts.holds(conn, term, tid))}  # noqa: B023
        if names and rest and not (holds & rest and holds & names):
            continue  # the person alone, or what is asked of someone else: no answer
        best = max(best, sum(weights[t] for t in holds) / whole)
    return round(best, 4)


NO_MATCH = "no good match for "


def no_match_note(query: str, evidence: Evidence) -> str:
    said = [f"{name} {value:.2f}" for name, value in (("keyword", evidence.keyword),
                                                        ("meaning", evidence.semantic)) if value is not None]
    shown = query if len(query) <= 80 else query[:79] + "…"
    return (f"{NO_MATCH}{shown!r} (confidence {evidence.confidence:.2f} < {FLOOR}; best evidence: "
            f"{', '.join(said) or 'none'}); pass --min-score 0 to see the closest anyway")
