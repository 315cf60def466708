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
