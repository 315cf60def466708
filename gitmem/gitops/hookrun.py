"""What a hook starts: the index catch-up, in the background, never failing.

The hook script (hooks/post-hook.sh) starts `git mem hooks run NAME ARGS` (which
offers the work to a warm daemon, else runs index/background.py, the worker's entry
point; a read starts that module directly, see spawn) in the
background and returns; mid-rebase it starts nothing at all. `start()` then
forks twice, and the worker runs in its own session, at low priority, with
stdin/stdout/stderr on /dev/null and every other file descriptor closed, so
that neither git nor whatever ran git (the pre-commit framework, a CI runner
reading git's output) waits for it. The worker

- drops the GIT_* variables git sets for hooks (Git.find does that), so its
  own git commands see the repository, not a temporary index;
- does nothing for a file checkout (post-checkout flag 0) or mid-rebase
  (every pick fires post-commit; the rebase's post-rewrite comes at the end);
- queues: runs coalesce through two locks in the worktree's state dir, so at
  most one worker runs and one waits, whatever fires (a cherry-pick series,
  two worktrees, a script committing in a loop). A worker that finds another
  one waiting leaves: that one reads HEAD only after it gets its turn, so
  nothing is left undone. Before queueing, one worker lets a rebase or
  cherry-pick sequence under way finish (bounded; others that arrive
  meanwhile leave it to that one), so that it indexes the end state and
  never an intermediate one;
- runs `maintenance.catch_up` (history, work tree, embeddings, no download)
  and logs one line per run to .git/gitmem/hooks.log.

Hooks are only an optimisation: every read catches up by itself.
"""

from __future__ import annotations

import os
import subprocess
import time
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..launch import python_command
from .lock import FileLock, atomic_write

if TYPE_CHECKING:  # GitPython is imported only after the fork: the hook's own part stays quick
    from ..notebook import Notebook
    from .git import Git

IN_PROGRESS = ("rebase-merge", "rebase-apply", "sequencer")
BACKGROUND = "background"  # not a hook: a read that left the embedding to a worker (see spawn)
WORKER = "gitmem.index.background"  # the worker's entry point, run as __main__ by launch.BOOT
REBASING = ("rebase-merge", "rebase-apply")
NICENESS = 10  # background work yields the CPU to whatever the user is doing
SETTLE_SECONDS = 30.0  # how long a worker lets a rebase or cherry-pick sequence under way finish
TURN_SECONDS = 600.0  # how long it waits for the running one
LOG_LIMIT = 256 * 1024

# What the worker runs once it has its turn: the index's catch-up, handed in by the caller
# (index/background.py, the worker's entry point), since this gateway layer sits below the
# index. Returns a summary with commit, commits, texts_added, embedded, reused and notes.
CatchUp = Callable[["Notebook", float], Any]


def state_dir(git: Git) -> Path:
    """The same folder as Notebook.state_dir (per worktree)."""
    return git.git_dir / "gitmem"


def run_lock(folder: Path) -> FileLock:
    return FileLock(folder / "hooks-run.lock")


def queue_lock(folder: Path) -> FileLock:
    return FileLock(folder / "hooks-queue.lock")


def settle_lock(folder: Path) -> FileLock:
    return FileLock(folder / "hooks-settle.lock")


def busy(folder: Path) -> bool:
    """Whether a hook's worker is catching the index up right now.

    Only the run lock is probed: a worker waits for it by polling, whereas the
    queue lock is tried once, and a probe holding it for an instant would send
    an arriving worker away with its work undone."""
    return run_lock(folder).held_elsewhere()


def hook_name(name: str | None, args: list[str], environ: dict[str, str]) -> tuple[str, list[str]]:
    """The hook and its arguments; without a name (the pre-commit framework), from PRE_COMMIT_*."""
    if name:
        return name.split(".", 1)[0], args  # post-commit.legacy: pre-commit's name for a hook it chains
    if "PRE_COMMIT_CHECKOUT_TYPE" in environ:
        return "post-checkout", [environ.get("PRE_COMMIT_FROM_REF", ""), environ.get("PRE_COMMIT_TO_REF", ""),
                                 environ["PRE_COMMIT_CHECKOUT_TYPE"]]
    if "PRE_COMMIT_REWRITE_COMMAND" in environ:
        return "post-rewrite", [environ["PRE_COMMIT_REWRITE_COMMAND"]]
    if "PRE_COMMIT_IS_SQUASH_MERGE" in environ:
        return "post-merge", [environ["PRE_COMMIT_IS_SQUASH_MERGE"]]
    return "post-commit", []


