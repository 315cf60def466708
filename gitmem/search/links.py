"""A page's links, both ways: the pages it links to and the pages that link to it
(`git mem links PAGE`, the page view's "Linked from", /api/links).

Read from the notebook as it is now (the work tree's notes), so a link typed a
second ago counts. Private pages are left out of both lists: their names and
lines never reach an agent through a backlink.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NotText, PageNotFound
from ..links import new_page_for, resolve, wikilinks
from ..notebook import Notebook


@dataclass
class LinkLine:
    path: str  # the linking page (backlinks) or the linked page (outgoing)
    line: int  # the line of the linking page the link stands on
    text: str  # that line, trimmed
    heading: str | None = None
    exists: bool = True  # outgoing: whether the target page exists (a missing one can be created)


@dataclass
class Links:
    page: str
    outgoing: list[LinkLine] = field(default_factory=list)
    backlinks: list[LinkLine] = field(default_factory=list)


def pages(nb: Notebook) -> list[str]:
    """The notebook's notes in the work tree, notebook-relative, in order."""
    found = []
    for repo_path in nb.git.files(nb.prefix):
        rel = nb.rel(repo_path)
        if rel is not None and nb.settings.is_note(rel) and nb.file(rel).is_file():
            found.append(rel)
    return sorted(found)


def _private(text: str) -> bool:
    from ..index.blobs import parse

    return bool(parse(text.encode("utf-8", "surrogatepass")).private)


def links(nb: Notebook, page: str) -> Links:
    """What `page` links to, and which pages link to it (with the line of each link)."""
    rel = nb.page(page, must_exist=True)
    every = pages(nb)
    out = Links(rel)
    for path in every:
        try:
            text = nb.read(path)
        except (NotText, PageNotFound, OSError):  # a binary or vanished file is no page to link from
            continue
        if _private(text) and path != rel:
            continue
        lines = text.split("\n")
        for link in wikilinks(text):
            target = resolve(link.target, every, path)
            if path == rel:
                out.outgoing.append(LinkLine(target or new_page_for(link.target), link.line,
                                             lines[link.line - 1].strip(), link.heading, target is not None))
            if target == rel and path != rel:
                out.backlinks.append(LinkLine(path, link.line, lines[link.line - 1].strip(), link.heading))
    return out
