"""Inter-process locks (flock on a file in the git dir) and atomic file writes."""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
import time
from pathlib import Path
from types import TracebackType

from ..errors import GitmemError


class LockTimeout(GitmemError):
    pass


class LockUnavailable(GitmemError):
    """The lock file cannot be made: a read-only or full git dir."""


class FileLock:
    """An exclusive flock; the kernel releases it if the holder dies (even SIGKILL)."""

    def __init__(self, path: Path, timeout: float | None = None) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock; False if `timeout` (seconds) passed first. None waits forever."""
        timeout = self.timeout if timeout is None else timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockUnavailable(f"cannot take the lock {self.path}: {exc.strerror or exc}; nothing was changed",
                                  "gitmem keeps its state in the git dir: make it writable (or free space there) "
                                  "and run the command again") from exc
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._fd = fd
                return True
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(0.02)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def held_elsewhere(self) -> bool:
        """Whether another process holds the lock right now."""
        if self._fd is not None:
            return False
        try:
            held = self.acquire(timeout=0)
        except LockUnavailable:  # a read-only git dir: nobody can be writing
            return False
        if held:
            self.release()
            return False
        return True

    def __enter__(self) -> FileLock:
        if not self.acquire():
            raise LockTimeout(f"timed out waiting for {self.path}",
                              "another gitmem process is busy; try again in a moment")
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so readers see the old or the new file, never half.
    The old file's permissions are kept, bar the executable bits: whatever gitmem writes is
    text, and a mode carried over from a replaced script would let git (a hook) run it."""
    atomic_write_all([(path, data)])


def atomic_write_all(files: list[tuple[Path, bytes]]) -> None:
    """Replace several files, in order, each atomically. Every new file is written and synced
    beside its target first (where a full or read-only disk fails, with nothing replaced);
    only then are they renamed into place."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            staged.append((_stage(path, data), path))
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise


def _stage(path: Path, data: bytes) -> str:
    """A synced temporary file beside `path` holding `data`, with the mode `path` has
    (bar the executable bits)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        try:  # one look: a file removed between an exists() and a stat() was an internal error
            mode = path.stat().st_mode & 0o666
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp
