"""`git mem sync`: fetch, integrate, push, and again while the remote moves under us.

What travels: the checked-out branch (the notebook's), the proposals branch
(`gitmem/proposed`) and gitmem's own refs (`refs/gitmem/*`). Each round asks the remote what
it holds (`ls-remote`), fetches those refs into a scratch namespace (`refs/gitmem-sync/`,
emptied at the end), integrates, and pushes; a push the remote rejects because another writer
got there first starts the next round after a short, growing, random pause. The rounds are
bounded (ATTEMPTS); a sync that runs out says what is left and changes nothing more.

- The branch: a remote tip this branch already holds needs nothing; a branch that is behind
  fast-forwards; otherwise git merges (or rebases, where `branch.NAME.rebase` / `pull.rebase` say
  so). Pages merge fact by fact and daily logs entry by entry (the merge drivers), so writers
  adding facts never conflict. A real conflict (the same fact changed differently on both sides)
  stops the sync where git stops: the merge (or rebase) stays in progress for
  `git mem resolve`, exactly as `git merge` would leave it.
- Nothing is swept in: uncommitted edits are set aside while git merges (`--autostash`) and put
  back after, merged with what came in (the merge drivers run there too); the merge commit holds
  only the merge. If they cannot be put back cleanly, git keeps them in the stash, and the sync
  stops there (exit 1, nothing pushed) saying so: git itself exits 0 then, and its message was
  not shown.
  What was staged is staged again after (git's autostash puts it back unstaged; see _staged).
- A remote that no longer holds what this clone fetched from it before (someone force-pushed an
  older or other history) is refused before anything changes here: following it could drop facts
  (that is what `git pull --rebase` with its fork point does). `allow_rewritten` merges it anyway,
  keeping every fact this clone has.
- The proposals branch and gitmem's refs are chains built with plumbing: one that is behind
  moves up, one that is ahead is pushed, and two that diverged are joined by a merge commit
  (`Gitmem-Merge` trailer) whose parents keep both chains; refs/gitmem/* trees are joined as the
  union of both sides' files (they are content-addressed stores).
"""

from __future__ import annotations

import os
import random
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GitFailed, GitmemError
from . import indexlock, rewrites
from .git import Git, words
from .identity import commit_env
from .plumbing import commit_tree, ref, refs, tree_id, update_ref

ATTEMPTS = 12
PROPOSALS = "refs/heads/gitmem/proposed"
OWN = "refs/gitmem/"
SCRATCH = "refs/gitmem-sync/"
RETRYABLE = ("fetch first", "non-fast-forward", "failed to update ref", "failed to lock", "cannot lock ref",
             "incorrect old value", "stale info", "failed to update", "reference already exists")
CREDENTIALS = re.compile(r"(://)[^/@\s]+@")


class SyncStopped(GitmemError):
    """git stopped on a conflict: the merge or rebase stays in progress for `git mem resolve`."""


class SyncRefused(GitmemError):
    """Nothing was changed: the work tree, the repository's state or the remote stands in the way."""


class SyncIncomplete(GitmemError):
    """The remote kept moving: every round's push was rejected."""


@dataclass
class Synced:
    remote: str
    branch: str
    mode: str  # merge | rebase
    integrated: str  # up to date | fast-forward | merged | rebased | nothing on the remote yet
    pushed: list[str] = field(default_factory=list)  # refs the last round pushed
    attempts: int = 1
    head: str | None = None
    notes: list[str] = field(default_factory=list)


def sync(git: Git, remote: str | None = None, allow_rewritten: bool = False, attempts: int = ATTEMPTS,
         pause: Callable[[float], None] = time.sleep) -> Synced:
    """Fetch, integrate and push until the remote accepts (at most `attempts` rounds)."""
    branch = _branch(git)
    remote = remote or _remote(git, branch)
    upstream = git.config_get(f"branch.{branch}.merge") or f"refs/heads/{branch}"
    mode = _mode(git, branch)
    env = _quiet_env()
    result = Synced(remote, branch, mode, "up to date")
    try:
        for attempt in range(1, max(1, attempts) + 1):
            result.attempts = attempt
            theirs = _fetch(git, remote, upstream, env)
            tip = theirs.get(upstream)
            _check_rewritten(git, remote, upstream, tip, allow_rewritten)
            if tip:
                update_ref_forced(git, _tracking(remote, upstream), tip)
            result.integrated = _integrate(git, remote, upstream, tip, mode, allow_rewritten, result.notes)
            specs = _branch_push(git, branch, upstream, tip) + _side_refs(git, remote, theirs)
            result.head = git.head()
            if not specs:
                result.pushed = []
                return result
            rejected = _push(git, remote, specs, env, branch)
            if not rejected:
                _pushed(git, remote, branch, upstream, specs)
                result.pushed = [spec.split(":", 1)[1] for spec in specs]
                if tip is None:
                    result.integrated = "nothing on the remote yet"
                return result
            if attempt < attempts:
                pause(backoff(attempt))
        raise SyncIncomplete(
            f"the remote {remote} kept moving: {attempts} pushes were rejected ({rejected}); everything is merged "
            f"here and nothing is lost, but {branch} is not on the remote yet", "run 'git mem sync' again")
    finally:
        _drop_scratch(git)


