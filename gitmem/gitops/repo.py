"""Opening the notebook of the repository a command runs in."""

from __future__ import annotations

from pathlib import Path

from .. import config
from ..errors import NoNotebook
from ..notebook import Notebook
from .git import Git


def open_notebook(start: Path | str = ".") -> Notebook:
    """The notebook of the repository containing `start`; NoNotebook if none."""
    git = Git.find(start)
    if git.top is None or not (git.top / config.CONFIG_FILE).is_file():
        raise NoNotebook(f"no gitmem notebook in {git.top}", "run 'git mem init' to make one")
    nb = Notebook(git, config.load(git.top))
    nb.check_root()  # a pulled .gitmem.toml must not move the notebook through a symlink or into .git
    return nb
