"""Links between pages, as Obsidian writes them: `[[page]]`, `[[page|label]]`,
`[[page#heading]]`, `[[page#heading|label]]` and the embed form `![[page]]`.

A target resolves the way Obsidian resolves it: a path from the notebook's top
(with or without `.md`), else a page of that name anywhere (the one in the linking
page's folder first, then the shortest path, then the first in order). Pure text
work: the web renders links with it and search lists a page's backlinks with it.
Bounded: a target, heading or label is at most 200 characters on one line.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from .markdown import fenced_ranges

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n|#]{1,200})(?:#([^\[\]\n|]{0,200}))?(?:\|([^\[\]\n]{1,200}))?\]\]")
CODE_SPAN = re.compile(r"(`+)[^`\n]*?\1")


@dataclass(frozen=True)
class Link:
    target: str  # as written, trimmed
    heading: str | None
    label: str | None
    line: int  # 1-based line of the linking page
    embed: bool

    @property
    def shown(self) -> str:
        """What the reader sees: the label, else the target (and heading) as written."""
        if self.label:
            return self.label
        return f"{self.target} › {self.heading}" if self.heading else self.target


def parse(match: re.Match[str], line: int = 0) -> Link:
    heading = (match.group(3) or "").strip() or None
    label = (match.group(4) or "").strip() or None
    return Link(match.group(2).strip(), heading, label, line, bool(match.group(1)))


def wikilinks(text: str) -> list[Link]:
    """Every wikilink in `text` outside fenced code and inline code, in order."""
    fenced = fenced_ranges(text)
    found: list[Link] = []
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        start, offset = offset, offset + len(line) + 1
        if any(a <= start < b for a, b in fenced):
            continue
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        found.extend(parse(m, number) for m in WIKILINK.finditer(plain) if m.group(2).strip())
    return found


def resolve(target: str, pages: list[str], here: str = "") -> str | None:
    """The page `target` names among `pages` (notebook-relative paths), or None if none does."""
    name = target.strip().lstrip("/")
    if not name:
        return None
    wanted = {name, f"{name}.md"} if not name.endswith(".md") else {name}
    exact = [p for p in pages if p in wanted]
    if exact:
        return exact[0]
    base = posixpath.basename(name)
    bases = {base, f"{base}.md"} if not base.endswith(".md") else {base}
    named = [p for p in pages if posixpath.basename(p) in bases and (p == name or p.endswith("/" + name)
                                                                      or p.endswith("/" + name + ".md")
                                                                      or "/" not in name)]
    if not named:
        return None
    folder = posixpath.dirname(here)
    return sorted(named, key=lambda p: (posixpath.dirname(p) != folder, p.count("/"), p))[0]


def new_page_for(target: str) -> str:
    """The page a link to a missing page would create: its target as a path, `.md` added."""
    name = target.strip().lstrip("/")
    return name if name.endswith(".md") else f"{name}.md"


def slug(heading: str) -> str:
    """An anchor for a heading, as markdown viewers make them (lower case, words joined by '-')."""
    return re.sub(r"[^\w]+", "-", heading.strip().lower()).strip("-")
