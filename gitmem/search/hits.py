"""What a search returns: hits, the results around them, and the snippet shown for each."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import credentials

if TYPE_CHECKING:
    from .facts import Fact
    from .scale import Evidence

SNIPPET = 200
WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have he her his how i if in
into is it its me my no not of on or our she so than that the their them then there these they this to us
was we were what when where which who whom why will with you your am now currently still anymore nowadays""".split())


@dataclass
class Hit:
    group: str
    path: str
    heading: str
    snippet: str
    text: str
    score: float
    lines: dict[str, int]
    commit: str | None
    date: str | None
    author: str | None
    current: bool = True
    subject: str | None = None
    since: str | None = None  # superseded: the commit that put it there (its fact's lines, by git blame)
    until: str | None = None  # superseded: when it stopped being true
    changed_by: dict[str, Any] | None = None  # superseded: the commit that changed it
    revision: str | None = None  # a commit whose `git show REV:path` has the text at `lines`
    fact: Fact | None = None  # the list item, line or paragraph of the chunk that best answers
    confidence: float | None = None  # effective confidence of the learned facts in it (index/confidence.py)
    page: int | None = None  # a PDF's page; `lines` count within that page's extracted text
    scope: str = "project"  # the project's notebook, or the person's own (search/scopes.py)
    weak: bool = False  # shown though it may not answer (scale.weak, or a score under min_score)
    # superseded by an edit (history.py), or by a later line of its page (current.py): the fact that took its place
    successor: dict[str, Any] | None = None

    def record(self, full: bool = False, scoped: bool = False) -> dict[str, Any]:
        """The result as an agent reads it: the fact's text, PATH:LINES, score, weak, its date and
        short commit (provenance once), and for a superseded fact when and what replaced it; with
        `full`, every field (the chunk, the fact's author, subject and trailers, ...). `scoped`: a
        personal notebook was read too, so the result names its scope even when it is "project"."""
        from dataclasses import asdict

        if full:
            return asdict(self)
        cited: Any = self.fact or self
        span = cited.lines
        lines = str(span["start"]) if span["start"] == span["end"] else f"{span['start']}-{span['end']}"
        out: dict[str, Any] = {"text": self.fact.text if self.fact else self.snippet,
                               "where": f"{self.path}{f'#p{self.page}' if self.page else ''}:{lines}",
                               "group": self.group, "score": self.score, "weak": self.weak,
                               "date": cited.date[:10] if cited.date else None,
                               "commit": cited.commit[:7] if cited.commit else None}
        if self.fact is not None and self.fact.headings:
            out["headings"] = self.fact.headings
        if self.fact is not None and self.fact.context:  # whose phone: the item it is nested under
            out["context"] = self.fact.context
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if scoped or self.scope != "project":  # no label for people without a personal notebook
            out["scope"] = self.scope
        if not self.current and self.changed_by is not None:
            change = self.changed_by
            out["superseded"] = {"until": (self.until or "")[:10] or None, "how": change["how"],
                                 "commit": change["commit"][:7] if change["commit"] else None}
            if self.successor is not None:
                later = self.successor
                out["successor"] = {"text": later["text"], "where": f"{later['path']}:{_span(later['lines'])}",
                                    "current": bool(later.get("current"))}
                if later.get("now"):  # replaced in turn since: what stands in its place now
                    now = later["now"]
                    out["now"] = {"text": now["text"], "where": f"{now['path']}:{_span(now['lines'])}"}
        else:
            if self.successor is not None:  # a later line of its page updates it (current.py)
                later = self.successor
                out["superseded"] = {"until": (later.get("date") or "")[:10] or None,
                                     "how": "later line, in part" if later.get("part") else "later line",
                                     "commit": later["commit"][:7] if later.get("commit") else None}
                out["successor"] = {"text": later["text"], "where": f"{later['path']}:{_span(later['lines'])}"}
            if self.revision is not None:
                out["revision"] = self.revision[:7]
        return out

    @property
    def replaced(self) -> bool:
        """Whether a later line of its page replaces the whole of it (search/current.py): an agent's
        context leaves it out, the line that replaced it being there (a person sees both, linked)."""
        return self.current and self.successor is not None and not self.successor.get("part")

    @property
    def updated_by(self) -> str | None:
        """"updated by line N" ("partly updated ..." for one clause) when a later line of its page
        updates it (search/current.py): how an agent's context marks it."""
        later = self.successor if self.current else None
        if later is None:
            return None
        return f"{'partly ' if later.get('part') else ''}updated by line {later['lines']['start']}"

    @property
    def where(self) -> str:
        """PATH:LINES, or PATH#pPAGE:LINES for a PDF: what `git mem get` takes."""
        span = str(self.lines["start"]) if self.lines["start"] == self.lines["end"] else \
            f"{self.lines['start']}-{self.lines['end']}"
        return f"{self.path}#p{self.page}:{span}" if self.page else f"{self.path}:{span}"


