"""Proposals: what consolidation learned, as commits on `gitmem/proposed` that a
person accepts or drops, and the record (in git) of which sessions were read.

The branch is a chain built with plumbing (no checkout, the user's index and
work tree untouched). Each proposal commit has the previous link as its first
parent and the commit it was computed against (the base) as its last parent;
its tree is the base's tree with the session's page edits. Its diff against
the base is the proposal. A drop adds a commit with a `Gitmem-Dropped` trailer
to the chain; an accept is a commit on the checked-out branch with a
`Gitmem-Proposal` trailer. A session is consolidated once a commit reachable
from HEAD or from a proposals branch (local or fetched: `origin/gitmem/proposed`)
names it in a `Gitmem-Session` trailer, so two clones that pulled the same
sessions and each other's proposals do not both propose it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import GitmemError, Refused, UsageError
from ..gitops import plumbing
from ..index import confidence, forgotten
from ..notebook import Notebook, decode
from ..notes import change, guard, patch
from ..notes.change import write_lock
from ..notes.pages import Edit

BRANCH = "gitmem/proposed"
REF = f"refs/heads/{BRANCH}"
REMOTE_REFS = f"refs/remotes/*/{BRANCH}"
TRAILER = re.compile(r"^(Gitmem-[A-Za-z-]+): (.+)$", re.MULTILINE)


class ProposalNotFound(GitmemError):
    pass


class ProposalConflict(GitmemError):
    pass


class ProposalRefused(GitmemError):
    """A proposal that touches something other than a note."""


@dataclass
class Proposal:
    id: str
    session: str
    model: str
    base: str
    subject: str
    message: str
    paths: list[str] = field(default_factory=list)
    diff: str = ""
    empty: bool = False
    notes: list[str] = field(default_factory=list)


@dataclass
class Reviewed:
    action: str  # "accepted" or "dropped"
    proposals: list[dict[str, Any]]
    commits: list[str]
    notes: list[str] = field(default_factory=list)


@dataclass
class Pending:
    proposals: list[Proposal]
    notes: list[str] = field(default_factory=list)


def trailers(message: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in TRAILER.findall(message):
        found.setdefault(key, []).append(value.strip())
    return found


def tips(nb: Notebook) -> list[str]:
    """The proposals branch here and as fetched from every remote."""
    local = plumbing.ref(nb.git, REF)
    return list(dict.fromkeys([*([local] if local else []), *plumbing.refs(nb.git, REMOTE_REFS).values()]))


def consolidated(nb: Notebook) -> set[str]:
    """`path@blob` of every session some commit records as consolidated."""
    revs = [r for r in [nb.git.head(), *tips(nb)] if r]
    done: set[str] = set()
    for message in plumbing.grep_log(nb.git, revs, "Gitmem-Session:").values():
        found = trailers(message)
        for path, blob in zip(found.get("Gitmem-Session", []), found.get("Gitmem-Session-Blob", [])):
            done.add(f"{path}@{blob}")
    return done


def _chain(nb: Notebook) -> tuple[list[Proposal], set[str]]:
    """Every proposal on the chains (newest first) and the ids dropped."""
    proposals: dict[str, Proposal] = {}
    dropped: set[str] = set()
    seen: set[str] = set()
    todo = tips(nb)
    while todo:
        oid: str | None = todo.pop(0)
        while oid and oid not in seen:
            seen.add(oid)
            parents, message = nb.git.messages([oid])[oid]
            found = trailers(message)
            if "Gitmem-Merge" in found:  # git mem sync joined two clones' chains: follow both
                todo.extend(parents[1:])
                oid = parents[0] if parents else None
                continue
            if "Gitmem-Dropped" in found:
                dropped.update(found["Gitmem-Dropped"])
                oid = parents[0] if parents else None
                continue
            if "Gitmem-Session" not in found or not parents:
                break
            proposals[oid] = Proposal(oid, found["Gitmem-Session"][0], (found.get("Gitmem-Model") or ["?"])[0],
                                      parents[-1], message.split("\n", 1)[0], message,
                                      empty="Gitmem-Empty" in found)
            oid = parents[0] if len(parents) > 1 else None
    return list(proposals.values()), dropped


def pending(nb: Notebook, with_diff: bool = True) -> Pending:
    """Proposals neither accepted (on this branch) nor dropped, oldest first."""
    proposals, dropped = _chain(nb)
    head = nb.git.head()
    accepted: set[str] = set()
    if head:
        for message in plumbing.grep_log(nb.git, [head], "Gitmem-Proposal:").values():
            accepted.update(trailers(message).get("Gitmem-Proposal", []))
    out = [p for p in reversed(proposals) if not p.empty and p.id not in dropped and p.id not in accepted]
    withheld = forgotten.current(nb) if with_diff else None
    for p in out:
        p.paths = plumbing.changed_paths(nb.git, p.base, p.id)
        if withheld is not None:
            p.diff = plumbing.diff(nb.git, p.base, p.id)
            _withhold(nb, p, withheld)
    return Pending(out)


def _withhold(nb: Notebook, p: Proposal, withheld: forgotten.Matcher) -> None:
    """The proposal as `review` shows it: the lines it adds that a person has forgotten since
    are left out of its diff and its message, as accept leaves them out, and a note says so."""
    if not withheld:
        return
    p.message, p.subject = withheld.message(p.message), withheld.subject(p.subject)
    parts: list[str] = []
    for path in p.paths:
        base, theirs = nb.git.show(p.base, path), nb.git.show(p.id, path)
        before, after = (decode(base) if base is not None else ""), (decode(theirs) if theirs is not None else "")
        kept, n = without_forgotten(before, after, withheld)
        if n:
            p.notes.append(f"{n} line{'s' if n != 1 else ''} it adds to {nb.rel(path) or path} "
                           f"{'were' if n != 1 else 'was'} forgotten (git mem forget) and "
                           f"{'are' if n != 1 else 'is'} left out here and on accept")
        parts.append(f"diff --git a/{path} b/{path}\n" + "".join(difflib.unified_diff(
            before.splitlines(keepends=True), kept.splitlines(keepends=True),
            "/dev/null" if base is None else f"a/{path}", "/dev/null" if theirs is None else f"b/{path}")))
    if p.notes:  # git's diff shows the forgotten lines: the proposal's diff as accept would make it
        p.diff = "".join(parts)


def propose(nb: Notebook, base: str, changes: dict[str, str], message: str) -> str:
    """Add a proposal (notebook-relative page -> new text) on top of the chain; its id."""
    files = {nb.repo_path(rel): text.encode("utf-8") for rel, text in changes.items()}
    tree = plumbing.build_tree(nb.git, base, files)
    return _append(nb, tree, [base], message)


def _append(nb: Notebook, tree: str, extra_parents: list[str], message: str) -> str:
    for _ in range(5):  # another process may move the branch between read and update
        tip = plumbing.ref(nb.git, REF) or next(iter(plumbing.refs(nb.git, REMOTE_REFS).values()), None)
        local = plumbing.ref(nb.git, REF)
        parents = [p for p in [tip, *extra_parents] if p]
        oid = plumbing.commit_tree(nb.git, tree, list(dict.fromkeys(parents)), message)
        try:
            plumbing.update_ref(nb.git, REF, oid, local)
            return oid
        except GitmemError:
            continue
    raise GitmemError(f"could not move {BRANCH}: another process kept changing it", "run the command again")


def _select(nb: Notebook, ids: tuple[str, ...], every: bool) -> list[Proposal]:
    found = pending(nb, with_diff=False).proposals
    if every:
        return found
    if not ids:
        raise UsageError("name the proposals (their ids from 'git mem review') or pass --all",
                         "e.g. git mem review accept 3f2a9c1 or git mem review accept --all")
    chosen = []
    for want in ids:
        match = [p for p in found if p.id.startswith(want.lower())] if len(want) >= 4 else []
        if len(match) != 1:
            raise ProposalNotFound(f"no pending proposal {want!r}" if not match
                                   else f"{want!r} names several proposals", "list them with: git mem review")
        chosen.append(match[0])
    return _unique(chosen)


def _unique(items: list[Proposal]) -> list[Proposal]:
    seen: dict[str, Proposal] = {}
    for p in items:
        seen.setdefault(p.id, p)
    return list(seen.values())


def accept(nb: Notebook, ids: tuple[str, ...] = (), every: bool = False) -> Reviewed:
    """Bring proposals onto the checked-out branch, one commit each: each proposal's own change
    (its diff against its base) made to what the pages say now; a proposal that does not apply
    cleanly, or touches anything but a note, is refused whole with nothing written."""
    chosen = _select(nb, ids, every)
    done = Reviewed("accepted", [], [])
    for p in chosen:
        with write_lock(nb):
            found = trailers(p.message)
            message = (f"{p.subject}\n\nAccepted from {BRANCH}.\n\n"
                       f"Gitmem-Session: {found['Gitmem-Session'][0]}\n"
                       f"Gitmem-Session-Blob: {(found.get('Gitmem-Session-Blob') or ['-'])[0]}\n"
                       f"Gitmem-Model: {p.model}\nGitmem-Proposal: {p.id}\n")
            changes, notes = _changes(nb, p, forgotten.current(nb))
            # through the one write path: the pages as they are when written, and a commit that
            # holds the proposal's change only (a person's uncommitted edit stays in the work tree)
            applied = change.apply(nb, changes, message) if changes else None
        done.proposals.append({"id": p.id, "session": p.session, "pages": sorted(applied.edits if applied else {})})
        done.notes += notes
        if applied and applied.commit:
            done.commits.append(applied.commit)
    return done


def _changes(nb: Notebook, p: Proposal, withheld: forgotten.Matcher) -> tuple[dict[str, change.Change], list[str]]:
    """Per page the proposal touches, its change (the proposal's own edit, without the lines that
    were forgotten since), and a note for each page that lost forgotten lines. Every path is
    checked before anything is planned: a proposal fetched from elsewhere is untrusted."""
    head = nb.git.head()
    paths = plumbing.changed_paths(nb.git, p.base, p.id)
    rels = [_note_of(nb, p, path) for path in paths]
    out: dict[str, change.Change] = {}
    notes: list[str] = []
    for path, rel in zip(paths, rels):
        base, theirs = nb.git.show(p.base, path), nb.git.show(p.id, path)
        if theirs is None:
            raise ProposalConflict(f"proposal {p.id[:7]} deletes {rel}, and accept only adds and changes lines of "
                                   "notes; nothing was written", _DROP.format(id=p.id[:7]))
        if base is not None and (head is None or nb.git.show(head, path) is None):
            raise ProposalConflict(f"proposal {p.id[:7]} changes {rel}, which was deleted since; accept does not "
                                   "bring a deleted page back; nothing was written", _DROP.format(id=p.id[:7]))
        before = decode(base) if base is not None else ""
        kept, left_out = without_forgotten(before, decode(theirs), withheld)
        if left_out:
            were, are = ("were", "are") if left_out != 1 else ("was", "is")
            notes.append(f"proposal {p.id[:7]}: {left_out} line{'s' if left_out != 1 else ''} it adds to {rel} "
                         f"{were} forgotten (git mem forget) and {are} left out")
        out[rel] = _merging(nb, p, rel, before, kept)
    return out, notes


_DROP = "see it with 'git show {id}', copy what you want by hand, then: git mem review drop {id}"


def _note_of(nb: Notebook, p: Proposal, path: str) -> str:
    """The notebook page a proposal's path is; refused unless it is a note (a markdown page of the
    notebook: not a document, a script, a dotfile or .gitmem.toml) kept as a regular file."""
    rel = nb.rel(path)
    regular = plumbing.mode(nb.git, p.id, path) in (None, "100644", "100755")
    if rel is None or not nb.settings.is_note(rel) or not regular:
        what = "outside the notebook" if rel is None else "not a note" if regular else "not a regular file"
        raise ProposalRefused(f"proposal {p.id[:7]} changes {path}, which is {what} (proposals change the "
                              "notebook's markdown pages only); nothing was written",
                              f"see it with 'git show {p.id[:7]}', then: git mem review drop {p.id[:7]}")
    return nb.page(rel)  # confined: no symlink on the way, nothing under .git


def without_forgotten(base: str, theirs: str, withheld: forgotten.Matcher) -> tuple[str, int]:
    """`theirs` without the lines it adds to `base` that hold forgotten text (a line's words or a
    phrase a person forgot, read with and without its confidence comment), and how many those were.
    A line it would have replaced with forgotten text is left as it was: the change is not made."""
    if not withheld:
        return theirs, 0
    old, new = base.split("\n"), theirs.split("\n")
    out: list[str] = []
    gone = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        kept = [line for line in new[j1:j2] if tag == "equal" or not
                (withheld.holds(line) or withheld.holds(confidence.parse(line)[0]))]
        gone += (j2 - j1) - len(kept)
        out += old[i1:i2] + kept if tag == "replace" and len(kept) < j2 - j1 else kept
    return "\n".join(out), gone


def _merging(nb: Notebook, p: Proposal, rel: str, base: str, theirs: str) -> change.Change:
    def merged(text: str) -> Edit | None:
        # a CRLF work tree (core.autocrlf) is merged as LF; change.apply gives the result CRLF again
        plain = text.replace("\r\n", "\n") if change.crlf(text) else text
        if plain == theirs:
            return None
        new = merge_into(nb, p, rel, base, plain, theirs)
        if new == plain:
            return None
        _guarded(p, rel, base, new)
        return Edit(new, 1, max(1, new.count("\n")))
    return merged


def merge_into(nb: Notebook, p: Proposal, rel: str, base: str, ours: str, theirs: str) -> str:
    """The proposal's change (base -> theirs) made to `ours`: three ways where git merges it cleanly,
    else hunk by hunk (notes/patch.py); ProposalConflict if it does not apply. Never a union: that
    would bring back lines a person removed or forgot."""
    if ours == base:
        return theirs
    result, clean = plumbing.merge_file(nb.git, base.encode("utf-8"), ours.encode("utf-8"),
                                        theirs.encode("utf-8"), nb.state_dir)
    if clean:
        return decode(result)
    patched = patch.apply(base, theirs, ours)
    if patched is None:
        raise ProposalConflict(f"proposal {p.id[:7]} conflicts with what {rel} says now; nothing was written",
                               _DROP.format(id=p.id[:7]))
    return patched


def _guarded(p: Proposal, rel: str, base: str, text: str) -> None:
    """Refused if a line the proposal adds is a secret or an injection: a proposal
    fetched from another clone was never checked by this one's guard."""
    old = set(base.split("\n"))
    added = "\n".join(line for line in text.split("\n") if line not in old)
    try:
        guard.check(added, False, rel)
    except Refused as exc:
        raise Refused(f"proposal {p.id[:7]}: {exc.message}; nothing was written",
                      f"drop it: git mem review drop {p.id[:7]}") from exc


def drop(nb: Notebook, ids: tuple[str, ...] = (), every: bool = False) -> Reviewed:
    """Discard proposals: one commit on the proposals branch records which (their sessions stay consolidated)."""
    chosen = _select(nb, ids, every)
    if not chosen:
        return Reviewed("dropped", [], [], ["no pending proposals"])
    tip = plumbing.ref(nb.git, REF) or next(iter(plumbing.refs(nb.git, REMOTE_REFS).values()))
    tree = plumbing.tree_id(nb.git, tip)
    lines = "\n".join(f"Gitmem-Dropped: {p.id}" for p in chosen)
    message = f"mem: drop {len(chosen)} proposal{'s' if len(chosen) != 1 else ''}\n\n{lines}\n"
    commit = _append(nb, tree, [], message)
    return Reviewed("dropped", [{"id": p.id, "session": p.session} for p in chosen], [commit])
