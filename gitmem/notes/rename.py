"""`git mem mv OLD NEW`: a page renamed, and the links to it rewritten, as one commit.

Like `git mv` for a notebook page: both names confined like every other write (no `..`,
nothing hidden, no symlinks, only note files), an existing page is never overwritten, and
the page must be committed with nothing of a person's staged on it (their unstaged edits
move with it, and stay out of the commit). By default every link to the page on the other
(not private) pages follows it: `[[old]]`, `[[old|label]]`, `[[old#heading]]`, `![[old]]`
and `[x](old.md)` (links.retarget keeps each link's form), and the page's own relative
markdown links are rewritten from its new folder. The linking pages are found in the index
(index/links.py); each is rewritten as a change (change.py): read under the write lock,
re-read before writing, its commit built from HEAD's version, so no line a person wrote is
lost and the commit holds only gitmem's change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import GitFailed, GitmemError, UsageError
from ..gitops import commits, indexlock
from ..gitops.identity import FALLBACK_HINT, FALLBACK_IDENTITY
from ..gitops.lock import atomic_write_all
from ..links import retarget
from ..notebook import Notebook, decode
from . import change, trailers
from .pages import Edit


@dataclass
class Relinked:
    path: str
    links: int  # links on the page that now point at the new name


@dataclass
class Moved:
    old: str
    new: str
    commit: str | None
    message: str
    pages: list[Relinked] = field(default_factory=list)  # pages whose links changed (not the moved one)
    links: int = 0  # links rewritten on those pages
    dry_run: bool = False
    identity: str | None = None
    hint: str | None = None
    notes: list[str] = field(default_factory=list)  # what still names the old page (remember's routes)


def names(nb: Notebook, old: str, new: str) -> tuple[str, str]:
    """The confined (old, new) pair, or the one-line error that says why it cannot be."""
    rel_old = nb.page(old, must_exist=True)  # a name without a note's suffix gets `.md`, as everywhere
    rel_new = nb.page(new)
    if rel_new == rel_old:
        raise UsageError(f"{rel_old} already has that name", "give the page a new name")
    if os.path.lexists(nb.file(rel_new)) or nb.git.index_entry(nb.repo_path(rel_new)) is not None:
        raise GitmemError(f"{rel_new} exists already; nothing was renamed",
                          "pick another name, or remove that page first (git mem forget, or git rm)")
    return rel_old, rel_new


def plan(nb: Notebook, old: str, new: str) -> Moved:
    """What `move` would do, without doing it: the pages and links that would follow."""
    rel_old, rel_new = names(nb, old, new)
    found = _relinks(nb, rel_old, rel_new)
    return Moved(rel_old, rel_new, None, "", [Relinked(p, n) for p, (n, _) in found.items()],
                 sum(n for n, _ in found.values()), dry_run=True)


def move(nb: Notebook, old: str, new: str, links: bool = True) -> Moved:
    """Rename page `old` to `new` and (with `links`) rewrite the links to it, as one commit."""
    rel_old, rel_new = names(nb, old, new)
    with change.write_lock(nb):
        change.committable(nb)
        rel_old, rel_new = names(nb, old, new)  # again under the lock: another write may have made it
        _movable(nb, rel_old)
        found = _relinks(nb, rel_old, rel_new) if links else {}
        change.not_the_agents([rel_old, rel_new, *found])  # a link on USER.md is the page's text too (a review)
        _guarded_for_agents(nb, rel_old)
        moves = {rel_old: rel_new}
        every = sorted(set(found) | {rel_old})
        pages_now = _pages(nb)

        def relinked(rel: str) -> change.Change:
            def edit(text: str) -> Edit | None:
                now = rel_new if rel == rel_old else None
                made, count = retarget(text, rel, pages_now, moves, now) if links else (text, 0)
                return Edit(made, 1, max(1, made.count("\n"))) if count else None
            return change.keeping_line_ends(edit)

        changes = {rel: relinked(rel) for rel in every}
        message = f"mem: rename {rel_old} to {rel_new}"
        commit, fallback = _apply(nb, rel_old, rel_new, changes, message)
    counts = {rel: n for rel, (n, _) in found.items() if rel != rel_old}
    moved = Moved(rel_old, rel_new, commit, message, [Relinked(p, n) for p, n in counts.items()],
                  sum(counts.values()))
    if fallback:
        moved.identity, moved.hint = FALLBACK_IDENTITY, FALLBACK_HINT
    moved.notes = routed_there(nb, rel_old, rel_new)
    return moved


def _guarded_for_agents(nb: Notebook, rel: str) -> None:
    """An agent's move passes the guard on the page's text: a saved session (a transcript, kept with
    what was said) moved to reference/ brought a line the guard refuses into every context, and a
    replace of the page then took it as one the page held (an attack run, 2026-11-27)."""
    from . import guard, trailers

    if trailers.agent_writes():
        guard.check(nb.read(rel), False, rel)


def routed_there(nb: Notebook, old: str, new: str) -> list[str]:
    """What a newcomer's `mv reference/contacts.md people/contacts.md` left unsaid: remember still
    routes that page's facts to the old path (and starts the page again there), and a page out of
    the always-on ones is no longer in every context."""
    from ..globs import compile_glob
    from .memory import CATEGORIES

    out = [f"remember still puts {category} facts on {old} (it starts that page again); give "
           f"--to {new} to put them here" for category, (page, _, _) in CATEGORIES.items()
           if nb.settings.layout == "folders" and page == old]

    def always(rel: str) -> bool:
        return any(compile_glob(pattern).fullmatch(rel) for pattern in nb.settings.always_on)

    if always(old) and not always(new):
        out.append(f"{new} is no longer one of the pages 'git mem context' gives an agent every time")
    return out


def _movable(nb: Notebook, rel: str) -> None:
    """GitmemError unless the page is committed and has nothing staged (git's index holds HEAD's version)."""
    path = nb.repo_path(rel)
    at_head = [e.oid for e in nb.git.tree("HEAD", path) if e.path == path] if nb.git.head() else []
    if not at_head:
        raise GitmemError(f"{rel} is not committed yet, so gitmem cannot rename it in a commit; nothing was renamed",
                          f"commit it first (git add -- {path} && git commit), or rename the file yourself")
    entry = nb.git.index_entry(path)
    if entry is None or [entry[2]] != at_head:
        raise GitmemError(f"{rel} has changes staged in git's index; nothing was renamed",
                          f"commit them (git commit -- {path}) or unstage them (git restore --staged -- {path}), "
                          "then run the command again")


def _pages(nb: Notebook) -> list[str]:
    from ..search.links import pages

    return pages(nb)


def _relinks(nb: Notebook, rel_old: str, rel_new: str) -> dict[str, tuple[int, str]]:
    """The pages whose links would change (with how many, and the new text): the pages the index
    has linking to `rel_old` (none private), and the page itself (its relative links)."""
    from ..index.indexer import Index
    from ..search.links import backlinks

    every = _pages(nb)
    index = Index(nb)
    try:
        index.sync()
        linking = sorted({b.path for b in backlinks(index, rel_old, every)})
    finally:
        index.close()
    found: dict[str, tuple[int, str]] = {}
    for rel in [*linking, rel_old]:
        text = nb.read(rel)
        made, count = retarget(text, rel, every, {rel_old: rel_new}, rel_new if rel == rel_old else None)
        if count:
            found[rel] = (count, made)
    return found


def _apply(nb: Notebook, rel_old: str, rel_new: str, changes: dict[str, change.Change],
           message: str) -> tuple[str | None, bool]:
    """Write the renamed page and the relinked ones, take the old name away, and commit HEAD's
    versions with the same changes (see change.apply, whose rules this follows for a rename)."""
    for _ in range(change.ATTEMPTS):
        before = {rel: change.current(nb, rel) for rel in changes}
        edits = {rel: made.text for rel, ch in changes.items() if (made := ch(before[rel])) is not None}
        base = nb.git.head()
        committed, removed = _to_commit(nb, changes, rel_old, rel_new, base)
        if all(change.current(nb, rel) == before[rel] for rel in changes):  # nobody wrote meanwhile
            break
    else:
        raise GitmemError(f"{', '.join(changes)} kept changing while gitmem renamed; nothing was written",
                          "stop whatever rewrites the pages, then run the command again")
    moved = edits.pop(rel_old, before[rel_old])
    files = [(nb.file(rel_new), moved.encode("utf-8"))]
    files += [(nb.file(rel), text.encode("utf-8")) for rel, text in edits.items()]
    indexlock.await_movers(nb.git)  # a person's commit in its editor ends first
    try:
        atomic_write_all(files)
        nb.file(rel_old).unlink()
    except OSError as exc:
        raise GitmemError(f"could not write {rel_new}: {exc.strerror or exc}; nothing was committed",
                          "free some space or make the notebook writable, then run the command again") from exc
    for attempt in range(change.ATTEMPTS):
        try:
            # a relinked page a person staged a version of gets the new link there too, as a write's does: with
            # None the index kept their old link, and their next commit undid the rename's (an attack run)
            staged = change.staged_changes(nb, {rel: ch for rel, ch in changes.items() if rel != rel_old}, base)
            return commits.commit_files(nb.git, committed, message, staged, trailers.for_verb("mv"), base, removed)
        except commits.HeadMoved:
            if attempt == change.ATTEMPTS - 1:
                raise GitFailed(f"commits kept landing while gitmem committed; {rel_new} is written and nothing "
                                "was committed", "commit it yourself (git add -A, git commit)") from None
            base = nb.git.head()
            committed, removed = _to_commit(nb, changes, rel_old, rel_new, base)
    raise AssertionError("unreachable")


def _to_commit(nb: Notebook, changes: dict[str, change.Change], rel_old: str, rel_new: str,
               head: str | None) -> tuple[dict[str, bytes], tuple[str, ...]]:
    """HEAD's version of each page with its change (the old page's at the new name), and the
    old name to take out; GitmemError if HEAD no longer has the page or has the new name."""
    old_path, new_path = nb.repo_path(rel_old), nb.repo_path(rel_new)
    if head is None or nb.git.show(head, old_path) is None or nb.git.show(head, new_path) is not None:
        raise GitmemError(f"a commit that landed meanwhile changed {rel_old} or {rel_new}; the pages are written "
                          "and nothing was committed", "look at git status, then commit what you want to keep")
    out: dict[str, bytes] = {}
    for rel, ch in changes.items():
        path = nb.repo_path(rel)
        data = nb.git.show(head, path)
        text = decode(data) if data is not None else ""
        made = ch(text)
        if rel == rel_old:
            out[new_path] = (made.text if made is not None else text).encode("utf-8")
        elif made is not None and made.text != text:
            out[path] = made.text.encode("utf-8")
    return out, (old_path,)
