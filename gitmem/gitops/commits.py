"""gitmem's commits on the branch: exactly the given paths, or given contents through a private index,
with git's own index left showing only what a person changed."""

from __future__ import annotations

import os
from functools import partial

from ..errors import GitFailed, GitmemError
from . import indexlock
from .git import Git
from .identity import identity_env
from .plumbing import store_blob, tree_id


class IndexNotUpdated(GitmemError):
    """git's own index could not take gitmem's change: nothing was committed."""


class HeadMoved(GitmemError):
    """HEAD is not the commit gitmem built its commit from (a person's commit, a pull, landed
    meanwhile); nothing was committed: build it again on the new HEAD."""


UNREAD = "unread"  # commit_files' `base` when the caller did not read HEAD itself
OURS_WITHIN = 20  # how far back gitmem looks for its commit when others followed it at once


def with_trailers(message: str, trailers: list[tuple[str, str]] | None) -> str:
    """The message with `Key: value` trailer lines after a blank line (values on one line)."""
    if not trailers:
        return message
    return message.rstrip("\n") + "\n\n" + "\n".join(f"{key}: {' '.join(value.split())}" for key, value in trailers)


def commit(git: Git, paths: list[str], message: str,
           trailers: list[tuple[str, str]] | None = None) -> tuple[str, bool]:
    """Stage and commit exactly `paths` as they are in the work tree (other staged work is left
    alone), with these trailers (`Key: value` lines after the message, e.g. Gitmem-Verb: remember).
    Returns the new commit id and whether the fallback identity was used."""
    message = with_trailers(message, trailers)
    env, fallback = identity_env(git)
    indexlock.retry(git, lambda: git.run("add", "-A", "--", *paths, env=env))
    indexlock.retry(git, lambda: git.run("commit", "-q", "--no-edit", "-m", message, "--only", "--", *paths,
                                         env=env))
    head = git.head()
    assert head is not None
    return head, fallback


UNMERGED = "M"  # git ls-files -v's tag of an index entry in conflict

# path -> (the blob a person had staged, when gitmem read it; that version with gitmem's change)
Staged = dict[str, tuple[str, bytes]]


def commit_files(git: Git, files: dict[str, bytes], message: str, staged: Staged | None = None,
                 trailers: list[tuple[str, str]] | None = None, base: str | None = UNREAD,
                 removed: tuple[str, ...] = ()) -> tuple[str | None, bool]:
    """Commit HEAD's tree with these files' contents (repo-relative path -> bytes), without the
    `removed` paths (a renamed page's old name), and nothing else: not the work tree, not what
    is staged. Returns (new commit or None if the tree
    would not change, whether the fallback identity signed it).

    The commit is made through a temporary index (hooks run as for any commit). Just before it, git's
    own index takes the new contents for each path it had at HEAD's version, so `git status`
    shows only what a person changed (if the commit fails, they stay staged there); a path a
    person staged their own version of gets `staged[path]` (theirs with the same change), unless
    they staged another since (see _restage).

    `base` is the HEAD the caller built `files` from (None: an unborn branch). The commit is made
    on that HEAD or not at all: `git commit` parents it on HEAD as it is when git starts, so a
    commit that landed since `base` would be silently undone by `files`. HeadMoved if HEAD is not
    `base` before the commit; if one lands in the moment before git reads HEAD, gitmem's commit
    is taken back off the branch with a compare-and-swap of the ref (`update-ref HEAD parent
    ours`: only while HEAD is still ours) and HeadMoved is raised, so the caller builds again."""
    message = with_trailers(message, trailers)
    env, fallback = identity_env(git)
    head = git.head() if base == UNREAD else base
    scratch = git.git_dir / "gitmem" / f"commit-index.{os.getpid()}"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    temp = {**(env or os.environ), "GIT_INDEX_FILE": str(scratch)}
    # a git at work holds index.lock (a person's commit, say): let it finish first, or its
    # update of HEAD would fail on ours
    indexlock.retry(git, lambda: indexlock.free(git))
    try:
        if git.head() != head:
            raise HeadMoved("HEAD moved while gitmem built its commit; nothing was committed",
                            "run the command again")
        oids, tree = _stage(git, head, files, temp, removed)
        if head and tree == tree_id(git, head):
            return None, False
        new = _commit_and_restage(git, head, oids, staged or {}, message, temp, tree, removed)
    finally:
        for leftover in (scratch, scratch.with_name(scratch.name + ".lock")):
            leftover.unlink(missing_ok=True)
    return new, fallback


def _stage(git: Git, head: str | None, files: dict[str, bytes], env: dict[str, str],
           removed: tuple[str, ...] = ()) -> tuple[dict[str, str], str]:
    """HEAD's tree with these files and without `removed`, written in the private index `env`
    names: (path -> blob, tree)."""
    git.run("read-tree", *([head] if head else ["--empty"]), env=env)
    oids = {path: _store(git, data) for path, data in files.items()}
    for path, oid in oids.items():
        git.run("update-index", "--add", "--cacheinfo", f"100644,{oid},{path}", env=env)
    if removed:
        git.run("update-index", "--force-remove", "--", *removed, env=env)
    return oids, git.run("write-tree", env=env).decode().strip()


