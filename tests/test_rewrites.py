"""gitops/rewrites: this branch's commits that rewrite one the other side has (an amend or a
rebase), told from a cherry-pick of the same change and from new work."""

from __future__ import annotations

from pathlib import Path

from gitmem.gitops.git import Git
from gitmem.gitops.rewrites import rewrites
from tests.conftest import git

DATE = {"GIT_AUTHOR_DATE": "2026-11-27T09:00:00Z", "GIT_COMMITTER_DATE": "2026-11-27T09:00:00Z"}


def _commit(repo: Path, name: str, text: str, message: str, env: dict[str, str] | None = None) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def test_an_amend_is_a_rewrite_and_a_rebased_same_change_is_not(repo: Path) -> None:
    start = _commit(repo, "a.md", "- a\n", "start")
    git(repo, "branch", "-M", "main")
    typo = _commit(repo, "b.md", "- tom@exmaple.com\n", "Tom's email", DATE)
    same = _commit(repo, "c.md", "- c\n", "a change moved as it is", DATE)
    git(repo, "branch", "remote")  # pushed: the remote has both
    git(repo, "reset", "-q", "--hard", start)
    fixed = _commit(repo, "b.md", "- tom@example.com\n", "Tom's email", DATE)  # the amended version
    git(repo, "cherry-pick", same)  # the same change again: merging it twice changes nothing
    _commit(repo, "d.md", "- new work\n", "Tom's email")  # the same subject, another date: new work
    head = git(repo, "rev-parse", "HEAD").strip()
    found = rewrites(Git.find(repo), head, git(repo, "rev-parse", "remote").strip())
    assert [(r.ours, r.theirs, r.subject) for r in found] == [(fixed, typo, "Tom's email")]


def test_another_clones_look_alike_commit_is_no_rewrite(repo: Path) -> None:
    """The same person's two clones writing the same page in the same second make commits alike in
    author, date and subject: one this branch never held is no rewrite of it."""
    _commit(repo, "a.md", "- a\n", "start")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "remote")
    _commit(repo, "b.md", "- from the other clone\n", "mem: write b.md", DATE)
    git(repo, "checkout", "-q", "main")
    head = _commit(repo, "b.md", "- from this clone\n", "mem: write b.md", DATE)
    assert rewrites(Git.find(repo), head, git(repo, "rev-parse", "remote").strip()) == []


def test_nothing_on_one_side_is_no_rewrite(repo: Path) -> None:
    base = _commit(repo, "a.md", "- a\n", "start", DATE)
    head = _commit(repo, "b.md", "- b\n", "more", DATE)
    g = Git.find(repo)
    assert rewrites(g, head, base) == [] and rewrites(g, base, head) == []
