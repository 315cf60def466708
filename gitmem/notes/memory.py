"""Writing and reading memories: remember, daily, write, get.

Each write is a change to one page, a function of the page's text, applied by
change.apply under the notebook's write lock: to the page as it is just before
writing, and to HEAD's version for the commit, which holds only gitmem's change.
One write, one commit. If the commit fails the page stays written and the change
staged, so nothing is lost.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .. import config
from ..errors import BadRange, EmptyText, GitFailed, PageNotFound, UsageError
from ..gitops.identity import FALLBACK_HINT, FALLBACK_IDENTITY
from ..markdown import normalize_fact
from ..notebook import Notebook
from ..text import clean_text
from . import change, guard, pages, routing, supersede, trailers

# callers import these from here ("X as X": an explicit re-export)
from .change import PageChanged as PageChanged
from .change import committable as committable
from .change import write_lock as write_lock

# category -> (page in the folders layout, section in MEMORY.md for the flat layout, checkbox)
CATEGORIES: dict[str, tuple[str, str, bool]] = dict(zip(config.CATEGORIES, [
    ("knowledge/facts.md", "Facts", False),
    ("reference/preferences.md", "Preferences", False),
    ("reference/contacts.md", "Contacts", False),
    ("lists/todos.md", "Todos", True),
    ("lists/shopping.md", "Shopping", True),
    ("knowledge/infrastructure.md", "Infrastructure", False),
    ("reference/rules.md", "Rules", False),  # reference/: standing rules are in every `context`
    ("knowledge/decisions.md", "Decisions", False),
    ("knowledge/events.md", "Events", False),
]))
DUPLICATE_RATIO = 0.92


@dataclass
class Written:
    action: str
    path: str
    lines: dict[str, int]
    commit: str | None
    message: str
    identity: str | None = None  # set when the fallback identity signed the commit
    hint: str | None = None
    duplicate: dict[str, Any] | None = None
    category: str | None = None
    section: str | None = None
    replaced: dict[str, Any] | None = None  # remember: the line the new fact updated ({path, lines, text})
    scope: str = "project"  # remember: the project's notebook or the personal one (notes/scopes.py)
    watched: list[Any] | None = None  # remember: older facts about a watched entity that disagree (watch.py)


def commit_page(nb: Notebook, rel: str, text: str, message: str, action: str,
                edit: pages.Edit | None = None) -> Written:
    """Make the page say `text` (one commit). The caller holds write_lock(nb)."""
    whole = edit if edit is not None and edit.text == text else pages.Edit(text, 1, max(1, text.count("\n")))
    return commit_change(nb, rel, lambda _page: whole, message, action)


def commit_change(nb: Notebook, rel: str, edit: Callable[[str], pages.Edit | None], message: str,
                  action: str, extra: list[tuple[str, str]] | None = None,
                  expected: dict[str, str] | None = None) -> Written:
    """Apply `edit` (a function of the page's text) to the page and commit only it, under the
    lock the caller holds, with the verb's trailers and `extra` ones (`expected`: see
    change.apply). If the commit fails the page stays written and the error says so."""
    try:
        done = change.apply(nb, {rel: edit}, message, trailers=trailers.for_verb(action) + (extra or []),
                            expected=expected)
    except GitFailed as exc:
        raise GitFailed(f"{rel} is written but the commit failed: {exc.message}",
                        f"your note is safe in {rel}; fix the cause, then commit it: "
                        f"git add -- {nb.repo_path(rel)} && git commit") from exc
    if done is None or rel not in done.edits and done.commit is None:
        made = edit(nb.read(rel))
        lines = {"start": made.start_line, "end": made.end_line} if made else {"start": 1, "end": 1}
        return Written("unchanged", rel, lines, None, "", hint="the page already says this; nothing to commit")
    made = done.edits.get(rel) or edit(nb.read(rel))
    lines = {"start": made.start_line, "end": made.end_line} if made else {"start": 1, "end": 1}
    written = Written(action, rel, lines, done.commit, message)
    if done.fallback:
        written.identity = FALLBACK_IDENTITY
        written.hint = FALLBACK_HINT if done.note_identity else None
    return written


def given_text(value: str, what: str) -> str:
    """The text a user or agent gave, or EmptyText / UsageError naming what is missing. No other
    C0 control (ESC, BEL, a lone CR) reaches a page: they are taken out (text.clean_text)."""
    if value and "\0" in value:
        raise UsageError(f"the {what} contains a NUL byte", "send plain text")
    value = clean_text(value or "")
    if not value.strip():
        raise EmptyText(f"empty {what}", f"give the {what} as an argument, or '-' to read it from stdin")
    return value


def _section(section: str | None) -> None:
    if section is not None and (not section.strip() or "\n" in section or "\0" in section):
        raise UsageError("a section name must be one line of text", "e.g. --section Decisions")


def _subject(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 1].rstrip() + "…"


def route(nb: Notebook, text: str, to: str | None, section: str | None,
          category: str | None) -> tuple[str, str | None, str]:
    """(page, section, category) for a fact, from the hints or the defaults."""
    if category is not None and category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}", f"use one of {', '.join(CATEGORIES)}")
    cat = category or routing.classify(text)
    folder_page, flat_section, _ = CATEGORIES[cat]
    if to:
        return nb.page(to), section, cat
    if nb.settings.layout == "flat":
        return "MEMORY.md", section or flat_section, cat
    return folder_page, section, cat


def remember(nb: Notebook, text: str, to: str | None = None, section: str | None = None,
             category: str | None = None, force: bool = False, allow: bool = False,
             keep_both: bool = False) -> Written:
    """Store a fact on its page (one commit), unless it is already there. A fact that updates
    one line of the page (same subject and attribute, another value; see supersede.py) replaces
    that line in the same commit, unless `keep_both`."""
    text = given_text(text, "fact")
    _section(section)
    rel, section, cat = route(nb, text, to, section, category)
    guard.check(text, allow, rel, section)
    entry = pages.bullet(text, checkbox=CATEGORIES[cat][2])

    def add(page: str) -> pages.Edit:
        """The fact on this version of the page: in place of the line it updates, or appended."""
        found = None if keep_both else supersede.find(page, text)
        if found is not None:
            return _replace_line(page, found[0], supersede.rewrite(found[1], text, entry))
        return pages.append(page if page.strip() else pages.new_page(rel, ""), entry, section)

    with write_lock(nb):
        committable(nb)
        current = nb.read(rel)
        if not force:
            # may wait for the index (another process embedding): change.apply reads the page afresh
            dup = find_duplicate(nb, text, rel, current)
            if dup:
                return Written("duplicate", dup["path"], dup["lines"], None, "", duplicate=dup,
                               category=cat, hint="already remembered; pass --force to store it again")
        old = None if keep_both else supersede.find(current, text)
        from . import watch  # watch reads pages through this module

        disagreeing = watch.conflicts(nb, text)  # before the write: the older fact may be replaced
        message = f"mem: remember {_subject(text)}"
        extra: list[tuple[str, str]] = []
        if old is not None:
            message += f" (replaces: {_subject(old[1].strip())})"
            extra.append(trailers.supersedes(nb.repo_path(rel), old[0], old[1].strip()))
        written = commit_change(nb, rel, add, message, "remember", extra)
    written.category, written.section = cat, section
    written.watched = disagreeing or None
    if old is not None and written.commit:
        written.replaced = {"path": rel, "lines": {"start": old[0], "end": old[0]}, "text": old[1].strip()}
    return written


def _replace_line(page: str, number: int, replacement: str) -> pages.Edit:
    """The page with line `number` replaced (supersede.rewrite kept the old line's indentation)."""
    lines = page.split("\n")
    new = replacement.split("\n")
    lines[number - 1:number] = new
    return pages.Edit("\n".join(lines), number, number + len(new) - 1)


def find_duplicate(nb: Notebook, text: str, rel: str, current: str) -> dict[str, Any] | None:
    """A line that says the same thing, on the target page or anywhere in the notebook."""
    want = normalize_fact(text)
    if not want:
        return None
    for number, line in enumerate(current.split("\n"), start=1):
        if _same(want, line):
            return {"path": rel, "lines": {"start": number, "end": number}, "text": line.strip()}
    from ..search import engine as search

    try:
        found = search.run(nb, search.Query(text, mode="keyword", groups=("notebook",), limit=5, min_score=0.0))
    except Exception:  # the duplicate check is advisory; never block a write on the index
        return None
    for hit in found.results:
        for offset, line in enumerate(hit.text.split("\n")):
            if _same(want, line):
                number = hit.lines["start"] + offset
                return {"path": hit.path, "lines": {"start": number, "end": number}, "text": line.strip()}
    return None


NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "nothing", "nobody", "cannot", "without"})


