"""The git hooks that keep the index current: install, uninstall, status.

post-commit, post-merge, post-checkout and post-rewrite each get the same
tiny POSIX sh script (hooks/post-hook.sh at the top of the repository, shipped
as gitmem.hookscripts): it starts `git mem hooks run NAME` in the
background with no input or output and returns at once, then runs the hook
that was there before gitmem, kept beside it as `NAME.gitmem-chained`, with
git's arguments and input, and keeps its exit status. After a merge or a rebase
it first runs `git mem hooks pulled` in the foreground (notes/pulled.py: what came
in that the write guard would refuse, on stderr). The script names the
Python interpreter gitmem was installed with, so hooks work from a GUI with a
minimal PATH (falling back to `git-mem` on PATH if that interpreter is gone).
What the background run does is in `hookrun.py`.

The hooks go where git looks for them (`git rev-parse --git-path hooks`,
which honours core.hooksPath). A core.hooksPath that serves more than this
clone (set in global or system config, or a folder inside the work tree,
where hooks are versioned and shared) is refused with a hint unless forced.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import launch
from ..errors import GitmemError
from ..notebook import Notebook
from . import hookrun, merge
from .git import Git
from .lock import atomic_write

HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
SCRIPT = "post-hook.sh"  # in hooks/ (the package gitmem.hookscripts): the same script for all four
PUSH_HOOK = "pre-push"  # refuses a push that would carry a private page (prepush.py)
PUSH_SCRIPT = "pre-push.sh"
MARKER = b"# gitmem-hook v1"
CHAINED = ".gitmem-chained"
PYTHON_LINE = re.compile(rb"^GITMEM_PYTHON=(.*)$", re.MULTILINE)
HOME_LINE = re.compile(rb"^GITMEM_HOME=(.*)$", re.MULTILINE)  # the folder gitmem is imported from


class HooksRefused(GitmemError):
    pass


@dataclass
class Place:
    """Where the hooks go, and why installing there would reach beyond this clone."""

    dir: Path
    hooks_path: str | None  # core.hooksPath as configured, if set
    shared: str | None = None


@dataclass
class HookState:
    name: str
    state: str  # installed | outdated (gitmem's, other interpreter) | missing | other (not gitmem's)
    chained: bool  # a hook that was there before gitmem runs after it


@dataclass
class HooksStatus:
    dir: str
    hooks_path: str | None
    installed: bool  # all four are gitmem's current script, and the interpreter they call is there
    hooks: list[HookState]
    python: str | None  # the interpreter the hooks call
    python_ok: bool
    merge_driver: bool
    switched_off: str | None  # why hooks do nothing here (GITMEM_HOOKS / mem.hooks), if they don't
    driver_fault: str | None = None  # what is wrong with the merge drivers set up (merge.driver_fault)
    notes: list[str] = field(default_factory=list)


@dataclass
class HooksChange:
    dir: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    chained: list[str] = field(default_factory=list)  # existing hooks kept, now run after gitmem's
    removed: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)  # hooks put back as they were
    merge_driver: bool = False  # configured (install) / still configured (uninstall)
    notes: list[str] = field(default_factory=list)


def script(name: str = SCRIPT) -> bytes:
    """A hook script (the post-* hooks' by default), naming the interpreter gitmem runs under now and
    the folder it is imported from."""
    from importlib.resources import files

    template = files("gitmem.hookscripts").joinpath(name).read_text(encoding="utf-8")
    return (template.replace("@PYTHON@", shlex.quote(sys.executable)).replace("@HOME@", shlex.quote(launch.home()))
            .replace("@BOOT@", shlex.quote(launch.BOOT)).encode())


def place(git: Git) -> Place:
    where = Place(git.git_path("hooks"), git.config_get("core.hooksPath"))
    if where.hooks_path:
        scope = git.config_scope("core.hooksPath")
        if scope in ("global", "system"):
            where.shared = f"core.hooksPath is set in your {scope} git config, so {where.dir} serves every repository"
        elif git.top and _inside(where.dir, git.top):
            where.shared = (f"core.hooksPath points into the work tree ({where.hooks_path}), "
                            "where hooks are versioned and shared")
    return where


def _inside(path: Path, top: Path) -> bool:
    try:
        path.resolve().relative_to(top.resolve())
        return True
    except ValueError:
        return False


def install(nb: Notebook, force: bool = False) -> HooksChange:
    """Install the four hooks (chaining any already there) and the merge drivers (pages fact by fact,
    daily logs entry by entry)."""
    git = nb.git
    where = place(git)
    if where.shared and not force:
        raise HooksRefused(
            f"not installing hooks: {where.shared}",
            "add 'git mem hooks run NAME \"$@\" </dev/null >/dev/null 2>&1 &' to those hooks, use the "
            "pre-commit hooks (see docs/git.md), or pass --force to install there (hooks already there are kept)")
    where.dir.mkdir(parents=True, exist_ok=True)
    change = HooksChange(str(where.dir))
    text = script()
    for name in HOOKS:
        _install_one(where.dir, name, text, change)
    _install_one(where.dir, PUSH_HOOK, script(PUSH_SCRIPT), change)
    change.merge_driver = True
    if merge.configure(git):
        change.notes.append(f"configured the {merge.DRIVER} merge driver for daily logs in this clone")
    change.notes.extend(_attributes_note(nb))
    return change


def _attributes_note(nb: Notebook) -> list[str]:
    if not merge.attributes_missing(nb.root, nb.settings):
        return []
    return [f"this notebook's .gitattributes does not send daily logs to the {merge.DRIVER} driver yet; "
            "run 'git mem init' to add the lines (and commit them)"]


def _install_one(folder: Path, name: str, text: bytes, change: HooksChange) -> None:
    path, kept = folder / name, folder / (name + CHAINED)
    current = _read(path)
    if current == text:
        change.unchanged.append(name)
        return
    if current is not None and MARKER not in current:
        if os.path.lexists(kept):
            change.notes.append(f"{name} is not gitmem's and {kept.name} already exists; left both alone "
                                f"(move one of them away and run 'git mem hooks install' again)")
            return
        os.replace(path, kept)  # the rename keeps its mode and content byte for byte
        change.chained.append(name)
    atomic_write(path, text)
    os.chmod(path, 0o755)
    change.written.append(name)


def uninstall(nb: Notebook) -> HooksChange:
    """Remove gitmem's hooks, put back the ones they chained, drop the merge driver config."""
    git = nb.git
    folder = git.git_path("hooks")
    change = HooksChange(str(folder))
    for name in (*HOOKS, PUSH_HOOK):
        path, kept = folder / name, folder / (name + CHAINED)
        current = _read(path)
        if current is None or MARKER not in current:
            if os.path.lexists(kept):
                change.notes.append(f"{name} is no longer gitmem's; left {kept.name} for you to restore")
            continue
        if os.path.lexists(kept):
            os.replace(kept, path)
            change.restored.append(name)
        else:
            path.unlink()
            change.removed.append(name)
    merge.unconfigure(git)
    change.merge_driver = False
    return change


def status(nb: Notebook) -> HooksStatus:
    git = nb.git
    where = place(git)
    text = script()
    states, pythons = [], set()
    for name in (*HOOKS, PUSH_HOOK):
        path = where.dir / name
        current = _read(path)
        if current is None:
            state = "missing"
        elif MARKER not in current:
            state = "other"
        else:
            wanted = script(PUSH_SCRIPT) if name == PUSH_HOOK else text
            state = "installed" if _same_but_python(current, wanted) else "outdated"
            found = PYTHON_LINE.search(current)
            if found:
                pythons.add(os.fsdecode(found.group(1)))
        states.append(HookState(name, state, os.path.lexists(where.dir / (name + CHAINED))))
    python = _shell_word(sorted(pythons)[0]) if pythons else None
    runs = bool(python and os.access(python, os.X_OK))
    result = HooksStatus(str(where.dir), where.hooks_path, all(s.state == "installed" for s in states) and runs,
                         states, python, runs,
                         merge.configured(git) is not None, hookrun.switched_off(git), merge.driver_fault(git))
    _advise(result, where)
    result.notes.extend(_attributes_note(nb))
    return result


def _same_but_python(current: bytes, wanted: bytes) -> bool:
    """Whether a hook is this version's script, whichever interpreter (and gitmem folder) it calls:
    installed from another venv it is current, and `_advise` says if that interpreter is gone."""
    def plain(text: bytes) -> bytes:
        return HOME_LINE.sub(b"GITMEM_HOME=", PYTHON_LINE.sub(b"GITMEM_PYTHON=", text))
    return plain(current) == plain(wanted)


def _advise(result: HooksStatus, where: Place) -> None:
    missing = [s.name for s in result.hooks if s.state != "installed"]
    if missing:
        result.notes.append(f"not installed or not current: {', '.join(missing)}; run 'git mem hooks install'"
                            + (" --force" if where.shared else ""))
    if result.python and not result.python_ok:
        result.notes.append(f"the hooks call {result.python}, which is gone; run 'git mem hooks install' again")
    if not result.merge_driver:
        result.notes.append(f"the {merge.DRIVER} and {merge.FACTS_DRIVER} merge drivers are not set up in this clone, "
                            "so concurrent facts and daily-log appends will conflict; run 'git mem hooks install'")
    elif result.driver_fault:
        result.notes.append(f"{result.driver_fault}: a merge would leave each page unmerged without markers; "
                            "run 'git mem hooks install'")
    if result.switched_off:
        result.notes.append(f"hooks do nothing here: {result.switched_off}")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _shell_word(value: str) -> str:
    try:
        parts = shlex.split(value)
    except ValueError:
        return value
    return parts[0] if parts else value


def summary(nb: Notebook) -> dict[str, object]:
    """The hooks part of `git mem status`."""
    s = status(nb)
    return {"installed": s.installed, "dir": s.dir, "merge_driver": s.merge_driver and not s.driver_fault,
            "missing": [h.name for h in s.hooks if h.state != "installed"], "switched_off": s.switched_off}
