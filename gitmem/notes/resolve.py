"""`git mem resolve PATH --take ours|theirs|both`: a page's conflicts settled in one command.

In the middle of a merge or rebase (a `git mem sync` or `git pull` that stopped), the page is
written with every conflict replaced by the side taken, marked merged (`git add`), and once no
file is left unmerged the merge is committed (or the rebase continued), as `git commit` /
`git rebase --continue` would. Outside one (a page committed with markers in it), the page is
rewritten and committed like any gitmem write: one commit holding that change alone.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from ..errors import GitFailed, GitmemError, UsageError
from ..gitops import factmerge, sync
from ..gitops.lock import atomic_write
from ..notebook import Notebook
from . import change, guard, pulled
from .pages import Edit


@dataclass
class Resolved:
    path: str
    take: str
    conflicts: int  # how many conflicts (facts) the page had
    concluded: str | None  # the merge or rebase this finished, if it did
    commit: str | None
    unmerged: list[str] = field(default_factory=list)  # files still left for the person
    notes: list[str] = field(default_factory=list)


def resolve(nb: Notebook, rel: str, take: str | None) -> Resolved:
    """Replace every conflict of the page with our side, theirs or both (see the module docstring);
    with the markers already edited away by hand, mark the page merged as it stands (no --take)."""
    if take is not None and take not in factmerge.TAKES:
        raise UsageError(f"--take {take!r} is not one of {', '.join(factmerge.TAKES)}",
                         "e.g. git mem resolve knowledge/facts.md --take both")
    git = nb.git
    path = nb.repo_path(rel)
    text = nb.read(rel)
    resolved, count = factmerge.resolve_text(text, take or "ours")
    busy = git.in_progress()
    if factmerge.marked(resolved):  # ... or left after the conflicts gitmem could pair were settled
        raise GitmemError(f"{rel} holds conflict markers gitmem cannot pair (a marker inside a conflict, or one "
                          "without the others); nothing was changed",
                          f"edit it: keep what you want, remove every marker line, then: git mem resolve {rel}")
    if not count and busy and path in sync.unmerged(git):
        return _unmarked(nb, rel, path, text, take, busy)
    if not count:
        raise GitmemError(f"{rel} has no conflict markers; nothing to resolve",
                          "'git mem status' lists the pages with conflicts")
    if take is None:
        raise UsageError(f"{rel} still has {count} conflict(s)",
                         f"keep one side with: git mem resolve {rel} --take ours|theirs|both (or edit the markers)")
    if take == "both" and _in_frontmatter(text):
        # both sides of a frontmatter line are one key twice ("progress: 40" then "progress: 50", a newcomer's team)
        raise UsageError(f"{rel} has a conflict in its frontmatter, where both sides would set one key twice",
                         f"keep one side: git mem resolve {rel} --take ours|theirs (or edit the markers)")
    if busy and path in sync.unmerged(git):
        with change.write_lock(nb):
            atomic_write(nb.file(rel), resolved.encode("utf-8"))
            sync.stage(git, path)
            return _conclude(nb, rel, take, count, busy)
    with change.write_lock(nb):
        applied = change.apply(nb, {rel: lambda now: Edit(factmerge.resolve_text(now, take)[0], 1, 1)},
                               f"mem: resolve {count} conflict(s) in {rel} (--take {take})")
    return Resolved(rel, take, count, None, applied.commit if applied else None)


def _unmarked(nb: Notebook, rel: str, path: str, text: str, take: str | None, busy: str) -> Resolved:
    """A page git left unmerged without conflict markers: edited away by hand (the page as it stands is
    the resolution: a newcomer's team found no command took it), or never written (a merge driver that
    failed leaves our side as it was; one side deleted the page). A side taken is taken whole, as git
    staged it; a page that is still our side as it was is no resolution (a git user's run: `--take
    both` marked our side merged, and the merge undid every line of the teammate's): `--take ours`
    says it is."""
    git = nb.git
    staged = sync.sides(git, path)
    if take in sync.SIDES:
        with change.write_lock(nb):
            sync.take_side(git, path, take, staged)
            return _conclude(nb, rel, take, 0, busy)
    # our side as it was is what a driver that failed leaves (theirs, or any edit, was written by someone)
    ours = staged["ours"] is not None and staged["ours"].decode("utf-8", "replace") == text
    if take is not None or (ours and staged["ours"] != staged["theirs"]):
        state = "is still ours side as git staged it" if ours else "holds no conflict markers"
        raise GitmemError(f"{rel} is unmerged and {state}: git wrote no markers to settle (its merge driver failed, "
                          "or one side deleted the page); nothing was changed",
                          f"take one side whole: git mem resolve --take ours|theirs -- {shlex.quote(rel)}; or have "
                          f"git write the markers: git checkout --merge -- {shlex.quote(path)}")
    with change.write_lock(nb):
        sync.stage(git, path)
        return _conclude(nb, rel, "as edited", 0, busy)


def unmerged_page(nb: Notebook, page: str) -> bool:
    """Whether git left this page unmerged in a merge or rebase that stopped."""
    return bool(nb.git.in_progress()) and nb.repo_path(nb.page(page)) in sync.unmerged(nb.git)


def settle(nb: Notebook, page: str, text: str, expected: str, allow: bool = False) -> Resolved:
    """A page git left unmerged, saved as a person edited it (the web's editor): written, and marked
    merged when no marker is left (the merge concluded once no file is), as `resolve` without --take
    does; refused with its markers left. A newcomer's team's save said "a merge is in progress"."""
    from .change import PageChanged

    rel = nb.page(page)
    if factmerge.marked(text):
        raise UsageError(f"{rel} still has conflict markers", "keep what you want between them and remove the "
                         f"markers, or run: git mem resolve {rel} --take ours|theirs|both")
    with change.write_lock(nb):
        current = nb.read(rel)
        if current != expected:
            raise PageChanged(rel, expected, current)
        guard.check(guard.added(text, current), allow, rel)  # as a replace is: the lines the person adds
        atomic_write(nb.file(rel), text.encode("utf-8"))
    return resolve(nb, rel, None)


def _conclude(nb: Notebook, rel: str, take: str, count: int, busy: str) -> Resolved:
    git = nb.git
    left = sync.unmerged(git)
    if left:
        return Resolved(rel, take, count, None, None, left,
                        [f"still unmerged: {', '.join(left)}; resolve them, then the {busy} is concluded"])
    try:
        head = sync.commit_merge(git)
    except GitFailed as exc:
        left = sync.unmerged(git)
        if not left:
            raise
        return Resolved(rel, take, count, None, None, left,
                        [f"the {busy} went on and stopped again: {exc.message}"])
    # what the merge brought, named as sync names it (its hook is quiet: commit_merge): a merge that
    # stopped on a conflict was concluded without a word of it (an attack run, 2026-11-27)
    came = pulled.findings(nb, git.resolve("HEAD^1"), head) if busy == "merge" and head else []
    return Resolved(rel, take, count, busy, head, [], [*came, "run 'git mem sync' to push it"])


def _in_frontmatter(text: str) -> bool:
    """Whether a conflict's markers open inside the page's leading `---` block (which its markers keep
    YAML from reading: the block is found by its fences)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return False
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            return False
        if factmerge.START.match(line):
            return True
    return False
