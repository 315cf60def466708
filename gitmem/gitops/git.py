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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import git as gitpython

from .. import config
from ..errors import GitFailed, NoNotebook, NotARepo
from ..notebook import Notebook

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
class Blamed:
    """What `git blame` says of one line: the commit that put it there in its present form."""

    line: int  # in the file blamed
    commit: str  # ZERO: not committed yet
    orig_line: int  # the line's number in `path` at `commit`
    path: str  # the file's name at `commit` (blame follows renames)
    author: str
    time: int
    summary: str


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
        """The commit `rev` names, or None."""
        if rev.startswith("-"):
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

    # -- writing ---------------------------------------------------------
    def commit(self, paths: list[str], message: str, trailers: list[tuple[str, str]] | None = None) -> tuple[str, bool]:
        """Stage and commit exactly `paths` (other staged work is left alone), with these
        trailers (`Key: value` lines after the message, e.g. Gitmem-Verb: remember).

        Returns the new commit id and whether the fallback identity was used.
        git's index.lock contention (another git process at work) is retried.
        """
        if trailers:
            message = message.rstrip("\n") + "\n\n" + "\n".join(
                f"{key}: {' '.join(value.split())}" for key, value in trailers)
        env = None
        fallback = self.identity() is None
        if fallback:
            env = {**os.environ, "GIT_AUTHOR_NAME": FALLBACK_NAME, "GIT_AUTHOR_EMAIL": FALLBACK_EMAIL,
                   "GIT_COMMITTER_NAME": FALLBACK_NAME, "GIT_COMMITTER_EMAIL": FALLBACK_EMAIL}
        self._retry(lambda: self.run("add", "-A", "--", *paths, env=env))
        self._retry(lambda: self.run("commit", "-q", "--no-edit", "-m", message, "--only", "--", *paths,
                                     env=env))
        head = self.head()
        assert head is not None
        return head, fallback

    # -- plumbing: commits built without touching the work tree or the index --------
    def _identity_env(self) -> dict[str, str]:
        if self.identity() is not None:
            return dict(os.environ)
        return {**os.environ, "GIT_AUTHOR_NAME": FALLBACK_NAME, "GIT_AUTHOR_EMAIL": FALLBACK_EMAIL,
                "GIT_COMMITTER_NAME": FALLBACK_NAME, "GIT_COMMITTER_EMAIL": FALLBACK_EMAIL}

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

    def _retry(self, action: Callable[[], bytes], attempts: int = 40) -> bytes:
        for attempt in range(attempts):
            try:
                return action()
            except GitFailed as exc:
                if "index.lock" not in exc.message or attempt == attempts - 1:
                    raise
                time.sleep(0.05 + random.random() * 0.1 * (1 + attempt / 4))
        raise AssertionError("unreachable")


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


def _parse_blame(raw: bytes) -> list[Blamed]:
    """Lines of `git blame --porcelain`: a header per line, commit details the first time a commit shows."""
    details: dict[str, dict[str, str]] = {}
    out: list[Blamed] = []
    current: tuple[str, int, int] | None = None
    for line in raw.decode("utf-8", "replace").split("\n"):
        if line.startswith("\t"):
            if current:
                oid, orig, final = current
                d = details[oid]
                out.append(Blamed(final, oid, orig, d.get("filename", ""), d.get("author", ""),
                                  int(d.get("author-time", "0")), d.get("summary", "")))
            current = None
            continue
        head = line.split(" ")
        if current is None and len(head) >= 3 and len(head[0]) == 40 and all(c in "0123456789abcdef" for c in head[0]):
            current = (head[0], int(head[1]), int(head[2]))
            details.setdefault(head[0], {})
        elif current is not None and " " in line:
            key, value = line.split(" ", 1)
            details[current[0]][key] = value
    return out


def open_notebook(start: Path | str = ".") -> Notebook:
    """The notebook of the repository containing `start`; NoNotebook if none."""
    git = Git.find(start)
    if git.top is None or not (git.top / config.CONFIG_FILE).is_file():
        raise NoNotebook(f"no gitmem notebook in {git.top}", "run 'git mem init' to make one")
    nb = Notebook(git, config.load(git.top))
    nb.check_root()  # a pulled .gitmem.toml must not move the notebook through a symlink or into .git
    return nb