@dataclass
class Results:
    query: str
    mode: str
    semantic: bool
    results: list[Hit]
    timing: dict[str, float]
    notes: list[str] = field(default_factory=list)
    view: dict[str, Any] | None = None
    evidence: Evidence | None = None  # how well the best match answers the query (scale.py)
    full: bool = False  # the JSON record carries every field of each result (record)
    scoped: bool = False  # a personal notebook was read too: every compact result names its scope
    asked_as: str | None = None  # the question as ranked, its roles replaced by the notebook's names (aliases.py)
    about: tuple[str, ...] = ()  # the people the question names, as the notebook calls them (the prompt hook)

    def record(self) -> dict[str, Any]:
        """The results as JSON: compact results unless `full` (see Hit.record)."""
        from dataclasses import asdict

        if self.full:
            out = asdict(self)
            del out["full"], out["scoped"]  # every full result carries its scope anyway
            del out["about"]  # the prompt hook's: `asked_as` says whom a role was read as
            return out
        evidence = asdict(self.evidence) if self.evidence is not None else None
        if evidence is not None:
            # no result answers for sure: every one shown is weak, or none is shown (no good match)
            evidence["weak"] = all(h.weak for h in self.results)
        out = {"query": self.query, "mode": self.mode, "semantic": self.semantic,
               "results": [h.record(scoped=self.scoped) for h in self.results], "notes": self.notes, "view": self.view,
               "evidence": evidence, "timing": self.timing}
        if self.asked_as is not None:  # only then: "my daughter" was read as the name the notebook gives her
            out["asked_as"] = self.asked_as
        return out


def _span(lines: dict[str, int]) -> str:
    return str(lines["start"]) if lines["start"] == lines["end"] else f"{lines['start']}-{lines['end']}"


def snippet(body: str, query: str, width: int = SNIPPET) -> str:
    """About `width` characters of the chunk, around the first query word it contains."""
    flat = " ".join(body.split())
    if len(flat) <= width:
        return flat
    words = [w for w in WORD.findall(query.lower()) if w not in STOPWORDS]
    lower = flat.lower()
    hits = [i for i in (lower.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - width // 4) if hits else 0
    start = min(start, len(flat) - width)
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    piece = flat[start:start + width].rstrip()
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")


def redact(hits: list[Hit], query: str, full: bool = False) -> tuple[int, list[str]]:
    """Every secret value in what the hits say replaced by [redacted] (credentials.py), in place:
    text that reached the notebook without the write guard (a pull, an editor) never reaches an
    agent through an answer. The fact, the items it is nested under, headings, commit subjects,
    what replaced it and, where a result shows them (`full`, or no fact), the chunk and its snippet
    (cut again from the redacted chunk: a cut or joined line hides a secret from the patterns; a
    chunk costs 70 us, a fact's line 3). How many a result shows (its fact, else its snippet),
    and where."""
    count, where = 0, []
    for hit in hits:
        shown: list[int] = []
        if full or hit.fact is None:
            hit.text, in_chunk = credentials.redact(hit.text)
            hit.snippet, in_snippet = (snippet(hit.text, query), in_chunk) if in_chunk else \
                credentials.redact(hit.snippet)
            shown += [in_snippet] if hit.fact is None else []
        hit.heading, hit.subject = credentials.redact(hit.heading)[0], _clean(hit.subject)
        if hit.fact is not None:
            fact = hit.fact
            fact.text, k = credentials.redact(fact.text)
            fact.context, c = credentials.redact(fact.context)
            shown.append(k + c)
            fact.headings = [_clean(h) or "" for h in fact.headings]
            fact.subject = _clean(fact.subject)
            fact.wrote, _ = credentials.redact_all(fact.wrote)  # a trailer may quote the line it replaced
        if hit.changed_by is not None:
            hit.changed_by, _ = credentials.redact_all(hit.changed_by)
        if hit.successor is not None:  # what replaced it, and what stands now: text, items it is under
            before = hit.successor["text"]
            hit.successor, _ = credentials.redact_all(hit.successor)
            shown.append(int(hit.successor["text"] != before))
        place = f"{hit.path}:{_span(hit.fact.lines)}" if hit.fact is not None else hit.where
        if hit.revision and not hit.current:  # a past version: the page holds something else there now
            place = f"--at {hit.revision[:7]} {place}"
        if any(shown):
            count += max(shown)
            if place not in where:
                where.append(place)
    return count, where


UNSAID = ("the query's secret-looking value was left out of the search: what a secret finds would confirm "
          "a guess of it (results are shown redacted); look for it with git grep in your own clone")


def unsaid(query: str) -> tuple[str, str, str | None]:
    """The query without the secret values it holds (credentials.py), as an answer repeats it (each
    value [redacted]), and a note when it held any: results are redacted, but a search for an
    exact key, ranking its line first, told that the notebook holds it (a newcomer's run, 2026-11-26)."""
    if not credentials.maybe(query):
        return query, query, None
    said, count = credentials.redact(query)
    if not count:
        return query, query, None
    return " ".join(said.replace(credentials.REDACTED, " ").split()), said, UNSAID


def _clean(text: str | None) -> str | None:
    return credentials.redact(text)[0] if text else text
