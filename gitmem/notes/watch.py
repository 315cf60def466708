"""Watched entities: names the agent keeps an eye on, and the facts that disagree about them.

The list is one page (reference/watched.md; flat layout: WATCHED.md), a
bullet per entity that a person can edit by hand:

    # Watched

    - **Sarah** — priority: high — her details change often

`watch` adds or rewrites an entity's line, `unwatch` takes it off (one commit
each). `conflicts` is what `remember` asks before it writes: for each watched
entity the new fact names, the lines of the notebook about that entity that
say something else about the same thing ("Sarah's eyes are green" against
"Sarah's eyes are blue"): same attribute, another value. It is reported
whether or not the new fact then replaces the old line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import config, credentials, supersede
from ..errors import EmptyText, GitmemError, UsageError
from ..markdown import normalize_fact
from ..notebook import Notebook
from ..verbs import PRIORITIES  # the watch request's choices (verbs.Watch)
from . import change, guard, pages, trailers

ENTRY = re.compile(r"^\s*[-*+]\s+\*\*(?P<name>[^*\n]+)\*\*(?:\s+—\s+priority:\s*(?P<priority>\w+))?"
                   r"(?:\s+—\s+(?P<reason>.*?))?\s*$")
FILLER = frozenset("a an the is are was were has have had now".split())


class NotWatched(GitmemError):
    pass


@dataclass
class Watched:
    name: str
    priority: str
    reason: str
    line: int


@dataclass
class WatchList:
    path: str
    watched: list[Watched] = field(default_factory=list)


@dataclass
class WatchWritten:
    action: str  # "watched", "updated", "unwatched" or "unchanged"
    name: str
    path: str
    commit: str | None
    priority: str | None = None
    reason: str | None = None


@dataclass
class Conflict:
    entity: str
    priority: str
    path: str
    lines: dict[str, int]
    text: str  # the older fact, as the notebook holds it
    new: str  # the fact being written


def page_of(nb: Notebook) -> str:
    return nb.page(config.WATCH_PAGES[0] if nb.settings.layout == "folders" else config.WATCH_PAGES[1])


def entry(name: str, priority: str, reason: str) -> str:
    return f"- **{name}** — priority: {priority}" + (f" — {reason}" if reason else "")


def listing(nb: Notebook) -> WatchList:
    """The watched entities, as the page lists them.

    >>> [w.name for w in listing(nb).watched]   # doctest: +SKIP
    ['Sarah']
    """
    rel = page_of(nb)
    found = WatchList(rel)
    for number, line in enumerate(nb.read(rel).split("\n"), start=1):
        match = ENTRY.match(line)
        if match:
            priority = (match["priority"] or "medium").lower()
            found.watched.append(Watched(match["name"].strip(), priority if priority in PRIORITIES else "medium",
                                         (match["reason"] or "").strip(), number))
    return found


def _name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise EmptyText("empty name", "give the name to watch, e.g. git mem watch Sarah")
    if "*" in name or len(name) > 80:
        raise UsageError(f"not a name to watch: {name!r}", "give a person's or thing's name, e.g. Sarah")
    return name


def watch(nb: Notebook, name: str, priority: str = "medium", reason: str = "", allow: bool = False) -> WatchWritten:
    """Watch an entity (or change its priority and reason): one commit.

    >>> watch(nb, "Sarah", "high", "her details change often").action   # doctest: +SKIP
    'watched'
    """
    name = _name(name)
    if priority not in PRIORITIES:
        raise UsageError(f"unknown priority {priority!r}", f"use one of {', '.join(PRIORITIES)}")
    reason = " ".join(reason.split())
    rel = page_of(nb)
    guard.check(f"{name}\n{reason}", allow, rel)
    line = entry(name, priority, reason)

    def edit(page: str) -> change.Edit:
        lines = page.split("\n")
        for i, old in enumerate(lines):
            match = ENTRY.match(old)
            if match and match["name"].strip().lower() == name.lower():
                lines[i] = line
                return change.Edit("\n".join(lines), i + 1, i + 1)
        return pages.append(page if page.strip() else "# Watched\n", line)

    with change.write_lock(nb):
        before = {w.name.lower() for w in listing(nb).watched}
        done = change.apply(nb, {rel: edit}, f"mem: watch {name}", trailers=trailers.for_verb("watch"))
    action = "unchanged" if done is None else "updated" if name.lower() in before else "watched"
    return WatchWritten(action, name, rel, done.commit if done else None, priority, reason)


def unwatch(nb: Notebook, name: str) -> WatchWritten:
    """Stop watching an entity: its line comes off the page, one commit."""
    name = _name(name)
    rel = page_of(nb)

    def edit(page: str) -> change.Edit | None:
        lines = page.split("\n")
        for i, old in enumerate(lines):
            match = ENTRY.match(old)
            if match and match["name"].strip().lower() == name.lower():
                return change.Edit("\n".join(lines[:i] + lines[i + 1:]), i + 1, i + 1)
        return None

    with change.write_lock(nb):
        if not any(w.name.lower() == name.lower() for w in listing(nb).watched):
            raise NotWatched(f"{name} is not watched", "see what is: git mem watch list")
        done = change.apply(nb, {rel: edit}, f"mem: unwatch {name}", trailers=trailers.for_verb("unwatch"))
    return WatchWritten("unwatched", name, rel, done.commit if done else None)


def conflicts(nb: Notebook, text: str) -> list[Conflict]:
    """Lines of the notebook about a watched entity that `text` names, saying another value for
    the same attribute. Advisory: a failing search reports nothing rather than block a write."""
    watched = [w for w in listing(nb).watched if mentions(text, w.name)]
    found: list[Conflict] = []
    for w in watched:
        for path, number, line in _lines_about(nb, w.name):
            if disagree(text, line, w.name) and not any(c.path == path and c.lines["start"] == number
                                                        for c in found):
                found.append(Conflict(w.name, w.priority, path, {"start": number, "end": number}, line.strip(),
                                      " ".join(text.split())))
    return found


def mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


def _lines_about(nb: Notebook, name: str) -> list[tuple[str, int, str]]:
    from ..search import engine as search

    try:
        found = search.run(nb, search.Query(name, mode="keyword", groups=("notebook", "daily"), limit=50,
                                            min_score=0.0, detail=False))
    except GitmemError:
        return []
    # the lines are read from the pages the search found, not from its hits: a hit's text can be the
    # chunk that holds its fact, whose lines are not the fact's (a newcomer's `watch` named one line
    # twice, once at a line number of another person's, 2026-11-27)
    out: list[tuple[str, int, str]] = []
    for path in dict.fromkeys(hit.path for hit in found.results):
        try:
            page = nb.read(path)
        except (GitmemError, OSError):
            continue
        # redacted as the search's hits were: a watched line goes back to whoever wrote (an agent, too)
        out.extend((path, number, credentials.redact(line)[0]) for number, line in enumerate(page.split("\n"), start=1)
                   if mentions(line, name))
    return out


def claim(line: str, name: str) -> tuple[str, frozenset[str]] | None:
    """(attribute, value words) a line says about the entity: "Sarah's eyes are blue" and "Sarah has
    blue eyes" both give ("eye", {"blue"}); else what supersede.py reads from it."""
    words = normalize_fact(line).replace("'", " ").split()
    who = normalize_fact(name).split()
    for i in range(len(words) - len(who) + 1):
        if words[i:i + len(who)] != who:
            continue
        rest = words[i + len(who):]
        if rest[:1] == ["s"] and len(rest) > 2:  # Sarah's ATTR is VALUE
            verbs = [j for j, w in enumerate(rest) if w in ("is", "are", "was", "were")]
            if verbs and 1 < verbs[0] < len(rest) - 1:
                return _attr(rest[1:verbs[0]]), _value(rest[verbs[0] + 1:])
        if rest[:1] in (["has"], ["had"]) and len(rest) > 2:  # Sarah has VALUE ATTR
            return _attr(rest[-1:]), _value(rest[1:-1])
    found = supersede.claim(line)
    if found is not None and found.value and set(who) <= set(found.subject):
        return found.attribute, frozenset(found.value)
    return None


def _attr(words: list[str]) -> str:
    return " ".join(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w not in FILLER)


def _value(words: list[str]) -> frozenset[str]:
    return frozenset(w for w in words if w not in FILLER)


def disagree(new: str, old: str, name: str) -> bool:
    """Whether two facts about `name` give the same attribute different values."""
    if normalize_fact(new) == normalize_fact(old):
        return False
    a, b = claim(new, name), claim(old, name)
    if a is None or b is None or a[0] != b[0] or not a[1] or not b[1]:
        return supersede.updates(new, old)
    return not (a[1] <= b[1] or b[1] <= a[1])
