"""The session tracker: what one agent session wrote, read back from commit trailers.

Every gitmem commit made with GITMEM_SESSION in the environment, or by an MCP
server (which names its own session), carries `Gitmem-Session: ID`. Nothing
else is stored: the commits are the record, so the answer survives restarts,
clones and a person's own commits in between. Each commit is one change,
classed by its verb and what it did to files: created (remember, daily, a new
page, goal add, watch), updated (a fact that replaced another, a rewritten
page, a renamed file, goal update, plan update) or removed (forget, unwatch, session rm, a
deleted page). `summary` is the line an MCP write tool appends to its result
("this session: 2 remembered, 1 updated, 1 forgotten"), as QuillAI's
enrichToolResponse does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import dates
from ..errors import EmptyText
from ..gitops import trailerlog
from ..notebook import Notebook
from ..notes import trailers

REMOVING = frozenset({"forget", "unwatch", "session rm"})
UPDATING = frozenset({"replace", "goal update", "plan"})
WORDS = {"created": "remembered", "updated": "updated", "removed": "forgotten"}


@dataclass
class Change:
    action: str  # created | updated | removed
    commit: str
    date: str
    verb: str
    subject: str
    paths: list[str]


@dataclass
class Changes:
    session: str
    created: list[Change] = field(default_factory=list)
    updated: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    summary: str = ""


def action_of(verb: str, subject: str, files: tuple[tuple[str, str], ...]) -> str:
    """created, updated or removed: what one commit did, by its verb, else by its files."""
    kinds = {kind for _, kind in files}
    if verb in REMOVING or kinds == {"deleted"}:
        return "removed"
    if verb in UPDATING or (verb == "remember" and "(replaces:" in subject) or kinds == {"added", "deleted"}:
        return "updated"  # ... or a rename: one file's text under another name
    if verb in ("remember", "daily", "goal add", "watch") or "added" in kinds:
        return "created"
    return "updated"


def changes(nb: Notebook, session: str) -> Changes:
    """What the session's commits created, updated and removed, oldest first.

    >>> changes(nb, "chat-42").summary    # doctest: +SKIP
    'this session: 2 remembered, 1 updated, 1 forgotten'
    """
    session = trailers.clean(session)
    if not session:
        raise EmptyText("empty session id", "give the id the session wrote with (GITMEM_SESSION), "
                                            "e.g. git mem session changes chat-42")
    out = Changes(session)
    for mark in trailerlog.with_trailer(nb.git, trailers.PREFIX + "Session", session):
        verb = mark.trailers.get(trailers.PREFIX + "Verb", "")
        action = action_of(verb, mark.subject, mark.files)
        paths = [rel for path, _ in mark.files if (rel := nb.rel(path)) is not None]
        getattr(out, action).append(Change(action, mark.oid, dates.iso(mark.time), verb, mark.subject, paths))
    out.summary = summary(out)
    return out


def summary(found: Changes) -> str:
    """'this session: 2 remembered, 1 updated, 1 forgotten' (only the counts that are not 0)."""
    counts = [(len(getattr(found, action)), word) for action, word in WORDS.items()]
    said = ", ".join(f"{n} {word}" for n, word in counts if n)
    return f"this session: {said or 'nothing written yet'}"
