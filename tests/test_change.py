"""change.apply: every page write re-reads under the lock, commits only gitmem's change,
never takes a missing tracked page for an empty one, and never commits on a detached HEAD."""

from __future__ import annotations

import subprocess
from pathlib import Path
import threading

import pytest
from hypothesis import given, strategies as st

from gitmem.gitops import lock as locks
from gitmem.gitops.repo import open_notebook
from gitmem.notes import change, pages
from tests.conftest import Mem

FAULT = pytest.mark.tally("bad-input/fault matrix")
FACTS = "knowledge/facts.md"


def head_page(mem: Mem, rel: str = FACTS) -> str:
    return mem.git("show", f"HEAD:{rel}")


def changed_in_head(mem: Mem) -> str:
    """The lines HEAD's commit added or removed (no headers)."""
    diff = mem.git("show", "--format=", "--unified=0", "HEAD")
    return "\n".join(ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---")))


def added(diff: str) -> list[str]:
    return [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


# -- 5: a lost update --------------------------------------------------------------------------
@FAULT
def test_a_line_committed_while_remember_waits_for_the_index_is_kept(mem: Mem, monkeypatch: pytest.MonkeyPatch
                                                                      ) -> None:
    """remember reads the page, then waits for the index lock (its duplicate check); a person commits
    a line meanwhile. The write re-reads under the lock and adds the fact to the new text."""
    mem("remember", "The boiler was serviced in May")
    mem("index")
    mem.write("knowledge/other.md", "# Other\n\nMakes the index stale, so the next search syncs.\n")
    nb = open_notebook(mem.path)
    held = locks.FileLock(nb.state_dir / "index.lock")
    assert held.acquire(timeout=5)
    waiting = threading.Event()
    original = locks.FileLock.acquire

    def acquire(self: locks.FileLock, timeout: float | None = None) -> bool:
        if self is not held and self.path.name == "index.lock":
            waiting.set()  # remember has read the page and now waits for the index
        return original(self, timeout)

    monkeypatch.setattr(locks.FileLock, "acquire", acquire)
    result: dict[str, object] = {}
    worker = threading.Thread(target=lambda: result.update(out=mem.json("remember", "The gate code is 4512")))
    worker.start()
    try:
        assert waiting.wait(30)
        page = mem.path / FACTS
        page.write_text(page.read_text() + "- A person's line, committed meanwhile\n")
        mem.commit("a person's line", FACTS)
    finally:
        held.release()
        worker.join(60)
    assert result["out"]["action"] == "remember"  # type: ignore[index]
    for text in (page.read_text(), head_page(mem)):
        assert "- A person's line, committed meanwhile" in text and "- The gate code is 4512" in text
        assert "The boiler was serviced in May" in text
    assert changed_in_head(mem) == "+- The gate code is 4512"


def test_a_page_rewritten_between_read_and_write_gets_the_change_again(mem: Mem, monkeypatch: pytest.MonkeyPatch
                                                                         ) -> None:
    """The last read before the atomic replace sees a change made after the first: the edit is made again."""
    mem("remember", "First fact")
    nb = open_notebook(mem.path)
    page = mem.path / FACTS
    reads = {"n": 0}
    original = change.current

    def current(nb_: object, rel: str) -> str:
        reads["n"] += 1
        if reads["n"] == 2:  # between the first read and the check just before writing
            page.write_text(page.read_text() + "- Typed by a person just now\n")
        return original(nb_, rel)  # type: ignore[arg-type]

    monkeypatch.setattr(change, "current", current)
    with change.write_lock(nb):
        done = change.apply(nb, {FACTS: lambda text: pages.append(text, "- Second fact")}, "mem: remember Second")
    assert done is not None and done.commit
    assert page.read_text().endswith("- First fact\n- Typed by a person just now\n- Second fact\n")
    assert "Typed by a person" not in head_page(mem) and head_page(mem).endswith("- First fact\n- Second fact\n")


# -- 10: a gitmem commit holds only gitmem's change ------------------------------------------------
@FAULT
def test_an_uncommitted_edit_to_the_page_stays_out_of_the_commit(mem: Mem) -> None:
    mem("remember", "The bins go out on Tuesday")
    page = mem.path / FACTS
    page.write_text(page.read_text() + "- draft: AWS key AKIAIOSFODNN7EXAMPLE, do not commit\n")
    mem.write("code.py", "x = 1\n")
    mem.git("add", "code.py")  # a person's staged work on another file
    out = mem.json("remember", "The recycling goes out on Friday")
    assert out["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert changed_in_head(mem) == "+- The recycling goes out on Friday"
    assert mem.git("show", "--name-only", "--format=", "HEAD").split() == [FACTS]
    assert "AKIA" not in head_page(mem)
    text = page.read_text()  # the work tree: the person's edit and gitmem's change
    assert "- draft: AWS key AKIAIOSFODNN7EXAMPLE, do not commit" in text and "Friday" in text
    assert mem.git("status", "--porcelain").splitlines() == ["A  code.py", f" M {FACTS}"]
    assert added(mem.git("diff", "--", FACTS)) == ["+- draft: AWS key AKIAIOSFODNN7EXAMPLE, do not commit"]


def test_a_page_staged_by_a_person_gets_the_change_and_stays_staged(mem: Mem) -> None:
    mem("remember", "The bins go out on Tuesday")
    page = mem.path / FACTS
    page.write_text(page.read_text() + "- staged by a person\n")
    mem.git("add", FACTS)
    mem("remember", "The recycling goes out on Friday")
    assert changed_in_head(mem) == "+- The recycling goes out on Friday"
    staged = mem.git("show", f":{FACTS}")
    assert "- staged by a person" in staged and "Friday" in staged
    assert added(mem.git("diff", "--cached", "--", FACTS)) == ["+- staged by a person"]  # still staged
    assert mem.git("diff", "--", FACTS) == ""


def test_a_version_staged_while_gitmem_commits_stays_staged(mem: Mem) -> None:
    """An attack run (2026-11-27): a `git add` made while gitmem committed (a person's pre-commit hook
    took two seconds) was overwritten by the staged version gitmem had read before. Here the hook
    itself stages a newer version, as the person's own `git add` from another shell would."""
    mem("remember", "The bins go out on Tuesday")
    page = mem.path / FACTS
    page.write_text(page.read_text() + "- S1\n")
    mem.git("add", FACTS)
    hook = mem.path / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\nprintf -- '- S2\\n' >> {FACTS}\nenv -u GIT_INDEX_FILE git add {FACTS}\n")
    hook.chmod(0o755)
    mem("remember", "The recycling goes out on Friday")
    hook.unlink()
    staged = mem.git("show", f":{FACTS}")
    assert "- S1" in staged and "- S2" in staged  # the person's newer staged version, as they staged it
    assert changed_in_head(mem) == "+- The recycling goes out on Friday"


def test_write_daily_and_forget_commit_only_their_change(mem: Mem) -> None:
    mem("write", "notes/plan.md", "--", "- step one")
    plan = mem.path / "notes/plan.md"
    plan.write_text(plan.read_text() + "- a person's step, not committed\n")
    mem("write", "notes/plan.md", "--", "- step two")
    assert changed_in_head(mem) == "+- step two"
    mem("forget", "step one")
    assert changed_in_head(mem) == "-- step one"
    assert plan.read_text().endswith("- a person's step, not committed\n- step two\n")


# -- 6: a tracked page missing from the work tree ------------------------------------------------
@FAULT
@pytest.mark.parametrize("how", ["sparse-checkout", "deleted"])
def test_a_tracked_page_missing_from_the_work_tree_is_never_rewritten_from_nothing(mem: Mem, how: str) -> None:
    mem("remember", "The boiler was serviced in May")
    mem("remember", "The gate code is 4512")
    before = head_page(mem)
    if how == "sparse-checkout":
        mem.git("sparse-checkout", "set", "daily")  # cone mode: the root files and daily/ only
    else:
        (mem.path / FACTS).unlink()
    assert not (mem.path / FACTS).exists()
    head = mem.git("rev-parse", "HEAD")
    result = mem("remember", "The bins go out on Tuesday", code=1)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    expected = {"sparse-checkout": f"error: {FACTS} is tracked but left out of this sparse checkout, so gitmem cannot "
                                   "read it; nothing was written (bring it in (git sparse-checkout add knowledge) "
                                   "and run the command again)\n",
                "deleted": f"error: {FACTS} is deleted in the work tree but git still tracks it, so gitmem will not "
                           "rewrite it from nothing; nothing was written (restore it (git restore -- "
                           f"{FACTS}) or commit the deletion (git rm -- {FACTS}), then run the command again)\n"}
    assert result.stderr == expected[how]
    assert mem.git("rev-parse", "HEAD") == head and head_page(mem) == before
    assert not (mem.path / FACTS).exists()
    mem("write", FACTS, "--", "- more", code=1)
    if how == "sparse-checkout":  # the hint works
        mem.git("sparse-checkout", "add", "knowledge")
        mem("remember", "The bins go out on Tuesday")
        assert head_page(mem) == before + "- The bins go out on Tuesday\n"


# -- 12: detached HEAD -----------------------------------------------------------------------------
@FAULT
@pytest.mark.parametrize("how", ["checkout", "bisect"])
def test_a_detached_head_is_refused(mem: Mem, how: str) -> None:
    mem("remember", "The boiler was serviced in May")
    mem("remember", "The gate code is 4512")
    if how == "checkout":
        mem.git("checkout", "-q", "--detach", "HEAD~1")
    else:
        mem.git("bisect", "start", "HEAD", "HEAD~2")
    head = mem.git("rev-parse", "HEAD")
    page = (mem.path / FACTS).read_text()
    result = mem("remember", "The bins go out on Tuesday", code=1)
    why = "a git bisect is under way" if how == "bisect" else "no branch is checked out"
    back = "git bisect reset" if how == "bisect" else "git switch BRANCH"
    assert result.stderr == (f"error: HEAD is detached ({why}): a gitmem commit would be on no branch and left "
                             "behind at the next checkout; nothing was written (go back to a branch "
                             f"({back}), or make one here to keep notes on (git switch -c NAME), then run the "
                             "command again)\n")
    assert mem.git("rev-parse", "HEAD") == head and (mem.path / FACTS).read_text() == page
    mem.git("switch", "-q", "-c", "notes-here") if how == "checkout" else mem.git("bisect", "reset")
    mem("remember", "The bins go out on Tuesday")  # asked for: on a branch it commits
    assert "Tuesday" in head_page(mem)


# -- 13: a stale index.lock ------------------------------------------------------------------------
@FAULT
def test_a_stale_index_lock_is_named_before_anything_is_written(mem: Mem) -> None:
    mem("remember", "The boiler was serviced in May")
    lock = mem.path / ".git" / "index.lock"
    lock.write_text("")  # what a killed git leaves behind
    page = (mem.path / FACTS).read_text()
    result = mem("remember", "The bins go out on Tuesday", code=1)
    assert result.stderr.startswith(f"error: {lock} is left over from a git that stopped ")
    assert result.stderr.endswith("(no git is running in this repository), so neither gitmem nor git can commit; "
                                  f"nothing was written (remove it, then run the command again: rm -f {lock})\n")
    assert (mem.path / FACTS).read_text() == page
    lock.unlink()
    mem("remember", "The bins go out on Tuesday")
    assert "Tuesday" in head_page(mem)


def test_a_change_that_changes_nothing_commits_nothing(mem: Mem) -> None:
    mem("remember", "The boiler was serviced in May")
    nb = open_notebook(mem.path)
    head = mem.git("rev-parse", "HEAD")
    with change.write_lock(nb):
        assert change.apply(nb, {FACTS: lambda text: None}, "mem: nothing") is None
        assert change.apply(nb, {FACTS: lambda text: pages.Edit(text, 1, 1)}, "mem: same") is None
    assert mem.git("rev-parse", "HEAD") == head


def test_apply_reads_a_missing_untracked_page_as_new(mem: Mem) -> None:
    nb = open_notebook(mem.path)
    assert change.current(nb, "brand/new.md") == ""


# -- a page with CRLF line ends keeps them ------------------------------------------------------
def test_a_crlf_page_keeps_crlf_through_remember_write_and_forget(mem: Mem) -> None:
    """A page written on Windows (every line CRLF) gets gitmem's lines with CRLF too, in the work
    tree and in the commit, never a mix."""
    mem.write("notes/win.md", "# Windows\r\n\r\n- typed in Notepad\r\n")
    mem.commit("a page from Windows", "notes/win.md")
    mem("remember", "--to", "notes/win.md", "The printer is on the second floor")
    mem("write", "notes/win.md", "--section", "Later", "--", "- a section of its own")
    mem("forget", "typed in Notepad")
    page = (mem.path / "notes/win.md").read_bytes()
    assert page == (b"# Windows\r\n\r\n- The printer is on the second floor\r\n\r\n"
                    b"## Later\r\n\r\n- a section of its own\r\n")
    assert head_bytes(mem, "notes/win.md") == page


def head_bytes(mem: Mem, rel: str) -> bytes:
    return subprocess.run(["git", "cat-file", "blob", f"HEAD:{rel}"], cwd=mem.path, capture_output=True,
                          check=True).stdout


def test_an_lf_page_and_a_mixed_page_are_left_as_they_are(mem: Mem) -> None:
    mem.write("notes/mixed.md", "# Mixed\r\n\n- one\n")
    mem.commit("mixed", "notes/mixed.md")
    mem("remember", "--to", "notes/mixed.md", "two")
    assert (mem.path / "notes/mixed.md").read_bytes() == b"# Mixed\r\n\n- one\n- two\n"
    assert head_bytes(mem, "notes/mixed.md") == b"# Mixed\r\n\n- one\n- two\n"


@given(st.lists(st.text(alphabet="ab \t#-\r", max_size=8), min_size=1, max_size=6),
       st.text(alphabet="ab\n\r-", max_size=20))
def test_keeping_line_ends_never_leaves_a_bare_lf_in_a_crlf_page(lines: list[str], inserted: str) -> None:
    text = "".join(line.replace("\r", "") + "\r\n" for line in lines)
    made = change.keeping_line_ends(lambda t: pages.Edit(t + inserted + "\n", 1, 1))(text)
    assert made is not None and change.crlf(made.text)
    assert made.text.replace("\r\n", "\n") == (text + inserted + "\n").replace("\r\n", "\n")


def test_without_takes_each_run_nearest_where_it_was_planned_and_never_twice() -> None:
    page = "---\ntags: [x]\n---\n# T\n\nx\ny\n\n---\n\ny\n"
    assert change.without([["---"]], [9])(page).text == "---\ntags: [x]\n---\n# T\n\nx\ny\n\ny\n"
    assert change.without([["x", "y"], ["y"]], [6, 11])(page).text == "---\ntags: [x]\n---\n# T\n\n---\n"
    assert change.without([["---"]])(page).text.startswith("tags: [x]")  # no plan: the first found, as before
    assert change.without([["nowhere"]], [1])(page) is None


def test_a_change_planned_on_a_crlf_work_tree_lands_on_heads_lf_text(mem: Mem) -> None:
    """Under core.autocrlf the work tree has CRLF and HEAD's blob LF: consolidation's change (planned
    on the work tree) merges into HEAD's text with its own line ends instead of conflicting everywhere."""
    nb = open_notebook(mem.path)
    before, after = "# Facts\r\n\r\n- one\r\n- two\r\n", "# Facts\r\n\r\n- one\r\n- two, updated\r\n"
    edit = change.towards(nb, before, after, "knowledge/facts.md")
    at_head = edit("# Facts\n\n- zero\n- one\n- two\n")  # HEAD has a line the work tree's plan never saw
    assert at_head is not None and at_head.text == "# Facts\n\n- zero\n- one\n- two, updated\n"
    in_tree = edit(before)
    assert in_tree is not None and in_tree.text == after
    assert edit(after) is None and edit(after.replace("\r\n", "\n")) is None


@pytest.mark.tally("bad-input/fault matrix")
def test_a_person_commit_landing_mid_write_is_kept(mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitmem builds its commit from HEAD; a commit landing before git reads HEAD is not undone:
    gitmem's commit is taken back. git's index held gitmem's change by then, so the person's
    commit holds it, and gitmem names that commit (built again, the line was there twice)."""
    from tests.test_commits import racing_git

    racing_git(tmp_path, mem.path, monkeypatch).touch()
    out = mem.json("remember", "The spare key is under the blue pot")
    assert mem.git("log", "--format=%s", "-1").splitlines() == ["a person's commit"]
    assert out["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert mem.git("show", "HEAD:pulled.md") == "pulled line\n"
    assert mem.git("show", "HEAD:knowledge/facts.md").count("blue pot") == 1
    assert mem.git("status", "--porcelain") == ""
