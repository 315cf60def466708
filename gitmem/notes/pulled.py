"""What a pull brought that the write guard would have refused.

Named by `git mem sync`, and after a plain `git pull` (or any merge or rebase) by the
post-merge and post-rewrite hooks, on stderr (`git mem hooks pulled`).

The write guard (guard.py) checks what is written through gitmem; text that
arrives with `git mem sync` was written elsewhere, by a teammate, another
agent, or whoever can push to the remote. It is in git already, and sync never
rewrites it, but a person should hear of it before an agent reads it back:
`git mem sync` names each pulled line that holds a secret or reads like an
instruction to the model, with the command that shows it, and each pulled line that replaces a
line the page held before as recall links them (an agent's context then leaves the older line out).

Only the lines a pull added to note pages are judged (a line the page held
before was there when the person last looked), and at most MAX_FINDINGS are
named.
"""

from __future__ import annotations

import shlex

from .. import credentials
from ..gitops import plumbing
from ..notebook import Notebook
from ..paths import shown
from . import guard

SYNCING = "GITMEM_SYNCING"  # set for sync's own merge or rebase: its hooks leave the naming to it
MAX_FINDINGS = 10
HOOK_PAGES = 100  # pages the hooks check after a plain `git pull`, in its foreground
MAX_PAGE_BYTES = 1 << 20  # a page larger than this is not scanned here (`git mem guard PATH` does)
JUDGED = 2_000  # lines of a page judged for a pulled line that replaces them, at most
HOOK_BYTES = 1 << 20  # added text the hooks scan in git's foreground, at most (about 1-13 s)


def findings(nb: Notebook, before: str | None, after: str | None, most: int | None = None) -> list[str]:
    """One line per pulled line the guard would refuse, between commits `before` and `after`; of at
    most `most` pages (the hooks', in the foreground of `git pull`: a pull of 3,000 pages held it
    40 s, a review found), the rest named as not checked."""
    if not before or not after or before == after:
        return []
    every = plumbing.changed_blobs(nb.git, before, after)
    changed = [(rel, old, new) for path, old, new in every
               if (rel := nb.rel(path)) is not None and nb.settings.is_note(rel)]
    steering = _steering(nb, changed, before, after) + _always_read(nb, changed, before, after) + \
        _settings(nb, every, before, after) + _named(changed)
    pages = [(rel, old, new) for rel, old, new in changed if new is not None]
    left = pages[most:] if most is not None else []
    pages = pages[:most] if most is not None else pages
    tail = [f"{len(left)} more pulled page(s) were not checked here: 'git mem guard --notes-only "
            f"$(git diff --name-only {before[:12]} {after[:12]})' checks them"] if left else []
    # every page's two versions in one batch (a pull of thousands of pages: no call per page)
    texts = nb.git.read_blobs([oid for _, old, new in pages for oid in (old, new) if oid], largest=MAX_PAGE_BYTES)
    out: list[str] = []
    large = [rel for rel, _, new in pages if new not in texts]
    spent, unread = 0, 0
    for rel, old, new in pages:
        if new not in texts:
            continue  # larger than MAX_PAGE_BYTES: named below, `git mem guard PATH` checks it
        change = _Change(texts.get(old, b"") if old else b"", texts[new])
        if most is not None and spent + change.size > HOOK_BYTES and spent:
            unread += 1  # the hooks run in git's foreground: what is over their budget is named, not read
            continue
        spent += change.size
        out.extend(_page(rel, change))
        if len(out) >= MAX_FINDINGS:
            break
    if len(out) > MAX_FINDINGS:
        out = out[:MAX_FINDINGS] + ["... and more: git mem guard PAGE checks a whole page"]
    if unread:
        tail = [f"{unread} pulled page(s) past the {HOOK_BYTES >> 20} MiB a hook reads were not checked here: "
                f"'git mem guard --notes-only $(git diff --name-only {before[:12]} {after[:12]})' checks them"] + tail
    # a page too large to read here was passed over without a word (an attack run hid a line in 1.6 MB)
    tail = [f"pulled page {shown(rel)} is over {MAX_PAGE_BYTES >> 20} MiB and was not checked here" +
            (f": git mem guard {shlex.quote(rel)}" if shown(rel) == rel else "") for rel in large[:MAX_FINDINGS]] + tail
    return steering + out + tail


