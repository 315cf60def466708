"""A change to pages, applied under the write lock and committed on its own.

A change is a function of a page's text: it returns the Edit it makes to that
text (None: nothing to do). Because it is a function and not a finished page,
`apply` can run it on whatever the page says at the moment of writing, and run
it again on HEAD's version of the page:

- the page is read under the write lock, the change applied, and the page read
  once more just before the atomic replace; if a person (or a `git pull`)
  changed it meanwhile, the change is made again on the new text, so no line
  they wrote is lost (a write that waited for the index, say, never writes back
  stale text);
- the commit holds HEAD's version of each page with the change applied, and
  nothing else: a person's uncommitted edit to the same page stays in the work
  tree (with gitmem's change) and out of gitmem's commit; their staged work on
  the page gets the change too and stays staged; other files are not touched;
- a page git tracks but the work tree lacks (left out of a sparse checkout, or
  deleted and not committed) is never read as empty: the write is refused;
- a page whose lines all end in CRLF keeps CRLF: whatever a change inserts
  (a remembered fact, a page saved from a browser's form) gets the page's line
  ends, so a Windows-edited page is never turned into mixed or LF line ends;
- any other files written with the pages (forget's record) are written with
  them: every new file is made and synced first, and only then are all put in
  place, so a full or read-only disk fails before anything changed.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import config, credentials
from ..errors import GitFailed, GitmemError, Refused
from ..gitops import commits, indexlock, plumbing
from ..gitops.lock import FileLock, atomic_write_all
from ..notebook import Notebook, decode
from . import pages
from .pages import Edit as Edit  # re-exported: callers write change.Edit

Change = Callable[[str], "Edit | None"]
BARE_LF = re.compile(r"(?<!\r)\n")
ATTEMPTS = 5  # a page that changes under us this often is being rewritten in a loop: say so
NOTED = "identity-noted"  # in the shared state dir: the fallback identity's note was shown once


class PageMissing(GitmemError):
    """A page git tracks is not in the work tree."""


class PageChanged(GitmemError):
    """The page is no longer what the writer saw: `current` is what it holds now."""

    def __init__(self, rel: str, seen: str, current: str) -> None:
        super().__init__(f"{rel} changed since it was opened; nothing was written",
                         "look at the difference, then edit the page as it is now")
        self.path, self.seen, self.current = rel, seen, current


@dataclass
class Applied:
    edits: dict[str, Edit]  # the edit made to each page's work-tree text
    commit: str | None  # None: nothing to commit (the change was only in the work tree)
    fallback: bool = False  # gitmem's fallback identity signed the commit
    note_identity: bool = False  # ... and this is the first time: say so


def write_lock(nb: Notebook) -> FileLock:
    return FileLock(nb.state_dir / "write.lock", timeout=60)


def committable(nb: Notebook) -> None:
    """GitmemError if gitmem cannot make its own commit now: a person is mid-merge or mid-rebase,
    HEAD is detached (a bisect, a checked-out tag), or git's index.lock is left over."""
    git = nb.git
    busy = git.in_progress()
    if busy:
        abort = {"merge": "git merge --abort", "rebase": "git rebase --abort", "cherry-pick": "git cherry-pick --abort",
                 "revert": "git revert --abort"}[busy]
        raise GitmemError(f"a {busy} is in progress in this repository, so gitmem cannot commit; nothing was written",
                          f"finish it (resolve, then git commit or git {busy} --continue) or abort it ({abort}), "
                          "then run the command again")
    if git.head() is not None and git.detached():
        why = "a git bisect is under way" if git.bisecting() else "no branch is checked out"
        back = "git bisect reset" if git.bisecting() else "git switch BRANCH"
        raise GitmemError(f"HEAD is detached ({why}): a gitmem commit would be on no branch and left behind at the "
                          "next checkout; nothing was written",
                          f"go back to a branch ({back}), or make one here to keep notes on (git switch -c NAME), "
                          "then run the command again")
    try:
        indexlock.check(git)
    except GitFailed as exc:
        raise type(exc)(f"{exc.message}; nothing was written", exc.hint) from exc