def backoff(attempt: int) -> float:
    """The pause before round `attempt + 1`: growing, capped at 3 s, random so that writers that
    collided do not collide again."""
    return min(3.0, 0.05 * 2.0 ** attempt) * random.uniform(0.5, 1.5)


# -- where and how -------------------------------------------------------------
def _branch(git: Git) -> str:
    busy = git.in_progress()
    if busy:
        raise SyncRefused(f"a {busy} is in progress here, so sync cannot merge; nothing was changed",
                          f"resolve it (git mem resolve PATH --take ours|theirs|both, or without --take once you "
                          f"edited the markers away) or abort it "
                          f"(git {busy} --abort), then run 'git mem sync' again")
    if git.head() is not None and git.detached():
        raise SyncRefused("HEAD is detached: there is no branch to sync; nothing was changed",
                          "switch to the notebook's branch (git switch BRANCH), then run 'git mem sync' again")
    name = git.run("symbolic-ref", "--quiet", "--short", "HEAD").decode().strip()
    return name


def _remote(git: Git, branch: str) -> str:
    configured = git.config_get(f"branch.{branch}.remote")
    if configured and configured != ".":
        return configured
    names = git.run("remote").decode().split()
    if "origin" in names:
        return "origin"
    if len(names) == 1:
        return names[0]
    if not names:
        raise SyncRefused("this repository has no remote to sync with; nothing was changed",
                          "add one (git remote add origin URL), then run 'git mem sync'")
    raise SyncRefused(f"{branch} has no upstream and there are several remotes ({', '.join(names)})",
                      "name one: git mem sync --remote NAME")


def _mode(git: Git, branch: str) -> str:
    setting = git.config_get(f"branch.{branch}.rebase") or git.config_get("pull.rebase") or "false"
    return "rebase" if setting.lower() in ("true", "merges", "interactive", "i", "m", "1", "yes", "on") else "merge"


def _quiet_env() -> dict[str, str]:
    """Network git that never waits for a person: no password prompt (a wrong or missing one
    fails at once, in one line), no editor."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never", "GIT_EDITOR": "true",
            "GIT_MERGE_AUTOEDIT": "no", "SSH_ASKPASS_REQUIRE": "never"}


def _tracking(remote: str, upstream: str) -> str:
    return f"refs/remotes/{remote}/{upstream.removeprefix('refs/heads/')}"


# -- fetching ------------------------------------------------------------------
def _fetch(git: Git, remote: str, upstream: str, env: dict[str, str]) -> dict[str, str]:
    """What the remote holds of the refs that sync (full name -> commit), fetched into SCRATCH."""
    raw = _network(git, ["ls-remote", "--refs", remote], env)
    found: dict[str, str] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        oid, _, name = line.partition("\t")
        if name in (upstream, PROPOSALS) or name.startswith(OWN):
            found[name] = oid
    if found:
        specs = [f"+{name}:{SCRATCH}{name.removeprefix('refs/')}" for name in found]
        # --refmap= : git would also move the remote-tracking refs itself (forced), before
        # _check_rewritten could compare them with what came in
        _network(git, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=", remote, *specs], env)
    # what was fetched is what counts (the remote may have moved since ls-remote)
    return {name: ref(git, f"{SCRATCH}{name.removeprefix('refs/')}") or oid for name, oid in found.items()}


def _network(git: Git, args: list[str], env: dict[str, str]) -> bytes:
    try:
        return git.run(*args, env=env)
    except GitFailed as exc:
        message = CREDENTIALS.sub(r"\1", exc.message)
        hint = "check the remote's URL and that it is reachable (git remote -v), then run 'git mem sync' again"
        if re.search(r"authentication failed|could not read username|invalid credentials|401", message, re.I):
            hint = ("check the user name and password for this remote (your git credential helper, "
                    "or the URL), then run 'git mem sync' again")
        raise SyncRefused(message + "; nothing was changed here", hint) from exc


def _check_rewritten(git: Git, remote: str, upstream: str, tip: str | None, allowed: bool) -> None:
    """SyncRefused if the remote's branch no longer holds what this clone fetched from it before."""
    before = ref(git, _tracking(remote, upstream))
    if allowed or before is None or before == tip or not git.has_object(before):
        return
    if tip is not None and git.is_ancestor(before, tip):
        return
    name = upstream.removeprefix("refs/heads/")
    now = f"now at {tip[:7]}" if tip else "now deleted"
    raise SyncRefused(
        f"{remote}/{name} was rewritten (force-pushed): it no longer holds {before[:7]}, which this clone fetched "
        f"from it before ({now}); following it could drop facts, so nothing was changed",
        "to merge it keeping every fact here and push the result, run 'git mem sync --allow-rewritten'")


