"""Recall across the notebook's whole history: current and superseded text.

Candidates are every chunk of every version of every page (and the work
tree). A ranked text is reported once per page and per unbroken run of
versions that held it:
- current: the page holds it now; `commit`/`date` say when it got there.
- superseded: `commit`/`date` say when it got there, `until` when it stopped
  being true and `changed_by` which commit changed it.

"Stopped being true" is judged by lines, not by the chunk: a chunk's text
changes whenever anything in its section does, but what it says stays true as
long as the page still holds every (non-blank) line of it. So "Sarah: 555-1234"
is true until the commit that changed that line, not until the next unrelated
edit of the contacts section. A page deleted in a commit that adds or changes
another page holding those lines (a rename, a move) is followed there. Old text
whose lines the page still holds is current: it is left out when a current
chunk among the candidates holds the same lines, else (a date filter left the
current chunk out) reported as current, in the words and lines of the version
it comes from (`revision`).
Several old texts of one page made false by the same commit are one result
(the best-ranked): one answer per change, not one per intermediate edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import groupby
from typing import TYPE_CHECKING, Any

from ..dates import iso
from ..index import cand, chunks, commits, provenance, versions
from ..index.pagetext import Reader
from ..index.provenance import Origin, of_text
from . import current, facts
from .hits import Hit, snippet

if TYPE_CHECKING:
    from ..index.embed import Embedder
    from ..index.indexer import Index


HOPS = 1000  # edits followed from a superseded fact to the one standing now, at most
SUPERSEDES = re.compile(r"^(?P<path>.+?):(?P<line>\d+) [0-9a-f]{6,64} ")  # a Gitmem-Supersedes trailer's value


@dataclass(frozen=True)
class Run:
    """Consecutive versions of one page that held a text (None: the work tree)."""

    versions: tuple[int | None, ...]
    chunks: tuple[int, ...]
    end_commit: int | None  # where the last version ended; None: still at HEAD
    live: bool


@dataclass(frozen=True)
class Fate:
    """When and how a text's lines stopped being true on its page."""

    commit: int | None  # commits.id; None: an uncommitted change, or still true
    how: str  # edited | deleted | uncommitted | current (still true now); a hit's: also removed
    path: str  # the page it was on when it changed (differs after a rename)
    lost: tuple[str, ...]  # the lines of the text the change took away


def hits(index: Index, ranked: list[int], scores: dict[int, float], query: str, limit: int,
         embedder: Embedder | None = None, detail: bool = True, adding: bool = True) -> list[Hit]:
    """Hits for ranked texts over the history view (temp.cand); with `detail`, each names its
    fact, and a superseded one is judged by the fact's lines rather than by the chunk's. With
    `adding`, the fact standing now in a superseded one's place is a result even when no ranked
    text held it (not under a date, tag or type filter, which may leave it out on purpose)."""
    walker = Walker(index, embedder, detail)
    found: list[Hit] = []
    seen: set[tuple[str, int | None, str, str]] = set()
    walked = limit + min(limit, WALKED)  # the versions of a fact score alike: with its neighbours among them, each is
    # placed below the one that replaced it, so `-n 2` gives the fact now and the one just before
    # it, not the oldest (a newcomer's four phone numbers, 2026-11-26: 0004 then 0001)
    for tid in ranked:
        rows = cand.occurrences(index.conn, tid)
        for path, group in groupby(rows, key=lambda r: r[0]):
            occurrences = list(group)
            for run in runs(index, path, occurrences):
                hit = walker.hit(path, occurrences[0][1], tid, run, scores[tid], query, seen)
                if hit is not None:
                    found.append(hit)
                    if len(found) >= walked:
                        return successors_first(found, walker, adding)[:limit]
    return successors_first(found, walker, adding)[:limit]


WALKED = 5  # results walked beyond the limit, at most as many as it
UNKNOWN = 1_000  # replacements between a version and now when the chain between is not among the results


def successors_first(found: list[Hit], walker: Walker | None = None, adding: bool = True) -> list[Hit]:
    """The hits with each fact's versions together, newest first: the fact standing now, then the
    one it replaced, and so on (a newcomer's `--history "when does the beta launch"`, 2026-11-26:
    the old date at 1.00, the current one second; with `--limit 2` and four versions, the current
    fact was not shown at all). With `adding`, a fact standing now that no hit holds is added, by
    `walker`; each version scores at least what those below it score, so a re-sort by score keeps
    the order."""
    if walker is None:
        return _versions_together(list(found), {})
    out = list(found)
    for old in found if adding else ():
        target = _standing(old, walker)
        if target is not None and not any(h.current and _holds(h, target) for h in out):
            out.insert(out.index(old), walker.now(old, target))
    # a line kept beside the later line that updates it, as the live view links them
    return current.link_hits(_versions_together(out, walker.changed_at), walker.now_text, walker.now)


