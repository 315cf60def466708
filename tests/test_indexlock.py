import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from gitmem.gitops import commits, indexlock
from gitmem.gitops.git import Git
from gitmem.gitops.indexlock import IndexLocked
from tests.conftest import Mem, git, live_git_holding_index_lock


def test_index_lock_contention_is_retried(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)
    person = live_git_holding_index_lock(repo, 0.6)  # a running git holds the lock: wait for it
    (repo / "a.md").write_text("a")
    try:
        commits.commit(g, ["a.md"], "after the lock")
    finally:
        person.wait()
    assert git(repo, "log", "--format=%s") == "after the lock\na person's commit\na person's file\nstart\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_a_stale_index_lock_is_named_at_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock no running git holds (a killed git left it) is said at once, with a fix that works."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    (repo / "a.md").write_text("a")
    g = Git.find(repo)
    slept: list[float] = []
    real_sleep = indexlock.time.sleep
    monkeypatch.setattr(indexlock.time, "sleep", lambda s: (slept.append(s), real_sleep(s)))
    with pytest.raises(IndexLocked) as err:
        commits.commit(g, ["a.md"], "blocked")
    monkeypatch.setattr(indexlock.time, "sleep", real_sleep)
    assert slept == [0.2]  # the one second look at the lock, and no retries (they went on for 14 s)
    assert "is left over from a git that stopped" in err.value.message
    assert err.value.hint == f"remove it, then run the command again: rm -f {lock}"
    subprocess.run(["sh", "-c", err.value.hint.split(": ", 1)[1]], cwd=repo, check=True)  # the fix works
    commits.commit(g, ["a.md"], "after the fix")
    assert git(repo, "log", "-1", "--format=%s") == "after the fix\n"


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("when", ["during the second process scan", "just after it"])
def test_a_lock_removed_while_it_is_being_checked_is_no_error(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                              when: str) -> None:
    """A git that ends while gitmem looks at its lock takes the lock along: that is no stale lock
    (it was named as one), and never an internal error (a stat of the gone lock raised)."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    g = Git.find(repo)
    scans: list[int] = []

    def holders(_: Git) -> list[str]:
        scans.append(1)
        if len(scans) == 2 and when == "during the second process scan":
            lock.unlink()
        return []

    real_stat = Path.stat

    def stat(path: Path, **kwargs: bool) -> object:
        if path == lock and len(scans) == 2 and when == "just after it":
            lock.unlink(missing_ok=True)  # gone after the scan, before the next look at it
        return real_stat(path, **kwargs)

    monkeypatch.setattr(indexlock, "holders", holders)
    monkeypatch.setattr(Path, "stat", stat)
    indexlock.check(g)  # returns: nothing is left over
    assert len(scans) == 2 and not lock.exists()


def _person_committing(repo: Path, scratch: Path | None = None) -> tuple[subprocess.Popen[bytes], Path]:
    """A person's real `git commit` of a staged file, its message editor open until the returned
    file is created (no index.lock is held meanwhile: git wrote the index before the editor)."""
    (repo / "theirs.md").write_text("a person's page\n")
    git(repo, "add", "theirs.md")
    scratch = scratch or repo.parent
    release, started = scratch / "release", scratch / "editor-started"
    editor = scratch / "editor.sh"
    editor.write_text(f"#!/bin/sh\ntouch {started}\ni=0\nwhile [ ! -e {release} ] && [ $i -lt 600 ]; do "
                      f"sleep 0.05; i=$((i+1)); done\necho \"a person's commit\" > \"$1\"\n")
    editor.chmod(0o755)
    proc = subprocess.Popen(["git", "commit", "-q"], cwd=repo, env={**os.environ, "GIT_EDITOR": str(editor)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(12000):  # bounded, and long enough for a loaded machine: the test needs the editor open
        if started.exists():
            break
        assert proc.poll() is None, "git ended before its editor started"
        time.sleep(0.01)
    assert started.exists(), "git's editor did not start"
    assert not (Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "index.lock").exists()
    return proc, release  # nothing for gitmem to see but the process


def test_a_persons_commit_in_its_editor_lands_before_gitmems(mem: Mem) -> None:
    """gitmem's commit waits for a person's `git commit` whose editor is open: landing first, it
    made theirs fail ("cannot lock ref 'HEAD'") with their staged page left behind."""
    proc, release = _person_committing(mem.path)
    threading.Timer(0.5, release.touch).start()
    mem("remember", "Frank Liu's phone is 555-7777")
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert mem.git("log", "-2", "--format=%s") == "mem: remember Frank Liu's phone is 555-7777\na person's commit\n"
    assert mem.git("show", "--format=", "--name-only", "HEAD~1") == "theirs.md\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_gitmem_gives_up_on_a_long_commit_and_writes_nothing(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor left open past the wait: gitmem says so, writes nothing, and the person's commit lands."""
    monkeypatch.setattr(indexlock, "LOCK_WAIT", 0.3)
    proc, release = _person_committing(mem.path)
    before = mem.git("rev-parse", "HEAD")
    try:
        out = mem("remember", "Frank Liu's phone is 555-7777", code=1).output
    finally:
        release.touch()
    assert proc.wait(timeout=60) == 0
    assert out.startswith("error: a git command is running in this repository and will move HEAD when it ends (")
    assert "git commit -q); gitmem waited 0 s and committed nothing, so that it does not fail" in out
    assert "(finish it (close the commit message's editor; a git suspended with Ctrl-Z: fg), then run the " \
           "command again)" in out
    assert mem.git("rev-parse", "HEAD~1") == before
    assert mem.git("status", "--porcelain") == ""  # the page was not written