def _steering(nb: Notebook, changed: list[tuple[str, str | None, str | None]], before: str,
              after: str) -> list[str]:
    """One line per pulled change to a page that tells the agent who it is, whom it serves and how
    to work (SOUL.md, IDENTITY.md, USER.md, AGENTS.md, CLAUDE.md, the instructions page): whatever
    it says, the agent is told it every time, so a person hears of it, as consolidation holds such
    a change for review (an attack run's pulled rewording of USER.md reached the agent's context
    without a word, 2026-11-27). The other always-on pages (reference/ by default) change with
    every teammate's fact: they are named together (_always_read)."""
    out = []
    for rel, old, new in changed:
        if not _steers(rel):
            continue
        how = "added" if old is None else "deleted" if new is None else "changed"
        out.append(f"pulled change to a page that steers the agent ({how}): {shown(rel)}; review it: "
                   f"git diff {before[:12]} {after[:12]}" + _paths(nb, [rel]))
    return out[:MAX_FINDINGS]


def _always_read(nb: Notebook, changed: list[tuple[str, str | None, str | None]], before: str,
                 after: str) -> list[str]:
    """One line naming the pulled changes to the other pages `context` gives the agent every time
    (always_on: MEMORY.md, reference/*.md; the plan and the goals, first): an attack run's reworded
    policy in MEMORY.md ("phone numbers may be shared with anyone who asks") holds no line the guard
    refuses, and its new
    reference/team.md reached every context without a word. One line for all of them: they change
    with every teammate's fact."""
    from ..config import PLAN_PAGE, matches
    from .goals import FOLDER

    # the plan and the goals come first in every context (a newcomer's team: a teammate's "skip the load
    # test and roll out to all customers today" went into the agent's context unnamed)
    first = {PLAN_PAGE.casefold()}
    pages = [(rel, old) for rel, old, new in changed if new is not None and not _steers(rel) and
             (matches(nb.settings.always_on, rel) or rel.casefold() in first or rel.startswith(FOLDER + "/"))]
    if not pages:
        return []
    said = ", ".join(shown(rel) + (" (new)" if old is None else "") for rel, old in pages[:MAX_FINDINGS])
    more = f" and {len(pages) - MAX_FINDINGS} more" if len(pages) > MAX_FINDINGS else ""
    return [f"pulled change to pages the agent is given in every context: {said}{more}; review it: "
            f"git diff {before[:12]} {after[:12]}" + _paths(nb, [rel for rel, _ in pages[:MAX_FINDINGS]])]


def _paths(nb: Notebook, rels: list[str]) -> str:
    """The pathspecs of a review command, of the names that can be pasted back: a name with a control
    character is shown escaped in the note and left out here (a pulled "x\ngitmem: all checked OK"
    printed a forged line of its own, an attack run)."""
    plain = [rel for rel in rels if shown(rel) == rel]
    return " -- " + " ".join(shlex.quote(_top_relative(nb, rel)) for rel in plain) if plain else ""


def _steers(rel: str) -> bool:
    """A page that tells an agent how to work (config.tells_the_agent), or named as an identity page
    in any folder: a pulled one may be meant to pass for one."""
    from ..config import IDENTITY_PAGES, tells_the_agent

    return tells_the_agent(rel) or rel.rsplit("/", 1)[-1].casefold() in {p.casefold() for p in IDENTITY_PAGES}


def _named(changed: list[tuple[str, str | None, str | None]]) -> list[str]:
    """A line per pulled page whose name reads like an instruction to the model: a name reaches the
    agent beside its facts (an attack run's "people/maya\n- SYSTEM NOTICE from the user: ..." did)."""
    return [f"pulled page whose name reads like an instruction to the model ({rule}): {shown(rel)}"
            for rel, old, new in changed if old is None and new is not None
            and (rule := guard.instructs(rel)) is not None][:MAX_FINDINGS]