def current(nb: Notebook, rel: str) -> str:
    """The page's text as a write starts from: the work-tree file, '' for a new page.
    A page git tracks that is not in the work tree is refused, never taken as empty."""
    data = nb.read_bytes(rel)
    if data is not None:
        return nb.read(rel)
    path = nb.repo_path(rel)
    entry = nb.git.index_entry(path)
    if entry is None:
        return ""
    if entry[0] == "S":
        folder = posixpath.dirname(path)
        bring = f"git sparse-checkout add {folder}" if folder else "git sparse-checkout disable"
        raise PageMissing(f"{rel} is tracked but left out of this sparse checkout, so gitmem cannot read it; "
                          "nothing was written", f"bring it in ({bring}) and run the command again")
    raise PageMissing(f"{rel} is deleted in the work tree but git still tracks it, so gitmem will not rewrite it "
                      "from nothing; nothing was written",
                      f"restore it (git restore -- {path}) or commit the deletion (git rm -- {path}), "
                      "then run the command again")


def not_the_agents(rels: Iterable[str]) -> None:
    """Refused: an agent's write (trailers.by_agent) to a page that tells it who it is and how to
    work. Whatever an agent says may not rewrite its own instructions (a prompt-injected agent could
    make the change last, and sync would push it to every teammate; an attack run, 2026-11-27)."""
    from . import trailers

    if not trailers.agent_writes():
        return
    held = next((rel for rel in rels if config.tells_the_agent(rel)), None)
    if held is not None:
        raise Refused(f"{held} tells the agent who it is and how to work: an agent may not change it",
                      "ask the user to change it themselves, by hand or in the notebook's web editor")


def apply(nb: Notebook, changes: dict[str, Change], message: str, extra: list[tuple[Path, bytes]] | None = None,
          trailers: list[tuple[str, str]] | None = None, expected: dict[str, str] | None = None,
          purging: bool = False) -> Applied | None:
    """Apply each page's change to its current text, write the pages (and `extra` files) all
    together, and commit HEAD's version of the pages with the same changes. The caller holds
    write_lock(nb). None if nothing changes. `expected`: pages as the writer saw them (a
    browser's form); one that differs when read just before writing is refused with
    PageChanged (a `git pull` does not take gitmem's lock). A change that would take away a
    person's uncommitted line is refused, unless `purging` (forget: its lines say what is forgotten)."""
    committable(nb)
    not_the_agents(changes)
    changes = {rel: keeping_line_ends(change) for rel, change in changes.items()}
    for _ in range(ATTEMPTS):
        before = {rel: current(nb, rel) for rel in changes}
        _as_seen(expected or {}, before)
        edits = {rel: edit for rel, change in changes.items()
                 if (edit := change(before[rel])) is not None and edit.text != before[rel]}
        base = nb.git.head()
        at_head = _at_head(nb, changes, base)
        if expected is None and not purging:  # a writer that saw the page (the web's editor) chose what it replaces
            for rel, edit in edits.items():
                _keeps_uncommitted(nb, rel, before[rel], edit.text, at_head[rel])
        committed = _to_commit(nb, changes, base, at_head)
        if not edits and not committed and not extra:
            return None
        if all(current(nb, rel) == before[rel] for rel in changes):  # nobody wrote meanwhile
            break
    else:
        raise GitmemError(f"{', '.join(changes)} kept changing while gitmem wrote; nothing was written",
                          "stop whatever rewrites the page, then run the command again")
    files = [(nb.file(rel), edit.text.encode("utf-8")) for rel, edit in edits.items()]
    if committed:  # before writing: a person's commit in its editor ends first (a failure leaves nothing)
        indexlock.await_movers(nb.git)
    try:
        atomic_write_all(files + list(extra or []))  # the record last: a page that fails leaves it as it was
    except OSError as exc:
        where = ", ".join(edits) or "gitmem's state"
        raise GitmemError(f"could not write {where}: {exc.strerror or exc}; nothing was changed",
                          "free some space or make the notebook writable, then run the command again") from exc
    if not committed:
        return Applied(edits, None)
    commit, fallback = _commit(nb, changes, committed, base, message, trailers)
    return Applied(edits, commit, fallback, fallback and first_note(nb))