def in_progress(git: Git) -> list[str]:
    """The multi-commit operations under way in this worktree (rebase, cherry-pick/revert sequence)."""
    return [name for name in IN_PROGRESS if (git.git_dir / name).exists()]


def skip_reason(git: Git, name: str, args: list[str]) -> str | None:
    """Why this hook firing needs no catch-up, or None."""
    off = switched_off(git) if name != BACKGROUND else None
    if off:
        return f"switched off ({off})"
    return _quick_skip(git.git_dir, name, args)


def _quick_skip(git_dir: Path, name: str, args: list[str]) -> str | None:
    """A rebase fires post-checkout when it starts (the only hook a fast-forwarding rebase fires),
    post-commit for every pick and post-rewrite when it is done: the first one's worker waits for
    the end, the last one's catches up, and the picks in between need nothing."""
    if name == "post-checkout" and args[2:3] == ["0"]:
        return "file checkout"
    rebasing = any((git_dir / op).exists() for op in REBASING)
    if rebasing and name != "post-checkout" and not (name == "post-rewrite" and args[:1] == ["rebase"]):
        return "rebase in progress; its post-rewrite catches up at the end"
    return None


OFF = ("0", "false", "no", "off")  # values that switch the hooks off
SWITCH_KEY = "mem.hooks"  # git config: false switches the hooks off on this machine


def env_off() -> str | None:
    """GITMEM_HOOKS=0 (or false/no/off) in the environment, as text, else None."""
    value = os.environ.get("GITMEM_HOOKS", "")
    return f"GITMEM_HOOKS={value}" if value.strip().lower() in OFF else None


def spawn(top: Path) -> bool:
    """Start the same worker a hook starts, from a read: index/background.py (its module name
    only: this layer never imports the index) in an isolated Python, detached, in its own
    session, with no input or output. It queues with the hooks' workers (at most one runs
    and one waits) and, unlike them, is not switched off by GITMEM_HOOKS or
    mem.hooks: it is what a read asked for, not a hook. False if it could not be started."""
    try:
        subprocess.Popen(python_command(WORKER, BACKGROUND), cwd=top,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        return False
    return True


def start(name: str | None, args: list[str], catch_up: CatchUp) -> None:
    """The hook's entry: detach and return; the worker catches up and exits 0.

    Before forking it checks, without GitPython, for a file checkout or a
    rebase under way (post-hook.sh already did; the pre-commit framework's hook
    did not), so such a firing costs one short-lived process, not two."""
    name, args = hook_name(name, args, dict(os.environ))
    if env_off() and name != BACKGROUND:
        return
    git_dir = _plain_git_dir()
    reason = _quick_skip(git_dir, name, args) if git_dir else None
    if git_dir and reason:
        _log_quietly(git_dir, f"{name}: skipped, {reason}")
        return
    try:
        if not _detach():
            return
    except OSError as exc:  # no fork today (process limit): the next hook or read catches up
        _log_quietly(git_dir or Path(".git"), f"{name}: could not start in the background: {exc}")
        return
    try:
        os.nice(NICENESS)
        work(name, args, catch_up)
    except BaseException:  # noqa: BLE001 - a hook never fails; the log says why
        _log_anywhere(f"{name}: failed\n{traceback.format_exc()}")
    finally:
        os._exit(0)


def _plain_git_dir() -> Path | None:
    """The git dir of the work tree top a hook runs in (.git, or the folder a .git file names)."""
    dot = Path(".git")
    if dot.is_dir():
        return dot
    try:
        line = dot.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(line[len("gitdir:"):].strip()) if line.startswith("gitdir:") else None


def _log_quietly(git_dir: Path, line: str) -> None:
    try:
        HookLog(git_dir / "gitmem").write(line)
    except OSError:
        pass


def _detach() -> bool:
    """Fork twice: False in the caller (which returns at once), True in the worker."""
    if os.fork() > 0:
        return False
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 65536)
    return True


