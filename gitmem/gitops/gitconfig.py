"""What `git config` says, read once with one `git config --list` and asked again without git.

Each read asked git for its settings one `git config --get` at a time: the model directory,
the personal notebook, the daemon switch. A `git` process costs 2.5 ms on an idle benchmark
machine, more under load, and a warm process (the daemon, the MCP server) paid it on every
query: 5-8 ms of a 36 ms daemon recall went to two such calls (2026-11-26). A `Git` now keeps a
snapshot of every setting with a stamp of where they came from, and answers from it while the
stamp holds:

- every file git named as an origin (`--show-origin`: included files too), and where the
  repository's, the user's and the system's config files are (a file that is not there yet
  counts: creating it changes the stamp): size, mtime, ctime and inode;
- the repository's HEAD (an `includeIf "onbranch:..."` follows the branch);
- the variables that point git at other settings (GIT_CONFIG_*, HOME, XDG_CONFIG_HOME).

A file changed within RACY_SECONDS of the read is never trusted (a change in the same clock
tick would look the same: git's "racily clean"), and no snapshot is older than MAX_AGE seconds
(a system config that git's build looks for elsewhere than /etc/gitconfig). gitmem's own
writes (`Git.config_set`, `config_unset`) drop the snapshot.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from . import stamp

if TYPE_CHECKING:
    from .git import Git

RACY_SECONDS = 2.0
MAX_AGE = 30.0
SYSTEM = Path("/etc/gitconfig")
ENV_PREFIXES = ("GIT_CONFIG",)
ENV_NAMES = ("HOME", "XDG_CONFIG_HOME")

Stamp = tuple[object, ...]


class Snapshot:
    """The settings of one repository, as `git config --get` gives them, kept while their files stay."""

    def __init__(self, git: Git) -> None:
        self._git = git
        self._lock = threading.Lock()
        self._values: dict[str, str | None] | None = None
        self._files: list[Path] = []
        self._stamp: Stamp | None = None
        self._taken = 0.0

    def get(self, key: str) -> str | None:
        """The last value of `key` ("" and unset: None), as `git config --get` prints it, stripped."""
        with self._lock:
            values = self._values if self._fresh() else self._read()
        if values is None:  # git could not list its settings (a malformed file): ask it as before
            return self._git.config_get_uncached(key)
        value = values.get(canonical(key))
        return (value.strip() or None) if value is not None else None

    def drop(self) -> None:
        """Forget the settings (gitmem changed them)."""
        with self._lock:
            self._values, self._stamp = None, None

    def _fresh(self) -> bool:
        if self._values is None or self._stamp is None or time.monotonic() - self._taken > MAX_AGE:
            return False
        return _stamp(self._files) == self._stamp

    def _read(self) -> dict[str, str | None] | None:
        started, taken = time.time(), time.monotonic()
        code, out, _ = self._git.call("config", "--list", "--show-origin", "-z")
        if code != 0:
            self._values, self._stamp = None, None
            return None
        values, origins = parse(out, self._git.top or self._git.git_dir)
        self._files = sorted(set(origins) | set(self._where()))
        stamp = _stamp(self._files)
        # a file changed in the last moments may change again in the same clock tick: ask again next time
        trusted = all(e is None or max(e[1], e[2]) / 1e9 < started - RACY_SECONDS  # type: ignore[index]
                      for e in stamp[1:])
        self._values, self._stamp, self._taken = values, (stamp if trusted else None), taken
        return values

    def _where(self) -> list[Path]:
        """Where git looks for settings of this repository, whether the files are there or not."""
        git = self._git
        system = os.environ.get("GIT_CONFIG_SYSTEM")
        files = [git.common_dir / "config", git.git_dir / "config.worktree", git.git_dir / "HEAD", *stamp.user_files()]
        if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
            files.append(Path(system) if system else SYSTEM)
        return files


def canonical(key: str) -> str:
    """A key as `git config --list` names it: section and variable in lower case, a subsection as
    it is ("branch.Main.remote")."""
    section, _, rest = key.partition(".")
    middle, _, variable = rest.rpartition(".")
    return ".".join(p for p in (section.lower(), middle, variable.lower()) if p) if rest else key.lower()


def parse(out: bytes, cwd: Path) -> tuple[dict[str, str | None], list[Path]]:
    """(key -> last value, the files named as origins) of `git config --list --show-origin -z`:
    each entry is ORIGIN NUL KEY [LF VALUE] NUL, a key without a value standing for true."""
    values: dict[str, str | None] = {}
    origins: list[Path] = []
    fields = out.split(b"\0")
    for origin, entry in zip(fields[0::2], fields[1::2]):
        kind, _, where = os.fsdecode(origin).partition(":")
        if kind == "file" and where:
            origins.append(cwd / where)  # an absolute path stays as it is
        key, newline, value = os.fsdecode(entry).partition("\n")
        values[key] = value if newline else ""
    return values, origins


def _stamp(files: list[Path]) -> Stamp:
    """The variables that steer git's settings, then each file's (size, mtime, ctime, inode), None
    for one that is not there."""
    entries: list[object] = [tuple(sorted((k, v) for k, v in os.environ.items()
                                          if k.startswith(ENV_PREFIXES) or k in ENV_NAMES))]
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            entries.append(None)
            continue
        entries.append((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    return tuple(entries)
