"""A folder tree watched with inotify: whether anything in it changed since it was last listed.

A warm process takes a work tree's stamp before every read (stamp.py), and listing the notebook's
folders with a `stat` of every name was most of what a warm query spent on the catch-up (6.6 ms
of 8 at 900 files, idle). git's own `fsmonitor--daemon` answers the same question from the
kernel's file events; this does that for one process: each folder is watched before it is
listed, so any change after its listing raises an event, and while no event came the last
listing still stands. Any event, a lost one (the queue overflowed) or a folder that could not be
watched means listing again. inotify_simple (a thin ctypes wrapper, Linux only) is used where it
imports; elsewhere every stamp lists the tree, as before.
"""

from __future__ import annotations

import threading
from typing import Any

MAX_WATCHERS = 8  # trees watched at once per process (a user may have 128 inotify instances in all)
EVENTS = ("MODIFY", "ATTRIB", "CLOSE_WRITE", "MOVED_FROM", "MOVED_TO", "CREATE", "DELETE",
          "DELETE_SELF", "MOVE_SELF")

_lock = threading.Lock()
_watching: dict[str, Watcher] = {}


class Watcher:
    """The inotify watches over one listing of a tree, and what that listing found."""

    def __init__(self, notify: Any, mask: int) -> None:
        self.notify = notify
        self.mask = mask
        self.listing: Any = None  # what the caller found while the watches were added
        self.broken = False

    def add(self, folder: str) -> None:
        """Watch a folder: call before listing it."""
        if self.broken:
            return
        try:
            self.notify.add_watch(folder, self.mask)
        except OSError:  # the user's watch limit, a folder gone or unreadable: list every time
            self.broken = True

    def quiet(self) -> bool:
        """Whether no change came since the watches were added (reads the events waiting)."""
        if self.broken or self.listing is None:
            return False
        try:
            events = self.notify.read(timeout=0)
        except OSError:
            events = None
        # a `.git` entry in the top folder is git's own: what changes in it is stamped apart
        if events is None or any(e.name != ".git" for e in events):
            self.listing = None  # stale until listed again
            return False
        return True

    def close(self) -> None:
        self.notify.close()


def start(root: str) -> Watcher | None:
    """A new watcher for the tree at `root` (replacing any before), None where inotify is not
    to be had; add its folders, then set `listing`."""
    try:
        from inotify_simple import INotify, flags
    except (ImportError, AttributeError, OSError):  # not Linux, or no libc inotify
        return None
    with _lock:
        old = _watching.pop(root, None)
        if old is not None:
            old.close()
        while len(_watching) >= MAX_WATCHERS:
            _watching.pop(next(iter(_watching))).close()
        try:
            notify = INotify()
        except OSError:  # the user's instance limit
            return None
        mask = 0
        for name in EVENTS:
            mask |= getattr(flags, name)
        found = _watching[root] = Watcher(notify, mask)
        return found


def quiet(root: str) -> Any:
    """The listing kept for `root` when nothing in it changed since, else None."""
    with _lock:
        held = _watching.get(root)
        if held is None:
            return None
        _watching[root] = _watching.pop(root)  # asked last: kept longest
    return held.listing if held.quiet() else None


def forget() -> None:
    """Close every watcher (tests)."""
    with _lock:
        for held in _watching.values():
            held.close()
        _watching.clear()