# -- integrating the branch ----------------------------------------------------
def _integrate(git: Git, remote: str, upstream: str, tip: str | None, mode: str, unrelated: bool = False,
               notes: list[str] | None = None) -> str:
    """Bring the remote's tip in; `unrelated`: histories with no commit in common may be joined;
    `notes` hears what the person should know of their uncommitted changes."""
    notes = notes if notes is not None else []
    head = git.head()
    if tip is None or tip == head:
        return "up to date" if tip else "nothing on the remote yet"
    if head is not None and git.is_ancestor(tip, head):
        return "up to date"
    name = f"{remote}/{upstream.removeprefix('refs/heads/')}"
    if head is None or git.is_ancestor(head, tip):
        notes += _integrating(git, ["merge", "--ff-only", "--autostash", "--quiet", tip], "fast-forward")
        return "fast-forward"
    if not _related(git, head, tip) and not unrelated:
        # two clones of an empty remote that each ran `git mem init`, or a remote of another notebook
        raise SyncRefused(f"this branch and {name} share no commit: each was begun on its own (two clones of an "
                          "empty remote that each ran 'git mem init', say), or the remote holds another "
                          "notebook; nothing was changed",
                          "if it is this notebook's remote, join the two (every fact of both is kept): "
                          "git mem sync --allow-rewritten")
    _refuse_rewrites(git, head, tip, name, unrelated)
    if mode == "rebase":
        notes += _integrating(git, ["rebase", "--quiet", "--autostash", "--no-fork-point", tip], "rebase")
        return "rebased"
    join = ["--allow-unrelated-histories"] if unrelated else []
    notes += _integrating(git, ["merge", "--quiet", "--autostash", "--no-edit", *join, "-m", f"mem: sync with {name}",
                                tip], "merge")
    return "merged"


def _refuse_rewrites(git: Git, head: str, tip: str, name: str, allowed: bool) -> None:
    """SyncRefused if a commit here rewrites one `name` already has (see gitops/rewrites)."""
    said = None if allowed else rewrites.refusal(git, head, tip, name)
    if said is not None:
        raise SyncRefused(*said)


def _related(git: Git, head: str, tip: str) -> bool:
    """Whether two commits have a commit in common (git merge-base finds one)."""
    try:
        git.run("merge-base", head, tip)
        return True
    except GitFailed:
        return False


def _integrating(git: Git, args: list[str], what: str) -> list[str]:
    """Run the merge or rebase; what the person should know of their staged changes (see _restage)."""
    # GITMEM_SYNCING (notes/pulled.SYNCING): the hooks this fires leave naming what came in to sync
    env = {**commit_env(git), "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no", "GITMEM_SYNCING": "1"}
    indexlock.await_movers(git)  # a person's commit in its editor would fail on the moved HEAD
    staged = _staged(git)
    try:
        git.run(*args, env=env)
    except GitFailed as exc:
        conflicted = unmerged(git)
        if conflicted:
            shown = ", ".join(conflicted)
            raise SyncStopped(
                f"the {what} stopped on a conflict in {shown}: the same fact was changed differently here and on "
                f"the remote; the {what} is left in progress, nothing was pushed{_kept(staged)}",
                f"run 'git mem resolve --take ours|theirs|both -- {shlex.quote(conflicted[0])}' (or edit the "
                f"markers and run it without --take){_sides(what)}, then 'git mem sync' again") from exc
        if git.in_progress():  # stopped for another reason (a hook, say): leave it to the person, as git does
            raise SyncStopped(f"the {what} stopped: {exc.message}{_kept(staged)}",
                              f"finish it, or abort it (git {what} --abort)") from exc
        if staged[2] is not None:  # nothing changed: the index still holds what the patch keeps
            staged[2].unlink(missing_ok=True)
        raise SyncRefused(f"could not {what}: {exc.message}; nothing was changed",
                          "commit or stash your uncommitted changes to those files (git stash), then run "
                          "'git mem sync' again") from exc
    left = unmerged(git)
    if left:  # git exits 0 when the edits it set aside (--autostash) come back with conflicts
        raise SyncStopped(
            f"the {what} is done, but your uncommitted changes to {', '.join(left)} conflict with what came in: "
            f"git put them back with conflict markers and kept them in the stash too; nothing was pushed"
            f"{_kept(staged)}",
            f"keep what you want between the markers in {shlex.quote(left[0])}, then 'git restore --staged "
            f"{shlex.quote(left[0])}' and 'git stash drop' (your changes as they were: git stash show -p), "
            "then 'git mem sync' again")
    return _restage(git, staged)


