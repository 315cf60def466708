"""gitops/stamp.py: a warm process answers `git status` from its stamp only while nothing changed."""

import os
import time
from pathlib import Path

import pytest

from gitmem.gitops import stamp, watcher
from gitmem.gitops.git import Git
from tests.conftest import git


@pytest.fixture(autouse=True, params=["watched", "walked"])
def watching(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: with the folder watcher (inotify), and walking the tree on every stamp
    as where inotify is not to be had."""
    watcher.forget()
    if request.param == "walked":
        monkeypatch.setattr(watcher, "start", lambda root: None)
    return str(request.param)


@pytest.fixture
def counted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Git, list[str]]:
    """A repository with one committed page, its files dated in the past, and a Git whose real
    `git status` runs are counted; the racy window off, so that the stamp is trusted at once."""
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    monkeypatch.setattr(stamp, "_kept", {})
    monkeypatch.setattr(stamp, "_asked", set())
    (repo / "notes").mkdir()
    (repo / "notes" / "a.md").write_text("alpha\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a")
    g = Git.find(repo)
    runs: list[str] = []
    real = g._status

    def status(prefix: str) -> list[str]:
        runs.append(prefix)
        return real(prefix)

    monkeypatch.setattr(g, "_status", status)
    return g, runs


def _age(path: Path, seconds: float) -> None:
    when = time.time() - seconds
    os.utime(path, (when, when))


def test_a_second_ask_keeps_the_answer_until_a_file_changes(counted: tuple[Git, list[str]], repo: Path) -> None:
    g, runs = counted
    assert g.status(".") == [] and g.status(".") == [] and g.status(".") == []
    assert len(runs) == 2  # the first ask never stamps (a cold process asks once); the third is kept
    page = repo / "notes" / "a.md"
    page.write_text("alphA\n")  # same size
    _age(page, 50)
    assert g.status(".") == ["notes/a.md"]
    assert len(runs) == 3


def test_a_new_file_a_commit_and_an_ignore_rule_are_seen(counted: tuple[Git, list[str]], repo: Path) -> None:
    g, runs = counted
    g.status(".")
    g.status(".")
    (repo / "notes" / "b.md").write_text("beta\n")
    assert g.status(".") == ["notes/b.md"]
    assert g.status(".") == ["notes/b.md"] and len(runs) == 3  # kept again
    (repo / ".gitignore").write_text("notes/b.md\n")
    assert g.status("notes") == []
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore b")
    assert g.status(".") == []
    (repo / ".gitignore").unlink()
    assert sorted(g.status(".")) == [".gitignore", "notes/b.md"]


def test_a_staged_change_is_seen(counted: tuple[Git, list[str]], repo: Path) -> None:
    g, _ = counted
    g.status(".")
    g.status(".")
    git(repo, "rm", "-q", "--cached", "notes/a.md")  # git's index changes, the work tree does not
    assert set(g.status(".")) == {"notes/a.md"}  # deleted from the index, untracked in the work tree


def test_a_fresh_change_is_never_trusted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stamp, "_kept", {})
    (repo / "a.md").write_text("new\n")  # changed within RACY_SECONDS: the same clock tick may hide the next one
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) is None
    _age(repo / "a.md", 50)
    os.utime(repo, (time.time() - 50,) * 2)
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) is not None


def test_too_many_names_are_not_walked(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    monkeypatch.setattr(stamp, "MAX_ENTRIES", 3)
    for i in range(5):
        (repo / f"{i}.md").write_text("x")
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) is None


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    listed: list[str] = []
    real = os.scandir

    def scandir(path: str) -> object:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(stamp.os, "scandir", scandir)
    return listed


def test_a_watched_tree_is_walked_again_only_after_a_change(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                           watching: str) -> None:
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    (repo / "notes" / "deep").mkdir(parents=True)
    page = repo / "notes" / "deep" / "a.md"
    page.write_text("alpha\n")
    listed = _walks(monkeypatch)
    first = stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    walks = len(listed)
    assert first is not None and walks == 3  # the top, notes, notes/deep
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) == first
    assert len(listed) == (walks if watching == "watched" else 2 * walks)
    with page.open("r+") as f:  # in place, same size
        f.write("alphA")
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) != first


def test_a_folder_made_after_the_walk_is_watched_too(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    (repo / "new").mkdir()
    (repo / "new" / "b.md").write_text("beta\n")
    before = stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    assert before is not None and stamp.take(repo, repo / ".git", repo / ".git", ".", None) == before
    with (repo / "new" / "b.md").open("r+") as f:
        f.write("betA")
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) != before


def test_a_file_system_that_may_not_raise_events_is_walked_every_time(repo: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """NFS, CIFS, sshfs: a change made on another machine raises no event here."""
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    monkeypatch.setattr(watcher, "_mount_type", lambda path: "nfs")
    listed = _walks(monkeypatch)
    stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    walks = len(listed)
    stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    assert walks > 0 and len(listed) == 2 * walks


def test_threads_taking_stamps_while_a_page_changes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon takes stamps on several threads: none fails, and the change is seen after it."""
    import threading

    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    (repo / "notes").mkdir()
    page = repo / "notes" / "a.md"
    page.write_text("alpha\n")
    before = stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    failures: list[BaseException] = []

    def take() -> None:
        try:
            for _ in range(40):
                stamp.take(repo, repo / ".git", repo / ".git", ".", None)
        except BaseException as exc:  # noqa: BLE001 (reported by the assertion below)
            failures.append(exc)

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    with page.open("r+") as f:
        f.write("alphA")
    for t in threads:
        t.join()
    assert failures == []
    after = stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    assert before is not None and after is not None and after != before
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) == after
