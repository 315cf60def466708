"""Forgetting what faded: facts whose effective confidence fell under the
threshold, and session summaries older than the retention; and `confirm`,
which tells git a fact is still true.

Pruning is one commit that lists every line it removes, so git is the audit
trail and `git revert` brings them back. Always-on pages are never pruned.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ..errors import GitFailed, UsageError
from ..index import confidence
from ..notebook import Notebook
from . import change, pages, trailers
from .change import committable, write_lock
from .learned import SUMMARY_HEADING
from .reading import RANGE, line_range
from .written import Written, commit_change

DEFAULT_RETENTION_DAYS = 30
SUMMARY_ENTRY = re.compile(r"^## \d{2}:\d{2} — " + re.escape(SUMMARY_HEADING) + r"\b")


@dataclass
class Pruned:
    dry_run: bool
    threshold: float
    facts: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)
    commit: str | None = None
    notes: list[str] = field(default_factory=list)


def retention_days(nb: Notebook) -> int:
    table = nb.settings.extra.get("consolidate", {})
    value = table.get("retention_days", DEFAULT_RETENTION_DAYS) if isinstance(table, dict) else DEFAULT_RETENTION_DAYS
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UsageError(".gitmem.toml: consolidate.retention_days must be a whole number of days, at least 1",
                         "fix consolidate.retention_days")
    return value


def run(nb: Notebook, dry_run: bool = False, now: float | None = None) -> Pruned:
    """Remove faded facts and expired summaries in one commit (or list them with dry_run)."""
    now = time.time() if now is None else now
    cutoff = date.fromtimestamp(now).toordinal() - retention_days(nb)
    result = Pruned(dry_run, confidence.PRUNE_BELOW)
    with write_lock(nb):
        if not dry_run:
            committable(nb)
        spans: dict[str, list[tuple[int, int]]] = {}
        texts: dict[str, str] = {}
        for repo_path in nb.git.files(nb.prefix, untracked=False):
            rel = nb.rel(repo_path)
            if rel is None or not nb.settings.is_note(rel):
                continue
            group = nb.settings.group_of(rel)
            day = _day(rel)
            if group == "daily" and day is not None and day < cutoff:
                text = texts.setdefault(rel, nb.read(rel))
                _summaries(rel, text, result, spans)
            elif group == "notebook" and not confidence.exempt(nb, rel):
                text = nb.read(rel)
                if "<!-- gitmem:" not in text:
                    continue
                texts[rel] = text
                _faded(nb, rel, text, now, result, spans)
        if dry_run or not spans:
            return result
        # taken off as a change of each page's text: applied to the page as it is when written, and
        # to HEAD's version for the commit (a person's uncommitted edit stays theirs)
        blocks = {rel: [texts[rel].split("\n")[a - 1:b] for a, b in cut] for rel, cut in spans.items()}
        message = _message(result)
        try:
            done = change.apply(nb, {rel: change.without(found, [a for a, _ in spans[rel]])
                                     for rel, found in blocks.items()}, message,
                                trailers=trailers.for_verb("prune"))
            result.commit = done.commit if done else None
        except GitFailed as exc:
            raise GitFailed(f"the pages are pruned but the commit failed: {exc.message}",
                            "fix the cause, then commit them with git commit") from exc
        confidence.drop_served(nb, [(f["path"], f["text"]) for f in result.facts])  # no line left to reinforce
    return result


def _day(rel: str) -> int | None:
    match = re.search(r"(\d{4}-\d{2}-\d{2})\.md$", rel)
    try:
        return date.fromisoformat(match.group(1)).toordinal() if match else None
    except ValueError:
        return None


def _faded(nb: Notebook, rel: str, text: str, now: float, result: Pruned,
           spans: dict[str, list[tuple[int, int]]]) -> None:
    lines = text.split("\n")
    for fact in confidence.facts(nb, rel, text, now, annotated_only=True):
        if fact.effective < confidence.PRUNE_BELOW:
            end = pages.item_extent(lines, fact.line - 1) + 1
            spans.setdefault(rel, []).append((fact.line, end))
            result.facts.append({"path": rel, "line": fact.line, "text": fact.text.strip(), "source": fact.source,
                                 "stated": fact.stated, "effective": fact.effective})


def _summaries(rel: str, text: str, result: Pruned, spans: dict[str, list[tuple[int, int]]]) -> None:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if SUMMARY_ENTRY.match(line):
            end = pages.item_extent(lines, i) + 1
            spans.setdefault(rel, []).append((i + 1, end))
            result.summaries.append({"path": rel, "line": i + 1, "text": line[3:].strip()})


def _message(result: Pruned) -> str:
    subject = f"mem: prune {len(result.facts)} faded fact(s), {len(result.summaries)} old summary(ies)"
    body = [f"- {f['path']}:{f['line']} ({f['source']} {f['stated']:.2f} -> {f['effective']:.2f}) {f['text'][:120]}"
            for f in result.facts]
    body += [f"- {s['path']}:{s['line']} {s['text'][:120]}" for s in result.summaries]
    return "\n".join([subject, "", *body, "", "Undo with: git revert <this commit>"]) + "\n"


def confirm(nb: Notebook, spec: str, today: date | None = None) -> Written:
    """Stamp a fact as confirmed today (one commit): its decay starts afresh."""
    match = RANGE.match(spec)
    if not match or match.group("end"):
        raise UsageError(f"{spec!r} is not PATH:LINE", "e.g. git mem confirm knowledge/facts.md:12")
    rel = nb.page(match.group("path"), must_exist=True)
    today = today or datetime.now().astimezone().date()
    with write_lock(nb):
        text = nb.read(rel)
        lines = text.split("\n")
        start, _ = line_range(match, rel, len(lines) - (1 if text.endswith("\n") else 0))
        if not confidence.is_fact(lines[start - 1]):
            raise UsageError(f"{rel}:{start} is not a fact (a list item)",
                             f"name the line of a '- ...' item, e.g. find it with: git mem get {rel}")
        target = lines[start - 1]

        def stamp(page: str) -> pages.Edit | None:
            """The fact's line stamped, in whichever version of the page (nearest where it was)."""
            now = page.split("\n")
            found = [i for i, line in enumerate(now) if line == target]
            if not found:
                return None
            i = min(found, key=lambda n: abs(n - (start - 1)))
            now[i] = confidence.confirm_line(now[i], today)
            return pages.Edit("\n".join(now), i + 1, i + 1)

        return commit_change(nb, rel, stamp, f"mem: confirm {rel}:{start}", "confirm")