def _sides(what: str) -> str:
    """Which side is which, where git turns them round: a rebase replays your commits on the remote's,
    so ours is the remote's ("--take ours" kept a teammate's line for a newcomer's team)."""
    return "; in a rebase ours is the remote's side, theirs yours" if what == "rebase" else ""


STAGED_PATCH = "staged-before-sync.patch"  # in the git dir's gitmem/ folder while a sync runs
PATCH_ARGS = ("--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", "--src-prefix=a/",
              "--dst-prefix=b/")


def _patch_file(git: Git) -> Path:
    """Where this sync keeps the staged changes: a name no other sync's kept patch has (one that
    stopped left its own, which the next sync overwrote: an attack run, 2026-11-27)."""
    folder = git.git_dir / "gitmem"
    path, n = folder / STAGED_PATCH, 1
    while path.exists():
        n += 1
        path = folder / STAGED_PATCH.replace(".patch", f"-{n}.patch")
    return path


def _kept(staged: tuple[bytes, list[str], Path | None]) -> str:
    """What a sync that stopped says of the staged changes it kept (git's stash keeps them unstaged)."""
    saved = staged[2]
    return (f"; what you had staged is kept as {shlex.quote(str(saved))} ('git apply --cached --3way "
            f"{shlex.quote(str(saved))}' stages it again)") if saved is not None else ""


def _staged(git: Git) -> tuple[bytes, list[str], Path | None]:
    """The staged changes as a patch over HEAD, and their paths, kept in the git dir too (where): git's
    --autostash puts changes back without --index, so a staged version that the work tree no
    longer holds was lost ("git add" of a line, then the line edited away; an attack run,
    2026-11-27), and every staged change came back unstaged."""
    if git.head() is None:
        return b"", [], None
    patch = git.run("diff", "--cached", *PATCH_ARGS)
    if not patch:
        return b"", [], None
    names = git.run("diff", "--cached", "--name-only", "-z", "--no-renames")
    saved = _patch_file(git)
    saved.parent.mkdir(exist_ok=True)
    saved.write_bytes(patch)
    return patch, [os.fsdecode(n) for n in names.split(b"\0") if n], saved


def _restage(git: Git, staged: tuple[bytes, list[str], Path | None]) -> list[str]:
    """Stage again what was staged before the merge (the paths' index entries as HEAD's, then the
    patch applied to the index alone, three-way when plain fails); a note naming the kept patch
    when it cannot be (what came in changed the same lines)."""
    patch, paths, saved = staged
    if not patch or saved is None:
        return []

    def unstage() -> None:  # the index only: the work tree keeps what autostash put back (paths on stdin)
        git.run("reset", "--quiet", "--pathspec-from-file=-", "--pathspec-file-nul",
                input=b"".join(os.fsencode(p) + b"\0" for p in paths), env={"GIT_LITERAL_PATHSPECS": "1"})

    unstage()
    for extra in ((), ("--3way",)):
        try:
            git.run("apply", "--cached", *extra, "-", input=patch)
        except GitFailed:
            continue
        saved.unlink(missing_ok=True)
        return []
    unstage()  # a failed three-way apply leaves the paths unmerged in the index: a commit would fail on them
    return [f"your staged changes could not be staged again over what came in (the work tree is as you left "
            f"it, and those files are unstaged); the staged version is kept as a patch: git apply --3way "
            f"{shlex.quote(str(saved))} puts it in the work tree and the index, with conflict markers where "
            "it meets what came in"]


