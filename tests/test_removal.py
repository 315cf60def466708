"""Deleting a page (notes/removal.py): one commit, refused if it changed since it was read."""

from __future__ import annotations

import pytest

from gitmem.errors import GitmemError, PageNotFound, PathOutside
from gitmem.gitops.repo import open_notebook
from gitmem.notes.change import PageChanged
from gitmem.notes.removal import remove
from tests.conftest import Mem


def test_remove_deletes_the_page_in_one_commit(mem: Mem) -> None:
    mem("write", "knowledge/old.md", "Outdated")
    before = mem.git("rev-parse", "HEAD").strip()
    done = remove(open_notebook(mem.path), "knowledge/old")
    assert done.action == "delete" and done.path == "knowledge/old.md" and not (mem.path / "knowledge/old.md").exists()
    assert mem.git("rev-parse", "HEAD~1").strip() == before and done.commit == mem.git("rev-parse", "HEAD").strip()
    assert mem.git("show", "--name-status", "--format=%s", "HEAD").split() == \
        ["mem:", "delete", "knowledge/old.md", "D", "knowledge/old.md"]


def test_remove_leaves_a_persons_other_staged_work_alone(mem: Mem) -> None:
    mem("write", "knowledge/old.md", "Outdated")
    mem.write("mine.md", "my draft\n")
    mem.git("add", "mine.md")
    remove(open_notebook(mem.path), "knowledge/old.md")
    assert mem.git("show", "--name-only", "--format=", "HEAD").split() == ["knowledge/old.md"]
    assert mem.git("diff", "--cached", "--name-only").split() == ["mine.md"]


def test_remove_refuses_a_page_that_changed_since_it_was_read(mem: Mem) -> None:
    mem("write", "knowledge/old.md", "Outdated")
    seen = (mem.path / "knowledge/old.md").read_text()
    mem("write", "knowledge/old.md", "An agent added this")
    with pytest.raises(PageChanged) as caught:
        remove(open_notebook(mem.path), "knowledge/old.md", expected=seen)
    assert caught.value.seen == seen and "An agent added this" in caught.value.current
    assert (mem.path / "knowledge/old.md").exists()


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("how", ["never committed", "a line added", "a line staged"])
def test_a_page_with_what_git_does_not_hold_is_not_deleted(mem: Mem, how: str) -> None:
    """Its text would be in no commit: gone for good. Before, a page never committed was deleted
    without a commit, and one with uncommitted lines lost them (an attack run: 300 lines, through
    the web API's DELETE and `git mem session rm`)."""
    if how == "never committed":
        mem.write("draft.md", "# Draft\n")
    else:
        mem("write", "draft.md", "Outdated")
        mem.write("draft.md", (mem.path / "draft.md").read_text() + "- a person's line\n")
        if how == "a line staged":
            mem.git("add", "draft.md")
    before, text = mem.git("rev-parse", "HEAD").strip(), (mem.path / "draft.md").read_text()
    with pytest.raises(GitmemError, match="^draft.md has changes not committed yet; nothing was deleted$"):
        remove(open_notebook(mem.path), "draft.md")
    assert (mem.path / "draft.md").read_text() == text and mem.git("rev-parse", "HEAD").strip() == before


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("name, error", [("nope.md", PageNotFound), ("../outside.md", PathOutside),
                                         (".git/config", PathOutside)])
def test_remove_refuses_what_is_not_a_page_of_the_notebook(mem: Mem, name: str, error: type) -> None:
    with pytest.raises(error):
        remove(open_notebook(mem.path), name)
