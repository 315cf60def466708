"""What a write verb returns (Written) and how its change is committed: one page, under the
write lock the caller holds, with the verb's trailers (change.apply)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import GitFailed
from ..gitops.identity import FALLBACK_HINT, FALLBACK_IDENTITY
from ..gitops.indexlock import HeadBusy
from ..notebook import Notebook
from . import change, pages, trailers


@dataclass
class Written:
    action: str
    path: str
    lines: dict[str, int]
    commit: str | None
    message: str
    identity: str | None = None  # set when the fallback identity signed the commit
    hint: str | None = None
    duplicate: dict[str, Any] | None = None
    category: str | None = None
    section: str | None = None
    replaced: dict[str, Any] | None = None  # remember: the line the new fact updated ({path, lines, text})
    updates: dict[str, Any] | None = None  # remember: a line the new fact updates and kept, as recall links them
    # remember: the line as the page now says it, when the fact took another line's place in other words
    # ("We moved to 118 Linden Court" -> "We live at 118 Linden Court, Park Slope": a newcomer never saw it)
    now: str | None = None
    # remember: the line a fact said as an update may update, when no rule found one (replaced.maybe)
    maybe: dict[str, Any] | None = None
    scope: str = "project"  # remember: the project's notebook or the personal one (notes/scopes.py)
    watched: list[Any] | None = None  # remember: older facts about a watched entity that disagree (watch.py)


def commit_page(nb: Notebook, rel: str, text: str, message: str, action: str,
                edit: pages.Edit | None = None) -> Written:
    """Make the page say `text` (one commit). The caller holds write_lock(nb)."""
    whole = edit if edit is not None and edit.text == text else pages.Edit(text, 1, max(1, text.count("\n")))
    return commit_change(nb, rel, lambda _page: whole, message, action)


def commit_change(nb: Notebook, rel: str, edit: Callable[[str], pages.Edit | None], message: str,
                  action: str, extra: list[tuple[str, str]] | None = None,
                  expected: dict[str, str] | None = None) -> Written:
    """Apply `edit` (a function of the page's text) to the page and commit only it, under the
    lock the caller holds, with the verb's trailers and `extra` ones (`expected`: see
    change.apply). If the commit fails the page stays written and the error says so."""
    try:
        done = change.apply(nb, {rel: edit}, message, trailers=trailers.for_verb(action) + (extra or []),
                            expected=expected)
    except HeadBusy:  # said before anything was written (change.apply waits just before it writes)
        raise
    except GitFailed as exc:
        # not `git add -- PAGE`: it took the person's own unstaged edits of the page along (a git user's run)
        raise GitFailed(f"{rel} is written but the commit failed: {exc.message}",
                        f"your note is safe in {rel}, and gitmem's change is staged; fix the cause, then commit it: "
                        "git commit (it takes all that is staged: see git status first)") from exc
    if done is None or rel not in done.edits and done.commit is None:
        made = edit(nb.read(rel))
        lines = {"start": made.start_line, "end": made.end_line} if made else {"start": 1, "end": 1}
        return Written("unchanged", rel, lines, None, "", hint="the page already says this; nothing to commit")
    made = done.edits.get(rel) or edit(nb.read(rel))
    lines = {"start": made.start_line, "end": made.end_line} if made else {"start": 1, "end": 1}
    written = Written(action, rel, lines, done.commit, message)
    if done.fallback:
        written.identity = FALLBACK_IDENTITY
        written.hint = FALLBACK_HINT if done.note_identity else None
    return written
