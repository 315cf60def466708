"""A fact's confidence, and how it fades (DAWN section 10).

A fact that consolidation learned carries its source and stated confidence on
its own line, in an HTML comment that markdown viewers hide:

    - Alice moved to Lisbon <!-- gitmem: inferred 0.70 from sessions/2026-11-20-1200-ab12cd34.md -->

So it travels with every clone. When the fact was last confirmed is the time
of the commit that last wrote the line (git blame: written, edited, or
`git mem confirm PATH:LINE`, which stamps `confirmed DATE` into the comment).
A line a person wrote without a comment counts as explicit, 1.0. Effective
confidence decays weekly at a per-source rate down to a floor; each time the
fact is served to an agent (context, recall) it gains +0.05, at most once an
hour, recorded in a small local database (never a commit per read). The
always-on pages are exempt: what a person keeps there is meant to stay.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from .. import config
from ..markdown import normalize_fact
from ..notebook import Notebook
from . import db

if TYPE_CHECKING:
    import apsw

    from .forgotten import Matcher

# source -> (weekly rate, floor)
RATES: dict[str, tuple[float, float]] = {"inferred": (0.95, 0.0), "explicit": (0.98, 0.50),
                                         "preference": (0.97, 0.40)}
SOURCES = tuple(RATES)
PRUNE_BELOW = 0.25
REINFORCE = 0.05
REINFORCE_EVERY = 3600.0  # seconds: a fact served again within the hour is not reinforced again
WEEK = 7 * 86400.0
ANNOTATION = re.compile(r"\s*<!-- gitmem: (?P<source>explicit|inferred|preference) (?P<confidence>[01](?:\.\d+)?)"
                        r"(?: from (?P<origin>[^\s>]+))?(?: confirmed (?P<confirmed>\d{4}-\d{2}-\d{2}))? -->\s*$")
FACT_LINE = re.compile(r"^\s*[-*+] (?:\[[ xX]\] )?\S")


@dataclass(frozen=True)
class Annotation:
    source: str
    confidence: float
    origin: str | None = None
    confirmed: str | None = None


@dataclass
class Fact:
    path: str
    line: int
    text: str  # the line without its annotation
    source: str
    stated: float
    effective: float
    confirmed_at: float  # epoch seconds
    exempt: bool
    origin: str | None = None


def parse(line: str) -> tuple[str, Annotation | None]:
    """(the line without its annotation, the annotation or None)."""
    match = ANNOTATION.search(line)
    if not match:
        return line, None
    ann = Annotation(match.group("source"), min(1.0, float(match.group("confidence"))),
                     match.group("origin"), match.group("confirmed"))
    return line[:match.start()], ann


def render(ann: Annotation) -> str:
    """The HTML comment that carries an annotation."""
    parts = [f"<!-- gitmem: {ann.source} {ann.confidence:.2f}"]
    if ann.origin:
        parts.append(f"from {ann.origin}")
    if ann.confirmed:
        parts.append(f"confirmed {ann.confirmed}")
    return " ".join(parts) + " -->"


def annotate(line: str, ann: Annotation) -> str:
    text, _ = parse(line)
    return f"{text.rstrip()} {render(ann)}"


def confirm_line(line: str, day: date) -> str:
    """The line stamped as confirmed today (a line without a comment gets an explicit 1.0 one)."""
    text, ann = parse(line)
    ann = ann or Annotation("explicit", 1.0)
    return annotate(text, Annotation(ann.source, ann.confidence, ann.origin, day.isoformat()))


def decayed(stated: float, source: str, weeks: float) -> float:
    """Stated confidence after `weeks` unconfirmed: rate**weeks, never under the
    floor (a fact stated under its floor keeps its stated value)."""
    rate, floor = RATES.get(source, RATES["explicit"])
    decay: float = rate ** max(0.0, weeks)
    return max(min(stated, floor), stated * decay)


def is_fact(line: str) -> bool:
    return bool(FACT_LINE.match(line))


def exempt(nb: Notebook, rel: str) -> bool:
    """Whether a page is left out of decay: the always-on pages, daily logs, sessions."""
    return config.matches(nb.settings.always_on, rel) or nb.settings.group_of(rel) != "notebook"


def facts(nb: Notebook, rel: str, text: str | None = None, now: float | None = None,
          annotated_only: bool = False) -> list[Fact]:
    """The facts (list items) of a page with their effective confidence now."""
    text = nb.read(rel) if text is None else text
    now = time.time() if now is None else now
    lines = text.split("\n")
    wanted = [(i, ln) for i, ln in enumerate(lines) if is_fact(ln) and (not annotated_only or parse(ln)[1])]
    if not wanted:
        return []
    skip = exempt(nb, rel)
    times = [] if skip else nb.git.blame_times(nb.repo_path(rel))
    served = _served(nb, rel) if not skip else {}
    out = []
    for i, line in wanted:
        body, ann = parse(line)
        ann = ann or Annotation("explicit", 1.0)
        when = times[i] if i < len(times) else now
        if skip:
            effective = ann.confidence
        else:
            key = normalize_fact(body)
            bonus = REINFORCE * sum(1 for at in served.get(key, ()) if at >= when)
            effective = min(1.0, decayed(ann.confidence, ann.source, (now - when) / WEEK) + bonus)
        out.append(Fact(rel, i + 1, body.rstrip(), ann.source, ann.confidence, round(effective, 4), when, skip,
                        ann.origin))
    return out


# -- reinforcement on use (local, per clone) --------------------------------

def _connect(nb: Notebook) -> apsw.Connection:
    return db.connect(nb.state_dir / "confidence.db", db.CONFIDENCE_MIGRATIONS, vec=False)


def _served(nb: Notebook, rel: str) -> dict[str, list[float]]:
    if not (nb.state_dir / "confidence.db").exists():
        return {}
    conn = _connect(nb)
    try:
        found: dict[str, list[float]] = {}
        for fact, at in conn.execute("SELECT fact, at FROM reinforced WHERE path = ?", (rel,)):
            found.setdefault(fact, []).append(at)
        return found
    finally:
        conn.close()


def reinforce(nb: Notebook, served: Iterable[tuple[str, str]], now: float | None = None) -> int:
    """Record that these (path, fact line) were served to an agent; each counts at
    most once an hour. How many were reinforced."""
    now = time.time() if now is None else now
    items = {(rel, normalize_fact(parse(line)[0])) for rel, line in served if is_fact(line)}
    items = {(rel, key) for rel, key in items if key}
    if not items:
        return 0
    conn = _connect(nb)
    count = 0
    try:
        with db.transaction(conn):
            for rel, key in sorted(items):
                recent = conn.execute("SELECT 1 FROM reinforced WHERE path = ? AND fact = ? AND at > ?",
                                      (rel, key, now - REINFORCE_EVERY)).fetchone()
                if recent is None:
                    conn.execute("INSERT OR IGNORE INTO reinforced VALUES(?, ?, ?)", (rel, key, now))
                    count += 1
    finally:
        conn.close()
    return count


def forget_served(nb: Notebook, matcher: Matcher) -> int:
    """Drop the records of served facts that hold forgotten text (forgotten.py), with the freed
    pages zeroed (secure_delete) and the WAL emptied; how many went."""
    if not (nb.state_dir / "confidence.db").exists():
        return 0
    conn = _connect(nb)
    try:
        gone = [(rel, fact) for rel, fact in conn.execute("SELECT DISTINCT path, fact FROM reinforced")
                if matcher.holds(fact)]
        with db.transaction(conn):
            conn.executemany("DELETE FROM reinforced WHERE path = ? AND fact = ?", gone)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return len(gone)


def drop_served(nb: Notebook, lines: Iterable[tuple[str, str]]) -> None:
    """Drop the records of these (path, fact line) having been served: the lines are gone (pruned)."""
    keys = {(rel, normalize_fact(parse(line)[0])) for rel, line in lines}
    if not keys or not (nb.state_dir / "confidence.db").exists():
        return
    conn = _connect(nb)
    try:
        with db.transaction(conn):
            conn.executemany("DELETE FROM reinforced WHERE path = ? AND fact = ?", sorted(keys))
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def of_lines(nb: Notebook, rel: str, start: int, end: int, text: str | None = None) -> float | None:
    """The lowest effective confidence among the annotated facts in lines START-END, None if none."""
    found = [f.effective for f in facts(nb, rel, text, annotated_only=True) if start <= f.line <= end]
    return min(found) if found else None
