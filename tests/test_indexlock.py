import subprocess
from pathlib import Path

import pytest

from gitmem.gitops import commits, indexlock
from gitmem.gitops.git import Git
from gitmem.gitops.indexlock import IndexLocked
from tests.conftest import git, live_git_holding_index_lock


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
