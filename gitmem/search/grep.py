"""`git mem log --grep`: which commits changed text that matches a query.

A commit's document is the lines it added and removed (what the timeline
shows). It matches if its keyword score (FTS5 BM25 with the porter stemmer,
relative to the best match, as in recall) reaches the notebook's min_score,
or if its meaning is close to the query's (cosine similarity of the
embeddings at least SEMANTIC_MATCH). Matches are
scored by fusing the two rankings, as recall does.
Document embeddings go through the shared embedding cache, so each diff is
embedded once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..index import embed, embeddings, fts
from .rankers import fts_query, fuse, relative
from .vectors import cosines

if TYPE_CHECKING:
    from ..index.indexer import Index

# its own cut: a commit either matches --grep or not (a filter, like git log --grep), whereas
# recall ranks and answers unless nothing stands out (scale.py's floor)
SEMANTIC_MATCH = 0.5


def scores(index: Index, query: str, docs: list[tuple[int, str]],
           loader: embed.Background | None) -> tuple[dict[int, float], bool, list[str]]:
    """commit id -> score for the documents that match; whether meaning was
    used; notes."""
    docs = [(cid, doc) for cid, doc in docs if doc.strip()]
    keyword = _keyword(index, query, docs)
    lists = [keyword]
    notes: list[str] = []
    semantic = False
    if loader is not None:
        try:
            embedder = loader.get()
        except embed.ModelUnavailable as exc:
            notes.append(exc.off_note())
        else:
            lists.append(_semantic(index, embedder, query, docs))
            semantic = True
    floor = index.nb.settings.min_score
    matched = {cid for cid, score in keyword.items() if score >= floor}.union(*lists[1:])
    fused = fuse(lists, index.nb.settings) if len(lists) > 1 else lists[0]
    return {cid: fused[cid] for cid in matched}, semantic, notes


def _keyword(index: Index, query: str, docs: list[tuple[int, str]]) -> dict[int, float]:
    match = fts_query(query)
    if match is None or not docs:
        return {}
    return relative(fts.scored(index.conn, docs, match))


def _semantic(index: Index, embedder: embed.Embedder, query: str,
              docs: list[tuple[int, str]]) -> dict[int, float]:
    if not docs:
        return {}
    vectors = embeddings.vectors_of(index, embedder, [doc for _, doc in docs])
    sims = cosines(embedder.embed_query(query), vectors)
    return {docs[i][0]: float(sims[i]) for i in range(len(docs)) if sims[i] >= SEMANTIC_MATCH}
