"""Editing pages: H2 sections, appends, the daily log. Pure text in, text out.

Nothing here touches disk or git; `memory.py` reads the page, calls these,
writes the result atomically and commits it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..markdown import HEADING, body_offset, headings_of

LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
DAILY_ENTRY = re.compile(r"^## \d{2}:\d{2} — ", re.MULTILINE)


@dataclass(frozen=True)
class Edit:
    text: str  # the whole new page
    start_line: int  # 1-based lines of the inserted content in the new page
    end_line: int


@dataclass(frozen=True)
class Section:
    title: str
    level: int
    start: int  # offset of the heading line
    body: int  # offset just after the heading line
    end: int  # offset of the next heading of the same or higher level, or len(text)


def sections(text: str) -> list[Section]:
    """H1 and H2 sections, in order (headings inside code fences are ignored)."""
    found = [(off, lvl, title) for off, lvl, title in headings_of(text) if lvl <= 2]
    out = []
    for i, (off, lvl, title) in enumerate(found):
        end = next((o for o, lv, _ in found[i + 1:] if lv <= lvl), len(text))
        nl = text.find("\n", off)
        out.append(Section(title, lvl, off, len(text) if nl < 0 else nl + 1, end))
    return out


def find_section(text: str, title: str) -> Section | None:
    want = _norm_title(title)
    return next((s for s in sections(text) if s.level == 2 and _norm_title(s.title) == want), None)


def title_from_name(rel: str) -> str:
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else "Notes"


def new_page(rel: str, content: str) -> str:
    """A new page: content as given if it opens with a heading, else under an H1 title
    (below any frontmatter, which stays on top or it would not be frontmatter)."""
    body = content.strip("\n")
    top = body_offset(body)
    front, rest = body[:top], body[top:].lstrip("\n")
    if HEADING.match(rest.split("\n", 1)[0]):
        return body + "\n"
    return f"{front}# {title_from_name(rel)}\n\n{rest}\n"


def append(text: str, content: str, section: str | None = None) -> Edit:
    """Add content at the end of the page, or at the end of an H2 section
    (created at the end of the page if missing)."""
    content = content.strip("\n")
    if section is None:
        return _insert(text, len(text), content)
    found = find_section(text, section)
    if found is not None:
        return _insert(text, found.end, content)
    top = _titled(text, section)
    if top is not None:  # the page's own title: under it, before its first H2 ("# Friends" then "## Friends")
        return _insert(text, top.end, content)
    return _insert(text, len(text), content, heading=f"## {section.strip()}")


def _titled(text: str, title: str) -> Section | None:
    """The part of a page under its H1 of this title, up to the next heading of level 1 or 2: the
    section `--section TITLE` means when no H2 has that title."""
    every = sections(text)
    top = next((s for s in every if s.level == 1 and _norm_title(s.title) == _norm_title(title)), None)
    if top is None:
        return None
    end = next((s.start for s in every if s.start > top.start), len(text))
    return Section(top.title, 1, top.start, top.body, end)


def replace(text: str, content: str, section: str | None = None) -> Edit:
    """Replace the whole page, or the body of one H2 section (heading kept;
    created at the end of the page if missing)."""
    content = content.strip("\n")
    if section is None:
        new = content + "\n"
        return Edit(new, 1, max(1, new.count("\n")))
    found = find_section(text, section) or _titled(text, section)
    if found is None:
        return append(text, content, section)
    head = text[:found.body] if text[:found.body].endswith("\n") else text[:found.body] + "\n"
    tail = text[found.end:]
    middle = f"\n{content}\n" + ("\n" if tail else "")
    start = head.count("\n") + 2
    return Edit(head + middle + tail, start, start + content.count("\n"))


def _insert(text: str, at: int, content: str, heading: str | None = None) -> Edit:
    before, after = text[:at].rstrip("\n"), text[at:].lstrip("\n")
    last = before.rsplit("\n", 1)[-1] if before else ""
    if heading:
        joint, content = "\n\n" if before else "", f"{heading}\n\n{content}"
    elif not before:
        joint = ""
    elif LIST_ITEM.match(last) and LIST_ITEM.match(content):
        joint = "\n"
    else:
        joint = "\n\n"
    head = before + joint
    start = head.count("\n") + 1 + (2 if heading else 0)
    new = head + content + "\n" + ("\n" + after if after else "")
    return Edit(new, start, start + content.count("\n") - (2 if heading else 0))


def daily_title(day: str) -> str:
    return f"# Daily Log — {day}"


def daily_entry(text: str, when: datetime) -> str:
    """`## HH:MM — first line` and the rest of the text below it."""
    first, _, rest = text.strip().partition("\n")
    first = first.strip()
    title = first if len(first) <= 80 else first[:79].rstrip() + "…"
    body = rest.strip("\n")
    if len(first) > 80:
        body = (text.strip() if not body else first + "\n" + body)
    entry = f"## {when:%H:%M} — {title}"
    return entry + (f"\n\n{body}" if body else "")


def add_daily(text: str, day: str, entry: str) -> Edit:
    if not text.strip():
        text = daily_title(day) + "\n"
    before = text.rstrip("\n")
    head = before + "\n\n"
    start = head.count("\n") + 1
    return Edit(head + entry + "\n", start, start + entry.count("\n"))


def bullet(text: str, checkbox: bool = False) -> str:
    """A remembered fact as one list item (continuation lines indented)."""
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    marker = "- [ ] " if checkbox else "- "
    return "\n".join([marker + lines[0]] + ["  " + ln.strip() for ln in lines[1:]])


def _norm_title(title: str) -> str:
    return " ".join(title.lower().split())


def remove_lines(text: str, spans: list[tuple[int, int]]) -> str:
    """The text without lines START-END (1-based, inclusive) of each span; a blank
    line left next to another blank line at a cut is dropped too."""
    lines = text.split("\n")
    drop = {n for start, end in spans for n in range(start - 1, end)}
    kept: list[str] = []
    cut = False
    for i, line in enumerate(lines):
        if i in drop:
            cut = True
            continue
        if cut and not line.strip() and kept and not kept[-1].strip():
            # keep the later blank: at the end it is the page's empty last line, and dropping
            # it instead left a CRLF page ending in a bare '\r'
            kept[-1] = line
            continue
        cut = False
        kept.append(line)
    return "\n".join(kept)


def item_extent(lines: list[str], index: int) -> int:
    """The last line (0-based) of the fact starting at `index`: a list item with its indented
    continuation lines, or a daily entry (`## HH:MM — ...`) with its body."""
    if DAILY_ENTRY.match(lines[index]):
        end = index
        while end + 1 < len(lines) and not re.match(r"#{1,2} ", lines[end + 1]):
            end += 1
        while end > index and not lines[end].strip():
            end -= 1
        return end
    if not LIST_ITEM.match(lines[index]):
        return index
    end = index
    while end + 1 < len(lines) and lines[end + 1].strip() and lines[end + 1][:1].isspace() \
            and not LIST_ITEM.match(lines[end + 1]):
        end += 1
    return end
