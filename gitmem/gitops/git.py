"""The one gateway to git (GitPython). Nothing else in gitmem runs git.

Every call passes paths after `--`, reads NUL-separated output as bytes and
decodes names with the filesystem encoding, and runs with literal pathspecs,
so odd file names (spaces, newlines, leading dashes, glob characters) are
safe. Variables that git sets for hooks (GIT_DIR, GIT_INDEX_FILE, ...) are
stripped so they never leak into the git commands gitmem runs itself.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shlex
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Callable, Iterator

import git as gitpython

from .. import config
from ..errors import GitFailed, GitmemError, NoNotebook, NotARepo
from ..notebook import Notebook
from .blame import Blamed, parse as _parse_blame

# Set by git for hooks and some commands; they would point our own git
# commands at the wrong index, object store or work tree.
LEAKY_VARS = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_PREFIX",
    "GIT_NAMESPACE", "GIT_QUARANTINE_PATH", "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_REFLOG_ACTION",
)
FALLBACK_NAME = "gitmem"
FALLBACK_EMAIL = "gitmem@localhost"
FALLBACK_IDENTITY = f"{FALLBACK_NAME} <{FALLBACK_EMAIL}>"
FALLBACK_HINT = (f"no git identity is configured, so gitmem signed its commit '{FALLBACK_IDENTITY}'; "
                 "set yours with git config --global user.name/user.email")
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ZERO = "0" * 40
REGULAR_MODES = ("100644", "100755")
LOG_FORMAT = "%x01%H%x00%P%x00%ct%x00%an%x00%ae%x00%s"
ROLES = ("AUTHOR", "COMMITTER")
LOCK_WAIT = 15.0  # seconds to wait for a git that is running and holds .git/index.lock


class IndexNotUpdated(GitmemError):
    """gitmem's commit is made, but git's own index still has the page as it was."""


class IndexLocked(GitFailed):
    """.git/index.lock is there: left by a git that was killed, or held by one at work."""


@dataclass(frozen=True)
class Entry:
    """A file in a tree: repo-relative path, blob id, mode."""

    path: str
    oid: str
    mode: str


@dataclass(frozen=True)
class Change:
    """One path changed by a commit, against its first parent."""

    path: str
    oid: str | None  # None: deleted, or no longer a regular file


@dataclass(frozen=True)
class Commit:
    oid: str
    parents: tuple[str, ...]
    time: int
    author: str
    email: str
    subject: str
    changes: tuple[Change, ...] = ()


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


class Git:
    """A repository and the git operations gitmem needs."""

    def __init__(self, repo: gitpython.Repo) -> None:
        self.repo = repo
        self._git = repo.git
        self.top = Path(repo.working_tree_dir) if repo.working_tree_dir else None
        self.git_dir = Path(repo.git_dir)
        self.common_dir = Path(repo.common_dir)

    @classmethod
    def find(cls, start: Path | str = ".") -> "Git":
        """The repository containing `start`; NotARepo if there is none."""
        strip_leaky_env()
        try:
            repo = gitpython.Repo(str(start), search_parent_directories=True)
        except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError) as exc:
            raise NotARepo(f"not a git repository: {Path(start).resolve()}",
                           "run 'git mem init' here, or cd into a repository") from exc
        if repo.bare:
            raise NotARepo(f"{repo.git_dir} is a bare repository; a notebook needs a work tree",
                           "clone it ('git clone') and run git mem there")
        return cls(repo)

    @classmethod
    def init(cls, path: Path) -> "Git":
        """Create a repository at `path` (git init)."""
        strip_leaky_env()
        return cls(gitpython.Repo.init(str(path)))

    def run(self, *args: str, env: dict[str, str] | None = None) -> bytes:
        """Run git with these arguments; raw stdout. GitFailed on error."""
        try:
            out = self._git.execute(["git", *args], stdout_as_string=False,
                                    strip_newline_in_stdout=False, env=env)
        except gitpython.GitCommandError as exc:
            # GitPython wraps output as "stderr: '...'"; keep git's own words, on one line
            detail = _words(exc.stderr) or _words(exc.stdout)  # some failures speak on stdout
            verb = next((a for a in args if not a.startswith("-")), args[0])
            raise GitFailed(f"git {verb} failed: {detail or exc}") from exc
        return out if isinstance(out, bytes) else out.encode()

    # -- reading ---------------------------------------------------------
    def head(self) -> str | None:
        """The commit HEAD points at, or None on an unborn branch."""
        try:
            return self.repo.head.commit.hexsha
        except ValueError:
            return None

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
        """Repo-relative paths under `prefix` whose work-tree file differs from HEAD."""
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
        """A blob's bytes (through one long-lived `git cat-file --batch`)."""
        return self.repo.odb.stream(bytes.fromhex(oid)).read()

    def blob_size(self, oid: str) -> int:
        """A blob's size in bytes, without reading it."""
        return int(self.repo.odb.info(bytes.fromhex(oid)).size)

    def blob_or_none(self, oid: str) -> bytes | None:
        """A blob's bytes, or None if the object store lacks it (a file only the work tree had)."""
        try:
            return self.read_blob(oid)
        except ValueError:  # gitdb's answer for a missing object
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

    def touching(self, rev: str, prefix: str, limit: int | None = None) -> list[tuple[str, int]]:
        """(commit, committer time) on rev's first-parent chain that changed
        `prefix` against their first parent, newest first."""
        spec = [] if prefix == "." else ["--", prefix]
        count = [f"--max-count={limit}"] if limit else []
        out = self.run("log", "--first-parent", "--format=%H %ct", *count, rev, *spec).decode()
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
        """Each commit's trailers (`Key: value` lines at the end of its message), as git parses them."""
        if not oids:
            return {}
        raw = self.run("log", "--no-walk=unsorted", "-z", "--format=%H%x00%(trailers:only,unfold)", *oids, "--")
        parts = raw.split(b"\0")
        found: dict[str, dict[str, str]] = {}
        for oid, block in zip(parts[0::2], parts[1::2]):
            pairs = (line.split(":", 1) for line in block.decode("utf-8", "replace").splitlines() if ":" in line)
            found[_dec(oid).strip()] = {k.strip(): v.strip() for k, v in pairs}
        return found

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
        self.run("config", "--local", key, value)

    def config_unset(self, key: str) -> None:
        """Remove `key` from this clone's own config (nothing if it is not there)."""
        try:
            self.run("config", "--local", "--unset-all", key)
        except GitFailed:
            pass

    def git_path(self, name: str) -> Path:
        """Where git keeps `name` for this worktree; for "hooks", core.hooksPath is honoured."""
        out = Path(os.fsdecode(self.run("rev-parse", "--git-path", name).rstrip(b"\n")))
        return out if out.is_absolute() else (self.top or self.git_dir) / out

    def identity(self) -> tuple[str, str] | None:
        """The configured user.name and user.email, or None if either is missing."""
        name, email = self.config_get("user.name"), self.config_get("user.email")
        if name and email:
            return name, email
        return None

    def identity_env(self) -> tuple[dict[str, str] | None, bool]:
        """The environment for a commit, and whether gitmem's fallback identity is in it.

        git decides who signs (GIT_AUTHOR_* / GIT_COMMITTER_* in the environment, then
        user.name/user.email, then what it can guess); `git var` asks it. Only a role git
        cannot name gets the fallback, and only for the parts git lacks."""
        env: dict[str, str] | None = None
        for role in ROLES:
            try:
                self.run("var", f"GIT_{role}_IDENT")
                continue
            except GitFailed:
                pass
            env = env or dict(os.environ)
            for part, key, fallback in (("NAME", "name", FALLBACK_NAME), ("EMAIL", "email", FALLBACK_EMAIL)):
                if not env.get(f"GIT_{role}_{part}"):
                    env[f"GIT_{role}_{part}"] = (self.config_get(f"{role.lower()}.{key}")
                                                 or self.config_get(f"user.{key}") or fallback)
        return env, env is not None

    def detached(self) -> bool:
        """Whether HEAD points at a commit rather than a branch (a bisect, a checked-out tag)."""
        return self.repo.head.is_detached

    def bisecting(self) -> bool:
        return (self.git_dir / "BISECT_LOG").exists()

    def index_entry(self, path: str) -> tuple[str, str, str] | None:
        """(tag, mode, blob id) of `path` in git's index (tag S: skip-worktree, i.e. left out of
        a sparse checkout), or None if the index does not track it."""
        raw = self.run("ls-files", "-s", "-v", "-z", "--", path)
        for item in raw.split(b"\0"):
            meta, _, name = item.partition(b"\t")
            if meta and _dec(name) == path:
                tag, mode, oid, _stage = meta.decode().split()
                return tag, mode, oid
        return None

    def locked_index(self) -> Path | None:
        """git's index.lock for this worktree, if it is there."""
        lock = self.git_dir / "index.lock"
        return lock if lock.exists() else None

    def index_lock_holders(self) -> list[str] | None:
        """The git processes working in this repository ("pid: command"), which may hold
        index.lock; None where the process table cannot be read (then assume one does)."""
        proc = Path("/proc")
        if not (proc / "self" / "cwd").exists():
            return None
        top = os.path.realpath(self.top or self.git_dir)
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
                found.append(f"{entry.name}: {' '.join(_dec(a) for a in argv if a)}")
        return found

    def check_index_lock(self) -> None:
        """IndexLocked at once if .git/index.lock was left by a git that is no longer running."""
        lock = self.locked_index()
        if lock is None or self.index_lock_holders() != []:
            return
        try:  # look twice: a git may be just starting, or just ending and removing its lock
            seen = lock.stat().st_ino
            time.sleep(0.2)
            if lock.stat().st_ino != seen or self.index_lock_holders() != []:
                return
        except FileNotFoundError:
            return
        age = max(0, int(time.time() - lock.stat().st_mtime)) if lock.exists() else 0
        raise IndexLocked(f"{lock} is left over from a git that stopped {_ago(age)} (no git is running in this "
                          "repository), so neither gitmem nor git can commit",
                          f"remove it, then run the command again: rm -f {shlex.quote(str(lock))}")

    # -- writing ---------------------------------------------------------
    def commit(self, paths: list[str], message: str, trailers: list[tuple[str, str]] | None = None) -> tuple[str, bool]:
        """Stage and commit exactly `paths` as they are in the work tree (other staged work is left
        alone), with these trailers (`Key: value` lines after the message, e.g. Gitmem-Verb: remember).
        Returns the new commit id and whether the fallback identity was used."""
        message = with_trailers(message, trailers)
        env, fallback = self.identity_env()
        self._retry(lambda: self.run("add", "-A", "--", *paths, env=env))
        self._retry(lambda: self.run("commit", "-q", "--no-edit", "-m", message, "--only", "--", *paths,
                                     env=env))
        head = self.head()
        assert head is not None
        return head, fallback

    def commit_files(self, files: dict[str, bytes], message: str, staged: dict[str, bytes] | None = None,
                     trailers: list[tuple[str, str]] | None = None) -> tuple[str | None, bool]:
        """Commit HEAD's tree with these files' contents (repo-relative path -> bytes), and nothing
        else: not the work tree, not what is staged. Returns (new commit or None if the tree
        would not change, whether the fallback identity signed it).

        The commit is made through a temporary index (hooks run as for any commit). Then git's
        own index takes the new contents for each path it had at HEAD's version, so `git status`
        shows only what a person changed (if the commit fails, they stay staged there); a path a
        person staged their own version of gets `staged[path]` (theirs with the same change)."""
        message = with_trailers(message, trailers)
        env, fallback = self.identity_env()
        head = self.head()
        scratch = self.git_dir / "gitmem" / f"commit-index.{os.getpid()}"
        scratch.parent.mkdir(parents=True, exist_ok=True)
        temp = {**(env or os.environ), "GIT_INDEX_FILE": str(scratch)}
        # a git at work holds index.lock (a person's commit, say): let it finish first, or its
        # update of HEAD would fail on ours
        self._retry(self._index_free)
        try:
            self.run("read-tree", *([head] if head else ["--empty"]), env=temp)
            oids = {path: self._store(data) for path, data in files.items()}
            for path, oid in oids.items():
                self.run("update-index", "--add", "--cacheinfo", f"100644,{oid},{path}", env=temp)
            tree = self.run("write-tree", env=temp).decode().strip()
            if head and tree == self.resolve_tree(head):
                return None, False
            try:
                self.run("commit", "-q", "--no-edit", "-m", message, env=temp)
            except GitFailed:
                try:  # the change stays staged, as `git add` would have left it
                    self._restage(head, oids, staged or {})
                except GitFailed:
                    pass
                raise
            try:
                self._restage(head, oids, staged or {})
            except GitFailed as exc:
                new = self.head() or ""
                raise IndexNotUpdated(f"committed {new[:7]}, but git's index could not be updated: {exc.message}",
                                      "so that git status does not show the commit undone, run: git reset -q -- "
                                      + " ".join(shlex.quote(p) for p in oids)) from exc
        finally:
            for leftover in (scratch, scratch.with_name(scratch.name + ".lock")):
                leftover.unlink(missing_ok=True)
        new = self.head()
        assert new is not None
        return new, fallback

    def _index_free(self) -> bytes:
        if self.locked_index():
            raise GitFailed(f"{self.git_dir / 'index.lock'} exists: another git process is at work")
        return b""

    def resolve_tree(self, rev: str) -> str:
        return self.run("rev-parse", "--verify", f"{rev}^{{tree}}").decode().strip()

    def _store(self, data: bytes) -> str:
        try:
            return self.store_blob(data)
        except OSError as exc:
            raise GitFailed(f"git could not store the page: {exc.strerror or exc}") from exc

    def _restage(self, head: str | None, oids: dict[str, str], staged: dict[str, bytes]) -> None:
        """Point git's index at the new blobs for the paths where it held HEAD's version (or nothing,
        where HEAD had nothing); where a person staged their own version, at `staged[path]`."""
        for path, oid in oids.items():
            entry = self.index_entry(path)
            at_head = self.tree(head, path) if head else []
            was = next((e.oid for e in at_head if e.path == path), None)
            if (entry[2] if entry else None) != was:
                if path not in staged:
                    continue
                oid = self._store(staged[path])
            info = f"100644,{oid},{path}"
            self._retry(lambda: self.run("update-index", "--add", "--cacheinfo", info))
        try:  # record the files' stat data, as `git add` would (else git sees them as not up to date)
            self.run("update-index", "-q", "--refresh")
        except GitFailed:
            pass

    # -- plumbing: commits built without touching the work tree or the index --------
    def _identity_env(self) -> dict[str, str]:
        env, _ = self.identity_env()  # git's own precedence; the fallback only where git has none
        return env or dict(os.environ)

    def store_blob(self, data: bytes) -> str:
        """Write a blob into the object store; its id."""
        from io import BytesIO

        from gitdb.base import IStream

        hexsha = self.repo.odb.store(IStream(b"blob", len(data), BytesIO(data))).hexsha
        return hexsha.decode() if isinstance(hexsha, bytes) else str(hexsha)

    def build_tree(self, base: str | None, files: dict[str, bytes]) -> str:
        """The tree of `base` with these repo-relative files replaced or added,
        made in a private index file: the user's index and work tree are untouched."""
        scratch = self.git_dir / "gitmem" / f"plumbing-{os.getpid()}.index"
        scratch.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "GIT_INDEX_FILE": str(scratch)}
        try:
            if base:
                self.run("read-tree", base, env=env)
            else:
                self.run("read-tree", "--empty", env=env)
            for path, data in files.items():
                oid = self.store_blob(data)
                self.run("update-index", "--add", "--cacheinfo", "100644", oid, path, env=env)
            return self.run("write-tree", env=env).decode().strip()
        finally:
            scratch.unlink(missing_ok=True)

    def commit_tree(self, tree: str, parents: list[str], message: str) -> str:
        """A commit object of this tree and parents (no branch moves); its id."""
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.run(*args, "-m", message, env=self._identity_env()).decode().strip()

    def update_ref(self, ref: str, new: str, old: str | None) -> None:
        """Move `ref` to `new`, only if it still points at `old` (None: only if it does not exist)."""
        self.run("update-ref", "-m", "gitmem", ref, new, old or ZERO)

    def ref(self, name: str) -> str | None:
        """The commit a full ref name points at, or None."""
        try:
            return self.run("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").decode().strip() or None
        except GitFailed:
            return None

    def tree_id(self, rev: str) -> str:
        """The id of a commit's tree."""
        return self.run("rev-parse", "--verify", f"{rev}^{{tree}}").decode().strip()

    def refs(self, pattern: str) -> dict[str, str]:
        """Full ref name -> commit, for refs matching a for-each-ref pattern."""
        out = self.run("for-each-ref", "--format=%(refname)%00%(objectname)", pattern).decode()
        return dict(line.split("\0", 1) for line in out.splitlines() if "\0" in line)

    def changed_paths(self, old: str, new: str) -> list[str]:
        """Repo-relative paths that differ between two commits."""
        raw = self.run("diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
        return [_dec(p) for p in raw.split(b"\0") if p]

    def diff(self, old: str, new: str) -> str:
        """The unified diff between two commits."""
        return self.run("diff", "--no-color", "--no-ext-diff", "--no-renames", old, new, "--") \
            .decode("utf-8", "replace")

    def grep_log(self, revs: list[str], pattern: str) -> dict[str, str]:
        """commit -> full message, for commits reachable from `revs` whose message matches `pattern`."""
        if not revs:
            return {}
        raw = self.run("log", "-z", "--fixed-strings", f"--grep={pattern}", "--format=%H%x00%B", *revs, "--")
        parts = raw.split(b"\0")
        return {_dec(oid).strip(): body.decode("utf-8", "replace")
                for oid, body in zip(parts[0::2], parts[1::2]) if oid.strip()}

    def merge_text(self, base: bytes, ours: bytes, theirs: bytes, scratch: Path,
                   union: bool = False) -> tuple[bytes, bool]:
        """A three-way merge of one file's versions (git merge-file); (result, clean).
        With `union`, both sides' lines are kept where they overlap."""
        scratch.mkdir(parents=True, exist_ok=True)
        names = []
        for label, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = scratch / f"merge-{os.getpid()}-{label}"
            path.write_bytes(data)
            names.append(str(path))
        try:
            out = self._git.execute(["git", "merge-file", "-p", *(["--union"] if union else []), "-L", "current", "-L", "base", "-L", "proposed",
                                     *names], stdout_as_string=False, strip_newline_in_stdout=False,
                                    with_exceptions=False, with_extended_output=True)
            status, merged, _err = out
            if status < 0:
                raise GitFailed(f"git merge-file failed: {_words(_err)}")
            return (merged if isinstance(merged, bytes) else merged.encode()), status == 0
        finally:
            for name in names:
                Path(name).unlink(missing_ok=True)

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

    def _retry(self, action: Callable[[], bytes], wait: float = LOCK_WAIT) -> bytes:
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
                self.check_index_lock()
                if time.monotonic() >= deadline:
                    holders = self.index_lock_holders() or []
                    who = f" ({holders[0]})" if holders else ""
                    raise IndexLocked(f"another git process{who} kept {self.git_dir / 'index.lock'} for "
                                      f"{wait:.0f} s: {exc.message}",
                                      "wait for it to finish, then run the command again") from exc
                attempt += 1
                time.sleep(0.05 + random.random() * 0.1 * (1 + min(attempt, 20) / 4))


def with_trailers(message: str, trailers: list[tuple[str, str]] | None) -> str:
    """The message with `Key: value` trailer lines after a blank line (values on one line)."""
    if not trailers:
        return message
    return message.rstrip("\n") + "\n\n" + "\n".join(f"{key}: {' '.join(value.split())}" for key, value in trailers)


def _ago(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"


def _words(output: object) -> str:
    text = _dec(output if isinstance(output, bytes) else str(output or "").encode()).strip()
    text = re.sub(r"^(stderr|stdout): '(.*)'$", r"\2", text, flags=re.S)
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def _parse_log(raw: bytes) -> Iterator[Commit]:
    """Commits from `git log -z --raw --format=LOG_FORMAT` output, read token by
    token: six header fields, then (meta, path) pairs. A path is taken as it
    is, so a file name holding \\x01 or a leading newline cannot be misread."""
    tokens = raw.split(b"\0")
    i = 0
    while i < len(tokens):
        head = tokens[i].lstrip(b"\n")
        if not head.startswith(b"\x01"):
            i += 1
            continue
        oid, parents, ctime, author, email, subject = (
            t.decode("utf-8", "replace") for t in [head[1:], *tokens[i + 1:i + 6]])
        i += 6
        changes = []
        while i + 1 < len(tokens) and tokens[i].lstrip(b"\n").startswith(b":"):
            _old_mode, new_mode, _old, new, _status = tokens[i].lstrip(b"\n")[1:].decode().split()
            regular = new_mode in REGULAR_MODES and new != ZERO
            changes.append(Change(_dec(tokens[i + 1]), new if regular else None))
            i += 2
        yield Commit(oid, tuple(parents.split()), int(ctime), author, email, subject, tuple(changes))


def open_notebook(start: Path | str = ".") -> Notebook:
    """The notebook of the repository containing `start`; NoNotebook if none."""
    git = Git.find(start)
    if git.top is None or not (git.top / config.CONFIG_FILE).is_file():
        raise NoNotebook(f"no gitmem notebook in {git.top}", "run 'git mem init' to make one")
    nb = Notebook(git, config.load(git.top))
    nb.check_root()  # a pulled .gitmem.toml must not move the notebook through a symlink or into .git
    return nb