def _same(want: str, line: str) -> bool:
    """Whether a line says the same as the fact. Near-identical wording counts,
    unless the words that differ carry meaning a ratio cannot see: a number
    (555-1234 vs 555-1235, a date) or a negation ("is" vs "is not")."""
    have = normalize_fact(line)
    if not have:
        return False
    if have == want:
        return True
    differ = set(want.split()) ^ set(have.split())
    if any(any(ch.isdigit() for ch in word) or word in NEGATIONS or word.endswith("n't") for word in differ):
        return False
    return difflib.SequenceMatcher(None, want, have).ratio() >= DUPLICATE_RATIO


def daily_path(nb: Notebook, day: str) -> str:
    return f"daily/{day}.md" if nb.settings.layout == "folders" else f"memory/{day}.md"


def daily(nb: Notebook, text: str, when: datetime | None = None, allow: bool = False) -> Written:
    """Append a `## HH:MM — ...` entry to today's daily log (one commit)."""
    text = given_text(text, "entry")
    when = when or datetime.now().astimezone()
    day = f"{when:%Y-%m-%d}"
    rel = daily_path(nb, day)
    guard.check(text, allow, rel)
    entry = pages.daily_entry(text, when)
    with write_lock(nb):
        return commit_change(nb, rel, lambda page: pages.add_daily(page, day, entry),
                             f"mem: daily {day} {_subject(text)}", "daily")