def _standing(old: Hit, walker: Walker | None) -> dict[str, Any] | None:
    """What stands now in the place of a superseded hit ({text, path, lines}), if anything does."""
    successor = old.successor
    if old.current or not successor:
        return None
    if successor.get("now"):
        return dict(successor["now"])
    if not successor.get("current"):
        return None
    lines = [ln for ln in successor["text"].split("\n") if ln.strip()]
    here = walker.standing(successor["path"], lines) if walker is not None else None
    return here or successor  # its lines now, not as the change left them


def _versions_together(hits: list[Hit], changed_at: dict[int, int | None]) -> list[Hit]:
    """Each group of versions of one fact (linked by what replaced what) at the place of its best
    ranked member, newest first: what stands now, then by the order of the commits that changed
    each (`changed_at`: id(hit) -> the index's commit id, in the order git's history is read; the
    commit's date where it is not known), then by how many replacements separate each from now."""
    group = {id(h): id(h) for h in hits}

    def root(key: int) -> int:
        while group[key] != key:
            group[key] = group[group[key]]
            key = group[key]
        return key

    replaced_by: dict[int, Hit] = {}
    for old in hits:
        if old.current or not old.successor:
            continue
        later = _replacement(old, hits)
        now = old.successor.get("now")
        standing = next((h for h in hits if h.current and _holds(h, now)), None) if now else None
        for other in (later, standing):
            if other is not None:
                group[root(id(old))] = root(id(other))
        if later is not None:
            replaced_by[id(old)] = later
    place = {id(h): n for n, h in enumerate(hits)}

    def hops(hit: Hit) -> int:
        """Replacements between a hit and what stands now (0: it stands now), along the links
        among the hits, each version once (a revert, Monday -> Friday -> Monday, links back)."""
        count, seen = 0, set()
        while not hit.current and id(hit) not in seen:
            seen.add(id(hit))
            later = replaced_by.get(id(hit))
            if later is None:  # what replaced it stands now, or is no result: how many came between is not known
                return count + (1 if hit.successor and hit.successor.get("current") else UNKNOWN)
            count, hit = count + 1, later
        return count

    def newest_first(hit: Hit) -> tuple[int, int | str]:
        if hit.current:
            return (3, 0)
        if id(hit) in changed_at and changed_at[id(hit)] is None:  # changed in the work tree: the latest change
            return (2, 0)
        seq = changed_at.get(id(hit))
        return (1, seq) if seq is not None else (0, hit.until or "")

    out: list[Hit] = []
    done: set[int] = set()
    for hit in hits:
        key = root(id(hit))
        if key in done:
            continue
        done.add(key)
        members = sorted((h for h in hits if root(id(h)) == key), key=lambda h: (hops(h), place[id(h)]))
        members.sort(key=newest_first, reverse=True)  # stable: hops and rank decide between equals
        best = 0.0
        for member in reversed(members):  # each scores at least what those below it score
            best = member.score = max(member.score, best)
        out.extend(members)
    return out


def _replacement(old: Hit, hits: list[Hit]) -> Hit | None:
    """The hit holding the fact that replaced `old`: by its text (its page may have been renamed
    since), the one the replacing commit wrote and on the page it was written on first, so that a
    revert or the same line on another page is not taken for it."""
    successor = old.successor or {}
    same = [h for h in hits if h is not old and h.fact is not None and h.fact.text == successor.get("text")]
    return max(same, key=lambda h: (h.fact is not None and h.fact.commit == successor.get("commit"),
                                    h.path == successor.get("path")), default=None)


def _holds(hit: Hit, fact: dict[str, Any]) -> bool:
    """Whether the hit's fact is `fact` ({path, text, ...})."""
    return hit.path == fact["path"] and hit.fact is not None and hit.fact.text == fact["text"]


def runs(index: Index, path: str, rows: list[tuple[Any, ...]]) -> list[Run]:
    """Split a text's occurrences on one page into unbroken runs of versions."""
    conn = index.conn
    chunk_of = {r[2]: r[3] for r in rows}
    ids = [r[2] for r in rows if r[2] is not None]
    ordered = versions.in_order(conn, ids)
    in_worktree = versions.in_worktree(conn, path)
    out: list[Run] = []
    current: list[tuple[int, int, int | None]] = []
    for v in ordered:
        if current and current[-1][2] != v[1]:
            out.append(_run(current, chunk_of, live=False))
            current = []
        current.append(v)
    if current:
        at_head = current[-1][2] is None
        if not (at_head and None in chunk_of):  # the work-tree row below continues this run
            out.append(_run(current, chunk_of, live=at_head and not in_worktree))
    if None in chunk_of:
        out.append(Run((None,), (chunk_of[None],), None, True))
    return out


