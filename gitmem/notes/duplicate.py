"""The duplicate check of remember: a line that already says the fact, on its page or, through a
keyword search, anywhere in the notebook."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..markdown import exact_names, long_forms, normalize_fact
from ..notebook import Notebook

if TYPE_CHECKING:
    from ..search.hits import Results

DUPLICATE_RATIO = 0.92


def nearby(nb: Notebook, text: str) -> Results | None:
    """The notebook's keyword matches for a fact (at most 5), read as recall reads a question (its
    roles as names: `asked_as`); None when the index cannot say. Advisory: a write never waits on it."""
    from ..search import engine as search

    try:
        return search.run(nb, search.Query(text, mode="keyword", groups=("notebook",), limit=5, min_score=0.0))
    except Exception:  # the checks it serves are advisory; never block a write on the index
        return None


def find_duplicate(nb: Notebook, text: str, rel: str, current: str,
                   near: Callable[[], Results | None] | None = None) -> dict[str, Any] | None:
    """A line that says the same thing, on the target page or anywhere in the notebook (`near`:
    the keyword matches, asked only when the page has none; default: `nearby`)."""
    want = normalize_fact(text)
    if not want:
        return None
    for number, line in enumerate(current.split("\n"), start=1):
        if same(want, line, text):
            return {"path": rel, "lines": {"start": number, "end": number}, "text": line.strip()}
    found = near() if near is not None else nearby(nb, text)
    if found is None:
        return None
    for hit in found.results:
        for offset, line in enumerate(hit.text.split("\n")):
            if same(want, line, text):
                number = hit.lines["start"] + offset
                return {"path": hit.path, "lines": {"start": number, "end": number}, "text": line.strip()}
    return None


NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "nothing", "nobody", "cannot", "without"})
def same(want: str, line: str, said: str | None = None) -> bool:
    """Whether a line says the same as the fact. Near-identical wording counts, a short form
    being its word ("prod db" is "production database"), unless the words that differ carry
    meaning a ratio cannot see: a number (555-1234 vs 555-1235, a date), a negation ("is" vs
    "is not"), or, with the fact as `said`, an address, a host or a file named otherwise
    ("rosa.new@example.pt" was taken for "rosa@example.pt" and never stored: a newcomer, 2026-11-27)."""
    have = normalize_fact(line)
    if not have:
        return False
    if said is not None and exact_names(said) != exact_names(line):
        return False
    want, have = long_forms(want), long_forms(have)
    if have == want:
        return True
    differ = set(want.split()) ^ set(have.split())
    if any(any(ch.isdigit() for ch in word) or word in NEGATIONS or word.endswith("n't") for word in differ):
        return False
    return difflib.SequenceMatcher(None, want, have).ratio() >= DUPLICATE_RATIO