def write(nb: Notebook, page: str, content: str, section: str | None = None, replace: bool = False,
          allow: bool = False, expected: str | None = None) -> Written:
    """Write or append to a page or one H2 section (one commit). With `expected`
    (the page as the writer saw it; '' for a page that must not exist yet), a page
    that differs from it is refused with PageChanged, never overwritten."""
    content = given_text(content, "content")
    rel = nb.page(page)
    _section(section)
    guard.check(content, allow, rel, section)

    def edit(current: str) -> pages.Edit:
        if not current.strip() and not section:
            new = content if replace else pages.new_page(rel, content)
            return pages.Edit(new if new.endswith("\n") else new + "\n", 1,
                              max(1, new.rstrip("\n").count("\n") + 1))
        if replace:
            return pages.replace(current or pages.new_page(rel, ""), content, section)
        return pages.append(current or pages.new_page(rel, ""), content, section)

    verb = "replace" if replace and expected != "" else "write"  # expected '': a new page, nothing replaced
    where = f"{rel} § {section}" if section else rel
    with write_lock(nb):
        if expected is None:
            written = commit_change(nb, rel, edit, f"mem: {verb} {where}", "write")
        else:
            current = change.current(nb, rel)
            if current != expected:
                raise PageChanged(rel, expected, current)
            # checked again by change.apply just before writing (a `git pull` takes no lock of
            # ours); the commit gets the writer's change merged onto HEAD's version, so a HEAD
            # that moved meanwhile keeps what it brought
            made = change.towards(nb, expected, edit(expected).text, rel)
            written = commit_change(nb, rel, made, f"mem: {verb} {where}", "write", expected={rel: expected})
    written.section = section
    return written


@dataclass
class Page:
    path: str
    lines: dict[str, int]
    total_lines: int
    text: str
    revision: str | None = None  # the commit read from (--at); None: the work tree
    page: int | None = None  # a PDF page (PATH#pN): lines count within it
    pages: int | None = None  # how many pages the PDF has


def page_lines(text: str) -> list[str]:
    """Lines as git and the index number them: split at \\n only (a form feed or U+2028 is not a line break)."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
PAGE = re.compile(r"^(?P<path>.+?)#p(?P<page>\d+)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")


def get(nb: Notebook, spec: str, at: str | None = None) -> Page:
    """A page, or lines START-END of it, from the work tree or as it was at a
    revision (a commit, branch, tag, date or period). A document (PDF, DOCX, HTML,
    text) gives its extracted text; PATH#pN one page of a PDF, PATH#pN:START-END lines of it."""
    from ..index.documents import kind_of

    paged = PAGE.match(spec)
    if paged or kind_of(path_part(spec)):
        return _document(nb, spec, paged, at)
    match = RANGE.match(spec)
    name = match.group("path") if match else spec
    revision = None
    if at is None:
        rel = nb.page(name, must_exist=True)
        text = nb.read(rel)
    else:
        rel, text, revision = _at(nb, name, at)
    lines = page_lines(text)
    if not match:
        return Page(rel, {"start": 1, "end": len(lines)}, len(lines), text, revision)
    start, end = line_range(match, rel, len(lines))
    chosen = lines[start - 1:end]
    return Page(rel, {"start": start, "end": end}, len(lines), "\n".join(chosen) + "\n", revision)