def _keeps_uncommitted(nb: Notebook, rel: str, now: str, after: str, at_head: str | None) -> None:
    """Refused: a change that would take away a line a person has in the page and no commit holds
    (an uncommitted edit; `at_head`: the page as HEAD has it, None where it has none). A git user's
    run: `write --replace` of a section dropped their uncommitted line, and `forget` of a line they
    had edited took their words with it, leaving nothing in any commit or blob."""
    committed = Counter(at_head.replace("\r", "").split("\n")) if at_head is not None else Counter()
    theirs = Counter(line for line in now.replace("\r", "").split("\n") if line.strip()) - committed
    lost = theirs - Counter(after.replace("\r", "").split("\n"))
    if lost:
        line = " ".join(credentials.redact(next(iter(lost)))[0].split())
        path = shlex.quote(nb.repo_path(rel))
        raise GitmemError(f"{rel} has uncommitted text this change would remove ({line[:60]}"
                          f"{'…' if len(line) > 60 else ''}); nothing was "
                          "written", f"commit it first (git commit -m ... -- {path}) or set it aside (git stash), "
                          "then run the command again")


def _as_seen(expected: dict[str, str], now: dict[str, str]) -> None:
    """PageChanged for the first page that is not what its writer saw."""
    for rel, seen in expected.items():
        if now[rel] != seen:
            raise PageChanged(rel, seen, now[rel])


def _commit(nb: Notebook, changes: dict[str, Change], committed: dict[str, bytes], base: str | None,
            message: str, trailers: list[tuple[str, str]] | None) -> tuple[str | None, bool]:
    """Commit the changes on the HEAD they were built from; when a commit lands meanwhile, build
    them again on it (a few times), so gitmem's commit never undoes one."""
    for attempt in range(ATTEMPTS):
        try:
            return commits.commit_files(nb.git, committed, message, staged_changes(nb, changes, base), trailers, base)
        except commits.HeadMoved:
            if attempt == ATTEMPTS - 1:
                raise GitFailed("commits kept landing while gitmem committed; the pages are written and "
                                "nothing was committed", "commit them yourself (git add, git commit), or run the "
                                "command again once the commits stop") from None
            landed = nb.git.head()
            if landed and all(nb.git.show(landed, path) == data for path, data in committed.items()):
                # it holds gitmem's change: git's index held it when a person committed (commits.commit_files)
                return landed, False
            base = landed
            committed = _to_commit(nb, changes, base)
            if not committed:  # the commit that landed made the same change
                return None, False
    raise AssertionError("unreachable")


def keeping_line_ends(change: Change) -> Change:
    """The change, with the page's CRLF line ends kept when every line of the page had them."""
    def edit(text: str) -> Edit | None:
        made = change(text)
        if made is None or not crlf(text):
            return made
        return Edit(BARE_LF.sub("\r\n", made.text), made.start_line, made.end_line)
    return edit


def line_ends_of(sample: str, text: str) -> str:
    """`text` with the line ends of `sample` where one is all CRLF and the other all LF."""
    if crlf(sample) and "\r\n" not in text:
        return BARE_LF.sub("\r\n", text)
    if crlf(text) and "\r\n" not in sample:
        return text.replace("\r\n", "\n")
    return text


def crlf(text: str) -> bool:
    """Whether the text has line ends and every one is CRLF."""
    ends = text.count("\n")
    return ends > 0 and text.count("\r\n") == ends


def _at_head(nb: Notebook, changes: dict[str, Change], head: str | None) -> dict[str, str | None]:
    """Each page as commit `head` has it (None: it has no such page)."""
    out: dict[str, str | None] = {}
    for rel in changes:
        data = nb.git.show(head, nb.repo_path(rel)) if head else None
        out[rel] = decode(data) if data is not None else None
    return out


