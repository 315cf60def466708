"""Goals: one page each under goals/ (goals/ID.md), fields in frontmatter a person can edit.

A goal page:

    ---
    type: "goal"
    id: "learn-spanish"
    title: "Learn Spanish"
    status: "active"
    progress: 40
    created: "2026-02-20"
    updated: "2026-02-21"
    facts: [{"path": "reference/preferences.md", "text": "- Prefers lessons in the morning"}]
    ---
    # Learn Spanish

    Reach B1 by the summer.

    ## Notes

    - 2026-02-21: progress 40% — finished unit 4

The id is the title made into a file name (learn-spanish, then -2, -3 ... if
taken). `facts` links the goal to the notebook lines it concerns (given as
PATH:LINE; the line's text is kept, since line numbers move). Each add and
update is one commit (Gitmem-Verb: goal add / goal update) through the one
write path (change.apply).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import supersede
from ..blocks import BULLET
from ..errors import GitmemError, PageNotFound, UsageError
from ..notebook import Notebook
from ..verbs import GOAL_STATUSES
from . import change, fields, guard, pages, trailers
from .memory import given_text

FOLDER = "goals"
STATUSES = GOAL_STATUSES  # defined with the goal verbs' parameters (verbs.py)
ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
FACT = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


@dataclass
class Goal:
    id: str
    path: str
    title: str
    status: str
    progress: int
    created: str
    updated: str
    description: str = ""
    facts: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Goals:
    goals: list[Goal]
    all: bool
    skipped: list[str] = field(default_factory=list)  # pages under goals/ that are not goals gitmem can read


@dataclass
class GoalWritten:
    action: str  # "added", "updated" or "unchanged"
    id: str
    path: str
    commit: str | None
    goal: Goal


def slug(title: str) -> str:
    """A file name for a title: lower-case words joined by '-' (a hash for a title with none)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    made = "-".join(words)[:50].strip("-")
    return made or "goal-" + hashlib.sha1(title.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def path_of(goal_id: str) -> str:
    if not ID.match(goal_id):
        raise UsageError(f"not a goal id: {goal_id!r}", "goal ids are what 'git mem goal list' shows, "
                                                         "e.g. learn-spanish")
    return f"{FOLDER}/{goal_id}.md"


def add(nb: Notebook, title: str, description: str = "", facts: tuple[str, ...] = (), allow: bool = False,
        today: str | None = None) -> GoalWritten:
    """A new active goal at progress 0, as one commit; its id is returned.

    >>> add(nb, "Learn Spanish", "Reach B1 by the summer").id   # doctest: +SKIP
    'learn-spanish'
    """
    title = " ".join(given_text(title, "title").split())
    day = today or _today()
    with change.write_lock(nb):
        base = slug(title)
        goal_id = next(f"{base}-{n}" if n > 1 else base for n in range(1, 1000)
                       if not os.path.lexists(nb.file(path_of(f"{base}-{n}" if n > 1 else base))))
        rel = nb.page(path_of(goal_id))
        guard.check(f"{title}\n{description}", allow, rel)
        meta = {"type": "goal", "id": goal_id, "title": title, "status": "active", "progress": 0,
                "created": day, "updated": day, "facts": [_fact(nb, f) for f in facts] or None}
        text = fields.render(meta, f"# {title}\n\n" + (description.strip() + "\n" if description.strip() else ""))

        def create(page: str) -> change.Edit:
            if page.strip():  # someone made the file meanwhile: never overwrite it
                raise GitmemError(f"{rel} appeared while gitmem wrote it; nothing was written", "run it again")
            return change.Edit(text, 1, text.count("\n"))

        done = change.apply(nb, {rel: create}, f"mem: goal add {title}", trailers=trailers.for_verb("goal add"))
    return GoalWritten("added", goal_id, rel, done.commit if done else None, read(nb, rel))


def update(nb: Notebook, goal_id: str, progress: int | None = None, status: str | None = None,
           note: str | None = None, facts: tuple[str, ...] = (), allow: bool = False,
           today: str | None = None) -> GoalWritten:
    """Change a goal's progress (0-100) or status, add a dated note or linked facts: one commit.

    >>> update(nb, "learn-spanish", progress=40, note="finished unit 4").goal.progress   # doctest: +SKIP
    40
    """
    rel = nb.page(path_of(goal_id))
    if progress is not None and not 0 <= progress <= 100:
        raise UsageError(f"progress {progress} is not between 0 and 100", "e.g. --progress 40")
    if status is not None and status not in STATUSES:
        raise UsageError(f"unknown status {status!r}", f"use one of {', '.join(STATUSES)}")
    if progress is None and status is None and not note and not facts:
        raise UsageError("nothing to update", "pass --progress, --status, --note or --fact")
    if note:
        guard.check(note, allow, rel)
    day = today or _today()
    linked = [_fact(nb, f) for f in facts]

    def edit(page: str) -> change.Edit:
        if not page.strip():
            raise PageNotFound(f"no goal {goal_id} ({rel} is missing)", "see the goals: git mem goal list --all")
        meta, body = fields.read(page, rel)
        if status is not None:
            meta["status"] = status
        if progress is not None or status == "completed":
            meta["progress"] = progress if progress is not None else 100
        if linked:
            meta["facts"] = list(meta.get("facts") or []) + [f for f in linked if f not in (meta.get("facts") or [])]
        meta["updated"] = day
        said = [f"progress {meta.get('progress')}%"] if progress is not None else []
        said += [f"status {status}"] if status else []
        line = f"- {day}: " + ", ".join(said) + (" — " if said and note else "") + " ".join((note or "").split())
        if said or note:
            body = pages.append(body, line, "Notes").text
        text = fields.render(meta, body)
        return change.Edit(text, 1, text.count("\n"))

    with change.write_lock(nb):
        if not change.current(nb, rel).strip():
            raise PageNotFound(f"no goal {goal_id} ({rel} is missing)", "see the goals: git mem goal list --all")
        done = change.apply(nb, {rel: edit}, f"mem: goal update {goal_id}", trailers=trailers.for_verb("goal update"))
    return GoalWritten("updated" if done else "unchanged", goal_id, rel, done.commit if done else None, read(nb, rel))


def read(nb: Notebook, rel: str) -> Goal:
    """The goal a page holds (fields a person left out get their defaults)."""
    meta, body = fields.read(nb.read(rel), rel)
    goal_id = rel.rsplit("/", 1)[-1].removesuffix(".md")
    title = str(meta.get("title") or pages.title_from_name(rel))
    notes = pages.find_section(body, "Notes")
    description = body[:notes.start] if notes else body
    description = re.sub(r"^# .*\n?", "", description.strip("\n"), count=1).strip()
    note_lines = [ln[2:].strip() for ln in body[notes.body:notes.end].split("\n") if ln.startswith("- ")] \
        if notes else []
    return Goal(goal_id, rel, title, str(meta.get("status") or "active"), _int(meta.get("progress")),
                str(meta.get("created") or ""), str(meta.get("updated") or ""), description,
                [_now(nb, f) for f in (meta.get("facts") or []) if isinstance(f, dict)], note_lines)


def _now(nb: Notebook, fact: dict[str, Any]) -> dict[str, Any]:
    """A linked fact as its page says it now: the line that replaced or updates the one linked (its
    text was kept, and a goal handed the agent "Sarah's phone is 555-1234" after remember replaced
    it: an agent developer's run), with the linked text as `was`; else as linked."""
    path, text = fact.get("path"), fact.get("text")
    if not isinstance(path, str) or not isinstance(text, str):
        return fact
    try:
        lines = [line.strip() for line in nb.read(nb.page(path, must_exist=True)).split("\n")]
    except GitmemError:
        return fact
    said = supersede.claim(BULLET.sub("", text, count=1))
    if text in lines or said is None or not said.subject:
        return fact
    # only lines that name its subject are judged (all of a long page took seconds, on every context)
    named = [line for line in lines if set(said.subject) <= set(re.findall(r"\w+", line.lower()))]
    later = [line for line in named if supersede.outdates(line, text) is not None]
    return {**fact, "text": later[0], "was": text} if len(later) == 1 else fact


def listing(nb: Notebook, every: bool = False) -> Goals:
    """The active goals (every goal with `every`), oldest first.

    >>> [g.id for g in listing(nb).goals]   # doctest: +SKIP
    ['learn-spanish']
    """
    found, skipped = [], []
    folder = nb.root / FOLDER
    names = sorted(os.listdir(folder)) if folder.is_dir() and not folder.is_symlink() else []
    for name in names:
        rel = f"{FOLDER}/{name}"
        if not name.endswith(".md") or not ID.match(name[:-3]) or nb.file(rel).is_symlink():
            continue
        try:
            goal = read(nb, rel)
        except GitmemError:
            skipped.append(rel)
            continue
        if every or goal.status == "active":
            found.append(goal)
    found.sort(key=lambda g: (g.created, g.id))
    return Goals(found, every, skipped)


def _fact(nb: Notebook, spec: str) -> dict[str, str]:
    """{path, text} of the line PATH:LINE names (its text kept: line numbers move)."""
    match = FACT.match(spec.strip())
    if not match:
        raise UsageError(f"not PATH:LINE: {spec!r}", "name the fact's line, e.g. --fact reference/contacts.md:3")
    rel = nb.page(match.group("path"), must_exist=True)
    lines = nb.read(rel).split("\n")
    number = int(match.group("line"))
    if not 1 <= number <= len(lines) or not lines[number - 1].strip():
        raise UsageError(f"{rel} has no fact on line {number}", f"look at the page: git mem get {rel}")
    return {"path": rel, "text": lines[number - 1].strip()}


def _int(value: Any) -> int:
    try:
        return max(0, min(100, int(value)))
    except (TypeError, ValueError):
        return 0


def _today() -> str:
    return datetime.now().astimezone().date().isoformat()
