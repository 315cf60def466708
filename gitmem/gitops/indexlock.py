"""git's own index.lock: who holds it, a stale one named at once, commands retried while it is held."""

from __future__ import annotations

import os
import random
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GitFailed

if TYPE_CHECKING:
    from .git import Git

LOCK_WAIT = 15.0  # seconds to wait for a git that is running and holds .git/index.lock


class IndexLocked(GitFailed):
    """.git/index.lock is there: left by a git that was killed, or held by one at work."""


def locked(git: Git) -> Path | None:
    """git's index.lock for this worktree, if it is there."""
    lock = git.git_dir / "index.lock"
    return lock if lock.exists() else None


def holders(git: Git) -> list[str] | None:
    """The git processes working in this repository ("pid: command"), which may hold
    index.lock; None where the process table cannot be read (then assume one does)."""
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return None
    top = os.path.realpath(git.top or git.git_dir)
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            # cat-file (GitPython's object readers, ours and other processes') never locks the index
            if os.path.basename(argv[0]) != b"git" or b"cat-file" in argv:
                continue
            cwd = os.path.realpath(entry / "cwd")
        except OSError:
            continue
        if cwd == top or cwd.startswith(top + os.sep):
            found.append(f"{entry.name}: {' '.join(os.fsdecode(a) for a in argv if a)}")
    return found


def check(git: Git) -> None:
    """IndexLocked at once if .git/index.lock was left by a git that is no longer running."""
    lock = locked(git)
    if lock is None or holders(git) != []:
        return
    try:  # look twice: a git may be just starting, or just ending and removing its lock
        seen = lock.stat().st_ino
        time.sleep(0.2)
        if lock.stat().st_ino != seen or holders(git) != []:
            return
        # once more after the process scan: a git that ended meanwhile took its lock along (this
        # stat stood outside the try, so a lock removed here was an internal error, or a lock
        # already gone was named as left over)
        age = max(0, int(time.time() - lock.stat().st_mtime))
    except FileNotFoundError:
        return
    raise IndexLocked(f"{lock} is left over from a git that stopped {_ago(age)} (no git is running in this "
                      "repository), so neither gitmem nor git can commit",
                      f"remove it, then run the command again: rm -f {shlex.quote(str(lock))}")


def free(git: Git) -> bytes:
    """Nothing if index.lock is absent; GitFailed naming it if it is there (for `retry`)."""
    if locked(git):
        raise GitFailed(f"{git.git_dir / 'index.lock'} exists: another git process is at work")
    return b""


def retry(git: Git, action: Callable[[], bytes], wait: float = LOCK_WAIT) -> bytes:
    """Run `action`; while a running git holds index.lock, try again (up to `wait` s).
    A lock no running git holds is stale: said at once, with the fix."""
    deadline = time.monotonic() + wait
    attempt = 0
    while True:
        try:
            return action()
        except GitFailed as exc:
            if "index.lock" not in exc.message:
                raise
            check(git)
            if time.monotonic() >= deadline:
                held = holders(git) or []
                who = f" ({held[0]})" if held else ""
                raise IndexLocked(f"another git process{who} kept {git.git_dir / 'index.lock'} for "
                                  f"{wait:.0f} s: {exc.message}",
                                  "wait for it to finish, then run the command again") from exc
            attempt += 1
            time.sleep(0.05 + random.random() * 0.1 * (1 + min(attempt, 20) / 4))


def _ago(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"
