"""gitops/watcher.py: the folder watcher behind a warm process's stamp (most of its behaviour is
tested through the stamp, in test_stamp.py, with and without the watcher)."""

from pathlib import Path

import pytest

from gitmem.gitops import stamp, watcher


def test_the_users_watch_limit_is_remembered(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree that filled the user's inotify watch table is walked without watches for a while,
    instead of filling the table again on every stamp; the stamps stay right meanwhile."""
    import errno

    from inotify_simple import INotify

    watcher.forget()
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    (repo / "notes").mkdir()
    page = repo / "notes" / "a.md"
    page.write_text("alpha\n")
    tried: list[str] = []

    def full(self: INotify, path: str, mask: int) -> int:
        tried.append(path)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(INotify, "add_watch", full)
    first = stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    assert first is not None and len(tried) == 1  # the walk went on without watches
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) == first
    assert len(tried) == 1  # not tried again
    with page.open("r+") as f:  # walked, so an in-place edit is still seen
        f.write("alphA")
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) != first
    monkeypatch.setattr(watcher, "RETRY_SECONDS", 0.0)
    stamp.take(repo, repo / ".git", repo / ".git", ".", None)
    assert len(tried) == 2  # tried again once the time passed
    watcher.forget()


def test_a_change_seen_by_one_reader_is_seen_by_every_reader(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon's threads share a watcher: the thread that reads the change's events must not leave
    the other ones with a listing that looks current (the events are gone for them)."""
    watcher.forget()
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    page = repo / "a.md"
    page.write_text("alpha\n")
    assert stamp.take(repo, repo / ".git", repo / ".git", ".", None) is not None
    assert watcher.quiet(str(repo)) is not None  # nothing changed: the listing stands
    with page.open("r+") as f:
        f.write("alphA")
    assert watcher.quiet(str(repo)) is None  # this reader drains the events...
    assert watcher.quiet(str(repo)) is None  # ...and the next one, with none left to read, knows too
    watcher.forget()


def test_a_stamp_taken_during_another_ones_walk_is_whole(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another thread asks while a walk is half done (forced here by asking from inside the walk): it
    does not get the half listing, and nothing is closed under the walk."""
    import os

    watcher.forget()
    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)
    for name in ("one", "two"):
        (repo / name).mkdir()
        (repo / name / "a.md").write_text(f"{name}\n")
    whole = stamp._listing(str(repo))
    watcher.forget()
    assert whole is not None
    real = os.scandir
    during: list[object] = []

    def scandir(path: str) -> object:
        if not during:
            during.append(None)  # once: the ask in the middle of the walk
            during[0] = stamp._listing(str(repo))
        return real(path)

    monkeypatch.setattr(stamp.os, "scandir", scandir)
    outer = stamp._listing(str(repo))
    monkeypatch.setattr(stamp.os, "scandir", real)
    assert during[0] == whole and outer == whole
    assert watcher.quiet(str(repo)) == whole  # the last walk to finish is kept, with its watches open
    with (repo / "two" / "a.md").open("r+") as f:
        f.write("TWO")
    assert watcher.quiet(str(repo)) is None
    watcher.forget()
