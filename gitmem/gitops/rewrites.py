"""Commits of this branch that rewrite one the remote already has (an amend or a rebase of a
pushed commit).

Merging such a branch brings the old version back beside the new: git merges the two as two
changes, and gitmem's fact merge keeps both lines, so an amend that fixed a typo in a pushed note
ended with the typo back in the page, and the later line (the typo) replacing the fix for an
agent (a git user's run, 2026-11-27). `git pull` would have merged them too; sync names them and
changes nothing instead.

A rewrite is a commit of the remote's that this branch once held (its reflog says so) and holds no
more, paired with the commit of this branch that took its place by what `git commit --amend` and
`git rebase` keep: the author and the author's date (to the second; not the subject, which an amend
of a gitmem commit fixes with the fact: a review); with a change that differs (by `git patch-id`,
so a cherry-pick of the same change is no rewrite). The reflog is what tells it from another
clone's commit that only looks the same: four clones of one person writing the same page in the
same second made such commits (a test of four writers).
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
    """This branch's commits (not on `tip`) that rewrite one of `tip`'s (not on `head`), oldest first.
    Of several of `tip`'s alike by author and date (a rebase keeps each one's), the one with the
    same subject; one alone is taken whatever its subject."""
    held = _once_held(git, head)
    theirs: dict[str, list[tuple[str, str]]] = {}
    for commit, who, subject in _commits(git, f"{head}..{tip}"):
        if commit in held:
            theirs.setdefault(who, []).append((commit, subject))
    found = []
    for commit, who, subject in _commits(git, f"{tip}..{head}") if theirs else []:
        alike = theirs.get(who, [])
        same = [c for c, s in alike if s == subject] or ([c for c, _ in alike] if len(alike) == 1 else [])
        if same and _patch_id(git, commit) != _patch_id(git, same[0]):
            found.append(Rewrite(commit, same[0], subject))
    return found


def _once_held(git: Git, head: str) -> set[str]:
    """The commits the checked-out branch held once (its reflog's, with their history) and holds no
    more; none without a reflog."""
    try:
        branch = git.run("symbolic-ref", "-q", "HEAD").decode().strip()
        tips = git.run("reflog", "show", "--format=%H", branch, "--").decode().split()[:MAX_TIPS]
        return set(git.run("rev-list", "--stdin", input="\n".join([*tips, f"^{head}", ""]).encode())
                   .decode().split()) if tips else set()
    except GitFailed:  # a detached HEAD, or no reflog kept
        return set()


MAX_TIPS = 1000  # reflog entries looked at: the newest, where a rewrite before a sync is


def refusal(git: Git, head: str, tip: str, name: str) -> tuple[str, str] | None:
    """What sync says when a commit here rewrites one `name` (remote/branch) has: (message, hint);
    None when none does."""
    found = rewrites(git, head, tip)
    if not found:
        return None
    first = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    after = beyond(git, head, tip, found)
    remote, _, branch = name.partition("/")
    ways = []
    if len(found) == 1 and first.ours == head:  # an amend: keep theirs, and the change as a commit on it
        ways.append(f"keep {first.theirs[:7]} and make your change a new commit on top of it: git reset --soft "
                    f"{first.theirs[:12]} && git commit -C ORIG_HEAD, then 'git mem sync'")
    if not after:  # pushing ours in its place drops nothing but the old version
        ways.append(f"if nobody else has pulled it, push yours in its place: git push "
                    f"--force-with-lease={branch}:{tip} {remote} HEAD:{branch}")
    ways.append("merge both anyway: git mem sync --allow-rewritten")
    dropped = f"; {name} has {after} commit(s) after it, which pushing yours in its place would drop" if after else ""
    return (
        f"your commit {first.ours[:7]} ({first.subject[:60]!r}){more} rewrites {first.theirs[:7]}, which {name} "
        f"already has (an amend or a rebase of a pushed commit): merging would bring the old version back beside "
        f"yours{dropped}; nothing was changed", "; or ".join(ways))


def beyond(git: Git, head: str, tip: str, found: list[Rewrite]) -> int:
    """How many of `tip`'s commits that `head` lacks are no rewritten one: what pushing `head` in
    `tip`'s place would drop (a teammate's commit after the amended one: a review)."""
    theirs = {r.theirs for r in found}
    return sum(1 for c in git.run("rev-list", f"{head}..{tip}", "--").decode().split() if c not in theirs)


def _commits(git: Git, span: str) -> list[tuple[str, str, str]]:
    """(commit, author and date, subject) of each commit in `span` that is no merge, oldest first."""
    out = git.run("log", "--reverse", "--no-merges", "--date=raw", "--format=%H%x00%an <%ae> %ad%x00%s", span,
                  "--").decode("utf-8", "replace")
    found = []
    for line in out.splitlines():
        commit, who, subject = (line.split("\0") + ["", ""])[:3]
        found.append((commit, who, subject))
    return found


def _patch_id(git: Git, commit: str) -> str:
    """git's id of the change a commit makes (the same for the same diff, whatever the commit)."""
    diff = git.run("diff-tree", "-p", "--root", commit)
    return git.run("patch-id", "--stable", input=diff).decode().split(" ", 1)[0]
