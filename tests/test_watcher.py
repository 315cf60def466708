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