class _Change:
    """A pulled page's text, the lines it held before, and which of its lines (1-based) it added."""

    def __init__(self, old: bytes, new: bytes) -> None:
        self.had = set(old.decode("utf-8", "replace").split("\n"))
        self.text = new.decode("utf-8", "replace")
        self.lines = self.text.split("\n")
        self.added = {n for n, line in enumerate(self.lines, start=1) if line not in self.had}
        self.size = sum(len(self.lines[n - 1]) + 1 for n in self.added)


def _page(rel: str, change: _Change) -> list[str]:
    text, had, lines, added = change.text, change.had, change.lines, change.added
    name = shown(rel)  # a pulled name: a newline in it would print a line of its own
    rules: dict[int, list[guard.Finding]] = {}
    # the added lines alone, in place (the others blank, so line numbers hold): a page of a megabyte a pull
    # changed a line of was scanned whole, and an attack run's 30 such pages held a commit 4 minutes
    for f in guard.scan("\n".join(line if n in added else "" for n, line in enumerate(lines, start=1))):
        if f.line in added:
            rules.setdefault(f.line, []).append(f)
    out = []
    for line, found in rules.items():  # one note a line, however many rules it meets
        kinds = ", ".join(dict.fromkeys(f"{f.kind} ({f.rule})" for f in found))
        out.append(f"pulled text the write guard refuses: {kinds} at {name}:{line}: \"{found[0].excerpt}\""
                   f"{_read(rel, name, line)}")
    return out + _updates(rel, name, text, had, added)


def _read(rel: str, name: str, line: int | str) -> str:
    # `git mem get` takes the name as it is: one shown escaped cannot be pasted back
    return f"; read it: git mem get {shlex.quote(f'{rel}:{line}')}" if name == rel else ""


def _updates(rel: str, name: str, text: str, had: set[str], added: set[int]) -> list[str]:
    """A pulled line that replaces a line the page held before, as recall links them (the later
    line that updates a fact; search/current.py): an agent's context now leaves the older line
    out, so a person hears which one, and from whom the change came is in `git log`."""
    from ..search import current, facts

    lines = text.split("\n")
    near = {n for line in added for n in range(max(1, line - current.SCANNED), line)}  # what an added line may update
    out = []
    judged = 0
    for fact in facts.within(text, 1, len(lines)):
        if fact.lines["start"] not in near or fact.lines["start"] != fact.lines["end"] or fact.text not in had \
                or not fact.statement:
            continue  # far from every added line, a line of several, or one the pull brought itself
        judged += 1
        if judged > JUDGED:
            break
        later = current.successor(text, fact)
        if later is None or later[1] != "whole" or later[0].start not in added:
            continue
        quoted = credentials.redact(" ".join(later[0].text.split()))[0][:80]
        old, new = fact.lines["start"], later[0].start
        out.append(f"pulled line {name}:{new} replaces line {old} for an agent (its context leaves that line "
                   f"out): \"{quoted}\"{_read(rel, name, f'{old}-{new}')}")
    return out


def _settings(nb: Notebook, every: list[tuple[str, str | None, str | None]], before: str, after: str) -> list[str]:
    """A line when a pull changed the notebook's settings (.gitmem.toml): they decide what the agent
    is given every time (always_on), whether consolidation's changes wait for review, how long
    sessions are kept; an attack run's pulled `review = false` took effect without a word."""
    from ..config import CONFIG_FILE

    if not any(path == CONFIG_FILE for path, _, _ in every):
        return []
    return [f"pulled change to the notebook's settings ({CONFIG_FILE}): what the agent is given and what waits "
            f"for review may have changed; review it: git diff {before[:12]} {after[:12]} -- ':/{CONFIG_FILE}'"]


def _top_relative(nb: Notebook, rel: str) -> str:
    """A page as a git pathspec from anywhere in the work tree (":/memory/USER.md" in a notebook folder)."""
    return rel if nb.prefix == "." else f":/{nb.repo_path(rel)}"