def test_a_commit_in_a_worktree_inside_this_one_is_not_waited_for(mem: Mem, monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """A linked worktree at .worktrees/feat (or a submodule, a nested clone) lies under this one's
    folder, but its commits move its own HEAD: a review's remember waited for one, then failed."""
    monkeypatch.setattr(indexlock, "LOCK_WAIT", 0.3)
    (mem.path / ".gitignore").write_text(".worktrees/\n")
    mem.commit("ignore worktrees", ".gitignore")
    mem.git("worktree", "add", "-q", ".worktrees/feat", "-b", "feat")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    proc, release = _person_committing(mem.path / ".worktrees" / "feat", scratch)
    try:
        mem("remember", "Frank Liu's phone is 555-7777")
    finally:
        release.touch()
    assert proc.wait(timeout=60) == 0
    assert mem.git("log", "-1", "--format=%s") == "mem: remember Frank Liu's phone is 555-7777\n"
    assert mem.git("log", "-1", "--format=%s", "feat") == "a person's commit\n"


@pytest.mark.parametrize(("argv", "moves"), [
    (["git", "commit", "-q"], True),
    (["git", "stash"], True),
    (["git", "stash", "pop"], True),
    (["git", "stash", "list"], False),  # in its pager it moves nothing (a review: every write waited)
    (["git", "stash", "show", "-p"], False),
    (["git", "rebase", "--show-current-patch"], False),
    (["git", "commit", "-h"], False),
    (["git", "log", "-p"], False),
])
def test_only_a_command_that_moves_head_is_waited_for(argv: list[str], moves: bool) -> None:
    assert indexlock._moves(argv) is moves


@pytest.mark.parametrize(("argv", "sub"), [
    (["git", "commit", "-q"], "commit"),
    (["git", "-c", "core.editor=vi", "-C", "dir", "rebase", "-i"], "rebase"),
    (["git", "--no-pager", "log", "-1"], "log"),
    (["/usr/bin/git"], None),
])
def test_the_subcommand_is_read_past_gits_own_options(argv: list[str], sub: str | None) -> None:
    assert indexlock._subcommand(argv) == sub


def test_gitmem_under_a_persons_git_does_not_wait_for_it() -> None:
    """A hook's gitmem runs under the git that fired it: that git is among its ancestors."""
    assert {os.getpid(), os.getppid()} <= indexlock._ancestors()
