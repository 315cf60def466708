"""Links between pages, as Obsidian writes them: `[[page]]`, `[[page|label]]`,
`[[page#heading]]`, `[[page#heading|label]]` and the embed form `![[page]]`, and
markdown links to a page, `[label](path/page.md)` (relative to the linking page's
folder, or from the notebook's top).

A target resolves the way Obsidian resolves it: a path from the notebook's top
(with or without `.md`), else a page of that name anywhere (the one in the linking
page's folder first, then the shortest path, then the first in order). Pure text
work: the web renders links with it, the index stores each page's links with it,
and a renamed page's links are rewritten with it (`retarget`).
Bounded: a target, heading or label is at most 200 characters on one line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, unquote

from .markdown import fenced_ranges

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n|#]{1,200})(?:#([^\[\]\n|]{0,200}))?(?:\|([^\[\]\n]{1,200}))?\]\]")
# the opening run is bounded: with `+` a line of n backticks took O(n^2) steps (1.5 s for 100,000)
CODE_SPAN = re.compile(r"(`{1,64})[^`\n]*?\1")
# [label](target "title"): a target in <...> may hold spaces; only links to a .md page count
MDLINK = re.compile(r"(!?)\[([^\[\]\n]{0,200})\]\((<[^<>\n]{1,300}>|[^()\s<>]{1,300})(?:\s+\"[^\"\n]{0,200}\")?\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    target: str  # as written, trimmed
    heading: str | None
    label: str | None
    line: int  # 1-based line of the linking page
    embed: bool
    markdown: bool = False  # [label](path.md): the target is a path, not a name

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
    return [link for link, _ in _found(text) if not link.markdown]


def every_link(text: str) -> list[Link]:
    """Every wikilink and markdown link to a page in `text`, outside code, in order."""
    return [link for link, _ in _found(text)]


def _found(text: str) -> Iterator[tuple[Link, tuple[int, int]]]:
    """Each link outside code with the span (in the whole text) of its target as written."""
    fenced = fenced_ranges(text)
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        start, offset = offset, offset + len(line) + 1
        if any(a <= start < b for a, b in fenced):
            continue
        plain = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)  # same length: spans stay put
        hits: list[tuple[int, Link, tuple[int, int]]] = []
        for m in WIKILINK.finditer(plain):
            if m.group(2).strip():
                hits.append((m.start(), parse(m, number), (start + m.start(2), start + m.end(2))))
        for m in MDLINK.finditer(plain):
            link = _markdown(m, number)
            if link is not None:
                hits.append((m.start(), link, (start + m.start(3), start + m.end(3))))
        for _, link, span in sorted(hits, key=lambda hit: hit[0]):
            yield link, span


def _markdown(match: re.Match[str], line: int) -> Link | None:
    """A markdown link as a Link if it points at a page of the notebook (a relative or
    top-level path to a .md file; never a URL, a mail address or a bare #anchor)."""
    raw = match.group(3)
    raw = raw[1:-1] if raw.startswith("<") else raw
    path, _, heading = raw.partition("#")
    path = unquote(path).strip()
    if not path.lower().endswith(".md") or SCHEME.match(path) or "\n" in path:
        return None
    return Link(path, unquote(heading).strip() or None, match.group(2).strip() or None, line,
                bool(match.group(1)), True)


def target_of(link: Link, pages: list[str], here: str = "") -> str | None:
    """The page a link points at among `pages`, or None."""
    return resolve_path(link.target, pages, here) if link.markdown else resolve(link.target, pages, here)


def resolve_path(target: str, pages: list[str], here: str = "") -> str | None:
    """The page a markdown link's path names: relative to the linking page's folder, else
    from the notebook's top (as Obsidian writes them either way); never above the top."""
    tried = [target.lstrip("/")] if target.startswith("/") else \
        [posixpath.normpath(posixpath.join(posixpath.dirname(here), target)), posixpath.normpath(target)]
    known = set(pages)
    return next((t for t in tried if not t.startswith("..") and t in known), None)


def lookup_name(target: str) -> str:
    """The last part of a link's target without `.md`: what the index looks links up by."""
    base = posixpath.basename(target.strip().rstrip("/"))
    return base[:-3] if base.lower().endswith(".md") else base


def retarget(text: str, here: str, pages: list[str], moves: dict[str, str], now: str | None = None) -> tuple[str, int]:
    """`text` (of page `here`, among `pages`) with its links to a moved page (`moves`: old path ->
    new) pointing at the new path, and how many links changed. `now`: where the page itself
    goes, when it is the one moved (its relative markdown links are rewritten from there).
    A link keeps its form: a name stays a name while it names the page unambiguously, a path
    stays a path, `.md`, heading, label and the embed mark are kept."""
    after = sorted({moves.get(p, p) for p in pages} | set(moves.values()))
    there = now or here
    out, last, changed = [], 0, 0
    for link, (a, b) in _found(text):
        target = target_of(link, pages, here)
        if target is None or (target not in moves and there == here):
            continue
        goal = moves.get(target, target)
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(here), link.target)) == target
        written = _markdown_target(text[a:b], goal, there, relative) if link.markdown else \
            _wiki_target(link, goal, there, after) if target in moves else None
        if written is None or written == text[a:b]:
            continue
        out.append(text[last:a] + written)
        last, changed = b, changed + 1
    return "".join(out) + text[last:], changed


def _wiki_target(link: Link, goal: str, here: str, pages: list[str]) -> str:
    suffix = ".md" if link.target.endswith(".md") else ""
    stem = goal[:-3] if goal.endswith(".md") else goal
    if "/" not in link.target:
        short = posixpath.basename(stem) + suffix
        if resolve(short, pages, here) == goal:
            return short
    return stem + suffix


def _markdown_target(raw: str, goal: str, here: str, relative: bool) -> str:
    if raw.startswith("/") or raw.startswith("</"):
        path = "/" + goal
    elif relative and posixpath.dirname(here):
        path = posixpath.relpath(goal, posixpath.dirname(here))
    else:
        path = goal
    tail = raw[raw.index("#"):] if "#" in raw else ""
    tail = tail[:-1] if raw.startswith("<") and tail.endswith(">") else tail
    if raw.startswith("<"):
        return f"<{path}{tail}>"
    if "%" in raw or " " in path:
        return quote(path, safe="/") + tail
    return path + tail


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
