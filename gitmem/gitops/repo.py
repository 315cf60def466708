"""Opening the notebook of the repository a command runs in."""

from __future__ import annotations

from pathlib import Path

from .. import config
from ..errors import GitmemError, NoNotebook
from ..notebook import Notebook
from .git import Git


def open_notebook(start: Path | str = ".", git: Git | None = None) -> Notebook:
    """The notebook of the repository containing `start` (or of `git`, already found: one
    `git rev-parse` less); NoNotebook if none."""
    git = git or Git.find(start)
    if git.top is None or not (git.top / config.CONFIG_FILE).is_file():
        raise NoNotebook(f"no gitmem notebook in {git.top}", "run 'git mem init' to make one")
    nb = Notebook(git, config.load(git.top))
    nb.check_root()  # a pulled .gitmem.toml must not move the notebook through a symlink or into .git
    return nb


PERSONAL_ENV = "GITMEM_PERSONAL"
PERSONAL_KEY = "mem.personal"


def personal_path(nb: Notebook | None = None) -> Path | None:
    """Where the personal notebook is (GITMEM_PERSONAL, else git config mem.personal), or None."""
    import os

    raw = os.environ.get(PERSONAL_ENV)
    if raw is None and nb is not None:
        raw = nb.git.config_get(PERSONAL_KEY)
    elif raw is None:
        try:
            raw = Git.find(".").config_get(PERSONAL_KEY)
        except GitmemError:
            raw = None
    return Path(raw).expanduser() if raw and raw.strip() else None


def personal_notebook(nb: Notebook | None = None) -> Notebook | None:
    """The personal notebook (its own repository, its own remote) beside the project's, or None when
    none is configured or it is the project itself. NoNotebook if the configured path holds none."""
    where = personal_path(nb)
    if where is None:
        return None
    if not where.is_dir():
        raise NoNotebook(f"the personal notebook {where} (GITMEM_PERSONAL / git config mem.personal) does not exist",
                         f"make it: git mem init {where}")
    personal = open_notebook(where)
    if nb is not None and personal.top.resolve() == nb.top.resolve():
        return None
    return personal


def error_log(start: Path | str = ".") -> Path:
    """Where a bug's traceback goes: the repository's .git/gitmem/error.log, or the user's cache
    when no repository can be opened (the bug may be that it cannot). Every face logs here."""
    import os

    try:
        return Git.find(start).git_dir / "gitmem" / "error.log"
    except Exception:  # noqa: BLE001 - any failure to open the repository: log beside the user's cache
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gitmem" / "error.log"
