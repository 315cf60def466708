"""git's plumbing for work kept off the branch (consolidation proposals): blobs, trees, commits and
refs made without touching the work tree or git's index; the diffs and messages of such commits;
and the three-way merge of one file's text."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import GitFailed
from .git import Git, words
from .identity import commit_env
from .log import REGULAR_MODES, ZERO

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def store_blob(git: Git, data: bytes) -> str:
    """Write a blob into the object store; its id."""
    return git.run("hash-object", "-w", "--no-filters", "--stdin", input=data).decode().strip()


def build_tree(git: Git, base: str | None, files: dict[str, bytes]) -> str:
    """The tree of `base` with these repo-relative files replaced or added,
    made in a private index file: the user's index and work tree are untouched."""
    scratch = git.git_dir / "gitmem" / f"plumbing-{os.getpid()}.index"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(scratch)}
    try:
        if base:
            git.run("read-tree", base, env=env)
        else:
            git.run("read-tree", "--empty", env=env)
        for path, data in files.items():
            oid = store_blob(git, data)
            git.run("update-index", "--add", "--cacheinfo", "100644", oid, path, env=env)
        return git.run("write-tree", env=env).decode().strip()
    finally:
        scratch.unlink(missing_ok=True)


def commit_tree(git: Git, tree: str, parents: list[str], message: str) -> str:
    """A commit object of this tree and parents (no branch moves); its id."""
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return git.run(*args, "-m", message, env=commit_env(git)).decode().strip()


def update_ref(git: Git, ref: str, new: str, old: str | None) -> None:
    """Move `ref` to `new`, only if it still points at `old` (None: only if it does not exist)."""
    git.run("update-ref", "-m", "gitmem", ref, new, old or ZERO)


def ref(git: Git, name: str) -> str | None:
    """The commit a full ref name points at, or None."""
    try:
        return git.run("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").decode().strip() or None
    except GitFailed:
        return None


def tree_id(git: Git, rev: str) -> str:
    """The id of a commit's tree."""
    return git.run("rev-parse", "--verify", f"{rev}^{{tree}}").decode().strip()


def refs(git: Git, pattern: str) -> dict[str, str]:
    """Full ref name -> commit, for refs matching a for-each-ref pattern."""
    out = git.run("for-each-ref", "--format=%(refname)%00%(objectname)", pattern).decode()
    return dict(line.split("\0", 1) for line in out.splitlines() if "\0" in line)


def changed_paths(git: Git, old: str, new: str) -> list[str]:
    """Repo-relative paths that differ between two commits."""
    raw = git.run("diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
    return [os.fsdecode(p) for p in raw.split(b"\0") if p]


def changed_blobs(git: Git, old: str, new: str) -> list[tuple[str, str | None, str | None]]:
    """(repo-relative path, its blob before, its blob after) of each regular file that differs
    between two commits, in one `git diff-tree` (None: absent, or not a regular file there)."""
    tokens = git.run("diff-tree", "-r", "-z", "--no-renames", old, new).split(b"\0")
    out = []
    for meta, path in zip(tokens[0::2], tokens[1::2]):
        if not meta.startswith(b":"):
            continue
        old_mode, new_mode, old_oid, new_oid, _status = meta[1:].decode().split()
        out.append((os.fsdecode(path), old_oid if old_mode in REGULAR_MODES and old_oid != ZERO else None,
                    new_oid if new_mode in REGULAR_MODES and new_oid != ZERO else None))
    return out


def mode(git: Git, rev: str, path: str) -> str | None:
    """The mode of a path at `rev` (100644, 100755, 120000 a symlink, 160000 a submodule...), None if absent."""
    raw = git.run("ls-tree", "-z", "--full-tree", rev, "--", path)
    for item in raw.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        if meta and os.fsdecode(name) == path:
            return meta.decode().split()[0]
    return None


def diff(git: Git, old: str, new: str) -> str:
    """The unified diff between two commits."""
    return git.run("diff", "--no-color", "--no-ext-diff", "--no-renames", old, new, "--") \
        .decode("utf-8", "replace")


def grep_log(git: Git, revs: list[str], pattern: str) -> dict[str, str]:
    """commit -> full message, for commits reachable from `revs` whose message matches `pattern`."""
    if not revs:
        return {}
    raw = git.run("log", "-z", "--fixed-strings", f"--grep={pattern}", "--format=%H%x00%B", *revs, "--")
    parts = raw.split(b"\0")
    return {os.fsdecode(oid).strip(): body.decode("utf-8", "replace")
            for oid, body in zip(parts[0::2], parts[1::2]) if oid.strip()}


def merge_file(git: Git, base: bytes, ours: bytes, theirs: bytes, scratch: Path,
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
        status, merged, err = git.call("merge-file", "-p", *(["--union"] if union else []), "-L", "current",
                                       "-L", "base", "-L", "proposed", *names)
        if status < 0 or status > 127:  # killed, or git's own failure; 1-127: that many conflicts
            raise GitFailed(f"git merge-file failed: {words(err)}")
        return merged, status == 0
    finally:
        for name in names:
            Path(name).unlink(missing_ok=True)
