"""The notes an answer carries about what it found, and what it did not.

"no results" alone said nothing a person could act on: each note says why the answer is what it
is, or where else to look. No good match (the confidence under the floor); whose closest facts
weak results at 0.00 are; a person or a relative the notebook never mentions; saved sessions
that would answer what recall (which leaves them out) answered weakly or not at all; a --since
after now; a tag no page has.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from .. import dates
from ..index import cand
from . import scale

if TYPE_CHECKING:
    import apsw

    from .hits import Hit


class Found(Protocol):
    """What a ranking found (engine.Ranking), as these notes read it."""

    hits: list[Hit]
    evidence: scale.Evidence
    empty: bool
    closest_of: str | None
    stranger: str | None


def remarks(conn: apsw.Connection, view_sql: str, text: str, since: str | None, tags: Sequence[str],
            found: Found, sessions: Callable[[bool], list[str]] | None) -> list[str]:
    """The notes on an answer to `text`; `sessions(strong)`: the note on saved sessions that would
    answer (None: not looked for, as the prompt hook does not beside weak matches)."""
    notes = []
    if found.empty:
        notes.append(scale.no_match_note(text, found.evidence))
    elif found.closest_of and found.hits:  # their scores are 0.00: say why they are shown at all
        notes.append(f"nothing answers {text!r} well: these are the closest of what the notebook "
                     f"says about {found.closest_of}")
    elif found.stranger and found.hits:
        notes.append(f"the notebook never mentions {found.stranger}: these matches are about others")
    weak = bool(found.hits) and all(h.weak for h in found.hits)
    if sessions is not None and (not found.hits or weak):
        # weak matches only: a saved session may still answer ("where are we staying in Texas", a newcomer)
        notes.extend(sessions(bool(found.hits)))
    if found.hits:
        return notes
    if since and dates.parse(since) > dates.now():
        notes.append(f"--since {since} is after now: only a page dated later (a daily log named for a later "
                     "day) could match")
    notes.extend(f"no page is tagged #{t.strip().lstrip('#')}; 'git mem tags' lists the tags there are"
                 for t in tags if not cand.carried(conn, view_sql, t))
    return notes


def in_sessions(text: str, strong: bool, hits: list[Hit]) -> list[str]:
    """The note on saved sessions that would answer `text` (their `hits`; with `strong`, only their
    strong ones count, beside recall's weak matches)."""
    n = len([h for h in hits if not (strong and h.weak)])
    if not n:
        return []
    return [f"{n} match{'es' if n != 1 else ''} in sessions: git mem search --in sessions {shlex.quote(text)}"]
