"""The gateway to git: `Git`, a repository and the commands that read it. Only gitops/ runs git,
and always through a `Git` (its other modules, such as commits.py and plumbing.py, take one and
call `Git.run`).

Plain `git` processes (subprocess), no library: importing GitPython cost a cold read 0.57 s of
its start, and a read needs nothing git's own commands do not give. Blobs come from one
long-lived `git cat-file --batch` per repository (what GitPython ran too); HEAD is read from the
ref files. `Git.repo` still hands out a GitPython Repo, imported on first use, for code that
wants one.

Every call passes paths after `--`, reads NUL-separated output as bytes and
decodes names with the filesystem encoding, and runs with literal pathspecs,
so odd file names (spaces, newlines, leading dashes, glob characters) are
safe. Variables that git sets for hooks (GIT_DIR, GIT_INDEX_FILE, ...) are
stripped so they never leak into the git commands gitmem runs itself.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import GitFailed, NotARepo
from . import gitconfig, stamp
from .blame import Blamed
from .blame import parse as _parse_blame
from .catfile import C_LOCALE, CatFile
from .log import LOG_FORMAT, REGULAR_MODES, ZERO, Commit
from .log import parse as _parse_log

# Set by git for hooks and some commands; they would point our own git
# commands at the wrong index, object store or work tree.
LEAKY_VARS = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
    "GIT_NAMESPACE", "GIT_QUARANTINE_PATH", "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_REFLOG_ACTION",
)

_TRAILERS: dict[tuple[str, str], dict[str, str]] = {}  # (git dir, commit) -> its trailers, see Git.trailers
TRAILERS_KEPT = 50_000


@dataclass(frozen=True)
class Entry:
    """A file in a tree: repo-relative path, blob id, mode."""

    path: str
    oid: str
    mode: str


def strip_leaky_env() -> None:
    """Drop the variables git sets for hooks from this process's environment."""
    for name in LEAKY_VARS:
        os.environ.pop(name, None)
    os.environ["GIT_LITERAL_PATHSPECS"] = "1"
    # `git status` would otherwise take .git/index.lock to save refreshed stat data, and a user's
    # `git commit` running at that moment (say, while a hook's worker indexes) would fail.
    os.environ["GIT_OPTIONAL_LOCKS"] = "0"