def incoming(git: Git, before: str | None) -> tuple[str | None, str | None]:
    """(since, after): what a sync that stopped brought in, from the commit its tip shares with
    `before` (this clone's HEAD when it began) to the tip a merge or rebase in progress brings in
    (MERGE_HEAD, or what the rebase is onto): the person's own changes since are not what came in
    (a review: a page deleted here was named as pulled text). With none in progress (the merge is
    done, the edits git set aside are what conflict): `before` to HEAD."""
    tip = None
    if git.in_progress() == "merge":
        tip = git.resolve("MERGE_HEAD")
    for folder in ("rebase-merge", "rebase-apply"):
        onto = git.git_dir / folder / "onto"
        if tip is None and onto.is_file():
            tip = git.resolve(onto.read_text(encoding="ascii", errors="replace").strip())
    if tip is None or before is None:
        return before, git.head()
    try:
        return git.run("merge-base", before, tip).decode().strip() or None, tip
    except GitFailed:
        return None, tip


def unmerged(git: Git) -> list[str]:
    """Repo-relative paths git has left unmerged (a conflict)."""
    raw = git.run("diff", "--name-only", "--diff-filter=U", "-z")
    return list(dict.fromkeys(os.fsdecode(p) for p in raw.split(b"\0") if p))


def _branch_push(git: Git, branch: str, upstream: str, tip: str | None) -> list[str]:
    head = git.head()
    if head is None or head == tip:
        return []
    return [f"{head}:{upstream}"]


# -- the proposals branch and gitmem's own refs ---------------------------------
def _side_refs(git: Git, remote: str, theirs: dict[str, str]) -> list[str]:
    """Bring each side ref up to date with the remote's; the push specs of those ahead of it."""
    mine = refs(git, OWN.rstrip("/"))
    proposals = ref(git, PROPOSALS)
    if proposals:
        mine[PROPOSALS] = proposals
    names = sorted(set(mine) | {name for name in theirs if name == PROPOSALS or name.startswith(OWN)})
    specs = []
    for name in names:
        remote_tip = theirs.get(name)
        if remote_tip and name == PROPOSALS:
            update_ref_forced(git, _tracking(remote, name), remote_tip)
        new = _joined(git, name, mine.get(name), remote_tip)
        if new != remote_tip:
            specs.append(f"{new}:{name}")
    return specs


SIDE_ATTEMPTS = 5


def _joined(git: Git, name: str, local: str | None, remote_tip: str | None) -> str:
    """Join a side ref with the remote's and move it there, reading it again when it moved
    meanwhile: sync's own merge starts the hooks' worker, which adds vectors to
    refs/gitmem/embeddings, and the compare-and-swap failed 5 syncs in 6 for a newcomer's team,
    leaving the merged branch unpushed (2026-11-27)."""
    for attempt in range(SIDE_ATTEMPTS):
        new = _join(git, name, local, remote_tip)
        if new == local:
            return new
        try:
            update_ref(git, name, new, local)
            return new
        except GitFailed:
            moved = ref(git, name)
            if attempt == SIDE_ATTEMPTS - 1 or moved == local:
                raise
            local = moved
    raise AssertionError("unreachable")


def _join(git: Git, name: str, local: str | None, remote_tip: str | None) -> str:
    """The ref's new local value: the remote's, ours, or both joined by a merge commit."""
    if local is None or local == remote_tip:
        return remote_tip or ""
    if remote_tip is None or git.is_ancestor(remote_tip, local):
        return local
    if git.is_ancestor(local, remote_tip):
        return remote_tip
    tree = tree_id(git, remote_tip) if name == PROPOSALS else _union_tree(git, local, remote_tip)
    message = f"mem: sync {name.removeprefix('refs/')}\n\nGitmem-Merge: {name.removeprefix('refs/')}"
    return commit_tree(git, tree, [local, remote_tip], message)


def _union_tree(git: Git, ours: str, theirs: str) -> str:
    """Every file of both trees (ours where both have a path): a store keyed by content keeps all."""
    scratch = git.git_dir / "gitmem" / f"sync-{os.getpid()}.index"
    scratch.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(scratch)}
    try:
        git.run("read-tree", theirs, env=env)
        raw = git.run("ls-tree", "-r", "-z", "--full-tree", ours)
        for item in raw.split(b"\0"):
            meta, _, path = item.partition(b"\t")
            if meta:
                mode, _kind, oid = meta.decode().split()
                git.run("update-index", "--add", "--cacheinfo", f"{mode},{oid},{os.fsdecode(path)}", env=env)
        return git.run("write-tree", env=env).decode().strip()
    finally:
        scratch.unlink(missing_ok=True)


