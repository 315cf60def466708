"""The notebook: where it is, its settings, and paths confined to it.

Every path a user or agent passes goes through `Notebook.page()`: no `..`,
no absolute or `~` paths, no hidden components (.git), no NUL bytes, no
over-long names, and nothing reached through a symlink. The notebook folder
itself comes from `.gitmem.toml`, which a `git pull` can change, so it gets the
same rules (`Notebook.check_root()`): a real folder inside the work tree, no
symlink in any component from the work tree's top down, never in the git dir.
"""

from __future__ import annotations

import errno
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import config
from .errors import NotText, PageNotFound, PathOutside, UsageError
from .paths import confine, new_name

if TYPE_CHECKING:  # the gateway (gitops) sits above this base module; open_notebook lives there
    from .gitops.git import Git



@dataclass
class Notebook:
    git: Git
    settings: config.Settings

    @property
    def top(self) -> Path:
        assert self.git.top is not None
        return self.git.top

    @property
    def prefix(self) -> str:
        """The notebook folder, repo-relative ("." for the repo root)."""
        return self.settings.path

    @property
    def root(self) -> Path:
        return self.top if self.prefix == "." else self.top / self.prefix

    @property
    def state_dir(self) -> Path:
        """gitmem's own files for this worktree, inside the git dir."""
        return self.git.git_dir / "gitmem"

    @property
    def shared_dir(self) -> Path:
        """gitmem's files shared by every worktree of this clone."""
        return self.git.common_dir / "gitmem"

    def rel(self, repo_path: str) -> str | None:
        """Notebook-relative path of a repo-relative one, None if outside the notebook."""
        if self.prefix == ".":
            return repo_path
        head = self.prefix + "/"
        return repo_path[len(head):] if repo_path.startswith(head) else None

    def repo_path(self, rel: str) -> str:
        return rel if self.prefix == "." else f"{self.prefix}/{rel}"

    def file(self, rel: str) -> Path:
        return self.root / rel

    def check_root(self) -> None:
        """PathOutside unless the notebook folder is a real folder of the work tree: no
        symlink in any of its components (a committed `link -> .git` or `link -> /elsewhere`
        named by a pulled `.gitmem.toml`), inside the top, outside the git dir. Parts not
        made yet are fine: init makes them as plain folders."""
        if self.prefix != ".":
            _no_symlinks(self.top, self.prefix, what=f"the notebook folder {self.prefix!r} (.gitmem.toml)",
                         hint="set notebook.path in .gitmem.toml to a real folder; gitmem never follows symlinks")
        self._inside(self.root, f"the notebook folder {self.prefix!r} (.gitmem.toml)",
                     "set notebook.path in .gitmem.toml to a folder of the work tree")

    def _inside(self, path: Path, what: str, hint: str) -> None:
        """PathOutside unless path resolves inside the work tree and outside the git dir
        (which a `.git` file, a linked worktree or --separate-git-dir can put anywhere)."""
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(Path(os.path.realpath(self.top))):
            raise PathOutside(f"{what} is outside the work tree", hint)
        for inner in {self.git.git_dir, self.git.common_dir}:
            if real.is_relative_to(Path(os.path.realpath(inner))):
                raise PathOutside(f"{what} is inside the git dir", hint)

    def page(self, name: str, must_exist: bool = False, default_suffix: str = ".md") -> str:
        """A confined notebook-relative page path from user input; a name that
        is not a note yet (no suffix, or a dot in it: j.smith) gets `.md`, so
        that what is written is always indexed."""
        rel = confine(name)
        if default_suffix and not self.settings.is_note(rel):
            if not must_exist and not os.path.lexists(self.file(rel + default_suffix)) and \
                    self.file(rel).is_dir() and not self.file(rel).is_symlink():
                # "write knowledge -- ..." made knowledge.md beside the folder without a word (a newcomer's)
                raise UsageError(f"{rel} is a folder of the notebook, not a page",
                                 f"name a page in it, e.g. git mem write {shlex.quote(rel + '/notes.md')} TEXT")
            if not must_exist and rel.lower().endswith(config.DOCUMENT_SUFFIXES):
                # "write notes.txt" made notes.txt.md, titled "Notes.txt", without a word (a newcomer's)
                page = rel[:rel.rfind(".")] + default_suffix
                raise UsageError(f"{rel} names a document, which gitmem reads but never writes",
                                 f"write a page: git mem write {shlex.quote(page)} TEXT")
            rel += default_suffix
        self.check_root()
        _no_symlinks(self.top, self.repo_path(rel))
        self._inside(self.file(rel), rel, "name a page of the notebook, outside the git dir")
        if must_exist and not self.file(rel).is_file():
            raise PageNotFound(f"no page {rel} in the notebook",
                               f"check the name, or create it with: git mem write {shlex.quote(rel)} TEXT")
        if not must_exist and not os.path.lexists(self.file(rel)):
            new_name(rel)  # a page pulled with such a name stays readable; gitmem makes none
        return rel

    def read(self, rel: str) -> str:
        """The page's current text in the work tree ('' if it does not exist)."""
        data = self.read_bytes(rel)
        if data is None:
            return ""
        if b"\0" in data[:8192]:
            raise NotText(f"{rel} is a binary file, not a page of text",
                          "gitmem reads and writes text pages only; name another page")
        return decode(data)

    def read_bytes(self, rel: str) -> bytes | None:
        """A notebook file's bytes (None if it does not exist), opened without following
        any symlink on the way (so a link swapped in after a check cannot lead outside)."""
        try:
            fd = open_nofollow(self.top, self.repo_path(rel))
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENXIO):
                raise PathOutside(f"{rel} is not a regular file", "gitmem never follows symlinks") from exc
            raise
        with os.fdopen(fd, "rb") as handle:
            return handle.read()


def open_nofollow(root: Path, rel: str) -> int:
    """A read-only fd for root/rel, refusing a symlink anywhere below root (ELOOP/ENOTDIR)
    and anything but a regular file (ENXIO). The notebook passes the work tree's top and the
    repo-relative path, so the notebook folder's own components are walked the same way."""
    parts = rel.split("/")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nxt
        # O_NONBLOCK: a FIFO named like a page must not hang the reader
        leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(leaf).st_mode):
        os.close(leaf)
        raise OSError(errno.ENXIO, "not a regular file", rel)
    return leaf


def decode(data: bytes) -> str:
    """Page bytes as text; invalid UTF-8 is replaced, never fatal."""
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def _no_symlinks(top: Path, rel: str, what: str | None = None,
                 hint: str = "gitmem never follows symlinks; use the real path") -> None:
    """PathOutside if any component of top/rel (from top down, top itself excepted) is a
    symlink. lstat, never stat: a link is refused whatever it points at, and a component
    that does not exist yet ends the walk (what is made later is made as a plain folder)."""
    current = top
    for part in rel.split("/"):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError:  # missing, or a file where a folder should be: nothing to follow
            return
        if stat.S_ISLNK(mode):
            raise PathOutside(f"{what or rel} goes through a symlink ({part})", hint)


def notes_among(nb: Notebook, paths: list[str]) -> list[str]:
    """Those of `paths` (relative to the current folder) that are notes of this notebook."""
    top = nb.top.resolve()
    found = []
    for path in paths:
        full = os.path.abspath(path)
        real = Path(os.path.realpath(os.path.dirname(full))) / os.path.basename(full)
        try:
            repo_rel = real.relative_to(top).as_posix()
        except ValueError:
            continue
        rel = nb.rel(repo_rel)
        if rel is not None and nb.settings.is_note(rel):
            found.append(path)
    return found
