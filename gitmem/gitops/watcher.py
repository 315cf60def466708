"""A folder tree watched with inotify: whether anything in it changed since it was last listed.

A warm process takes a work tree's stamp before every read (stamp.py), and listing the notebook's
folders with a `stat` of every name was most of what a warm query spent on the catch-up (6.6 ms
of 8 at 900 files, idle). git's own `fsmonitor--daemon` answers the same question from the
kernel's file events; this does that for one process: each folder is watched before it is
listed, so any change after its listing raises an event, and while no event came the last
listing still stands. Any event, a lost one (the queue overflowed) or a folder that could not be
watched means listing again. A tree that reached the user's inotify limits (a clone of very many
folders) is walked without watches for RETRY_SECONDS before they are tried again.

Where events may never come, every stamp lists the tree, as before: without inotify_simple (a
thin ctypes wrapper, Linux only), and on a file system that is not known to be local (NFS, CIFS,
FUSE mounts such as sshfs, a VM's shared folder: a change made on another machine raises no
event here; git's fsmonitor refuses network mounts for the same reason).

A daemon answers on threads: a watcher is filled by the walk that made it and published only
when that walk finished, and reading its events marks it spent under its own lock, so one
thread never drains the events another needed.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from typing import Any

MAX_WATCHERS = 8  # trees watched at once per process (a user may have 128 inotify instances in all)
RETRY_SECONDS = 300.0  # after the user's inotify limits were reached for a tree: walk it until then
EVENTS = ("MODIFY", "ATTRIB", "CLOSE_WRITE", "MOVED_FROM", "MOVED_TO", "CREATE", "DELETE",
          "DELETE_SELF", "MOVE_SELF")
# file systems whose changes all pass through this kernel (/proc/self/mountinfo's type field)
LOCAL = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs", "jfs",
                   "reiserfs", "bcachefs", "ramfs"})

_lock = threading.Lock()
_watching: dict[str, Watcher] = {}
_local: dict[str, bool] = {}
_refused: dict[str, float] = {}  # root -> when the user's watch or instance limit was reached for it


class Watcher:
    """The inotify watches over one listing of a tree, and what that listing found."""

    def __init__(self, notify: Any, mask: int) -> None:
        self.notify = notify
        self.mask = mask
        self.listing: Any = None  # what the walk found while the watches were added
        self.spent = False  # an event came (or could not be read): the listing is stale for good
        self.limited = False  # a folder could not be watched for the user's watch limit
        self.lock = threading.Lock()

    def add(self, folder: str) -> bool:
        """Watch a folder: call before listing it. False when it cannot be watched."""
        try:
            self.notify.add_watch(folder, self.mask)
        except OSError as exc:  # the user's watch limit, a folder gone or unreadable
            self.limited = exc.errno in (errno.ENOSPC, errno.ENOMEM)
            return False
        except ValueError:  # closed by another thread meanwhile
            return False
        return True

    def quiet(self) -> Any:
        """The listing, when no change came since the watches were added; else None."""
        with self.lock:
            if not self.spent:
                try:
                    events = self.notify.read(timeout=0)
                except (OSError, ValueError):  # closed by another thread meanwhile
                    events = None
                # a `.git` entry in the top folder is git's own: what changes in it is stamped apart
                self.spent = events is None or any(e.name != ".git" for e in events)
            return None if self.spent else self.listing

    def close(self) -> None:
        with self.lock:
            self.spent = True
            self.notify.close()  # closing twice is harmless (a FileIO)


def start(root: str) -> Watcher | None:
    """A new watcher for the tree at `root`, not yet published; None where events cannot be
    trusted or inotify is not to be had. Add its folders while listing them, then publish it."""
    if not _is_local(root) or _refusing(root):
        return None
    try:
        from inotify_simple import INotify, flags
    except (ImportError, AttributeError, OSError):  # not Linux, or no libc inotify
        return None
    try:
        notify = INotify()
    except OSError:  # the user's instance limit
        refuse(root)
        return None
    mask = 0
    for name in EVENTS:
        mask |= getattr(flags, name)
    return Watcher(notify, mask)


def publish(root: str, watcher: Watcher, listing: Any) -> None:
    """Keep a watcher whose walk finished, with what it found (replacing any before)."""
    watcher.listing = listing
    with _lock:
        old = _watching.pop(root, None)
        while len(_watching) >= MAX_WATCHERS:
            _watching.pop(next(iter(_watching))).close()
        _watching[root] = watcher
    if old is not None:
        old.close()


def quiet(root: str) -> Any:
    """The listing kept for `root` when nothing in it changed since, else None."""
    with _lock:
        held = _watching.get(root)
        if held is None:
            return None
        _watching[root] = _watching.pop(root)  # asked last: kept longest
    return held.quiet()


def refuse(root: str) -> None:
    """The user's inotify limits were reached for this tree: walk it without a watcher for
    RETRY_SECONDS (a clone of very many folders would otherwise fill the watch table again on
    every stamp, and take watches other programs need)."""
    with _lock:
        _refused[root] = time.monotonic()


def _refusing(root: str) -> bool:
    with _lock:
        since = _refused.get(root)
        if since is not None and time.monotonic() - since >= RETRY_SECONDS:
            del _refused[root]
            since = None
    return since is not None


def _is_local(root: str) -> bool:
    """Whether the tree's file system is one whose changes all raise events here."""
    with _lock:
        known = _local.get(root)
    if known is None:
        known = _mount_type(os.path.realpath(root)) in LOCAL
        with _lock:
            _local[root] = known
    return known


def _mount_type(path: str) -> str | None:
    """The type of the file system mounted deepest above `path` (/proc/self/mountinfo)."""
    best, kind = "", None
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                fields = line.split()
                if " - " not in line or len(fields) < 5:
                    continue
                point = fields[4].replace("\\040", " ")
                after = line.split(" - ", 1)[1].split()
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if after and inside and len(point) >= len(best):
                    best, kind = point, after[0]
    except OSError:
        return None
    return kind


def forget() -> None:
    """Close every watcher (tests)."""
    with _lock:
        held = list(_watching.values())
        _watching.clear()
        _local.clear()
        _refused.clear()
    for watcher in held:
        watcher.close()


def _after_fork() -> None:
    # a forked child (hookrun detaching) may close every inherited descriptor: its copies of the
    # watchers are not to be used, nor closed later (the numbers may name other files by then)
    global _lock
    _lock = threading.Lock()
    _watching.clear()


os.register_at_fork(after_in_child=_after_fork)
