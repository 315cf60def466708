"""`git mem forget`: take a fact off the notebook (one commit) and out of the index.

A fact is named by its text (every line of the notebook that contains it,
case and spacing ignored; more than one line needs `every`) or as
PATH:START[-END]. The lines leave their pages in one commit whose message
does not repeat them. The index then purges them everywhere it holds them,
history included (see forgotten.py). Git history itself still holds them;
the result says so, and docs/safety.md says how to purge history.

Forgetting much at once is never a side effect of a loose target (`every` on a
one-letter word once took 11 lines off 4 pages): more than BROAD_LINES lines,
or lines on more than one page, is refused unless `broad` is passed. The CLI
passes it for `--yes`, after a person saw the list; an agent (MCP) never can
and is asked for a narrower target.

The record of forgotten text is per clone, so another clone forgets for
itself, usually after it pulled the commit that took the fact off its pages:
text that no page holds but the index's history does is forgotten from the
index alone, with no commit.

`everything` forgets every memory at once: every line of every note except
its frontmatter and its headings (the layout that routing and the agent's
instructions point into; a daily entry's `## HH:MM — ...` line is a memory and
goes), in one commit, and every such line of the notebook's history from the
index. Documents are never rewritten, so they stay and the result names them.
A page with lines no commit holds (uncommitted edits, a page git does not
track) is refused, named: those lines would be gone for good, and a person may
not know an agent's draft or their own is there.
It runs only when given the words EVERYTHING as typed by a person: the web
page asks for them, the CLI passes them for `--yes`, and MCP has no such tool.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import GitFailed, GitmemError
from ..gitops.identity import FALLBACK_HINT, FALLBACK_IDENTITY
from ..index import forgotten
from ..index.indexer import Index, recovering
from ..markdown import body_offset, headings_of
from ..notebook import Notebook
from . import change, pages, trailers
from .change import committable, write_lock
from .memory import given_text
from .pages import DAILY_ENTRY
from .spots import SHOWN, Ambiguous, Spot, fingerprint, holds, locate, quote, spot_lines
from .spots import needle as needle_of
from .spots import notes as notes_of

HISTORY = ("git history still holds it (the commits before this one, and every clone that fetched them); "
           "to purge it from history see 'Forgetting' in docs/safety.md (git filter-repo, force-push, other clones)")
EVERYTHING = "forget everything"  # the words a person types to confirm it
BROAD_LINES = 3  # more lines than this, or lines on more than one page, is a broad forget


class NothingToForget(GitmemError):
    pass


class NotConfirmed(GitmemError):
    """Forget everything without the typed confirmation; `survey` says what it would take."""

    def __init__(self, message: str, hint: str, survey: Survey) -> None:
        super().__init__(message, hint)
        self.survey = survey


class Uncommitted(GitmemError):
    """Forget everything over pages with uncommitted lines: git could not bring those back."""


class TooBroad(GitmemError):
    """A forget over more than BROAD_LINES lines or more than one page, not confirmed;
    `preview` holds what would go (path, lines, text) for the person to check."""

    def __init__(self, message: str, hint: str, preview: list[dict[str, Any]]) -> None:
        super().__init__(message, hint)
        self.preview = preview


class LinesChanged(GitmemError):
    """The lines a forget would take are not the ones the person saw and confirmed."""


@dataclass
class Survey:
    """What forgetting everything would take: lines off pages, lines of history the index
    still holds, and the documents it leaves alone."""
    lines: int
    pages: list[str]
    history: int
    documents: list[str]
    uncommitted: list[str]  # pages with lines no commit holds: refused until they are committed or restored
    confirm: str = EVERYTHING


@dataclass
class Forgot:
    action: str
    commit: str | None
    removed: list[dict[str, Any]]
    index: dict[str, int]
    history: str = HISTORY
    identity: str | None = None
    notes: list[str] = field(default_factory=list)

    def lines(self) -> int:
        """How many lines left the pages."""
        return sum(r["lines"]["end"] - r["lines"]["start"] + 1 for r in self.removed)

    def pages(self) -> int:
        """How many pages lost lines."""
        return len({r["path"] for r in self.removed})


def forget(nb: Notebook, target: str, every: bool = False, broad: bool = False, agent: bool = False,
           seen: str | None = None) -> Forgot:
    """Remove the lines that hold `target` (text, or PATH:LINES) in one commit, then purge the index.
    More than BROAD_LINES lines or more than one page needs `broad`; `agent` words the refusal
    for an agent, which cannot confirm. `seen`: the fingerprint of the lines as the person saw
    them (a browser's confirmation); lines that differ now under the lock are refused, so a
    line removed above PATH:LINE meanwhile never makes another fact go."""
    target = given_text(target, "fact")
    with write_lock(nb):
        committable(nb)
        spots, phrase = locate(nb, target, every)
        if seen is not None and fingerprint(nb, spots) != seen:
            raise LinesChanged("the lines to forget changed since you looked at them; nothing was forgotten",
                               "look at the list again, then confirm")
        past = [] if spots else _in_history(nb, target, every)
        if not broad:
            _narrow_enough(nb, spots, past, agent)
        documents = _in_documents(nb, target) if past else []
        commit, fallback, note = _take(nb, spots, phrase, past)
    purged, notes = purge(nb)
    if documents:
        notes.insert(0, f"{', '.join(documents)} hold{'s' if len(documents) == 1 else ''} it: the index no longer "
                        "does, but gitmem never rewrites a document; remove or replace the file to drop it")
    elif past:
        notes.insert(0, f"no page holds it now; {len(past)} line{'s' if len(past) != 1 else ''} of the "
                        "notebook's history did, and the index no longer does")
    forgot = Forgot("forget", commit, [{"path": s.path, "lines": {"start": s.start, "end": s.end}} for s in spots],
                    purged, notes=notes)
    if fallback:
        forgot.identity = FALLBACK_IDENTITY
    if note:
        forgot.notes.append(FALLBACK_HINT)
    return forgot


def survey(nb: Notebook) -> Survey:
    """What `everything` would take, without taking it."""
    spots, past = _everything(nb)
    return Survey(sum(s.end - s.start + 1 for s in spots), sorted({s.path for s in spots}), len(past),
                  _in_documents(nb, None), sorted({*_uncommitted(nb, spots), *_missing(nb)}))


def everything(nb: Notebook, typed: str | None) -> Forgot:
    """Forget every memory of the notebook in one commit and purge the index of them, history
    included (see the module docstring). NotConfirmed, with the survey, unless `typed` is EVERYTHING
    (case and spacing ignored)."""
    if " ".join((typed or "").split()).casefold() != EVERYTHING:
        found = survey(nb)
        raise NotConfirmed(f"forget everything would remove {found.lines} line{'s' if found.lines != 1 else ''} "
                           f"from {len(found.pages)} page{'s' if len(found.pages) != 1 else ''} and "
                           f"{found.history} more from the index's history; nothing was changed",
                           f"in a terminal run: git mem forget --everything --yes; in the browser, type "
                           f"'{EVERYTHING}'", found)
    with write_lock(nb):
        committable(nb)
        _all_present(nb)
        spots, past = _everything(nb)
        if not spots and not past:
            raise NothingToForget("the notebook holds no memories to forget", "git mem remember TEXT adds one")
        _refuse_uncommitted(nb, _uncommitted(nb, spots))
        documents = _in_documents(nb, None)
        commit, fallback, note = _take(nb, spots, None, past, everything=True)
    purged, notes = purge(nb)
    if documents:
        notes.insert(0, f"{len(documents)} document{'s' if len(documents) != 1 else ''} stay ("
                        f"{', '.join(documents[:SHOWN])}{' …' if len(documents) > SHOWN else ''}): gitmem never "
                        "rewrites a document; remove the files to drop them")
    forgot = Forgot("forget-everything", commit,
                    [{"path": s.path, "lines": {"start": s.start, "end": s.end}} for s in spots], purged, notes=notes)
    forgot.identity = FALLBACK_IDENTITY if fallback else None
    if note:
        forgot.notes.append(FALLBACK_HINT)
    return forgot


def _refuse_uncommitted(nb: Notebook, pages_: list[str]) -> None:
    """Uncommitted, naming the pages and the git commands that save or drop their lines."""
    if not pages_:
        return
    named = ", ".join(pages_[:SHOWN]) + (" …" if len(pages_) > SHOWN else "")
    paths = " ".join(nb.repo_path(rel) for rel in pages_)
    raise Uncommitted(f"lines on {named} are in no commit, so forgetting everything would lose them for good; "
                      "nothing was changed", f"commit them (git add -- {paths} && git commit) or drop them "
                      f"(git restore -- {paths}; delete a page git does not track), then run it again")


def _all_present(nb: Notebook) -> None:
    """PageMissing, worded as for any write (deleted and not committed; left out of a sparse
    checkout), for a note git tracks that the work tree lacks: its lines are in HEAD, and the
    commit, which takes lines off the pages it can read, would leave them there."""
    for rel in _missing(nb):
        change.current(nb, rel)  # raises, saying which and how to bring it back


def _missing(nb: Notebook) -> list[str]:
    """The notes git tracks that the work tree lacks."""
    return [rel for path in nb.git.files(nb.prefix, untracked=False)
            if (rel := nb.rel(path)) is not None and nb.settings.is_note(rel) and not os.path.lexists(nb.file(rel))]


def _uncommitted(nb: Notebook, spots: list[Spot]) -> list[str]:
    """The pages among the spots whose work-tree text differs from HEAD's (or git does not track)."""
    changed = {rel for path in nb.git.status(nb.prefix) if (rel := nb.rel(path)) is not None}
    return sorted({s.path for s in spots} & changed)


def _everything(nb: Notebook) -> tuple[list[Spot], list[str]]:
    """Every run of memory lines on the notes, and the memory lines of history no note holds now."""
    spots: list[Spot] = []
    held: set[tuple[str, ...]] = set()
    for rel, text in notes_of(nb):
        spots += [Spot(rel, start, end) for start, end in memory_runs(text)]
        held.update(tuple(forgotten.words(line)) for line in text.split("\n"))
    return spots, _history_memories(nb, held)


def memory_runs(text: str) -> list[tuple[int, int]]:
    """(start, end), 1-based and inclusive, of each run of a page's memory lines: lines that are
    not blank, not frontmatter and not a heading (a daily entry's `## HH:MM — ...` is a memory)."""
    start = body_offset(text)
    headings = {offset for offset, _, _ in headings_of(text, start)}
    runs: list[tuple[int, int]] = []
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        kept = offset < start or not line.strip() or (offset in headings and not DAILY_ENTRY.match(line))
        offset += len(line) + 1
        if kept:
            continue
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def memories_off(text: str) -> pages.Edit | None:
    """The change forget everything makes to a page: its memory lines off, found on the text it is
    applied to (frontmatter and headings are never matched by content, so a `---` rule or a line
    repeated elsewhere cannot take the wrong line)."""
    runs = memory_runs(text)
    if not runs:
        return None
    return pages.Edit(pages.remove_lines(text, runs), runs[0][0], runs[0][0])


@recovering
def _history_memories(nb: Notebook, held: set[tuple[str, ...]]) -> list[str]:
    """The memory lines of every note text the index holds (history included; documents not)
    whose words no line of the notes has now."""
    index = Index(nb)
    try:
        index.sync(wait=60)
        texts = forgotten.bodies(index, documents=False)
    finally:
        index.close()
    found: dict[tuple[str, ...], str] = {}
    for body in texts:
        lines = body.split("\n")
        for start, end in memory_runs(body):
            for line in lines[start - 1:end]:
                key = tuple(forgotten.words(line))
                if key and key not in held:
                    found[key] = line
    return sorted(found.values())


def _narrow_enough(nb: Notebook, spots: list[Spot], past: list[str], agent: bool) -> None:
    """TooBroad if the forget would take more than BROAD_LINES lines or touch more than one page."""
    count = sum(s.end - s.start + 1 for s in spots) + len(past)
    pages_hit = len({s.path for s in spots})
    if count <= BROAD_LINES and pages_hit <= 1:
        return
    preview: list[dict[str, Any]] = [{"path": s.path, "lines": {"start": s.start, "end": s.end},
                "text": "\n".join(spot_lines(nb, s))} for s in spots]
    preview += [{"path": None, "lines": None, "text": line} for line in past]
    what = f"{count} line{'s' if count != 1 else ''}" + (f" from {pages_hit} pages" if pages_hit > 1 else "")
    if agent:
        raise TooBroad(f"forget would remove {what} at once; an agent may forget at most {BROAD_LINES} lines "
                       "on one page in a call", "name a narrower target: the fact's exact words, or PATH:LINE "
                       "for each fact; a person can forget more with 'git mem forget --yes'", preview)
    raise TooBroad(f"forget would remove {what}; nothing was changed",
                   "check the list above, then run the same command with --yes, or name a narrower target",
                   preview)


@recovering
def _in_history(nb: Notebook, target: str, every: bool) -> list[str]:
    """The distinct lines of the index's texts (every indexed revision) that contain the target."""
    needle = needle_of(target)
    index = Index(nb)
    try:
        index.sync(wait=60)
        lines = {tuple(forgotten.words(line)): line for body in forgotten.bodies(index)
                 for line in body.split("\n") if holds(line, needle)}
    finally:
        index.close()
    if not lines:
        raise NothingToForget(f"nothing in the notebook matches {quote(target)}",
                              "check the wording with: git mem recall --mode keyword TEXT, or name lines as PATH:LINES")
    if len(lines) > 1 and not every:
        raise Ambiguous(f"no page holds {quote(target)} now, but {len(lines)} different lines of the notebook's "
                        "history do", "pass --all to forget every one")
    return sorted(lines.values())


@recovering
def _in_documents(nb: Notebook, target: str | None) -> list[str]:
    """The documents in the notebook now whose indexed text holds the target (before it is purged);
    every document in it for None."""
    index = Index(nb)
    try:
        rows = forgotten.document_bodies(index)
    finally:
        index.close()
    if target is None:
        return sorted({path for path, _ in rows})
    needle = needle_of(target)
    return sorted({path for path, body in rows if any(holds(line, needle) for line in body.split("\n"))})


def _take(nb: Notebook, spots: list[Spot], phrase: str | None,
          past: list[str], everything: bool = False) -> tuple[str | None, bool, bool]:
    """Take the lines off their pages and add them to the record, together (change.apply writes
    both or neither): the lines (on pages, or only in history), the searched-for phrase, and how
    commit subjects quote each fact. Then commit the pages git tracks. Returns (commit, whether
    the fallback identity signed it, whether to say so)."""
    lines: list[str] = list(past)
    facts: list[str] = list(past)
    blocks: dict[str, list[list[str]]] = {}
    starts: dict[str, list[int]] = {}
    for spot in spots:
        taken = spot_lines(nb, spot)
        blocks.setdefault(spot.path, []).append(taken)
        starts.setdefault(spot.path, []).append(spot.start)
        lines.extend(taken)
        facts.extend([*taken, "\n".join(taken)])  # a long line; an item and its continuation lines
    with forgotten.record_lock(nb):
        record = forgotten.Record.load(nb)
        extra = [(record.path, record.data())] if record.add(lines, phrase, facts) else []
        if not spots:
            change.apply(nb, {}, "", extra)
            return None, False, False
        tracked = set(nb.git.files(nb.prefix, untracked=False))
        count = sum(s.end - s.start + 1 for s in spots if nb.repo_path(s.path) in tracked)
        paths = sorted({nb.repo_path(s.path) for s in spots} & tracked)
        where = nb.rel(paths[0]) if len(paths) == 1 else f"{len(paths)} pages"
        message = f"mem: forget {'everything: ' if everything else ''}{count} line{'s' if count != 1 else ''} " \
                  f"from {where}"
        try:
            changes = {rel: memories_off if everything else change.without(found, starts[rel])
                       for rel, found in blocks.items()}
            done = change.apply(nb, changes, message, extra, trailers.for_verb("forget"), purging=True)
        except GitFailed as exc:
            raise GitFailed(f"the lines are gone from {where} but the commit failed: {exc.message}",
                            f"the pages are written; fix the cause, then: git add -- {' '.join(paths)} && "
                            "git commit") from exc
    if done is None:
        return None, False, False
    return done.commit, done.fallback, done.note_identity


@recovering
def purge(nb: Notebook) -> tuple[dict[str, int], list[str]]:
    """Bring the index up to date with the record: purge, optimise FTS, checkpoint the WAL."""
    index = Index(nb)
    try:
        report = index.sync(wait=60)
        if report.stale:
            return {}, ["the index is busy, so the text is not purged from it yet; the next command purges it "
                        "(run 'git mem index' to do it now)"]
        return report.purged or {"texts": 0, "vectors": 0, "subjects": 0,
                                 **forgotten.after_purge(index, forgotten.Purge())}, []
    finally:
        index.close()

