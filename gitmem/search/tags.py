"""The notebook's tags: frontmatter `tags` and #hashtags in the text, as Obsidian reads them
(`git mem tags`, the browser's /tags).

A hashtag is `#` and a word that starts with a letter (`#project`, `#apollo/risks`),
outside code and not inside a link or a word (`C#`, `page#heading`, `&#39;` are not
tags); a heading's own `#` marks are followed by a space, so they never count.
Tags are compared in lower case, as the index's `--tag` filter compares them.
Private pages are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import NotText, PageNotFound, PathOutside
from ..links import CODE_SPAN
from ..markdown import body_offset, fenced_ranges
from ..notebook import Notebook

HASHTAG = re.compile(r"(?<![\w&#/\[\]()`])#([A-Za-z][\w/-]{0,60})")


@dataclass
class TagUse:
    path: str
    line: int  # 0: the page's frontmatter
    text: str


@dataclass
class Tag:
    name: str
    pages: int
    uses: list[TagUse] = field(default_factory=list)


@dataclass
class Tags:
    tags: list[Tag]
    tag: str | None = None  # the one asked for, if any


def hashtags(text: str) -> list[tuple[int, str]]:
    """(line, tag) for each #hashtag in the page's body, outside code."""
    start = body_offset(text)
    fenced = fenced_ranges(text)
    found: list[tuple[int, str]] = []
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        here, offset = offset, offset + len(line) + 1
        if here < start or any(a <= here < b for a, b in fenced):
            continue
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        found.extend((number, m.group(1).lower()) for m in HASHTAG.finditer(plain))
    return found


def tags(nb: Notebook, only: str | None = None) -> Tags:
    """Every tag with the pages and lines that carry it, most used first; `only`: that tag alone."""
    from ..index.blobs import parse
    from .links import pages

    found: dict[str, Tag] = {}
    for path in pages(nb):
        try:
            text = nb.read(path)
        except (NotText, PageNotFound, PathOutside, OSError):  # PathOutside: a symlink, never followed
            continue
        meta = parse(text.encode("utf-8", "surrogatepass"))
        if meta.private:
            continue
        lines = text.split("\n")
        uses = [(0, name) for name in meta.tags.strip(",").split(",") if name]
        uses += hashtags(text)
        for number, name in uses:
            tag = found.setdefault(name, Tag(name, 0))
            if not any(u.path == path for u in tag.uses):
                tag.pages += 1
            tag.uses.append(TagUse(path, number, "(frontmatter)" if number == 0 else lines[number - 1].strip()))
    wanted = only.lower().lstrip("#") if only else None
    listed = [t for t in found.values() if wanted is None or t.name == wanted]
    return Tags(sorted(listed, key=lambda t: (-t.pages, t.name)), wanted)