def _run(versions: list[tuple[int, int, int | None]], chunk_of: dict[Any, int], live: bool) -> Run:
    return Run(tuple(v[0] for v in versions), tuple(chunk_of[v[0]] for v in versions), versions[-1][2], live)


class Walker:
    """Follows what a text says forward through later versions of its page."""

    def __init__(self, index: Index, embedder: Embedder | None = None, detail: bool = True) -> None:
        self.index = index
        self.conn = index.conn
        self._pages: dict[int, str] = {}
        self.embedder = embedder
        self.detail = detail
        self.reader = Reader(index)
        self._latest: dict[tuple[str, int, str], dict[str, Any] | None] = {}
        self.changed_at: dict[int, int | None] = {}  # id(hit) -> the commit (index id) that changed it

    def page(self, blob: int) -> str:
        """A version's text, as search reads it: forgotten lines blanked, a document's extracted
        text; '' for a private page (nothing of it is shown, a successor included)."""
        if blob not in self._pages:
            self._pages[blob] = "" if chunks.private(self.conn, blob) else self.reader.text(blob, None) or ""
        return self._pages[blob]

    def work_text(self, path: str, blob: int | None) -> str | None:
        """A work-tree page's text (its blob is not in git's object store), as `page` reads it."""
        if blob is None or chunks.private(self.conn, blob):
            return None
        return self.reader.text(blob, path)

    def holds(self, claim: list[str], blob: int | None, text: str | None = None) -> bool:
        page = text if text is not None else self.page(blob) if blob is not None else None
        return page is not None and all(line in page for line in claim)

    def lost(self, claim: list[str], page: str | None) -> tuple[str, ...]:
        return tuple(line for line in claim if line not in (page or ""))

    def fate(self, path: str, end_commit: int | None, claim: list[str]) -> Fate:
        """When the page (or the page it moved to) stopped holding `claim`,
        or that it still does."""
        conn = self.conn
        while True:
            if end_commit is None:
                wt = versions.worktree_blob(conn, path)
                text = self.work_text(path, wt[0]) if wt else None
                if wt is None or self.holds(claim, None, text):
                    return Fate(None, "current", path, ())
                return Fate(None, "uncommitted", path, self.lost(claim, text))
            nxt = versions.started(conn, path, end_commit)
            if nxt is not None:
                if not self.holds(claim, nxt[0]):
                    return Fate(end_commit, "edited", path, self.lost(claim, self.page(nxt[0])))
                end_commit = nxt[1]
                continue
            moved = next((m for m in versions.started_elsewhere(conn, end_commit, path)
                          if self.holds(claim, m[1])), None)
            if moved is None:
                return Fate(end_commit, "deleted", path, tuple(claim))
            path, end_commit = moved[0], moved[2]

    def since(self, version: int, lines: tuple[str, ...]) -> Origin | None:
        """Where `lines` came from: the origin of the text holding the first
        of them in the earliest version of the unbroken run (ending at
        `version`) whose page held them all, followed back through renames."""
        conn = self.conn
        path, blob, start = versions.of(conn, version)
        while True:
            before = versions.before(conn, path, start)
            prev = next((b for b in before if self.holds(list(lines), b[1])), None)
            if prev is None:
                break
            version, blob, start = prev
            path = versions.path_of(conn, version)
        oid = chunks.first_origin(conn, version, blob, lines[0] if lines else "")
        return provenance.commit(self.index, oid) if oid else None

    def hit(self, path: str, grp: str, tid: int, run: Run, score: float, query: str,
            seen: set[tuple[str, int | None, str, str]]) -> Hit | None:
        conn = self.conn
        start, end, heading, body, blob, page, is_fact = chunks.of(conn, run.chunks[-1])
        span = (start, end) if is_fact else None  # a fact row: shown in the chunk that holds it
        shown = tid
        if span is not None:
            start, end, heading, body, shown = facts.holder(self.index, blob, start, end, heading, body, tid)
        version = run.versions[-1]
        origin = of_text(self.index, path, version, shown)
        hit = Hit(group=grp, path=path, heading=heading, snippet=snippet(body, query), text=body,
                  score=round(score, 4), lines={"start": start, "end": end}, commit=origin.commit,
                  date=origin.date, author=origin.author, subject=origin.subject, page=page)
        fact = self.fact(hit, blob, query, span) if self.detail else None
        if self.detail and fact is None:
            return None  # a heading alone is never a result
        if run.live:
            if fact is not None:  # a fact and the chunk holding it are one result
                key: tuple[str, int | None, str, str] = (path, None, "current",
                                                         f"{fact.lines['start']}-{fact.lines['end']}")
                if key in seen:
                    return None
                seen.add(key)
            self.cite(fact, path, "HEAD" if version is not None else None)
            return hit
        claim = [line for line in (fact.text if fact else body).split("\n") if line.strip()]
        fate = self.fate(path, run.end_commit, claim)
        revision = versions.revision(conn, version)
        if fate.how == "current":
            if self.covered(fate.path, claim):
                return None  # a current chunk among the candidates says the same
            hit.revision = revision  # still true, in the words of an older version
            self.cite(fact, path, revision)
            return hit
        key = (fate.path, fate.commit, fate.how, "\n".join(claim) if fact else "")
        if key in seen:
            return None
        seen.add(key)
        if fact is not None:
            self.cite(fact, path, revision)
            hit.commit, hit.date, hit.author, hit.subject = fact.commit, fact.date, fact.author, fact.subject
        else:
            first = run.versions[0]
            since = self.since(first, fate.lost or tuple(claim)) if first is not None else None
            if since is not None:
                hit.commit, hit.date, hit.author, hit.subject = since.commit, since.date, since.author, since.subject
        hit.current = False
        hit.since = hit.commit
        hit.revision = revision
        hit.changed_by = self.change(fate)
        self.changed_at[id(hit)] = fate.commit
        hit.until = hit.changed_by["date"]
        hit.successor = self.successor(fate, claim)
        if fate.how == "edited" and hit.successor is None:  # the edit took the line away, put none in its place
            hit.changed_by["how"] = "removed"
        return hit

    def successor(self, fate: Fate, claim: list[str]) -> dict[str, Any] | None:
        """The fact that took the place of an edited one (`replaced`), with the fact that stands in
        its place now when later edits replaced that one in turn (`now`; `current`: the successor
        itself still stands)."""
        found = self.replaced(fate, claim)
        if found is None:
            return None
        latest = self.latest(found)
        del found["since"]  # the index's own id of a commit: `commit` names it
        if latest is not None and latest["text"] == found["text"] and latest["path"] == found["path"]:
            found["current"] = True
        elif latest is not None:
            found["now"] = latest
        return found

    def replaced(self, fate: Fate, claim: list[str]) -> dict[str, Any] | None:
        """The fact that took the place of an edited one: among the facts of the page the change
        made, those holding a line it added, the one sharing most words with the old fact (its
        lines as the page stood right after the change, and its text). None for a deletion."""
        if fate.how != "edited" or fate.commit is None:
            return None
        new = versions.started(self.conn, fate.path, fate.commit)
        old = versions.ended(self.conn, fate.path, fate.commit)
        if new is None:
            return None
        page = self.page(new[0])
        before = set(self.page(old).split("\n")) if old is not None else set()
        lines = page.split("\n")
        added = [f for f in facts.within(page, 1, len(lines)) if f.statement
                 and any(line not in before for line in f.text.split("\n"))]
        wanted = set(facts.words("\n".join(claim)))
        top = max(added, key=lambda f: len(wanted & set(facts.words(f.text)))) if added else \
            self.named_successor(fate, claim, page)
        if top is None:
            return None
        return {"text": top.text, "path": fate.path, "lines": top.lines, "commit": self.change(fate)["commit"],
                "since": fate.commit}

    def named_successor(self, fate: Fate, claim: list[str], page: str) -> facts.Fact | None:
        """The fact a change that added no line put in the old one's place, as its commit's
        `Gitmem-Supersedes: PATH:LINE HASH TEXT` trailer says: `remember --replaces` moving the copy a
        remember just stored into the old line's place (its history said "removed", the fact standing
        now ranked below the old one)."""
        oid = self.change(fate)["commit"]
        value = self.index.nb.git.trailers([oid]).get(oid, {}).get("Gitmem-Supersedes", "") if oid else ""
        named = SUPERSEDES.match(value)
        # the trailer names this page and quotes the old fact (its start: a long one is cut)
        if named is None or named["path"] != self.index.nb.repo_path(fate.path) or not claim \
                or claim[0].strip()[:30] not in value:
            return None
        fact = facts.at_line(page, int(named["line"]))
        return fact if fact is not None and fact.statement else None

    def latest(self, successor: dict[str, Any]) -> dict[str, Any] | None:
        """The end of a chain of replacements that starts at `successor`: the fact standing in its
        place now ({text, path, lines, headings, context, rev} as the page is now), or None when
        the chain ends in a deletion or runs past HOPS edits. Every step is kept: the versions of
        one fact share their chain, so it is walked once a search however many are results (a
        review, 2026-11-26: 80 edits took 0.71 s walked from each)."""
        path, since, text = successor["path"], successor["since"], successor["text"]
        walked: list[tuple[str, int, str]] = []
        found: dict[str, Any] | None = None
        for _ in range(HOPS):
            key = (path, since, text)
            if key in self._latest:
                found = self._latest[key]
                break
            walked.append(key)
            claim = [line for line in text.split("\n") if line.strip()]
            fate = self.fate(path, since, claim)
            if fate.how == "current":
                found = self.standing(fate.path, claim)
                break
            following = self.replaced(fate, claim)
            if following is None:
                break
            path, since, text = following["path"], following["since"], following["text"]
        for key in walked:
            self._latest[key] = found
        return found

    def standing(self, path: str, claim: list[str]) -> dict[str, Any] | None:
        """Where the page as it is now holds the fact whose lines are `claim` (read as `page` reads
        it: nothing of a private page), and the revision it was read at (None: the work tree)."""
        text, rev = self.now_text(path)
        if not text or not claim:
            return None
        lines = text.split("\n")
        first = claim[0].rstrip("\r")  # as `holds` reads it: a page turned CRLF still holds its lines
        at = next((i for i, line in enumerate(lines, 1) if line.rstrip("\r") == first), None)
        fact = facts.at_line(text, at) if at is not None else None
        return None if fact is None else {"text": fact.text, "path": path, "lines": fact.lines,
                                          "headings": fact.headings, "context": fact.context,
                                          "rev": rev}

    def now_text(self, path: str) -> tuple[str | None, str | None]:
        """The page as it is now (the work tree's, else HEAD's; None: no such page) and the revision
        it was read at (None: the work tree), as `page` reads it."""
        wt = versions.worktree_blob(self.conn, path)
        if wt:
            return self.work_text(path, wt[0]), None
        head = versions.head_blob(self.conn, path)
        return (self.page(head) if head is not None else None), "HEAD"

    def now(self, old: Hit, target: dict[str, Any]) -> Hit:
        """The fact standing now in the place of the superseded `old`, as a current result."""
        fact = facts.Fact(target["text"], target["lines"], list(target.get("headings", [])),
                          context=target.get("context", ""))
        self.cite(fact, target["path"], target.get("rev", "HEAD"))
        heading = old.heading if target["path"] == old.path else " > ".join(fact.headings)
        return replace(old, path=target["path"], heading=heading, snippet=fact.text,
                       text=fact.text, lines=dict(fact.lines), commit=fact.commit, date=fact.date,
                       author=fact.author, subject=fact.subject, current=True, since=None, until=None,
                       changed_by=None, revision=None, fact=fact, successor=None, confidence=None,
                       page=None, weak=False)

    def fact(self, hit: Hit, blob: int, query: str, span: tuple[int, int] | None = None) -> facts.Fact | None:
        """The hit's best fact, within its chunk's lines (a fact row's: within its own)."""
        text = self.reader.text(blob, hit.path, hit.page)
        lo, hi = span or (hit.lines["start"], hit.lines["end"])
        found = facts.within(text, lo, hi) if text is not None else []
        # from the index's embedding cache: `git mem index` embedded every past fact (index/weighed.py)
        cosine = facts.cosines([found], query, self.embedder, self.index)[0] if self.embedder is not None else None
        hit.fact = facts.best(found, query, cosine)
        return hit.fact

    def cite(self, fact: facts.Fact | None, path: str, rev: str | None) -> None:
        if fact is not None:
            facts.cite(self.index, [(fact, path, rev)])

    def covered(self, path: str, claim: list[str]) -> bool:
        """Whether the current candidates of `path` hold every line of `claim`."""
        bodies = cand.current_bodies(self.conn, path)
        return all(any(line in body for body in bodies) for line in claim)

    def change(self, fate: Fate) -> dict[str, Any]:
        if fate.commit is None:
            mtime = versions.worktree_mtime(self.conn, fate.path)
            return {"commit": None, "date": iso(mtime) if mtime else None, "author": None,
                    "subject": "uncommitted", "how": fate.how, "path": fate.path, "lines": list(fate.lost)}
        oid, ts, author, subject = commits.of(self.conn, fate.commit)
        return {"commit": oid, "date": iso(ts), "author": author, "subject": subject, "how": fate.how,
                "path": fate.path, "lines": list(fate.lost)}
