"""Answers a process keeps between queries while the index stays the same.

A warm process (the daemon, the MCP server, the web face) asks the index the same small
questions on every query: which texts the notebook now holds, where a text came from, how many
texts hold a word. Their answers change only when the index does, so they are kept per index
*generation* and dropped as soon as it moves.

The generation is read from the files SQLite writes: every commit appends to the WAL (or,
without one, writes the database file), so the device, inode, size and modification time of
`index.db`, and of `index.db-wal` while it holds anything, change with every write, whichever
process or connection made it. (An empty WAL is left out: every reader that opens the database
makes one, and the last to close removes it.)
As git does with its index, a stamp is trusted only when both files were last written more than
RACY_SECONDS before it was taken: a write in the same tick of the file system's clock as the
stamp could leave it as it was. Right after a write, then, nothing is kept until the files settle.
(A connection that watched `PRAGMA data_version` was tried first: staying open, it kept SQLite
from removing the WAL when the last reader closed, so text a purge had overwritten stayed in it.)
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

MAX_ENTRIES = 100_000  # per kind of answer: a kind that grows past it starts again
MAX_INDEXES = 8  # indexes whose answers are kept at once
RACY_SECONDS = 2.0  # as stamp.py and the indexer: some file systems' clocks tick in seconds

Generation = tuple[int, ...]
T = TypeVar("T")
_lock = threading.Lock()
_kept: dict[str, tuple[Generation, dict[Hashable, dict[Any, Any]]]] = {}


def generation(path: Path) -> Generation | None:
    """The stamp of the index file and its WAL now; None when it cannot be trusted (no file, or
    written within RACY_SECONDS)."""
    now = time.time_ns()
    stamp: list[int] = []
    for name in (str(path), f"{path}-wal"):
        try:
            st = os.stat(name)
        except OSError:
            if name == str(path):
                return None
            continue  # no WAL: the database file holds everything
        if name != str(path) and st.st_size == 0:
            continue  # an empty WAL (a reader opened the database; the last to close removes it) holds nothing
        if now - st.st_mtime_ns < RACY_SECONDS * 1e9:
            return None
        stamp += [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    return tuple(stamp)


def kept(path: Path) -> dict[Hashable, dict[Any, Any]]:
    """The answers kept for the index at `path` as it is now, by kind (empty when it moved)."""
    now = generation(path)
    if now is None:
        return {}
    key = str(path)
    with _lock:
        held = _kept.pop(key, None)
        if held is None or held[0] != now:
            held = (now, {})
        _kept[key] = held  # asked last: kept longest
        while len(_kept) > MAX_INDEXES:
            _kept.pop(next(iter(_kept)))
        return held[1]


def of(answers: dict[Hashable, dict[Any, Any]], kind: Hashable, most: int = MAX_ENTRIES) -> dict[Any, Any]:
    """The kept answers of one kind (a new, empty dict the first time, or once it grew past `most`)."""
    found = answers.get(kind)
    if found is None or len(found) > most:
        found = answers[kind] = {}
    return found


def answer(kept: dict[Any, Any], key: Hashable, compute: Callable[[], T]) -> T:
    """The answer kept under `key`, computed (and kept) the first time it is asked."""
    if key not in kept:
        kept[key] = compute()
    found: T = kept[key]
    return found


def forget() -> None:
    """Drop every kept answer (tests)."""
    with _lock:
        _kept.clear()


def _after_fork() -> None:
    global _lock
    _lock = threading.Lock()  # another thread may have held it at the fork


os.register_at_fork(after_in_child=_after_fork)