def path_part(spec: str) -> str:
    """The path of PATH[:LINES] as given, for a look at its ending (confined later)."""
    match = RANGE.match(spec)
    return match.group("path") if match else spec


def _document(nb: Notebook, spec: str, paged: re.Match[str] | None, at: str | None) -> Page:
    """A document's extracted text (one page of a PDF), from the work tree or a revision."""
    from ..index import extracts
    from ..index.indexer import Index

    match = paged or RANGE.match(spec)
    name = match.group("path") if match else spec
    rel = nb.page(name, default_suffix="")
    kind = extracts.kind_of(nb, rel)
    if kind is None:
        raise PageNotFound(f"{rel} is not a document gitmem reads (PDF, DOCX, HTML or text, not private; "
                           "a private one is never extracted)",
                           "PATH#pN reads page N of a PDF; see docs/documents.md")
    if at is None:
        data, revision = nb.read_bytes(rel), None
        if data is None:
            raise PageNotFound(f"no document {rel} in the notebook", "see the documents it holds: git mem status")
    else:
        rel, data, revision = _at_bytes(nb, rel, at)
    index = Index(nb)
    try:
        got = extracts.read(index, rel, kind, data)
    finally:
        index.close()
    pages = len(got.pages) if kind == "pdf" else None
    if paged is None and kind == "pdf" and match:
        raise BadRange(f"{rel} is a PDF: its lines are counted page by page",
                       f"name the page, e.g. {rel}#p1:{match.group('start')}")
    text, number = got.text, None
    if kind == "pdf" and paged is None:
        text = "".join(f"--- page {i} of {pages} ---\n{page}" for i, page in enumerate(got.pages, start=1))
    if paged is not None:
        number = int(paged.group("page"))
        if kind != "pdf" or not 1 <= number <= len(got.pages):
            raise BadRange(f"{rel} has no page {number}" + (f" (it has {len(got.pages)})" if kind == "pdf"
                                                             else " (only PDFs have pages)"),
                           f"ask for {rel}#p1" if kind == "pdf" else f"ask for {rel} or {rel}:START-END")
        text = got.pages[number - 1]
    lines = page_lines(text)
    start, end = (1, len(lines)) if match is None or match.group("start") is None else \
        line_range(match, f"{rel}#p{number}" if number else rel, len(lines))
    chosen = "\n".join(lines[start - 1:end]) + "\n" if lines else ""
    return Page(rel, {"start": start, "end": end}, len(lines), chosen, revision, number, pages)


def line_range(match: re.Match[str], rel: str, total: int) -> tuple[int, int]:
    """START-END of a PATH:START[-END] match, or BadRange if they are not lines of the page."""
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    if end < start:
        raise BadRange(f"the range {start}-{end} of {rel} is reversed (it ends before it starts)",
                       f"put the first line first: {rel}:{end}-{start}")
    if start < 1 or end > total:
        asked = f"line {start}" if start == end else f"lines {start}-{end}"
        raise BadRange(f"{asked} {'is' if start == end else 'are'} outside {rel}, which has {total} lines",
                       f"ask for lines between 1 and {total}, e.g. {rel}:1-{min(total, 10)}")
    return start, end


def _at(nb: Notebook, name: str, at: str) -> tuple[str, str, str]:
    from ..notebook import decode

    rel, data, commit = _at_bytes(nb, nb.page(name), at)
    from ..index import forgotten

    return rel, forgotten.current(nb).redact(decode(data)), commit  # forgotten lines stay forgotten


def _at_bytes(nb: Notebook, rel: str, at: str) -> tuple[str, bytes, str]:
    """A file's bytes as they were at a revision, and that commit."""
    from ..search.views import resolve

    rev = resolve(nb, at)
    data = nb.git.show(rev.commit, nb.repo_path(rel))
    if data is None:
        raise PageNotFound(f"no page {rel} at {at} ({rev.commit[:7]})",
                           f"see when it existed with: git mem log --path {rel}")
    return rel, data, rev.commit