def update_ref_forced(git: Git, name: str, new: str) -> None:
    git.run("update-ref", "-m", "gitmem sync", name, new)


def _drop_scratch(git: Git) -> None:
    for name in refs(git, SCRATCH.rstrip("/")):
        try:
            git.run("update-ref", "-d", name)
        except GitFailed:
            pass


# -- pushing ---------------------------------------------------------------------
def _pushed(git: Git, remote: str, branch: str, upstream: str, specs: list[str]) -> None:
    """After a push the remote took: the remote-tracking refs say so, and a branch that had no
    upstream has this one (as `git push -u` would set)."""
    for spec in specs:
        oid, name = spec.split(":", 1)
        if name == upstream or name == PROPOSALS:
            update_ref_forced(git, _tracking(remote, name), oid)
    if not git.config_get(f"branch.{branch}.remote"):
        git.config_set(f"branch.{branch}.remote", remote)
        git.config_set(f"branch.{branch}.merge", upstream)


def _push(git: Git, remote: str, specs: list[str], env: dict[str, str], branch: str) -> str:
    """Push; '' when the remote took everything, else the reason it gave for a retryable
    rejection. SyncRefused for anything a retry cannot fix (a hook that declined, a password)."""
    args = ["push", "--porcelain", remote, *specs]
    status, out, err = _run(git, args, env)
    if status == 0:
        return ""
    rejected = [line for line in out.splitlines() if line.startswith("!")]
    reasons = [line.rsplit("(", 1)[-1].rstrip(")") if "(" in line else line for line in rejected]
    if rejected and all(any(word in reason for word in RETRYABLE) for reason in reasons):
        return "; ".join(dict.fromkeys(reasons))
    detail = CREDENTIALS.sub(r"\1", words(err) or "; ".join(reasons) or words(out))
    hint = "see what the remote said, fix it, then run 'git mem sync' again (everything is merged here)"
    if re.search(r"authentication failed|could not read username|invalid credentials|401|403", detail, re.I):
        hint = ("check the user name and password for this remote (your git credential helper, or the URL), "
                "then run 'git mem sync' again")
    raise SyncRefused(f"the remote {remote} refused the push of {branch}: {detail}", hint)


def _run(git: Git, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """git with its exit status and both outputs (a push reports per ref on stdout)."""
    status, out, err = git.repo.git.execute(["git", *args], with_exceptions=False, with_extended_output=True,
                                            env=env)
    return int(status), str(out), str(err)


def commit_merge(git: Git) -> str | None:
    """Conclude the merge or rebase git stopped in, once nothing is unmerged; the new HEAD."""
    # a rebase's post-rewrite hook names what it brought once it is concluded; a merge's commit fires
    # post-commit, whose naming is left to the caller (notes/resolve.py), once (GITMEM_SYNCING)
    env = {**commit_env(git), "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"}
    busy = git.in_progress()
    if busy == "merge":
        git.run("commit", "--quiet", "--no-edit", env={**env, "GITMEM_SYNCING": "1"})
    elif busy in ("rebase", "cherry-pick", "revert"):
        git.run(busy, "--continue", env=env)
    return git.head()


SIDES = {"ours": "2", "theirs": "3"}  # git's stages of an unmerged file


def sides(git: Git, path: str) -> dict[str, bytes | None]:
    """Each side of an unmerged file as git staged it (None: that side deleted it)."""
    raw = git.run("ls-files", "-u", "-z", "--", path)
    blobs = {}
    for entry in raw.split(b"\0"):
        info, _, _ = entry.partition(b"\t")
        if len(info.split()) == 3:
            _, oid, number = info.split()
            blobs[number.decode()] = oid.decode()
    return {side: git.blob_or_none(blobs[n]) if n in blobs else None for side, n in SIDES.items()}


def take_side(git: Git, path: str, side: str, staged: dict[str, bytes | None] | None = None) -> None:
    """Settle an unmerged file as one side staged it, whole (a side that deleted it: deleted);
    `staged`: its sides, when read already (sides)."""
    if (staged if staged is not None else sides(git, path))[side] is None:
        git.run("rm", "--quiet", "--force", "--", path)
        return
    git.run("checkout", f"--{side}", "--", path)
    stage(git, path)


def stage(git: Git, path: str) -> None:
    """Mark a resolved file as merged (git add)."""
    git.run("add", "--", path)
