"""The write verbs: remember, daily, write (git mem get reads, in reading.py).

Each write is a change to one page, a function of the page's text, applied by
change.apply under the notebook's write lock: to the page as it is just before
writing, and to HEAD's version for the commit, which holds only gitmem's change.
One write, one commit. If the commit fails the page stays written and the change
staged, so nothing is lost.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import blocks, config, credentials, nesting
from ..errors import EmptyText, GitmemError, Refused, UsageError
from ..notebook import Notebook
from ..text import clean_text
from . import change, guard, pages, replaced, routing, trailers
from .change import PageChanged, committable, write_lock
from .duplicate import find_duplicate, nearby
from .written import Written, commit_change

if TYPE_CHECKING:
    from ..search.hits import Results

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


MAX_FACT = 20_000  # characters of one fact: a list item, a line, a short paragraph


def remember(nb: Notebook, text: str, to: str | None = None, section: str | None = None,
             category: str | None = None, force: bool = False, allow: bool = False,
             keep_both: bool = False, replaces: str | None = None) -> Written:
    """Store a fact on its page (one commit), unless it is already there. A fact that updates
    one line of the page (same subject and attribute, another value; see supersede.py) replaces
    that line in the same commit, unless `keep_both`; `replaces` (PATH:LINE, or the old line's
    words) names the fact it takes the place of (replaced.py)."""
    text = given_text(text, "fact")
    if len(text) > MAX_FACT:  # a megabyte of prose took 13 s of routing and matching: it is a page
        raise UsageError(f"the fact is {len(text):,} characters; a fact holds at most {MAX_FACT:,}",
                         "write a longer text as a page: git mem write PAGE - < FILE")
    _section(section)
    target = replaced.named(nb, replaces, text, {"--to": bool(to), "--section": section is not None,
                                                 "--keep-both": keep_both}) if replaces is not None else None
    rel, section, cat = route(nb, text, to, section, category)
    rel = target.path if target is not None else rel
    text = routing.unmarked(text) if CATEGORIES[cat][2] else text
    guard.check(text, allow, rel, section)
    entry = pages.bullet(text, checkbox=CATEGORIES[cat][2])

    named: str | None = None

    def add(page: str) -> pages.Edit:
        """The fact on this version of the page: in place of the line it updates, or appended."""
        if target is not None:
            return replaced.edit(target, text)(page)
        found = None if keep_both else _updated(page, text, named)
        if found is not None:  # said with a role, the fact takes the line's place with the name the line has
            said = entry if found[2] == text else pages.bullet(found[2], checkbox=CATEGORIES[cat][2])
            return _replace_line(page, found[0], nesting.rewrite(page, found[0], found[1], found[2], said))
        spot = nesting.under(page, text) if section is None and "\n" not in entry else None
        if spot is not None:  # "Sofia's email is ..." under "- Sofia Diaz", not under the page's last section
            return _insert_line(page, spot[0] + 1, spot[1] + entry[2:])  # entry[2:]: after its "- "
        return pages.append(page if page.strip() else pages.new_page(rel, ""), entry, section)

    near = functools.cache(lambda: nearby(nb, text))  # one keyword search serves both checks

    with write_lock(nb):
        committable(nb)
        current = nb.read(rel)
        if not force and target is None:  # named: the fact goes in that line's place, a copy of it out
            # may wait for the index (another process embedding): change.apply reads the page afresh
            dup = find_duplicate(nb, text, rel, current, near)
            if dup:
                return Written("duplicate", dup["path"], dup["lines"], None, "", duplicate=dup,
                               category=cat, hint="already remembered; pass --force to store it again")
        named = None if keep_both or target else _named(text, near)
        old = (target.line, " ".join(line.strip() for line in target.lines), text) if target else \
            None if keep_both else _updated(current, text, named)
        if old is None and not keep_both and not to and not CATEGORIES[cat][2] and nb.settings.layout == "folders":
            elsewhere = _updated_elsewhere(nb, rel, text, named, near)
            if elsewhere is not None:  # "Helen moved to Bath" replaces the contacts line "Helen lives in Bristol"
                rel, old = elsewhere
        from . import watch  # watch reads pages through this module

        disagreeing = watch.conflicts(nb, text)  # before the write: the older fact may be replaced
        message, extra = _message(nb, rel, text, old)
        written = commit_change(nb, rel, add, message, "remember", extra)
    written.category, written.section = cat, section
    written.watched = disagreeing or None
    if old is not None and written.commit:
        span = len(target.lines) - 1 if target is not None else 0
        written.now = _rewritten(nb, rel, written.lines["start"], text)
        written.replaced = {"path": rel, "lines": {"start": old[0], "end": old[0] + span},
                            "text": credentials.redact(old[1].strip())[0],
                            **({"named": True} if target is not None else {})}
    elif written.commit:
        _beside(nb, written, text, near, keep_both)
    return written


def _message(nb: Notebook, rel: str, text: str, old: tuple[int, str, str] | None) -> tuple[str, list[tuple[str, str]]]:
    """remember's commit subject and the trailer naming the line it replaces, if any; Refused when the
    fact says [redacted] where that line holds a secret."""
    message = f"mem: remember {_subject(text)}"
    if old is None:
        return message, []
    if credentials.shows_hidden(text) and credentials.redact(old[1])[1]:
        # "the password is now [redacted]", copied from an answer: the secret it replaces would be lost
        raise Refused(f"the fact says [redacted] where the line it replaces, {rel}:{old[0]}, holds a secret; "
                      "storing it would lose the secret",
                      f"say the new value, or take the secret out first with 'git mem forget {rel}:{old[0]}'")
    # a line a pull or an editor wrote may hold a secret or a control sequence: neither in the message
    message += f" (replaces: {_subject(clean_text(credentials.redact(old[1].strip())[0]))})"
    return message, [trailers.supersedes(nb.repo_path(rel), old[0], old[1].strip())]


def _beside(nb: Notebook, written: Written, text: str, near: Callable[[], Results | None], keep_both: bool) -> None:
    """What a fact stored beside the lines of its page says of them: the line it updates and kept
    (`updates`), else, unless kept beside on purpose, the line it may update when it says it is an
    update (`maybe`, with the hint)."""
    written.updates = _kept_beside(nb, written.path, written.lines["start"])
    if written.updates is None and not keep_both:
        written.maybe = replaced.maybe(nb, text, near, {"path": written.path, "lines": written.lines})
        if written.maybe is not None:
            written.hint = replaced.fix(written.maybe, written.path, text)


def _rewritten(nb: Notebook, rel: str, line: int, text: str) -> str | None:
    """The line as the page says it after a replacement, when that is not the fact as it was given
    (the rest of the old line kept, a name the line had)."""
    lines = nb.read(rel).split("\n")
    now = credentials.redact(lines[line - 1].strip())[0] if 0 < line <= len(lines) else ""
    bare = blocks.BULLET.sub("", now, count=1).strip()
    return now if now and bare != " ".join(text.split()) else None


def _kept_beside(nb: Notebook, rel: str, line: int) -> dict[str, Any] | None:
    """The line above the new one that it updates and that stays (it says more: "I prefer dark roast
    coffee, no sugar" + "I no longer drink coffee"; or --keep-both), as recall links them
    (search/current.py): said, so that a person sees the link remember made (a newcomer saw none)."""
    from ..search import current

    found = current.predecessor(nb.read(rel), line)
    if found is None:
        return None
    old, how = found
    return {"path": rel, "lines": {"start": old.start, "end": old.end}, "how": how,
            "text": credentials.redact(old.text.strip())[0]}


def _named(text: str, near: Callable[[], Results | None]) -> str | None:
    """The fact with the roles it names read as the notebook's names for them, as recall reads a
    question ("My sister's phone is now ..." -> "Lucy's phone is now ..."; not a short name read
    as a full one: search/nicknames.py); None when it names none, or the index cannot say (the
    check is advisory, like the duplicate check)."""
    from ..search import aliases

    if not aliases.mentions(text):
        return None
    found = near()
    return found.asked_as if found is not None else None


def _updated(page: str, text: str, named: str | None) -> tuple[int, str, str] | None:
    """(line number, line, the fact as it updates it) of the line of `page` the fact updates: as
    said, else with its roles read as names (`named`)."""
    for said in (text, named):
        found = nesting.find(page, said) if said else None
        if found is not None:
            return found[0], found[1], said or text
    return None


def _updated_elsewhere(nb: Notebook, routed: str, text: str, named: str | None,
                       near: Callable[[], Results | None]) -> tuple[str, tuple[int, str, str]] | None:
    """(page, as _updated) of the one line on another page of facts (not a list of todos or
    shopping) that the fact updates: an update is routed by its words ("moved to" is a fact, "lives
    in" a contact), and the line it updates may be on another page, one of remember's or one a
    person wrote (among the pages of the keyword matches, `near`: "Acme Foods > Contract renews in
    June" on projects/clients.md, a newcomer's update stood beside it). None when no page, or more
    than one, has such a line."""
    found = []
    for page in _pages_of_facts(nb, near):
        if page == routed or not nb.file(page).is_file():
            continue
        try:
            hit = _updated(nb.read(page), text, named)
        except GitmemError:  # not a page gitmem can read (binary, a symlink): it holds no fact to update
            continue
        if hit is not None:
            found.append((page, hit))
    return found[0] if len(found) == 1 else None


def _pages_of_facts(nb: Notebook, near: Callable[[], Results | None]) -> list[str]:
    """remember's pages of facts, then those of the keyword matches but for lists, the pages that
    tell the agent who it is (SOUL.md, USER.md, the instructions: an agent's remember was refused
    for an old line on USER.md, a review found), the watch list, the plan, goals and sessions: pages
    a fact's update may replace a line of."""
    listed = [page for page, _, checkbox in CATEGORIES.values() if not checkbox]
    lists = {page for page, _, checkbox in CATEGORIES.values() if checkbox}
    found = near()
    # names, not nb.page(): a committed symlink among them must not make every remember fail (a review)
    kept = {"reference/watched.md", "WATCHED.md", config.PLAN_PAGE} | lists
    matched = [h.path for h in (found.results if found is not None else []) if h.group == "notebook"
               and h.path not in kept and not config.tells_the_agent(h.path)
               and not h.path.startswith(("goals/", "sessions/"))]
    return list(dict.fromkeys(listed + matched))


def _replace_line(page: str, number: int, replacement: str) -> pages.Edit:
    """The page with line `number` replaced (replacing.rewrite kept the old line's indentation)."""
    lines = page.split("\n")
    new = replacement.split("\n")
    lines[number - 1:number] = new
    return pages.Edit("\n".join(lines), number, number + len(new) - 1)


def _no_redacted_copy(rel: str, current: str, content: str) -> None:
    """Refused: content that holds a line of the page as an answer shows it redacted (the JSON API, MCP,
    recall): written back, it would put [redacted] in place of the secret (a review, 2026-11-26)."""
    if not credentials.shows_hidden(content):
        return
    current = current.replace("\r\n", "\n")  # the content's line ends are LF already (clean_text)
    had = set(current.split("\n"))
    # as recall and the API show it, and as context fits it ("[___]", a value shorter than the word)
    shown = {line.strip() for fit in (False, True) for line in credentials.redact(current, fit=fit)[0].split("\n")
             if line not in had}
    # a copied line edited after the word that hides the value ("KEY=[redacted]  # rotated") loses it too
    copied = next((line for line in content.split("\n") if (upto := _up_to_hidden(line))
                   and any(s.startswith(upto) for s in shown)), None)
    if copied is not None:
        raise Refused(f"{rel} holds this line with a secret where the content says [redacted]: "
                      f"{_subject(copied, 80)!r}; writing it would lose the secret",
                      f"edit the page itself ('git mem get {rel}' shows it as it is), or take the secret out "
                      f"first with 'git mem forget {rel}:LINE'")


def _up_to_hidden(line: str) -> str | None:
    """The line, stripped, up to the end of the first word that hides a value in it (None without one)."""
    found = credentials.SHOWN_HIDDEN.search(line.strip())
    return line.strip()[:found.end()] if found is not None else None


def _insert_line(page: str, number: int, line: str) -> pages.Edit:
    """The page with `line` inserted as its line `number` (1-based), ended as the line before it is."""
    lines = page.split("\n")
    lines.insert(number - 1, line + ("\r" if number > 1 and lines[number - 2].endswith("\r") else ""))
    return pages.Edit("\n".join(lines), number, number)


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
    guard.check(guard.added(content, expected if expected is not None else change.current(nb, rel)) if replace
                else content, allow, rel, section)

    def edit(current: str) -> pages.Edit:
        _no_redacted_copy(rel, current, content)
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
