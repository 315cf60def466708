"""git mem resolve outside a merge (notes/resolve.py): a page committed with conflict markers is
settled in one commit; a page without markers is refused in one line."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from tests.conftest import Mem

PAGE = "knowledge/plan.md"
MARKED = "# Plan\n\n<<<<<<< ours\n- Ship on Friday\n=======\n- Ship on Monday\n>>>>>>> theirs\n- Tell Sarah\n"


def test_a_page_committed_with_markers_is_settled_in_one_commit(mem: Mem) -> None:
    mem.write(PAGE, MARKED)
    mem.commit("a merge someone committed with its markers")
    assert mem.json("recall", "--mode", "keyword", "Ship")["results"] == []
    assert mem.json("status", "--no-model")["conflicts"]["pages"] == [{"path": PAGE, "facts": 1}]
    before = mem.git("rev-parse", "HEAD").strip()
    out = mem.json("resolve", PAGE, "--take", "theirs")
    assert (out["conflicts"], out["concluded"]) == (1, None) and out["commit"]
    assert (mem.path / PAGE).read_text() == "# Plan\n\n- Ship on Monday\n- Tell Sarah\n"
    assert mem.git("rev-list", "--count", f"{before}..HEAD").strip() == "1"
    assert mem.git("show", "--name-only", "--format=", "HEAD").split() == [PAGE]
    assert mem.git("status", "--porcelain") == ""
    assert [h["path"] for h in mem.json("recall", "--mode", "keyword", "Monday")["results"]] == [PAGE]
    assert mem.json("status", "--no-model")["conflicts"]["pages"] == []


@pytest.mark.tally("bad-input/fault matrix")
def test_a_page_without_markers_is_refused(mem: Mem) -> None:
    mem.write(PAGE, "# Plan\n\n- Ship on Friday\n")
    mem.commit("plan")
    failed = mem("resolve", PAGE, "--take", "ours", code=1)
    assert failed.stderr == ("error: knowledge/plan.md has no conflict markers; nothing to resolve "
                             "('git mem status' lists the pages with conflicts)\n")


@pytest.mark.tally("bad-input/fault matrix")
def test_both_sides_of_a_frontmatter_conflict_are_refused(mem: Mem) -> None:
    """A newcomer's team (2026-11-27): --take both wrote "progress: 40" then "progress: 50", one key twice."""
    goal = "goals/ship.md"
    mem.write(goal, "---\ntype: goal\n<<<<<<< ours\nprogress: 40\n=======\nprogress: 50\n>>>>>>> theirs\n---\n# Ship\n")
    mem.commit("a goal committed with its markers")
    failed = mem("resolve", goal, "--take", "both", code=2)
    assert failed.stderr.startswith(f"error: {goal} has a conflict in its frontmatter, where both sides would set "
                                    "one key twice (keep one side: ")
    mem("resolve", goal, "--take", "theirs")
    assert (mem.path / goal).read_text() == "---\ntype: goal\nprogress: 50\n---\n# Ship\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_markers_gitmem_cannot_pair_are_never_taken_as_a_resolution(mem: Mem) -> None:
    """An attack run (2026-11-27): a teammate's stray "<<<<<<< HEAD" inside a conflict left git's markers
    unpaired for gitmem, and `resolve --take ours` marked the page merged with both sides in it."""
    mem.write(PAGE, "# Plan\n\n<<<<<<< ours\n- Ship on Friday\n<<<<<<< HEAD\n=======\n- Ship on Monday\n"
                    ">>>>>>> theirs\n")
    mem.commit("a page with markers gitmem cannot pair")
    before = mem.git("rev-parse", "HEAD")
    failed = mem("resolve", PAGE, "--take", "ours", code=1)
    assert failed.stderr.startswith(f"error: {PAGE} holds conflict markers gitmem cannot pair")
    assert mem.git("rev-parse", "HEAD") == before


def _stopped_without_markers(mem: Mem, page: str) -> None:
    """A merge of a branch that changed the page's line differently, with a merge driver that fails (as
    one whose interpreter is gone does): git leaves the page unmerged, our side in it, no markers."""
    mem.side_edit(page, "# Codes\n\n- The door code is 1234\n- The garage code is 0000\n",
                  "# Codes\n\n- The door code is 5678\n- The garage code is 1111\n")
    mem.write(page, "# Codes\n\n- The door code is 9999\n- The garage code is 0000\n")
    mem.commit("our code")
    mem.git("config", "merge.gitmem-facts.driver", "/nonexistent/python -I -c pass -- %O %A %B %P")
    merged = subprocess.run(["git", "-C", str(mem.path), "merge", "--no-edit", "side"], capture_output=True)
    assert merged.returncode != 0 and mem.git("diff", "--name-only", "--diff-filter=U").split() == [page]
    assert "<<<<<<<" not in (mem.path / page).read_text()


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("take", [None, "both"])
def test_an_unmerged_page_without_markers_is_no_resolution(mem: Mem, take: str | None) -> None:
    """A git user's run (2026-11-27): with the driver failing, `--take both` marked our side merged, and
    the merge commit undid every line of the teammate's."""
    page = "knowledge/codes.md"
    _stopped_without_markers(mem, page)
    failed = mem("resolve", page, *(["--take", take] if take else []), code=1)
    assert failed.stderr == (
        f"error: {page} is unmerged and is still ours side as git staged it: git wrote no markers to settle (its "
        "merge driver failed, or one side deleted the page); nothing was changed (take one side whole: git mem "
        f"resolve --take ours|theirs -- {page}; or have git write the markers: git checkout --merge -- {page})\n")
    assert mem.git("diff", "--name-only", "--diff-filter=U").split() == [page]
    # status lists it, with no markers to count (it said nothing: a git user's run)
    assert mem.json("status", "--no-model")["conflicts"]["pages"] == [{"path": page, "facts": 0}]
    assert f"conflict:   {page}: unmerged, with no markers to settle; take a side: git mem resolve --take " \
           f"ours|theirs -- {page}" in mem("status", "--no-model").stdout
    # a side taken is that side whole, as git staged it, and the merge is concluded on it
    out = json.loads(mem("resolve", "--json", "--take", "theirs", "--", page).stdout)
    assert out["concluded"] == "merge" and mem.git("diff", "HEAD^2", "HEAD", "--", page) == ""
    assert mem("resolve", page, code=1).stderr.startswith(f"error: {page} has no conflict markers")


def test_hooks_status_names_a_merge_driver_that_would_fail(mem: Mem) -> None:
    assert "merge drivers: configured (pages, daily logs)" in mem("hooks", "status").stdout
    from gitmem import launch
    from gitmem.gitops import merge

    gone = merge.driver_command(True).replace(shlex.quote(sys.executable), "/nonexistent/python") \
        .replace(shlex.quote(launch.home()), "/nowhere")
    mem.git("config", "merge.gitmem-facts.driver", gone)
    out = mem("hooks", "status").stdout
    assert "merge drivers: configured, but broken (pages, daily logs)" in out
    assert "the gitmem-facts merge driver calls /nonexistent/python with /nowhere, which is gone" in out
    mem("hooks", "install")
    assert "merge drivers: configured (pages, daily logs)" in mem("hooks", "status").stdout
