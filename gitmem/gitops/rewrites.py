"""Commits of this branch that rewrite one the remote already has (an amend or a rebase of a
pushed commit).

Merging such a branch brings the old version back beside the new: git merges the two as two
changes, and gitmem's fact merge keeps both lines, so an amend that fixed a typo in a pushed note
ended with the typo back in the page, and the later line (the typo) replacing the fix for an
agent (a git user's run, 2026-11-27). `git pull` would have merged them too; sync names them and
changes nothing instead.

A rewrite is a commit of the remote's that this branch once held (its reflog says so) and holds no
more, paired with the commit of this branch that took its place by what `git commit --amend` and
`git rebase` keep: the author, the author's date (to the second) and the subject; with a change
that differs (by `git patch-id`, so a cherry-pick of the same change is no rewrite). The reflog is
what tells it from another clone's commit that only looks the same: four clones of one person
writing the same page in the same second made commits alike in all three (a test of four writers).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import GitFailed
from .git import Git


@dataclass(frozen=True)
class Rewrite:
    ours: str  # this branch's commit
    theirs: str  # the remote's commit it rewrites
    subject: str


def rewrites(git: Git, head: str, tip: str) -> list[Rewrite]:
    """This branch's commits (not on `tip`) that rewrite one of `tip`'s (not on `head`), oldest first."""
    held = _once_held(git)
    theirs = {key: commit for commit, key, _ in _commits(git, f"{head}..{tip}") if commit in held}
    if not theirs:
        return []
    found = []
    for commit, key, subject in _commits(git, f"{tip}..{head}"):
        old = theirs.get(key)
        if old is not None and _patch_id(git, commit) != _patch_id(git, old):
            found.append(Rewrite(commit, old, subject))
    return found


def _once_held(git: Git) -> set[str]:
    """Every commit the checked-out branch has pointed at (its reflog; none without one)."""
    try:
        branch = git.run("symbolic-ref", "-q", "HEAD").decode().strip()
        return set(git.run("reflog", "show", "--format=%H", branch, "--").decode().split())
    except GitFailed:  # a detached HEAD, or no reflog kept
        return set()


def _commits(git: Git, span: str) -> list[tuple[str, tuple[str, str], str]]:
    """(commit, (author and date, subject), subject) of each commit in `span` that is no merge, oldest first."""
    out = git.run("log", "--reverse", "--no-merges", "--date=raw", "--format=%H%x00%an <%ae> %ad%x00%s", span,
                  "--").decode("utf-8", "replace")
    found = []
    for line in out.splitlines():
        commit, who, subject = (line.split("\0") + ["", ""])[:3]
        found.append((commit, (who, subject), subject))
    return found


def _patch_id(git: Git, commit: str) -> str:
    """git's id of the change a commit makes (the same for the same diff, whatever the commit)."""
    diff = git.run("diff-tree", "-p", "--root", commit)
    return git.run("patch-id", "--stable", input=diff).decode().split(" ", 1)[0]
