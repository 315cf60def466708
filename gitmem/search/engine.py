"""Hybrid search: FTS5 BM25 and sqlite-vec cosine (search/rankers.py), fused.

Filters (view, group, tags, type, dates) build the candidate set first; both
rankers only ever see candidates, so a filter never cuts a top-k afterwards.
Any user text is a valid query: the keyword side quotes every word it finds,
so FTS5 operators in the input are just words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .. import credentials, dates
from ..config import DATE_BASES, MODES
from ..errors import EmptyText, UsageError
from ..gitops import hookrun
from ..index import confidence, embed, embeddings, extracts, postings
from ..index.indexer import Index, recovering
from ..index.pagetext import Reader
from ..notebook import Notebook
from . import abbreviations, aliases, candidates, current, facts, nicknames, rankers, scale, views, whose
from .hits import Hit, Results, snippet, unsaid
from .hits import redact as redact_secrets
from .remarks import in_sessions, remarks

if TYPE_CHECKING:
    from concurrent.futures import Future


EMBED_ON_READ = 512  # a past view embeds at most this many new texts on a read
CONFIDENCE_WEIGHT = 0.1  # how much a learned fact's confidence may lower its score: a mild factor


@dataclass
class Query:
    text: str
    mode: str = "hybrid"
    groups: tuple[str, ...] = ("notebook", "daily", "documents")
    limit: int | None = None
    min_score: float | None = None
    tags: tuple[str, ...] = ()
    type: str | None = None
    at: str | None = None  # REV, DATE or period: the notebook as it stood then
    history: bool = False  # current and superseded text together
    since: str | None = None
    until: str | None = None
    by: str = "auto"
    detail: bool = True  # name each hit's fact and its provenance (benchmarks of ranking alone skip it)
    served: bool = False  # the hits go to a person or an agent: their facts are reinforced
    full: bool = False  # JSON with every field of each result (the chunk, the fact's provenance)
    # the agent's instructions page (config.INSTRUCTIONS_PAGE) may be a result: not for recall and
    # the agent's lookups, which `context` gives the page to whole ("3. Ask the user." answered a wifi question)
    instructions: bool = True
    hints: bool = True  # notes that cost another search (sessions that would answer): not for the prompt hook


Progress = Callable[[int, int], None]


def check(query: Query) -> None:
    """UsageError (or EmptyText) for a query the engine cannot answer, before any work."""
    if not query.text or not query.text.strip():
        raise EmptyText("empty query", "say what to look for, e.g. git mem recall \"Sarah's phone\"")
    if query.mode not in MODES:
        raise UsageError(f"unknown mode {query.mode!r}", f"use one of {', '.join(MODES)}")
    if query.by not in DATE_BASES:
        raise UsageError(f"unknown date basis {query.by!r}", f"use one of {', '.join(DATE_BASES)}")
    if query.min_score is not None and not 0 <= query.min_score <= 1:  # NaN too: it is between nothing
        raise UsageError(f"min score {query.min_score} is not between 0 and 1", "e.g. 0.25, or 0 for the closest")
    dates.window(query.since, query.until)  # a malformed date fails before any work


@recovering
def run(nb: Notebook, query: Query, progress: Progress | None = None, indexing: Progress | None = None) -> Results:
    """Answer a query against the notebook as it is now (HEAD + work tree). `indexing` and
    `progress` hear how the catch-up of commits and the embedding of new text go."""
    started = time.monotonic()
    check(query)
    text, said, left_out = unsaid(query.text)  # said: as the answer repeats it, redacted
    query = replace(query, text=text)
    if left_out and not text:
        return Results(said, query.mode, False, [], {"total_ms": _ms(started)}, [left_out])
    if not query.groups:  # recall
        query = replace(query, groups=nb.settings.recall, instructions=False)
    index = Index(nb, as_is=True)  # opened before the loader thread starts importing, see db.vec_extension
    loader = embed.Background(embed.resolve(nb.git)) if query.mode != "keyword" else None
    try:
        report = index.sync(progress=indexing)
        extracted = extracts.run(index, extracts.READ_SECONDS, extracts.READ_BYTES, wait=10.0)
        view = views.build(index, query.at, query.history)
        timing = {"index_ms": _ms(started)}
        notes = ([left_out] if left_out else []) + list(report.notes) + extracted.notes + view.notes
        embedder = None
        if loader:
            embedder, note = _embedder(loader)
            if note:
                notes.append(note)
            elif embedder is not None:  # always, without a note
                deferred = _defer(index, embedder, view)
                if deferred:
                    embedder = None
                    notes.append(deferred)
                else:
                    notes.extend(_embed(index, embedder, view, progress))
        timing["model_ms"] = round(_ms(started) - timing["index_ms"], 1)
        mark = time.monotonic()
        found = ranking(index, query, embedder, view)
        hits = found.hits
        _confidence(nb, hits, query.served)
        current.ordered(hits)
        # the strong results first, as the text shows them above its WEAK MATCHES: an agent reading the
        # first three of the JSON read a weak one a person saw below three strong ones (a newcomer)
        hits.sort(key=lambda h: h.weak)
        timing["search_ms"] = _ms(mark)
        timing["total_ms"] = _ms(started)
        mode = query.mode if embedder else "keyword"
        # recall leaves sessions out: whether they would answer costs another search, not made for the prompt
        # hook beside weak matches (hints)
        look = (query.hints or not found.hits) and "sessions" not in query.groups and view.kind == "live"
        sessions = replace(query, groups=("sessions",), detail=False)
        notes += remarks(index.conn, view.sql, query.text, query.since, query.tags, found,
                         (lambda strong: in_sessions(query.text, strong, ranking(index, sessions, embedder, view).hits))
                         if look else None)
        secrets, where = redact_secrets(found.hits, query.text, query.full)
        if secrets:
            notes.append(credentials.note(secrets, where))
        return Results(said, mode, embedder is not None, found.hits, timing, notes,
                       credentials.redact_all(view.describe())[0],  # `--at`'s commit subject
                       evidence=found.evidence, full=query.full, asked_as=found.asked_as, about=found.about)
    finally:
        index.close()


def _embedder(loader: embed.Background) -> tuple[embed.Embedder | None, str | None]:
    try:
        return loader.get(), None
    except embed.ModelUnavailable as exc:
        return None, exc.off_note()


def _defer(index: Index, embedder: embed.Embedder, view: views.View) -> str | None:
    """When the view has more new texts than a read should embed itself (a fresh clone of a big
    notebook: minutes): a note saying semantic results are still being prepared, after starting
    the background worker unless one runs already; else None."""
    if view.kind != "live":
        return None
    changed_model = index.meta("model") not in (None, embedder.key)
    # facts are short (at most 600 characters) and embed many times faster than chunks: what a
    # read can afford to embed itself is counted in chunks
    waiting = views.pending(index, view, facts=False) if not changed_model else views.total(index, view)
    if not waiting:
        return None
    if waiting <= index.nb.settings.embed_on_read:
        return None  # a few seconds at most, waiting for a hook's worker included: embed them here
    if not hookrun.busy(index.nb.state_dir) and not hookrun.spawn(index.nb.top):
        return None  # no worker: embed here after all
    return (f"semantic results are still being prepared: {waiting} passages are being embedded in the "
            "background, so this answer is by keyword only; ask again in a while, or run 'git mem index' "
            "to wait for it with a progress bar")


def _embed(index: Index, embedder: embed.Embedder, view: views.View, progress: Progress | None = None) -> list[str]:
    """Embed the view's new texts; a past view with many (history not yet
    embedded by 'git mem index') answers semantically from what is embedded; an index that
    cannot be written (a full disk) answers from the embeddings it has."""
    if index.stuck:
        return []
    if view.kind != "live":
        waiting = views.pending(index, view)
        if waiting > EMBED_ON_READ:
            return [f"{waiting} texts of this view have no embedding yet, so meaning-based results may miss "
                    "them; run 'git mem index' once to embed the whole history"]
    return embeddings.embed(index, embedder, view=view.sql, progress=progress).notes


@dataclass
class Ranking:
    hits: list[Hit]
    evidence: scale.Evidence
    empty: bool = False  # no good match: the confidence is below the floor
    asked_as: str | None = None  # the question with its roles replaced by names, when any was (aliases.py)
    stranger: str | None = None  # whom the question asks about that the notebook never mentions ("your sister", "Leo")
    closest_of: str | None = None  # nothing answers: the hits are the closest facts of these people ("Sam")
    about: tuple[str, ...] = ()  # the people the question names, as the notebook calls them (by role or by name)


def rank(index: Index, query: Query, embedder: embed.Embedder | None, view: views.View | None = None) -> list[Hit]:
    """Ranked hits for `query` among the candidates of the view (default: live)."""
    return ranking(index, query, embedder, view).hits


def ranking(index: Index, query: Query, embedder: embed.Embedder | None,
            view: views.View | None = None) -> Ranking:
    """Ranked hits on one score scale (see scale.py). None when no candidate stands above the
    notebook's background (no good match; min_score 0: the closest, whatever they are); when
    the best match is weak, or a result scores under min_score, the result says so (`weak`)
    instead of being dropped: the best WEAK_SHOWN are shown however weak they are."""
    s = index.nb.settings
    limit = query.limit if query.limit is not None else s.limit
    min_score = query.min_score if query.min_score is not None else s.min_score
    view = view or views.live()
    cand = candidates.Candidates(index.conn, query, view, index.kept)
    asked = aliases.expand(index.conn, query.text, cand.among)  # "how is my daughter" is "how is Emma"
    asked = abbreviations.spelled(index.conn, asked)  # "which CI" where the notebook says "continuous integration"
    asked = nicknames.named(index.conn, asked)  # "Bob's phone" where the notebook says "Robert Chen's phone"
    asked_as = asked.ranked if asked.ranked != query.text else None
    query = replace(query, text=asked.ranked)
    unnamed = aliases.unnamed(index.conn, asked, index.kept("people"))  # "when is Tom's birthday": of Tom
    # their facts say them by name or by the role the notebook gives them ("my brother" for Robert)
    kin = aliases.roles_of(index.conn, unnamed[1], index.kept("people")) if unnamed else set()
    evidence, relative = _weigh(index, query, embedder, cand, asked.judged, unnamed)
    scores = {t: round(evidence.confidence * v, 4) for t, v in relative.items()}
    nothing = min_score > 0 and scale.nothing(evidence)
    closest_of = None
    if nothing and not unnamed:
        return Ranking([], evidence, empty=bool(scores), asked_as=asked_as)
    # over history, of texts that score alike the newer first (texts are stored as commits are read,
    # oldest first): the versions of a fact score alike, and the walk takes the best few of them
    newer = -1 if view.kind == "history" else 0
    if evidence.semantic is None:  # keyword mode filters as before, on the score relative to the best
        ranked = sorted((t for t in scores if relative[t] >= min_score), key=lambda t: (-relative[t], newer * t))
    else:
        ranked = sorted(scores, key=lambda t: (-relative[t], newer * t))
    if nothing and unnamed:  # a question about someone the notebook knows: the closest of their facts, weak
        theirs = whose.naming(index.conn, unnamed, kin)(ranked)
        ranked = [t for t in ranked if t in theirs]
        if not ranked:
            return Ranking([], evidence, empty=bool(scores), asked_as=asked_as)
        closest_of = whose.called(unnamed)
    pool = max(limit, POOL)
    found: list[facts.Found] = []
    if view.kind == "history":
        from . import history

        # its own limit: each result of history is walked (blamed, its successor found)
        # the fact standing now is added only when no filter could have left it out on purpose
        adding = not (query.since or query.until or query.tags or query.type)
        hits = history.hits(index, ranked, scores, query.text, limit, embedder if query.detail else None,
                            query.detail, adding)
    else:
        found = _found(index, cand, ranked, scores, query, pool, view, embedder)
        if unnamed and (closest_of or evidence.semantic is not None and scale.weak(evidence)):
            # nothing answers a question about someone the notebook knows: their facts are the closest,
            # not another's the question is near ("when is Gareth's birthday": "My mum's birthday is ...")
            naming = [f for f in found if whose.says_name(f.hit, unnamed[1], kin)]
            found, closest_of = (naming, closest_of or whose.called(unnamed)) if naming else (found, closest_of)
        hits = [f.hit for f in found]
    others = _someone_else(index, asked, hits)
    stranger = aliases.stranger(index.conn, asked.judged, asked)
    if stranger is not None:  # "what is my sister's job" in a notebook without one: nothing here is hers
        others = {id(h) for h in hits}
    current.ordered(hits)  # its re-sort may have put a fact above the line that replaced it
    shown = _shown(hits, evidence, min_score, others)[:limit]
    if found and query.detail:  # blamed once they are shown: what git says of a line costs a blame per page
        kept = {id(h) for h in shown}
        facts.cite_found(index, [f for f in found if id(f.hit) in kept])
        current.dated(shown)
    about = (*asked.names, *(n.title() for n in sorted(unnamed[1] if unnamed else ())))
    return Ranking(shown, evidence, asked_as=asked_as, stranger=stranger, closest_of=closest_of, about=about)


# Results are worked out for at least POOL of them and cut to the limit last, so that a smaller
# limit gives the first results of a larger one (`-n 3` is the top three of `-n 15`): a fact
# scored down for sharing a chunk, or for being someone else's, gives its place to one further
# down, and with a pool sized by the limit that one was not there to take it.
POOL = 15


def _found(index: Index, cand: candidates.Candidates, ranked: list[int], scores: dict[int, float],
           query: Query, pool: int, view: views.View, embedder: embed.Embedder | None) -> list[facts.Found]:
    """The best `pool` results of the notebook now or at a revision, each naming its fact."""
    found = _hits(index, cand.occurrences(ranked), scores, query.text, pool, view, query.full)
    if not query.detail:
        return _distinct(_spread(found, query.full), pool)
    reader = Reader(index)
    facts.choose(index, found, query.text, embedder, reader)
    return current.link(_distinct(_spread(found, query.full), pool), reader, query.full)


SOMEONE_ELSE = 0.5  # the score of a fact about another person than the one the question means


def _someone_else(index: Index, asked: aliases.Asked, hits: list[Hit]) -> set[int]:
    """The hits (by id) that may not answer because of who they are about. A fact about another
    person the notebook knows by a role scores less ("what is my daughter allergic to", read as
    Emma: "Jake is allergic to peanuts"), and when the best match was one, the evidence that the
    question is answered was that person's, so every hit may not answer; except for a question
    about the one who asks ("what am I allergic to"), whose own facts share that evidence and
    stay as they are (tuning part of the paraphrase set: answer@1 0.670 -> 0.679, the rest
    unchanged). `hits` is re-sorted."""
    # a nested fact is about the item it is under ("Jake › allergic to peanuts"): facts.about
    said = [facts.about(h.fact) if h.fact is not None else h.text for h in hits]
    elsewhere = aliases.someone_else(index.conn, asked, said, index.kept("people"))
    if not any(elsewhere):
        return set()
    for hit, other in zip(hits, elsewhere):
        if other:
            hit.score = round(hit.score * SOMEONE_ELSE, 4)
    spread = elsewhere[0] and not aliases.asker_only(index.conn, asked, index.kept("people"))
    others = {id(h) for h, other in zip(hits, elsewhere) if other or spread}
    hits.sort(key=lambda h: -h.score)
    return others


WEAK_SHOWN = 5  # weak results shown when fewer strong ones are there (min_score 0: all)
WEAK_NEAR = 0.5  # ... and only those scoring at least this share of the best result's score


def _shown(hits: list[Hit], evidence: scale.Evidence, min_score: float, others: Collection[int] = ()) -> list[Hit]:
    """The strong results, then weak ones near the best up to WEAK_SHOWN results, each marked. A result is weak
    when the query's best match is (scale.weak), it scores under min_score, or it is about someone
    other than the one the question means (`others`: ids of such hits)."""
    if evidence.semantic is None:  # keyword mode: filtered on relative scores above, its evidence too thin to judge
        for hit in hits:
            # but who a fact is about is known, and a score of 0 says its words were no evidence at all (a
            # newcomer's notebook without a model listed its one result under NOTEBOOK at 0.00)
            hit.weak = id(hit) in others or hit.score <= 0
        return hits
    weak_query = scale.weak(evidence)
    for hit in hits:
        hit.weak = weak_query or hit.score < min_score or id(hit) in others
    strong = [h for h in hits if not h.weak]
    if min_score == 0:
        return hits
    # a weak result close to the best may still answer; one far below it is noise
    near = WEAK_NEAR * max((h.score for h in hits), default=0.0)
    return strong + [h for h in hits if h.weak and h.score >= near][:max(0, WEAK_SHOWN - len(strong))]


def _weigh(index: Index, query: Query, embedder: embed.Embedder | None,
           cand: candidates.Candidates, asked: str | None = None,
           unnamed: tuple[str, set[str]] | None = None) -> tuple[scale.Evidence, dict[int, float]]:
    """The query's evidence and each candidate text's fused score relative to the best; the
    evidence is that of the question `asked` (before aliases.expand added names; default: the query's)."""
    asked = query.text if asked is None else asked
    conn = index.conn
    lists = []
    evidence = scale.Evidence()
    semantic = embedder is not None and query.mode in ("hybrid", "semantic")
    match = rankers.fts_query(query.text)
    said = rankers.fts_query(asked)
    terms = said.split(" OR ") if said else []
    keyword: dict[int, float] | None = None
    held: float | None = None
    vectors_: Future[list[bytes]] | None = None
    if semantic and embedder is not None:
        # the meaning evidence is the question's own: a name it gained brings its facts near, not an answer
        meant = unnamed[0] if unnamed else asked
        vectors_ = rankers.embedding(embedder, [query.text] + ([meant] if meant != query.text else []))
    ranker: postings.Ranker | None = None
    if query.mode in ("hybrid", "keyword") or embedder is None:
        ranker = postings.Ranker(conn, index.kept("postings"), match)
        keyword = rankers.keyword_scores(conn, match, cand, ranker)
        lists.append(keyword)
        held, evidence.keyword = _held(index, terms, sorted(keyword, key=lambda t: -keyword[t]), unnamed)
        if not rankers.says_something(asked):
            evidence.keyword = held = 0.0  # "my", "the the the": every text holds the words, none answers them
    if semantic:
        assert embedder is not None and vectors_ is not None
        vector, *plain = vectors_.result()
        cosines = rankers.semantic(index, embedder, vector, cand, evidence, keyword, plain[0] if plain else None,
                            whose.naming(conn, unnamed) if unnamed else None)
        if query.mode == "semantic":  # keyword evidence of the meaning-ranked texts: one scale in every mode
            evidence.keyword = scale.coverage(conn, terms, sorted(cosines, key=lambda t: -cosines[t]),
                                              index.kept("coverage"), whose.name_terms(terms, unnamed))
        lists.append(cosines)
        if keyword is not None and match is not None and ranker is not None:
            rankers.complete(conn, match, keyword, cosines, ranker)
    evidence.confidence = scale.confidence(evidence.keyword, evidence.semantic)
    # the keyword ranking counts as much as its best match holds the query's words
    weights = [scale.keyword_weight(held), 1.0] if len(lists) > 1 else None
    if keyword is not None:
        lists[0] = rankers.relative(list(keyword.items()))
    fused = rankers.fuse(lists, index.nb.settings, weights) if len(lists) > 1 else \
        _relative_to_best(lists[0] if lists else {})
    return evidence, fused


def _held(index: Index, terms: list[str], best_first: list[int],
          unnamed: tuple[str, set[str]] | None) -> tuple[float | None, float | None]:
    """How much of the query the best keyword matches hold (which sets how much the keyword
    ranking counts), and the same as evidence of an answer: for a question about people the
    notebook knows, only a text that says one of them and something else the question asks counts."""
    held = scale.coverage(index.conn, terms, best_first, index.kept("coverage"))
    if not unnamed:
        return held, held
    return held, scale.coverage(index.conn, terms, best_first, index.kept("coverage"), whose.name_terms(terms, unnamed))


def _relative_to_best(scores: dict[int, float]) -> dict[int, float]:
    best = max(scores.values(), default=0.0) or 1.0
    return {t: v / best for t, v in scores.items()}


def _confidence(nb: Notebook, hits: list[Hit], served: bool) -> None:
    """Each current hit's effective confidence (learned facts only), a mild ranking factor
    (x0.9 at confidence 0, x1.0 at 1; a hit without learned facts is unchanged); a served
    hit's facts are reinforced (after the confidence is read: a result shows what it had)."""
    current = [h for h in hits if h.current and h.revision is None and h.group == "notebook"
               and "<!-- gitmem:" in h.text]
    for hit in current:
        hit.confidence = confidence.of_lines(nb, hit.path, hit.lines["start"], hit.lines["end"])
        if hit.confidence is not None:
            hit.score = round(hit.score * (1 - CONFIDENCE_WEIGHT * (1 - hit.confidence)), 4)
    hits.sort(key=lambda h: -h.score)
    if served and current:
        confidence.reinforce(nb, [(h.path, line) for h in current for line in h.text.split("\n")])


FANOUT = 4  # occurrences read per result wanted: a chunk and the facts in it are one result


def _hits(index: Index, ranked: Iterator[tuple[int, list[tuple[Any, ...]]]], scores: dict[int, float],
          query: str, limit: int, view: views.View, full: bool = False) -> list[facts.Found]:
    """The best occurrences of the ranked texts, as many as `limit` results may need: a chunk,
    or a fact row (see indexer.facts) shown in the chunk that holds it. With `full` a result is
    a chunk (see _spread), so enough occurrences to reach FANOUT // 2 chunks per result."""
    chunks: set[tuple[str, int | None, int, int]] = set()
    revision = view.revision.commit if view.revision else None
    hits: list[facts.Found] = []
    for tid, rows in ranked:
        for path, grp, version, start, end, heading, body, blob, page, is_fact in rows:
            span = (start, end) if is_fact else None
            if span is not None:
                start, end, heading, body, origin_text = facts.holder(index, blob, start, end, heading, body, tid)
            else:
                origin_text = tid
            origin = view.origin(index, path, version, origin_text)
            hits.append(facts.Found(Hit(group=grp, path=path, heading=heading, snippet=snippet(body, query),
                                        text=body, score=round(scores[tid], 4), lines={"start": start, "end": end},
                                        commit=origin.commit, date=origin.date, author=origin.author,
                                        subject=origin.subject, revision=revision, page=page), blob,
                                    revision or (None if version is None else "HEAD"), span))
            chunks.add((path, page, start, end))
            if (len(chunks) >= limit * FANOUT // 2) if full else (len(hits) >= limit * FANOUT):
                return hits
    return hits


SAME_CHUNK = 0.9  # a result shown in the chunk of a better one counts this share of its score


def _spread(found: list[facts.Found], full: bool = False) -> list[facts.Found]:
    """The occurrences best first, a fact whose chunk a better result already shows scored
    SAME_CHUNK of its own: two facts of one section are two answers, but ten results are more
    often right when they reach into more sections (tuning part of the paraphrase set: answer@3
    0.830 -> 0.849; LoCoMo conv-26 evidence recall@10 87.8 -> 89.2; dropping such facts instead
    cost answer@3 0.792, the right fact being often the second of its section).

    With `full` a result is its whole chunk, so a later fact of a chunk already shown is dropped:
    the text is there already, and the same chunk twice would spend a reader's context and one
    of its places on nothing new."""
    shown: set[tuple[str, int | None, int, int]] = set()
    kept = []
    for f in found:
        chunk = (f.hit.path, f.hit.page, f.hit.lines["start"], f.hit.lines["end"])
        if chunk in shown:
            if full:
                continue
            f.hit.score = round(f.hit.score * SAME_CHUNK, 4)
        if f.hit.fact is not None or not f.named:  # shown: _distinct keeps it (one naming nothing it drops)
            shown.add(chunk)
        kept.append(f)
    return sorted(kept, key=lambda f: -f.hit.score)  # stable: ties keep the rankers' order


def _distinct(found: list[facts.Found], limit: int) -> list[facts.Found]:
    """One result per fact, at most `limit`: a hit that names no fact (a heading alone, or a chunk
    whose facts other results already name) is dropped; without facts named (detail off), an
    occurrence within the lines of one already kept on its page."""
    kept: list[facts.Found] = []
    for f in found:
        hit = f.hit
        if hit.fact is not None:
            kept.append(f)
        elif f.named:
            continue
        else:
            lines = f.span or (hit.lines["start"], hit.lines["end"])
            if any(k.hit.path == hit.path and k.hit.page == hit.page
                   and (k.span or (k.hit.lines["start"], k.hit.lines["end"]))[0] <= lines[0]
                   and lines[1] <= (k.span or (k.hit.lines["start"], k.hit.lines["end"]))[1] for k in kept):
                continue
            if f.span is not None:  # a fact row as a chunk-level result: its own lines
                hit.lines = {"start": f.span[0], "end": f.span[1]}
            kept.append(f)
        if len(kept) >= limit:
            break
    return kept


def _ms(since: float) -> float:
    return round((time.monotonic() - since) * 1000, 1)
