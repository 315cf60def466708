"""Where a fact is on the notebook's pages: the spots (page, lines) a forget would take, found
by the fact's text or named as PATH:START[-END], and what a person is shown of them.

A fact is found on the work tree's pages; if no page there holds it, on HEAD's version of the
pages whose work-tree text differs (a forget killed before its commit, a line a person deleted
and did not commit): HEAD still holds it there, and a forget commits it off."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import GitmemError, NotText, PageNotFound, PathOutside
from ..notebook import Notebook, decode
from . import pages
from .reading import RANGE, line_range, page_lines

SHOWN = 5


class Ambiguous(GitmemError):
    pass


@dataclass
class Spot:
    path: str
    start: int  # 1-based, inclusive
    end: int
    at_head: bool = False  # found in HEAD's version of a page whose work-tree text lacks it


def fingerprint(nb: Notebook, spots: list[Spot]) -> str:
    """What a person is shown of a forget: each page, its lines and their text (a digest, so a
    form carries it without the text)."""
    shown = [[s.path, s.start, s.end, "\n".join(spot_lines(nb, s))] for s in spots]
    return hashlib.sha256(json.dumps(shown).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def spot_lines(nb: Notebook, spot: Spot) -> list[str]:
    """The lines a spot names, from the work tree (or HEAD's version, for a spot found there)."""
    return _text_of(nb, spot).split("\n")[spot.start - 1:spot.end]


def _text_of(nb: Notebook, spot: Spot) -> str:
    if not spot.at_head:
        return nb.read(spot.path)
    data = nb.git.show("HEAD", nb.repo_path(spot.path))
    return decode(data) if data is not None else ""


def locate(nb: Notebook, target: str, every: bool) -> tuple[list[Spot], str | None]:
    """Where the fact is: the lines to remove, and the searched-for phrase (None for PATH:LINES)."""
    spot = _range(nb, target)
    if spot is not None:
        return [spot], None
    spots = _matches(nb, target)
    # HEAD's version of a line the work tree has edited is that line, not another place it is said
    if len([s for s in spots if not s.at_head] or spots) > 1 and not every:
        shown = ", ".join(_where(s) for s in spots[:SHOWN]) + (" …" if len(spots) > SHOWN else "")
        raise Ambiguous(f"{quote(target)} is on {len(spots)} lines: {shown}",
                        "pass --all to forget every one, or name one as PATH:LINE")
    return spots, target


def _range(nb: Notebook, target: str) -> Spot | None:
    match = RANGE.match(target.strip())
    if not match:
        return None
    try:
        rel = nb.page(match.group("path"), must_exist=True)
    except PageNotFound:
        return None  # "Meeting at 10:30" is a fact, not a page
    start, end = line_range(match, rel, len(page_lines(nb.read(rel))))
    return Spot(rel, start, end)


def needle(target: str) -> str:
    return " ".join(target.casefold().split())


def holds(line: str, needle: str) -> bool:
    """Whether a line contains the target, case and spacing ignored."""
    return needle in " ".join(line.casefold().split())


def notes(nb: Notebook) -> Iterator[tuple[str, str]]:
    """(page, text) of every note, tracked or not."""
    for repo_path in nb.git.files(nb.prefix):
        rel = nb.rel(repo_path)
        if rel is None or not nb.settings.is_note(rel):
            continue
        try:
            yield rel, nb.read(rel)
        except (PathOutside, NotText, OSError):
            continue  # symlinks are never followed; a vanished file has nothing to forget


def _matches(nb: Notebook, target: str) -> list[Spot]:
    """Every line of every note that contains the target (case and spacing ignored), and every
    such line of HEAD's version of a changed note that its work-tree text lacks (a forget killed
    before its commit, a line a person deleted or edited and did not commit): HEAD still holds
    it, and the forget commits it off there."""
    wanted = needle(target)
    texts = dict(notes(nb))
    spots = [spot for rel, text in texts.items() for spot in _found(rel, text, wanted)]
    changed = set(nb.git.status(nb.prefix))
    head = nb.git.head()
    for entry in nb.git.tree(head, nb.prefix) if head and changed else []:
        rel = nb.rel(entry.path)
        if entry.path not in changed or rel is None or not nb.settings.is_note(rel):
            continue
        text = decode(nb.git.read_blob(entry.oid))
        # HEAD's version holds it on lines the work tree does not have (a line a person deleted, or
        # edited and did not commit: "Budget: 10k" made "Budget: 10k, approved by Dana"): HEAD still
        # holds it, and the forget commits it off there too (a git user's run: only the work tree's
        # line went, and sync would have pushed HEAD's)
        now, lines = texts.get(rel, "").split("\n"), text.split("\n")
        spots += [s for s in _found(rel, text, wanted, at_head=True) if not _has_run(now, lines[s.start - 1:s.end])]
    return spots


def _has_run(lines: list[str], run: list[str]) -> bool:
    return any(lines[i:i + len(run)] == run for i in range(len(lines) - len(run) + 1))


def _found(rel: str, text: str, needle: str, at_head: bool = False) -> list[Spot]:
    """The spots of a page's text that hold the needle (an item with its continuation lines)."""
    lines = text.split("\n")
    spots: list[Spot] = []
    i = 0
    while i < len(lines):
        if holds(lines[i], needle):
            end = pages.item_extent(lines, i)
            spots.append(Spot(rel, i + 1, end + 1, at_head))
            i = end
        i += 1
    return spots


def _where(spot: Spot) -> str:
    return f"{spot.path}:{spot.start}" if spot.start == spot.end else f"{spot.path}:{spot.start}-{spot.end}"


def quote(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[:width - 1] + "…")