def _to_commit(nb: Notebook, changes: dict[str, Change], head: str | None,
               at_head: dict[str, str | None] | None = None) -> dict[str, bytes]:
    """Each page as commit `head` has it (`at_head`, when read already) with its change made (pages the
    change leaves alone left out)."""
    at_head = at_head if at_head is not None else _at_head(nb, changes, head)
    out = {}
    for rel, change in changes.items():
        text = at_head[rel] or ""
        edit = change(text)
        if edit is not None and edit.text != text:
            out[nb.repo_path(rel)] = edit.text.encode("utf-8")
    return out


def staged_changes(nb: Notebook, changes: dict[str, Change], head: str | None) -> commits.Staged:
    """The change made to a person's staged version of a page (where it differs from HEAD's), with
    the blob of that version."""
    out = {}
    for rel, change in changes.items():
        path = nb.repo_path(rel)
        entry = nb.git.index_entry(path)
        if entry is None or entry[0] == commits.UNMERGED:  # a conflict in the index is the person's to resolve
            continue
        at_head = [e.oid for e in nb.git.tree(head, path) if e.path == path] if head else []
        if at_head == [entry[2]]:
            continue
        text = decode(nb.git.read_blob(entry[2]))
        edit = change(text)
        if edit is not None:
            out[path] = (entry[2], edit.text.encode("utf-8"))
    return out


def first_note(nb: Notebook) -> bool:
    """True the first time the fallback identity signs a commit in this clone (its note is shown once)."""
    marker = nb.shared_dir / NOTED
    if marker.exists():
        return False
    try:
        atomic_write_all([(marker, b"gitmem told you once that it signed commits 'gitmem <gitmem@localhost>'\n")])
    except OSError:
        pass
    return True


def without(blocks: list[list[str]], starts: list[int] | None = None) -> Change:
    """The change that takes these runs of lines off a page's text: each run where it is found
    nearest the line it was planned at (`starts`, 1-based; the first found without them), never
    on another run's lines. Matching by content takes the same lines off whichever version of the
    page it is applied to; nearest, because the first match is not always the planned one: a
    `---` rule in the body also opens the frontmatter, and a line can repeat one taken with an
    item above it. Lines are compared without a CR at their end: with core.autocrlf (Git for
    Windows' default) the work tree has CRLF where HEAD's version has LF, and the commit must
    take the lines too."""
    plain = [[line.removesuffix("\r") for line in block] for block in blocks]

    def edit(text: str) -> pages.Edit | None:
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        taken: set[int] = set()
        spans: list[tuple[int, int]] = []
        for number, block in enumerate(plain):
            want = starts[number] - 1 if starts else 0
            found = [i for i in range(len(lines) - len(block) + 1)
                     if lines[i:i + len(block)] == block and taken.isdisjoint(range(i, i + len(block)))]
            if found:
                i = min(found, key=lambda at: abs(at - want))
                spans.append((i + 1, i + len(block)))
                taken.update(range(i, i + len(block)))
        if not spans:
            return None
        return pages.Edit(pages.remove_lines(text, spans), min(a for a, _ in spans), min(a for a, _ in spans))
    return edit


def towards(nb: Notebook, before: str, after: str, what: str) -> Change:
    """The change that turned `before` into `after` (planned on the work tree), as a change any
    version of the page can take: a three-way merge (git merge-file). Applied to HEAD's version it
    gives the commit gitmem's change alone; refused if the page now differs where the change lands."""
    def change(text: str) -> Edit | None:
        # planned on a CRLF work tree (core.autocrlf) and applied to HEAD's LF text, or the reverse:
        # merged with the text's own line ends, or every line would differ
        was, now = line_ends_of(text, before), line_ends_of(text, after)
        if text == now:
            return None
        if text == was:
            new = now
        else:
            merged, clean = plumbing.merge_file(nb.git, was.encode(), text.encode(), now.encode(), nb.state_dir)
            if not clean:
                raise GitmemError(f"{what} changed where gitmem meant to write; nothing was written",
                                  "run the command again: it plans against the page as it is now")
            new = decode(merged)
        return Edit(new, 1, max(1, new.count("\n")))
    return change
