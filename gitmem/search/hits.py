"""What a search returns: hits, the results around them, and the snippet shown for each."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .facts import Fact
    from .scale import Evidence

SNIPPET = 200
WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset("""a an and are as at be but by did do does for from had has have he her his how i if in
into is it its me my no not of on or our she so than that the their them then there these they this to us
was we were what when where which who whom why will with you your""".split())


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
    fact: "Fact | None" = None  # the list item, line or paragraph of the chunk that best answers
    confidence: float | None = None  # effective confidence of the learned facts in it (index/confidence.py)
    page: int | None = None  # a PDF's page; `lines` count within that page's extracted text
    scope: str = "project"  # the project's notebook, or the person's own (search/scopes.py)

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
    evidence: "Evidence | None" = None  # how well the best match answers the query (scale.py)


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
