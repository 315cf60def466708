"""A page's links, both ways: the pages it links to and the pages that link to it
(`git mem links PAGE`, the page view's "Linked from", /api/links, `git mem why`).

Read from the index (index/links.py), caught up first like every read, so a link
typed a second ago counts. Private pages are left out of both lists: their names and
lines never reach an agent through a backlink (a private page's own outgoing links are
read from the page itself, for the person who asks about it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NotText, PageNotFound, PathOutside
from ..index import links as stored
from ..index.indexer import Index, recovering
from ..links import Link, every_link, new_page_for, target_of
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


@recovering
def links(nb: Notebook, page: str) -> Links:
    """What `page` links to, and which pages link to it (with the line of each link)."""
    rel = nb.page(page, must_exist=True)
    index = Index(nb)
    try:
        index.sync()
        every = pages(nb)
        out = Links(rel)
        mine = [(s.link, s.text) for s in stored.outgoing(index.conn, rel)]
        if not mine and stored.private(index.conn, rel):
            mine = _read(nb, rel)
        for link, text in mine:
            target = target_of(link, every, rel)
            out.outgoing.append(LinkLine(target or new_page_for(link.target), link.line, text, link.heading,
                                         target is not None))
        out.backlinks = backlinks(index, rel, every)
        return out
    finally:
        index.close()


def backlinks(index: Index, rel: str, every: list[str]) -> list[LinkLine]:
    """The links on other (not private) pages that point at `rel`, from the index as it stands."""
    return [LinkLine(s.path, s.link.line, s.text, s.link.heading) for s in stored.naming(index.conn, rel)
            if target_of(s.link, every, s.path) == rel]


def _read(nb: Notebook, rel: str) -> list[tuple[Link, str]]:
    """A private page's links, read from the page (the index keeps nothing of it)."""
    try:
        text = nb.read(rel)
    except (NotText, PageNotFound, PathOutside, OSError):  # PathOutside: a symlink, never followed
        return []
    lines = text.split("\n")
    return [(link, lines[link.line - 1].strip()) for link in every_link(text)]