def _commit_and_restage(git: Git, head: str | None, oids: dict[str, str], staged: Staged,
                        message: str, env: dict[str, str], tree: str, removed: tuple[str, ...] = ()) -> str:
    """Bring git's own index along (see commit_files), then commit the private index; the commit.

    git's index takes the change first: once HEAD is gitmem's commit, a person's `git commit` in the
    time its hooks take (a person's post-commit hook of seconds) committed the index as it was, and
    so undid gitmem's change (a git user's run, 2026-11-27). Now such a commit holds gitmem's change
    with theirs, and gitmem's own, parented on it, is taken back (HeadMoved): nothing is undone. If
    the commit fails, the change stays staged, as `git add` would have left it."""
    try:
        _restage(git, head, oids, staged, removed)
    except GitFailed as exc:
        raise IndexNotUpdated(f"git's index could not be updated: {exc.message}; nothing was committed",
                              "run the command again once git is done (a git at work holds .git/index.lock)") from exc
    git.run("commit", "-q", "--no-edit", "-m", message, env=env)
    return _as_built(git, head, _on_base(git, head, tree), tree)


def _as_built(git: Git, base: str | None, new: str, tree: str) -> str:
    """gitmem's commit, if it holds the tree gitmem built; else (a person's pre-commit hook added to
    it: a formatter that runs `git add` on what it finds staged put their draft in gitmem's commit, a
    git user's run) taken back off the branch, and refused: a gitmem commit holds only its change."""
    made = tree_id(git, new)
    if made == tree:
        return new
    extra = git.run("diff-tree", "-r", "--name-only", "-z", tree, made).decode("utf-8", "replace").split("\0")
    paths = ", ".join(p for p in extra if p) or "its tree"
    if base is not None and git.head() == new and _swap_head(git, base, new):
        raise GitmemError(f"a pre-commit hook changed gitmem's commit ({paths}): it was taken back, and gitmem's "
                          "change is left staged; nothing was committed",
                          "make the hook leave files it did not change alone (no 'git add' of the work tree), "
                          "or commit the staged change yourself: git commit")
    raise GitmemError(f"a pre-commit hook changed gitmem's commit {new[:7]} ({paths}), and gitmem cannot take it "
                      "back now", f"see what it holds: git show {new[:7]}")


def _on_base(git: Git, base: str | None, tree: str) -> str:
    """gitmem's commit; HeadMoved, with gitmem's commit taken back off the branch, if git parented it on a commit
    other than `base` (one landed between the check and git reading HEAD). gitmem's commit is
    HEAD, or (a commit followed it at once) the nearest first parent with its tree."""
    expected = [base] if base else []
    new = git.head()
    assert new is not None
    if git.parents(new) == expected:
        return new
    chain = git.run("rev-list", "--first-parent", "-n", str(OURS_WITHIN), new).decode().split()
    ours = next((oid for oid in chain if tree_id(git, oid) == tree), None)
    parents = git.parents(ours) if ours is not None else []
    if ours is not None and parents == expected:
        return ours  # a commit followed gitmem's, which was made on its base
    landed = parents[0] if parents else None
    if ours == new and landed is not None and _swap_head(git, landed, new):
        raise HeadMoved("HEAD moved while gitmem committed; its commit was taken back", "run the command again")
    where = ours or new
    raise GitmemError(f"gitmem's commit {where[:7]} may have been made on a commit that landed while gitmem "
                      "committed, and it cannot take it back now", f"see what it changed with: git show {where[:7]}, "
                      "and restore anything it undid")


def _swap_head(git: Git, new: str, old: str) -> bool:
    """Point HEAD (its branch) at `new` only if it is still at `old`: whether it did."""
    try:
        git.run("update-ref", "-m", "gitmem: take back a commit made on a moved HEAD", "HEAD", new, old)
        return True
    except GitFailed:
        return False


def _store(git: Git, data: bytes) -> str:
    try:
        return store_blob(git, data)
    except OSError as exc:
        raise GitFailed(f"git could not store the page: {exc.strerror or exc}") from exc


def _restage(git: Git, head: str | None, oids: dict[str, str], staged: Staged,
             removed: tuple[str, ...] = ()) -> None:
    """Point git's index at the new blobs for the paths where it held HEAD's version (or nothing,
    where HEAD had nothing); where a person staged their own version, at `staged[path]`'s bytes
    (theirs with gitmem's change), only while the index still holds the version those were made
    from: one they `git add`-ed while gitmem committed (its hooks can take seconds) is theirs,
    and stays (an attack run's second `git add` was overwritten, 2026-11-27). A removed path
    leaves git's index where the index held HEAD's version of it."""
    gone = [path for path in removed if (entry := git.index_entry(path)) is not None
            and [entry[2]] == ([e.oid for e in git.tree(head, path) if e.path == path] if head else [])]
    if gone:
        indexlock.retry(git, lambda: git.run("update-index", "--force-remove", "--", *gone))
    for path, oid in oids.items():
        entry = git.index_entry(path)
        if entry is not None and entry[0] == UNMERGED:
            continue  # a conflict in the index (stages 1-3) is the person's to resolve, never gitmem's to overwrite
        at_head = git.tree(head, path) if head else []
        was = next((e.oid for e in at_head if e.path == path), None)
        if (entry[2] if entry else None) != was:
            if path not in staged or entry is None or entry[2] != staged[path][0]:
                continue
            oid = _store(git, staged[path][1])
        info = f"100644,{oid},{path}"
        indexlock.retry(git, partial(git.run, "update-index", "--add", "--cacheinfo", info))
    try:  # record the files' stat data, as `git add` would (else git sees them as not up to date)
        git.run("update-index", "-q", "--refresh")
    except GitFailed:
        pass