def blob_id(data: bytes) -> str:
    """The id git gives a blob with these bytes (no filters applied)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _dec(raw: bytes) -> str:
    return os.fsdecode(raw)


# git's messages in English whatever the locale, as GitPython ran it: errors are matched and shown


class Git:
    """A repository and the git operations gitmem needs."""

    def __init__(self, top: Path | None, git_dir: Path, common_dir: Path) -> None:
        self.top = top
        self.git_dir = git_dir
        self.common_dir = common_dir
        self._batch = CatFile(str(top or git_dir), "--batch")
        self._check = CatFile(str(top or git_dir), "--batch-check")
        self._repo: Any = None
        self._config = gitconfig.Snapshot(self)

    @classmethod
    def find(cls, start: Path | str = ".") -> Git:
        """The repository containing `start`; NotARepo if there is none."""
        strip_leaky_env()
        where = Path(start)
        hint = "run 'git mem init' here, or cd into a repository"
        if not where.is_dir():
            raise NotARepo(f"not a git repository: {where.resolve()}", hint)
        proc = subprocess.run(["git", "rev-parse", "--is-bare-repository", "--is-inside-git-dir", "--absolute-git-dir",
                               "--git-common-dir", "--show-toplevel"], cwd=where, env={**os.environ, **C_LOCALE},
                              stdin=subprocess.DEVNULL, capture_output=True)
        lines = os.fsdecode(proc.stdout).split("\n")
        if lines[0] == "true":
            raise NotARepo(f"{lines[2]} is a bare repository; a notebook needs a work tree",
                           "clone it ('git clone') and run git mem there")
        if len(lines) > 1 and lines[1] == "true":
            raise NotARepo(f"{where.resolve()} is inside the git directory; a notebook lives in the work tree",
                           "cd to the work tree (the folder that holds .git) and run the command there")
        lines = lines[:1] + lines[2:]
        if proc.returncode != 0 or len(lines) < 4 or not lines[3]:
            raise NotARepo(f"not a git repository: {where.resolve()}", hint)
        common = Path(lines[2])
        common = common if common.is_absolute() else (where.resolve() / common)
        return cls(Path(lines[3]), Path(lines[1]), Path(os.path.normpath(common)))

    @classmethod
    def init(cls, path: Path) -> Git:
        """Create a repository at `path` (git init)."""
        strip_leaky_env()
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(path)], env={**os.environ, **C_LOCALE}, check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return cls.find(path)

    @property
    def repo(self) -> Any:
        """A GitPython Repo of this repository, for code that wants one (imported on first use:
        no read pays for it)."""
        if self._repo is None:
            import git as gitpython

            self._repo = gitpython.Repo(str(self.top or self.git_dir))
        return self._repo

    def call(self, *args: str, env: dict[str, str] | None = None,
             input: bytes | None = None) -> tuple[int, bytes, bytes]:
        """Run git with these arguments: (exit status, stdout, stderr), whatever the status."""
        full = {**os.environ, **(env or {}), **C_LOCALE}
        proc = subprocess.run(["git", *args], cwd=self.top or self.git_dir, env=full, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL, capture_output=True)
        return proc.returncode, proc.stdout, proc.stderr

    def run(self, *args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> bytes:
        """Run git with these arguments; raw stdout. GitFailed on error."""
        code, out, err = self.call(*args, env=env, input=input)
        if code != 0:
            detail = words(err) or words(out)  # some failures speak on stdout
            verb = next((a for a in args if not a.startswith("-")), args[0])
            raise GitFailed(f"git {verb} failed: {detail or f'exit status {code}'}")
        return out

    # -- reading ---------------------------------------------------------
    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        # the ref files alone, no `git` process: a search asks once per result page
        return _dereference(self.git_dir, self.common_dir, "HEAD")

    def resolve(self, rev: str) -> str | None:
        """The commit `rev` names, or None (also for an option, or a NUL that no argument can carry)."""
        if rev.startswith("-") or "\0" in rev:
            return None
        try:
            return self.run("rev-parse", "--verify", "--quiet", "--end-of-options",
                            f"{rev}^{{commit}}").decode().strip() or None
        except GitFailed:
            return None

    def tree(self, rev: str, prefix: str) -> list[Entry]:
        """Regular files under `prefix` at `rev` (symlinks, submodules left out)."""
        spec = [] if prefix == "." else ["--", prefix]
        raw = self.run("ls-tree", "-r", "-z", "--full-tree", rev, *spec)
        entries = []
        for item in raw.split(b"\0"):
            if not item:
                continue
            meta, _, name = item.partition(b"\t")
            mode, kind, oid = meta.decode().split()
            if kind == "blob" and mode in REGULAR_MODES:
                entries.append(Entry(_dec(name), oid, mode))
        return entries

    def status(self, prefix: str) -> list[str]:
        """Repo-relative paths under `prefix` whose work-tree file differs from HEAD. A process
        that asks again (a warm one) gets the same answer without running git while nothing git
        reads for it has changed (stamp.py)."""
        key = (str(self.git_dir), prefix)
        if self.top is None or not stamp.asked_before(key):
            return self._status(prefix)
        now = stamp.take(self.top, self.git_dir, self.common_dir, prefix, self.head())
        kept = stamp.kept(key, now)
        if kept is not None:
            return kept
        answer = self._status(prefix)  # after the stamp: a change meanwhile makes the next stamp differ
        stamp.keep(key, now, answer)
        return answer

    def _status(self, prefix: str) -> list[str]:
        spec = [] if prefix == "." else ["--", prefix]
        # --no-optional-locks: a read never takes .git/index.lock, so it cannot make a
        # concurrent `git add` or `git commit` (a user's or gitmem's) fail
        raw = self.run("--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all",
                       "--no-renames", "--ignore-submodules", *spec)
        paths = []
        for item in raw.split(b"\0"):
            if len(item) > 3:
                paths.append(_dec(item[3:]))
        return paths

    def read_blob(self, oid: str) -> bytes:
        """A blob's bytes (through one long-lived `git cat-file --batch`); ValueError if missing."""
        return self._batch.ask(oid, body=True)[1]

    def read_blobs(self, oids: Sequence[str], largest: int = 1 << 20) -> dict[str, bytes]:
        """Many blobs' bytes at once, asked without waiting on each (a first index of 100,000 pages
        waited 30 s on one-at-a-time round trips). Best effort: a blob over `largest` bytes, a
        missing one, or any after git failed is left out, for read_blob to read or refuse."""
        return self._batch.ask_many(oids, largest)

    def blob_size(self, oid: str) -> int:
        """A blob's size in bytes, without reading it."""
        return self._check.ask(oid, body=False)[0]

    def blob_or_none(self, oid: str) -> bytes | None:
        """A blob's bytes, or None if the object store lacks it (a file only the work tree had)."""
        try:
            return self.read_blob(oid)
        except ValueError:  # a missing object
            return None

    def show(self, rev: str, path: str) -> bytes | None:
        """A file's bytes at `rev`, or None if it did not exist there."""
        for entry in self.tree(rev, path):
            if entry.path == path:
                return self.read_blob(entry.oid)
        return None

    def first_parent_log(self, head: str, since: str | None, prefix: str) -> Iterator[Commit]:
        """Commits on head's first-parent chain after `since`, oldest first,
        that changed `prefix`, with their changes against the first parent."""
        rng = f"{since}..{head}" if since else head
        spec = [] if prefix == "." else ["--", prefix]
        raw = self.run("log", "--first-parent", "--diff-merges=first-parent", "--raw", "-z",
                       "--no-renames", "--no-abbrev", "--reverse",
                       f"--format={LOG_FORMAT}", rng, *spec)
        yield from _parse_log(raw)

    def touching(self, rev: str, prefix: str, limit: int | None = None,
                 first_parent: bool = True) -> list[tuple[str, int]]:
        """(commit, committer time) on rev's first-parent chain that changed
        `prefix` against their first parent, newest first; without `first_parent`, every commit
        git's history of the path shows (those of merged branches too, by commit date)."""
        spec = [] if prefix == "." else ["--", prefix]
        count = [f"--max-count={limit}"] if limit else []
        chain = ["--first-parent"] if first_parent else []
        out = self.run("log", *chain, "--format=%H %ct", *count, rev, *spec).decode()
        return [(oid, int(ts)) for oid, ts in (line.split() for line in out.splitlines() if line)]

    def describe(self, rev: str) -> Commit:
        """One commit's id, parents, time, author and subject (no changes)."""
        raw = self.run("log", "-1", "--no-walk", "-z", f"--format={LOG_FORMAT}", rev, "--")
        return next(_parse_log(raw))

    def messages(self, oids: list[str]) -> dict[str, tuple[tuple[str, ...], str]]:
        """Each commit's parents and full message."""
        if not oids:
            return {}
        raw = self.run("log", "--no-walk=unsorted", "-z", "--format=%H%x00%P%x00%B", *oids, "--")
        parts = raw.split(b"\0")
        found = {}
        for oid, parents, body in zip(parts[0::3], parts[1::3], parts[2::3]):
            found[_dec(oid).strip()] = (tuple(parents.decode().split()), body.decode("utf-8", "replace").strip())
        return found

    def blame(self, rev: str | None, path: str, ranges: list[tuple[int, int]]) -> list[Blamed]:
        """`git blame` of lines START-END of `path` at `rev` (None: the work tree), one call for
        all the ranges; a line not committed yet has commit ZERO."""
        spans = [a for lo, hi in ranges for a in ("-L", f"{lo},{hi}")]
        raw = self.run("blame", "--porcelain", *spans, *([rev] if rev else []), "--", path)
        return _parse_blame(raw)

    def line_log(self, rev: str, path: str, start: int, end: int) -> list[Commit]:
        """The commits that changed lines START-END of `path` as of `rev`, newest first
        (`git log -L`, which follows the lines back through earlier edits and moves)."""
        raw = self.run("log", "-L", f"{start},{end}:{path}", "-s", "-z", f"--format={LOG_FORMAT}", rev, "--")
        return list(_parse_log(raw))

    def trailers(self, oids: list[str]) -> dict[str, dict[str, str]]:
        """Each commit's trailers (`Key: value` lines at the end of its message), as git parses them.
        A commit never changes, so what was read once is kept for the process (a server's next query)."""
        where = str(self.git_dir)
        found = {oid: pairs for oid in oids if (pairs := _TRAILERS.get((where, oid))) is not None}
        missing = [oid for oid in oids if oid not in found]
        if missing:
            raw = self.run("log", "--no-walk=unsorted", "-z", "--format=%H%x00%(trailers:only,unfold)", *missing,
                           "--")
            parts = raw.split(b"\0")
            for oid, block in zip(parts[0::2], parts[1::2]):
                split = (line.split(":", 1) for line in block.decode("utf-8", "replace").splitlines() if ":" in line)
                found[_dec(oid).strip()] = {k.strip(): v.strip() for k, v in split}
            if len(_TRAILERS) > TRAILERS_KEPT:
                _TRAILERS.clear()
            # answered from `found`, not the cache: another thread (a server's other query) may clear it
            _TRAILERS.update({(where, oid): found[oid] for oid in missing if oid in found})
        return {oid: found[oid] for oid in oids if oid in found}

    def descendants(self, older: str, newer: str) -> list[str]:
        """Commits that descend from `older` and lead to `newer`, oldest first."""
        out = self.run("rev-list", "--ancestry-path", "--topo-order", "--reverse", f"{older}..{newer}", "--")
        return out.decode().split()

    def first_parents(self, since: str, head: str) -> list[str]:
        """Commits on head's first-parent chain after `since`, oldest first."""
        out = self.run("rev-list", "--first-parent", "--reverse", f"{since}..{head}")
        return out.decode().split()

    def parents(self, oid: str) -> list[str]:
        out = self.run("rev-list", "--parents", "-n", "1", oid).decode().split()
        return out[1:]

    def count(self, since: str, head: str) -> int:
        """How many commits head has that `since` lacks."""
        return int(self.run("rev-list", "--count", f"{since}..{head}").decode().strip() or 0)

    def is_ancestor(self, older: str, newer: str) -> bool:
        try:
            self.run("merge-base", "--is-ancestor", older, newer)
            return True
        except GitFailed:
            return False

    def has_object(self, oid: str, kind: str = "commit") -> bool:
        try:
            self.run("cat-file", "-e", f"{oid}^{{{kind}}}")
            return True
        except GitFailed:
            return False

    def files(self, prefix: str, untracked: bool = True) -> list[str]:
        """Repo-relative paths of tracked (and untracked, not ignored) files under `prefix`."""
        spec = [] if prefix == "." else ["--", prefix]
        others = ["--others", "--exclude-standard"] if untracked else []
        raw = self.run("ls-files", "-z", "--cached", *others, "--full-name", *spec)
        return list(dict.fromkeys(_dec(p) for p in raw.split(b"\0") if p))

    def in_progress(self) -> str | None:
        """The operation a person is in the middle of (merge, rebase, ...), or None."""
        for marker, name in (("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"), ("rebase-apply", "rebase"),
                             ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert")):
            if (self.git_dir / marker).exists():
                return name
        return None

    def config_get(self, key: str) -> str | None:
        """The value of `key` in git's settings (unset or empty: None), from the settings this
        `Git` keeps while their files are unchanged (gitconfig.py)."""
        return self._config.get(key)

    def config_get_uncached(self, key: str) -> str | None:
        try:
            return self.run("config", "--get", key).decode().strip() or None
        except GitFailed:
            return None

    def config_scope(self, key: str) -> str | None:
        """Where `key` is set (local, worktree, global, system, command), None if unset."""
        try:
            out = self.run("config", "--show-scope", "--get", key).decode()
        except GitFailed:
            return None
        return out.split("\t", 1)[0] or None

    def config_set(self, key: str, value: str) -> None:
        """Set `key` in this clone's own config (.git/config)."""
        try:
            self.run("config", "--local", key, value)
        finally:
            self._config.drop()

    def config_unset(self, key: str) -> None:
        """Remove `key` from this clone's own config (nothing if it is not there)."""
        try:
            self.run("config", "--local", "--unset-all", key)
        except GitFailed:
            pass
        finally:
            self._config.drop()

    def config_changed(self) -> None:
        """Say that git's settings were changed by other means than config_set (the next
        config_get asks git again)."""
        self._config.drop()

    def git_path(self, name: str) -> Path:
        """Where git keeps `name` for this worktree; for "hooks", core.hooksPath is honoured."""
        out = Path(os.fsdecode(self.run("rev-parse", "--git-path", name).rstrip(b"\n")))
        return out if out.is_absolute() else (self.top or self.git_dir) / out

    def detached(self) -> bool:
        """Whether HEAD points at a commit rather than a branch (a bisect, a checked-out tag)."""
        try:
            return not (self.git_dir / "HEAD").read_bytes().startswith(b"ref:")
        except OSError:
            return False

    def bisecting(self) -> bool:
        return (self.git_dir / "BISECT_LOG").exists()

    def index_entry(self, path: str) -> tuple[str, str, str] | None:
        """(tag, mode, blob id) of `path` in git's index (tag S: skip-worktree, i.e. left out of
        a sparse checkout; M: unmerged, a conflict not yet resolved, its first stage), or None if the
        index does not track it."""
        raw = self.run("ls-files", "-s", "-v", "-z", "--", path)
        for item in raw.split(b"\0"):
            meta, _, name = item.partition(b"\t")
            if meta and _dec(name) == path:
                tag, mode, oid, _stage = meta.decode().split()
                return tag, mode, oid
        return None

    def blame_times(self, path: str) -> list[int]:
        """For each line of the work-tree file, when it was last written (committer time; uncommitted: now)."""
        try:
            raw = self.run("blame", "--porcelain", "--", path)
        except GitFailed:
            return []
        times: dict[str, int] = {}
        out: list[int] = []
        current = ""
        for line in raw.split(b"\n"):
            if line.startswith(b"\t"):
                out.append(times.get(current, int(time.time())))
                continue
            parts = line.split(b" ")
            if len(parts[0]) == 40 and all(c in b"0123456789abcdef" for c in parts[0]) and len(parts) >= 3:
                current = parts[0].decode()
            elif parts[0] == b"committer-time" and len(parts) > 1:
                times[current] = int(parts[1]) if current != ZERO else int(time.time())
        return out


def words(output: object) -> str:
    """git's own words from its output (GitPython's wrapping taken off), on one line."""
    text = _dec(output if isinstance(output, bytes) else str(output or "").encode()).strip()
    text = re.sub(r"^(stderr|stdout): '(.*)'$", r"\2", text, flags=re.S)
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())



def _dereference(git_dir: Path, common_dir: Path, name: str, depth: int = 0) -> str | None:
    """The commit a ref names, read from the ref files as git keeps them: HEAD and per-worktree refs
    in the worktree's git dir, the rest in the common dir, loose before packed. None if unborn."""
    if depth > 5:
        return None
    per_worktree = name == "HEAD" or name.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
    try:
        raw = ((git_dir if per_worktree else common_dir) / name).read_bytes().strip()
    except OSError:
        raw = _packed(common_dir, name)
    if raw.startswith(b"ref:"):
        return _dereference(git_dir, common_dir, raw[4:].strip().decode("utf-8", "replace"), depth + 1)
    text = raw.decode("ascii", "replace")
    return text if len(text) in (40, 64) else None


def _packed(common_dir: Path, name: str) -> bytes:
    try:
        data = (common_dir / "packed-refs").read_bytes()
    except OSError:
        return b""
    wanted = name.encode()
    for line in data.splitlines():
        if line.endswith(wanted) and not line.startswith((b"#", b"^")):
            oid, _, ref = line.partition(b" ")
            if ref == wanted:
                return oid
    return b""
