"""The two rankers and their fusion: keyword (FTS5 BM25, or the postings a warm process keeps)
and meaning (sqlite-vec cosine), each over the query's candidates only, and one score per text
from both (search/engine.py asks them)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..config import Settings
from ..index import embed, fts, postings
from . import candidates, scale, vectors
from .hits import STOPWORDS, WORD

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    import apsw

    from ..index.indexer import Index

MAX_QUERY_TERMS = 64


def says_something(text: str) -> bool:
    """Whether a query has a word that is not a stopword."""
    return any(w.lower() not in STOPWORDS for w in WORD.findall(text))


def fts_query(text: str) -> str | None:
    """Any text as a safe FTS5 query: its words, quoted, OR-ed (None if it has none)."""
    words = [w.lower() for w in WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    unique = list(dict.fromkeys(kept))[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{w}"' for w in unique) if unique else None


def keyword_scores(conn: apsw.Connection, match: str | None, cand: candidates.Candidates,
             ranker: postings.Ranker) -> dict[int, float]:
    """text id -> -BM25 of the best candidates (see relative); from postings a warm process
    keeps when it has them for every word (`ranker`, index/postings.py: the same scores)."""
    if match is None:
        return {}

    def fetch(n: int, among: bool) -> list[tuple[int, float]]:
        if ranker.ready:
            return ranker.top(n, cand.texts() if among else None)
        return fts.ranked(conn, match, n, among)

    return {int(t): float(v) for t, v in cand.top(fetch)}


def complete(conn: apsw.Connection, match: str, keyword: dict[int, float], cosines: dict[int, float],
              ranker: postings.Ranker) -> None:
    """Give the texts only the meaning ranking found their BM25 too. Each ranker contributes
    its best DEPTH; when facts made the candidates many times more numerous, a text one ranker
    placed just past its DEPTH counted 0 for it in the fusion, and a text both rank fairly well
    lost to one only the other ranks high (LoCoMo conv-26 and conv-30, evidence recall@10 of
    hybrid: 88.5 -> 89.7 with both sides completed; the paraphrase set's answer@3 unchanged)."""
    missing = [t for t in cosines if t not in keyword]
    keyword.update(ranker.of(missing) if ranker.ready else fts.scores(conn, match, missing))


def relative(rows: list[tuple[int, float]]) -> dict[int, float]:
    """(id, -bm25) rows as id -> score in [0, 1], relative to the best."""
    if not rows:
        return {}
    best = max(r[1] for r in rows) or 1.0
    return {int(r[0]): max(0.0, r[1] / best) for r in rows}


def embedding(embedder: embed.Embedder, texts: list[str]) -> Future[list[bytes]]:
    """The query's vectors (as ranked, and as judged when it differs: one batch), computed beside the
    keyword ranking: onnxruntime and SQLite both let go of the GIL, so on two cores the 7 ms of the
    model and the 8 ms of FTS5 overlap."""
    global _beside
    with _beside_lock:
        if _beside is None:
            from concurrent.futures import ThreadPoolExecutor

            _beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gitmem-query")
        return _beside.submit(embedder.embed_queries, texts)


_beside: Executor | None = None
_beside_lock = threading.Lock()


def _after_fork() -> None:
    global _beside, _beside_lock
    _beside, _beside_lock = None, threading.Lock()  # the executor's thread is not in a forked child


os.register_at_fork(after_in_child=_after_fork)


def semantic(index: Index, embedder: embed.Embedder, vector: bytes, cand: candidates.Candidates,
              evidence: scale.Evidence | None = None, also: dict[int, float] | None = None,
              judged: bytes | None = None, about: Callable[[list[int]], set[int]] | None = None) -> dict[int, float]:
    """text id -> cosine similarity to the query's `vector`, clipped to [0, 1]; `evidence` hears the
    best similarity and how far it stands above the notebook's background (scale.above), of
    `judged` (the question as asked) when given, else of `vector`."""
    stored = vectors.matrix(index.conn, index.path)
    if not len(stored.ids) or stored.unit.shape[1] * 4 != len(vector) or index.meta("model") != embedder.key:
        if evidence is not None:
            evidence.semantic = 0.0
        return {}  # nothing embedded yet, or by another model (re-embedded on a later sync)

    def fetch(n: int, among: bool) -> list[tuple[int, float]]:
        return stored.nearest(vector, n, cand.texts() if among else None)

    found = {int(r[0]): min(1.0, max(0.0, 1.0 - r[1])) for r in cand.top(fetch)}
    if also:  # the keyword ranking's texts the meaning ranking placed past DEPTH (see _complete)
        missing = [t for t in also if t not in found]
        found.update({t: min(1.0, max(0.0, c)) for t, c in stored.of(vector, missing).items()})
    if evidence is not None:
        judge = judged or vector
        among = list(found) if about is None else sorted(about(list(found)))
        best = min(1.0, max(0.0, max(stored.of(judged, among).values() if judged else
                                     (found[t] for t in among), default=0.0)))
        evidence.semantic = round(best, 4)
        if found:
            evidence.above = scale.above(best, *stored.background(judge), len(stored.ids))
    return found


def fuse(lists: list[dict[int, float]], settings: Settings, weights: list[float] | None = None) -> dict[int, float]:
    """One score per text from the rankers' scores (see FUSIONS); `weights`: how much each
    ranker counts (default: alike)."""
    if settings.fusion == "rrf":
        return _reciprocal_rank(lists, settings.rrf_k)
    return _mean_of_relative(lists, weights)


def _mean_of_relative(lists: list[dict[int, float]], weights: list[float] | None = None) -> dict[int, float]:
    """The mean over the rankers of each text's score relative to that ranker's best (0 where it
    is absent): first in every list is 1.0, first in one only 0.5. Unlike rank fusion it keeps
    how far apart the scores are: a clear keyword match is not pulled down by a ranker that has
    nothing clear (against RRF: SciFact nDCG@10 0.714 -> 0.731, LoCoMo evidence recall@10 87.8% -> 91.9%)."""
    weights = weights or [1.0] * len(lists)
    total = sum(weights) or 1.0
    fused: dict[int, float] = {}
    for scores, weight in zip(lists, weights):
        best = max(scores.values(), default=0.0) or 1.0
        for tid, score in scores.items():
            fused[tid] = fused.get(tid, 0.0) + weight * score / best / total
    return fused


def _reciprocal_rank(lists: list[dict[int, float]], k: int) -> dict[int, float]:
    """Reciprocal rank fusion, scaled so that first place in every list is 1.0."""
    fused: dict[int, float] = {}
    for scores in lists:
        for rank_, tid in enumerate(sorted(scores, key=lambda t: -scores[t]), start=1):
            fused[tid] = fused.get(tid, 0.0) + 1.0 / (k + rank_)
    best = len(lists) / (k + 1)
    return {t: s / best for t, s in fused.items()}
