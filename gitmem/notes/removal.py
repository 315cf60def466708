"""Deleting a whole page, as one commit (git history keeps it)."""

from __future__ import annotations

from ..errors import GitFailed, GitmemError
from ..gitops import commits, indexlock
from ..notebook import Notebook
from . import trailers
from .change import PageChanged, committable, write_lock
from .written import Written


def remove(nb: Notebook, page: str, expected: str | None = None) -> Written:
    """Delete a page of the notebook and commit the deletion. With `expected`
    (the page as the caller last saw it), a page that changed since is refused."""
    rel = nb.page(page, must_exist=True)
    with write_lock(nb):
        committable(nb)
        current = nb.read(rel)
        if expected is not None and current != expected:
            raise PageChanged(rel, expected, current)
        message = f"mem: delete {rel}"
        commit = delete(nb, rel, message)
    return Written("delete", rel, {"start": 1, "end": current.count("\n")}, commit, message)


def delete(nb: Notebook, rel: str, message: str, verb: str = "delete") -> str | None:
    """Unlink a page and commit that. A page with changes git does not hold (a person's
    uncommitted lines, or a page never committed) is refused: they would be in no commit, gone for
    good (an attack run lost 300 such lines through the web API). The caller holds the write lock."""
    repo_path = nb.repo_path(rel)
    if nb.git.status(repo_path):  # a person's edit that git does not hold, or a page it never had: it would be lost
        raise GitmemError(f"{rel} has changes not committed yet; nothing was deleted",
                          f"commit them first (git commit -- {repo_path}), or look at them: git diff -- {repo_path}")
    tracked = nb.git.head() is not None and bool(nb.git.tree("HEAD", repo_path))
    if tracked:
        indexlock.await_movers(nb.git)  # a person's commit in its editor ends first
    nb.file(rel).unlink()
    if not tracked:
        return None
    try:
        return commits.commit(nb.git, [repo_path], message, trailers.for_verb(verb))[0]
    except GitFailed as exc:
        raise GitFailed(f"{rel} is deleted but the commit failed: {exc.message}",
                        f"git history still has it; fix the cause, then run: git commit -- {repo_path}") from exc
