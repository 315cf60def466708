"""git's own index.lock: who holds it, a stale one named at once, commands retried while it is held;
and the gits that will move HEAD (a person's commit in its editor), waited for."""

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
    found = _gits(git)
    return None if found is None else [f"{pid}: {' '.join(argv)}" for pid, argv, _ in found]


def moving_head(git: Git) -> list[str]:
    """The gits running in this worktree that will move HEAD from where they read it ("pid:
    command"), gitmem's own callers left out: a person's `git commit` with its editor open holds
    no lock (git writes the index before the editor starts) and fails with "cannot lock ref
    'HEAD'" if a gitmem commit lands meanwhile (a git user's run, 2026-11-27)."""
    mine = _ancestors()
    top = os.path.realpath(git.top or git.git_dir)
    return [f"{pid}: {' '.join(argv)}" for pid, argv, cwd in _gits(git) or []
            if pid not in mine and _moves(argv) and _same_repository(cwd, top)]


MOVERS = {"commit", "merge", "rebase", "cherry-pick", "revert", "am", "pull", "reset", "checkout", "switch",
          "stash"}
READS = {"--show-current-patch", "--help", "-h"}  # a mover's options that only show something


def _moves(argv: list[str]) -> bool:
    """Whether a git command line moves HEAD or rewrites the work tree under it (`git stash list`
    left in its pager does neither, and made every write wait: a review)."""
    sub = _subcommand(argv)
    if sub not in MOVERS:
        return False
    rest = argv[argv.index(sub) + 1:]
    return not (sub == "stash" and rest[:1] in (["list"], ["show"]) or READS & set(rest))


def _same_repository(cwd: str, top: str) -> bool:
    """Whether a directory in this worktree belongs to it, not to a repository inside it (a linked
    worktree at .worktrees/feat, a submodule, a nested clone: their commits move their own HEAD)."""
    here = cwd
    while here != top and here.startswith(top + os.sep):
        if os.path.lexists(os.path.join(here, ".git")):
            return False
        here = os.path.dirname(here)
    return True


def await_movers(git: Git, wait: float | None = None) -> None:
    """Return once no git that moves HEAD runs in this worktree; HeadBusy after `wait` s
    (LOCK_WAIT if None)."""
    wait = LOCK_WAIT if wait is None else wait
    deadline = time.monotonic() + wait
    while busy := moving_head(git):
        if time.monotonic() >= deadline:
            raise HeadBusy(f"a git command is running in this repository and will move HEAD when it ends "
                           f"({busy[0]}); gitmem waited {wait:.0f} s and committed nothing, so that it "
                           "does not fail",
                           "finish it (close the commit message's editor; a git suspended with Ctrl-Z: fg), then "
                           "run the command again")
        time.sleep(0.1)


class HeadBusy(GitFailed):
    """A person's git command that moves HEAD is running (a commit with its editor open)."""


def _gits(git: Git) -> list[tuple[int, list[str], str]] | None:
    """(pid, argv, directory) of each git process whose directory is in this worktree; None
    without /proc."""
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
            found.append((int(entry.name), [os.fsdecode(a) for a in argv if a], cwd))
    return found


def _subcommand(argv: list[str]) -> str | None:
    """git's subcommand in its command line: `git -c k=v -C dir commit -q` -> "commit"."""
    words = iter(argv[1:])
    for word in words:
        if word in ("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _ancestors() -> set[int]:
    """This process and those it runs under: gitmem called from a person's git (a hook) must not
    wait for that git."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the name (which may hold spaces)
        except (OSError, ValueError, IndexError):
            break
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
