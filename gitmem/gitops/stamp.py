"""A work tree's stamp: whether anything `git status` reads may have changed since it last ran.

Every read catches the index up, and its first step is one `git status` (10-20 ms at 900
files on the benchmark machine, more under load): most of what a warm process (the daemon,
the MCP server) spends on a query when nothing changed. A process that asks twice keeps the
answer with a stamp of everything git's answer depends on, and answers again from it while
the stamp is the same:

- every file and folder under the notebook's folder (type, size, mtime, ctime, inode, in the
  order the folders list them; a folder's mtime changes when a name in it is added, removed or
  renamed), `.git` entries left out;
- the `.gitignore` files above that folder, git's index, HEAD's commit, `.git/info/exclude`,
  the repository's config and the user's git config and ignore files.

It is stricter than git's own check (git trusts size and mtime), and never trusted when a
stamped time is within RACY_SECONDS of the moment the stamp was taken (a change in the same
clock tick would look the same), when the folder holds more than MAX_ENTRIES names (the walk
would cost what it saves), or after MAX_AGE seconds (an ignore file configured elsewhere).
A cold process asks once and never walks. A warm one walks again only when the kernel said
something under the folder changed since its last walk (watcher.py, where inotify is to be had).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from stat import S_ISDIR

from . import watcher

MAX_ENTRIES = 50_000
RACY_SECONDS = 2.0
MAX_AGE = 30.0

Stamp = tuple[object, ...]
_kept: dict[tuple[str, str], tuple[Stamp | None, float, list[str]]] = {}  # (git dir, prefix) -> stamp, when, answer
_asked: set[tuple[str, str]] = set()
_lock = threading.Lock()


def take(top: Path, git_dir: Path, common_dir: Path, prefix: str, head: str | None) -> Stamp | None:
    """The stamp of this work tree's notebook folder now; None when it cannot be trusted."""
    started = time.time()
    entries: list[tuple[str, int, int, int, int, int]] = []
    newest = 0
    root = top if prefix == "." else top / prefix
    # git's side first: just after a commit or an add (a hook's catch-up) it is racy, and the
    # walk would be wasted
    around = [root, *(p / ".gitignore" for p in (root, *root.parents) if top in (p, *p.parents))]
    around += [git_dir / "index", git_dir / "HEAD", common_dir / "info" / "exclude", common_dir / "config",
               *user_files()]
    for path in around:
        try:
            st = os.stat(path)
        except OSError:
            entries.append((str(path), 0, 0, 0, 0, 0))
            continue
        entries.append((str(path), st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    if newest / 1e9 >= started - RACY_SECONDS:
        return None
    listed = _listing(str(root))
    if listed is None:
        return None
    walked, newest_walked = listed
    if max(newest, newest_walked) / 1e9 >= started - RACY_SECONDS:
        return None
    return (head, *entries, *walked)


def _listing(root: str) -> tuple[list[tuple[int, int, int, int, int]], int] | None:
    """(type, size, times and inode of every name under `root`, the newest time among them); the
    last listing again while the folder watcher saw nothing change (watcher.py); None when the
    tree has more than MAX_ENTRIES names or cannot be listed."""
    kept = watcher.quiet(root)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    watch = watcher.start(root)
    try:
        found = _walk(root, watch)
    except BaseException:
        if watch is not None:
            watch.close()
        raise
    if watch is not None:
        if found is None or watch.spent:  # a folder could not be watched (closed by the walk)
            watch.close()
            if watch.limited:
                watcher.refuse(root)
        else:
            watcher.publish(root, watch, found)
    return found


def _walk(root: str, watch: watcher.Watcher | None) -> tuple[list[tuple[int, int, int, int, int]], int] | None:
    """The listing of `root`, each folder watched before it is listed (`watch` is dropped when a
    folder cannot be watched: the listing stands, but only for this stamp)."""
    # names are left out: renaming, adding or removing one changes its folder's mtime, and a
    # folder's entries come in the same order while it is unchanged (any other order: git runs)
    walked: list[tuple[int, int, int, int, int]] = []
    add = walked.append
    newest = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        if watch is not None and not watch.add(folder):
            watch.close()
            watch = None
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    if entry.name == ".git":
                        continue
                    st = entry.stat(follow_symlinks=False)
                    mtime, ctime = st.st_mtime_ns, st.st_ctime_ns
                    add((mtime, ctime, st.st_size, st.st_ino, st.st_mode))
                    if mtime > newest:
                        newest = mtime
                    if ctime > newest:
                        newest = ctime
                    if S_ISDIR(st.st_mode):
                        stack.append(entry.path)
        except OSError:
            return None
        if len(walked) > MAX_ENTRIES:
            return None
    return walked, newest


def user_files() -> list[Path]:
    """The user's git config and ignore files, where git looks for them (there or not)."""
    home = Path(os.environ.get("HOME") or "~").expanduser()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    glob = os.environ.get("GIT_CONFIG_GLOBAL")
    return [Path(glob) if glob else home / ".gitconfig", xdg / "git" / "config", xdg / "git" / "ignore"]


def kept(key: tuple[str, str], now: Stamp | None) -> list[str] | None:
    """The answer kept for this stamp, if it is still the one taken (and not too old)."""
    if now is None:
        return None
    with _lock:
        held = _kept.get(key)
    if held is None or held[0] != now or time.monotonic() - held[1] > MAX_AGE:
        return None
    return list(held[2])


def keep(key: tuple[str, str], stamp: Stamp | None, answer: list[str]) -> None:
    with _lock:
        if stamp is None:
            _kept.pop(key, None)
        else:
            _kept[key] = (stamp, time.monotonic(), list(answer))


def asked_before(key: tuple[str, str]) -> bool:
    """Whether this process asked before (then a stamp pays); notes that it asks now."""
    with _lock:
        seen = key in _asked
        _asked.add(key)
    return seen
