"""A change between two versions of a page, applied to a third: a proposal's own edit to what a page says now.

`git merge-file` settles most cases; where it conflicts (the person edited or
forgot lines next to the ones a proposal adds) this applies the proposal's
change hunk by hunk, as `patch` would, and never more than that: lines the
proposal adds are inserted where their neighbours from the proposal's base
still are (lines added at the end of the page at its end), lines it changes or
removes are changed only where they still read as they did. A hunk whose lines
are gone, or whose neighbours both are, does not apply, and then nothing does
(None): a union of the versions would bring back what the person removed.

Lines are matched to the page as it is now through the longest common
subsequence of the base and the page (difflib's SequenceMatcher, without its
junk heuristic), so a hunk lands beside the line it was planned beside even
when that line's text also appears elsewhere on the page.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Hunk:
    start: int  # first line of `ours` it replaces (0-based)
    end: int  # one past the last
    lines: list[str]  # what goes there


def apply(base: str, theirs: str, ours: str) -> str | None:
    """`ours` with the change `base` -> `theirs` made to it, or None where that change does not apply."""
    if ours == base:
        return theirs
    if not base:
        return _added(theirs, ours)
    old, new, now = base.split("\n"), theirs.split("\n"), ours.split("\n")
    where = _mapping(old, now)
    hunks: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hunk = _place(old, now, where, i1, i2, new[j1:j2])
        if hunk is None:
            return None
        hunks.append(hunk)
    out = list(now)
    last = len(now)
    for _, hunk in sorted(enumerate(hunks), key=lambda h: (h[1].start, h[1].end, h[0]), reverse=True):
        if hunk.end > last:
            return None  # two hunks on the same lines
        out[hunk.start:hunk.end] = hunk.lines
        last = hunk.start
    return "\n".join(out)


def _added(theirs: str, ours: str) -> str:
    """A page the proposal made (its base had none) that exists now: every line of it is the proposal's
    own, so the lines the page lacks are added where they stand in the proposal (its title and
    headings, already there, are not written twice); nothing of the page is taken away."""
    now, new = ours.split("\n"), theirs.split("\n")
    if now[-1] != "":
        now.append("")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, now, new, autojunk=False).get_opcodes():
        out += now[i1:i2]  # the page's own lines, all of them, first
        if tag in ("insert", "replace"):
            out += new[j1:j2]
    return "\n".join(out)


def _mapping(old: list[str], now: list[str]) -> dict[int, int]:
    """Line of `old` -> the same line in `now`, for the lines both still share."""
    where: dict[int, int] = {}
    for a, b, size in difflib.SequenceMatcher(None, old, now, autojunk=False).get_matching_blocks():
        where.update((a + k, b + k) for k in range(size))
    return where


def _place(old: list[str], now: list[str], where: dict[int, int], i1: int, i2: int,
           lines: list[str]) -> Hunk | None:
    """Where in `now` the hunk replacing old[i1:i2] with `lines` goes; None if it cannot."""
    if i2 > i1:  # lines changed or removed: each must still be there, in a row
        spots = [where.get(i) for i in range(i1, i2)]
        first = spots[0]
        if first is None or spots != list(range(first, first + len(spots))):
            return None
        return Hunk(first, first + len(spots), lines)
    if i1 >= len(old) - (old[-1] == ""):  # lines added at the end: at the end, whatever is above now
        return Hunk(len(now) - 1, len(now) - 1, lines) if now[-1] == "" else Hunk(len(now), len(now), lines + [""])
    if i1 in where:  # lines added: before the line that followed them
        return Hunk(where[i1], where[i1], lines)
    if i1 > 0 and i1 - 1 in where:  # ... or after the line before them
        return Hunk(where[i1 - 1] + 1, where[i1 - 1] + 1, lines)
    return None