def work(name: str, args: list[str], catch_up: CatchUp, where: str = ".", who: str = "") -> None:
    """What a worker does once detached (and what the warm daemon does when a hook asks it,
    `who` naming it in the log): skip, settle, queue, catch up, log one line."""
    from ..errors import NoNotebook, PathOutside
    from ..gitops.repo import open_notebook
    from .git import Git

    started = time.monotonic()
    name = who + name
    git = Git.find(where)
    log = HookLog(state_dir(git))
    reason = skip_reason(git, name[len(who):], args)
    if reason:
        log.write(f"{name}: skipped, {reason}")
        return
    try:
        nb = open_notebook(git.top or ".", git)
    except NoNotebook:
        log.write(f"{name}: skipped, no notebook here")
        return
    except PathOutside as exc:  # a pulled .gitmem.toml naming a folder through a link: never index there
        log.write(f"{name}: skipped, {exc.line()}")
        return
    settled = settle(git, state_dir(git))
    if settled is None:
        log.write(f"{name}: left it to the worker waiting for the {' and '.join(in_progress(git))} to end")
        return
    if not settled:
        log.write(f"{name}: left it, {' and '.join(in_progress(git))} still under way after "
                  f"{SETTLE_SECONDS:.0f}s; the next hook or read catches up")
        return
    turn = take_turn(state_dir(git))
    if turn is None:
        log.write(f"{name}: left it to the worker already waiting")
        return
    try:
        done = catch_up(nb, TURN_SECONDS)
    finally:
        turn.release()
    log.write(f"{name}: indexed {(done.commit or 'nothing')[:7]}: {done.commits} commits, "
              f"{done.texts_added} new chunks, {done.embedded} embedded, {done.reused} reused, "
              f"{time.monotonic() - started:.2f}s" + "".join(f"; {n}" for n in done.notes))


def settle(git: Git, folder: Path) -> bool | None:
    """Let a rebase or cherry-pick sequence under way finish, for a while.

    True: nothing (any longer) under way; False: still under way after
    SETTLE_SECONDS; None: another worker already waits for it, and queues
    (reading HEAD) only once it ends, so this one's work is covered. Waiting
    happens before queueing, so a waiting worker never sends a later one away."""
    if not in_progress(git):
        return True
    waiting = settle_lock(folder)
    if not waiting.acquire(timeout=0):
        return None
    try:
        deadline = time.monotonic() + SETTLE_SECONDS
        while in_progress(git):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True
    finally:
        waiting.release()


def take_turn(folder: Path) -> FileLock | None:
    """Become the worker that runs next (the run lock, held) or leave (None).

    The queue lock is held from arrival until the run lock is taken, so a
    worker that finds it held knows the holder has not read HEAD yet."""
    queue = queue_lock(folder)
    if not queue.acquire(timeout=0):
        return None
    try:
        run = run_lock(folder)
        return run if run.acquire(timeout=TURN_SECONDS) else None
    finally:
        queue.release()


class HookLog:
    """One line per hook run, in .git/gitmem/hooks.log (kept small)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "hooks.log"

    def write(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(f"{datetime.now().isoformat(timespec='milliseconds')} [{os.getpid()}] {line}\n")
        if self.path.stat().st_size > LOG_LIMIT:
            data = self.path.read_bytes()[-LOG_LIMIT // 2:]
            atomic_write(self.path, data[data.find(b"\n") + 1:])


def _log_anywhere(text: str) -> None:
    from .git import Git

    try:
        HookLog(state_dir(Git.find("."))).write(text)
    except Exception:  # noqa: BLE001 - nowhere left to report it
        pass


def switched_off(git: Git | None) -> str | None:
    """Why hooks should do nothing on this machine (GITMEM_HOOKS=0, mem.hooks=false), or None."""
    off = env_off()
    if off:
        return off
    value = git.config_get(SWITCH_KEY) if git else None
    if value and value.lower() in OFF:
        return f"{SWITCH_KEY}={value}"
    return None
