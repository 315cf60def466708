"""refs/gitmem/embeddings: the notebook's embeddings kept in git, so that a clone need not compute
them again (the format is index/vecfile.py, what goes in and out is index/sharing.py).

The ref is a chain of commits whose tree holds files at `MODEL/SHARD/OID`: MODEL names the model
(a hash of its id), SHARD is the first two hex digits of the texts' hashes, OID is the file's own
blob id. A path therefore always holds the same content, and the union of two trees (what
`git mem sync` makes when two clones added vectors) keeps every file of both: no vector is lost
and there is never a conflict. Files are only added, except that many small files of one shard
are replaced by one (`compact`); a merge may bring the small ones back, which costs room, not
correctness.

Everything is plumbing (hash-object, mktree through a private index file, commit-tree,
update-ref with the old value): the work tree, git's index and HEAD are never touched.

Plain git carries the ref once `configure` set a fetch refspec for it: `git fetch` brings the
remote's into `refs/remotes/REMOTE/gitmem/` (never over the local ref, which may hold vectors not
pushed yet); readers take the union of the local ref and those. No push refspec is set: one would
replace what a plain `git push` pushes. `git mem sync` pushes the ref (see docs/git.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..errors import GitFailed
from .git import Git
from .plumbing import commit_tree, ref, store_blob, update_ref

REF = "refs/gitmem/embeddings"
REMOTE_SUFFIX = "/gitmem/embeddings"
ATTEMPTS = 5
MAX_BLOB = 64 << 20  # a file bigger than this is not read (a tampered ref must not fill the memory)


def fetch_spec(remote: str) -> str:
    """The fetch refspec that brings a remote's gitmem refs into its remote-tracking namespace."""
    return f"+refs/gitmem/*:refs/remotes/{remote}/gitmem/*"


def tips(git: Git) -> dict[str, str]:
    """The local ref and every remote-tracking copy of it: ref name -> commit."""
    out = git.run("for-each-ref", "--format=%(objectname) %(refname)", REF, "refs/remotes").decode()
    found: dict[str, str] = {}
    for line in out.splitlines():
        oid, _, name = line.partition(" ")
        if name == REF or (name.startswith("refs/remotes/") and name.endswith(REMOTE_SUFFIX)):
            found[name] = oid
    return found


def files(git: Git, commits: list[str], under: str = "") -> dict[str, str]:
    """path -> blob of every file in these commits' trees (the union), optionally under a folder."""
    found: dict[str, str] = {}
    for commit in dict.fromkeys(commits):
        raw = git.run("ls-tree", "-r", "-z", "--full-tree", commit, *([under] if under else []))
        for item in raw.split(b"\0"):
            meta, _, path = item.partition(b"\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == b"blob":
                found.setdefault(os.fsdecode(path), parts[2].decode())
    return found


def read(git: Git, oids: list[str]) -> Iterator[tuple[str, bytes]]:
    """(oid, content) of these blobs; missing or oversized ones are left out."""
    if not oids:
        return
    sizes = git.run("cat-file", "--batch-check", input="\n".join(oids).encode() + b"\n").decode().splitlines()
    wanted = []
    for line in sizes:
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and int(parts[2]) <= MAX_BLOB:
            wanted.append(parts[0])
    if not wanted:
        return
    raw = git.run("cat-file", "--batch", input="\n".join(wanted).encode() + b"\n")
    at = 0
    while at < len(raw):
        end = raw.find(b"\n", at)
        if end < 0:
            return
        parts = raw[at:end].decode("ascii", "replace").split()
        if len(parts) != 3 or not parts[2].isdigit():
            at = end + 1  # an object gone since --batch-check ("OID missing"): no content follows
            continue
        start = end + 1
        yield parts[0], raw[start:start + int(parts[2])]
        at = start + int(parts[2]) + 1


def add(git: Git, blobs: list[tuple[str, bytes]], drop: set[str], message: str) -> tuple[str | None, list[str]]:
    """A new commit of the ref: its tree (joined with every remote-tracking copy the ref does not
    hold yet) less the paths in `drop`, plus each (FOLDER, content) of `blobs` at FOLDER/OID.
    Compare-and-swap on the ref, retried when another process moved it. The new commit (None when
    nothing changed) and the stored blobs."""
    stored = [(folder, store_blob(git, data)) for folder, data in blobs]
    for _ in range(ATTEMPTS):
        old = ref(git, REF)
        others = [tip for name, tip in tips(git).items() if name != REF and tip != old]
        joined = [tip for tip in dict.fromkeys(others) if old is None or not git.is_ancestor(tip, old)]
        entries = files(git, ([old] if old else []) + joined)
        for path in drop:
            entries.pop(path, None)
        for folder, oid in stored:
            entries[f"{folder}/{oid}"] = oid
        tree = _tree(git, entries)
        if old is not None and not joined and tree == git.run("rev-parse", f"{old}^{{tree}}").decode().strip():
            return None, [oid for _, oid in stored]
        commit = commit_tree(git, tree, ([old] if old else []) + joined, message)
        try:
            update_ref(git, REF, commit, old)
        except GitFailed:
            continue  # moved meanwhile (another process exported, or a sync): build on the new value
        return commit, [oid for _, oid in stored]
    raise GitFailed(f"git update-ref failed: {REF} kept moving ({ATTEMPTS} attempts)")


def _tree(git: Git, entries: dict[str, str]) -> str:
    """The tree of these files, made in a private index file (git's own index is not touched)."""
    scratch = git.git_dir / "gitmem" / f"vectors-{os.getpid()}.index"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(scratch)}
    try:
        git.run("read-tree", "--empty", env=env)
        listing = "".join(f"100644 {oid}\t{path}\0" for path, oid in sorted(entries.items()))
        git.run("update-index", "-z", "--index-info", env=env, input=listing.encode())
        return git.run("write-tree", env=env).decode().strip()
    finally:
        scratch.unlink(missing_ok=True)


def configure(git: Git) -> list[str]:
    """Add the fetch refspec of gitmem's refs to every remote that lacks it; the remotes changed."""
    changed = []
    for remote in git.run("remote").decode().split():
        key = f"remote.{remote}.fetch"
        code, out, _ = git.call("config", "--local", "--get-all", key)
        present = out.decode().splitlines() if code == 0 else []
        if fetch_spec(remote) not in present:
            git.run("config", "--local", "--add", key, fetch_spec(remote))
            git.config_changed()
            changed.append(remote)
    return changed


def fetch(git: Git, remote: str) -> str | None:
    """Fetch the remote's gitmem refs (into its remote-tracking namespace); None, or why it failed."""
    env = {"GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never", "SSH_ASKPASS_REQUIRE": "never"}
    code, _, err = git.call("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, fetch_spec(remote),
                            env=env)
    return None if code == 0 else (err.decode("utf-8", "replace").strip().splitlines() or ["failed"])[-1][:200]
