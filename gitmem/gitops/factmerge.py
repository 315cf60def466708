"""Merging notebook pages fact by fact: the `gitmem-facts` merge driver, and resolving what it
could not merge.

A page of facts is mostly list items and short lines, and two machines that each remember
something append to the same section, at the same place: git's line merge stops there with a
conflict although nothing contradicts. This merge is three-way over lines (the same merge as the
daily-log driver's, see merge.py, over lines instead of entries):

- a line changed on one side only takes that side: a fact updated on one side and kept on the
  other takes the update;
- lines both sides added at the same place are all kept, ours first then theirs, each side's own
  order kept; a line both added identically appears once;
- changes to different lines never conflict, even adjacent ones;
- only the same line (fact) changed differently on both sides, or changed on one side and deleted
  on the other, conflicts: git's markers then surround that fact alone.

`resolve_text` takes one side, the other or both for every conflict of a page
(`git mem resolve PATH --take ours|theirs|both`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from .merge import MARKER_SIZE, merge_blocks

DRIVER = "gitmem-facts"
START = re.compile(r"^<{7}(?: .*)?$")
BASE = re.compile(r"^\|{7}(?: .*)?$")
MIDDLE = re.compile(r"^={7}$")
END = re.compile(r"^>{7}(?: .*)?$")
TAKES = ("ours", "theirs", "both")


def merge_facts(base: str, ours: str, theirs: str, labels: tuple[str, str] = ("ours", "theirs")) -> tuple[str, bool]:
    """The merged page, fact by fact, and whether it merged cleanly (False: markers around each
    conflicting fact). merge.merge_text is the same for a daily log, entry by entry."""
    crlf = "\r\n" in ours
    b, o, t = (text.replace("\r\n", "\n").split("\n") for text in (base, ours, theirs))
    lines, clean = merge_blocks(b, o, t, labels, mix=mix, conflict=_conflict, fine=True)
    out = "\n".join(lines)
    return (out.replace("\n", "\r\n") if crlf else out), clean


def mix(ours: list[str], theirs: list[str]) -> list[str]:
    """Lines both sides added at one place: every one kept, ours first; a line both sides added
    identically once. Runs of blank lines alone never pair the two sides up (they would cut one
    side's new section in two)."""
    out: list[str] = []
    i = j = 0
    for match in SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks():
        same = ours[match.a:match.a + match.size]
        if match.size and not any(line.strip() for line in same):
            continue
        out += ours[i:match.a] + theirs[j:match.b] + same
        i, j = match.a + match.size, match.b + match.size
    return out + ours[i:] + theirs[j:]


def _conflict(ours: list[str], theirs: list[str], labels: tuple[str, str]) -> str:
    lt, eq, gt = "<" * MARKER_SIZE, "=" * MARKER_SIZE, ">" * MARKER_SIZE
    return "\n".join([f"{lt} {labels[0]}", *ours, eq, *theirs, f"{gt} {labels[1]}"])


@dataclass
class Hunk:
    """One conflict in a page: its lines (1-based, markers included) and both sides."""

    start: int
    end: int
    ours: list[str]
    theirs: list[str]


def hunks(text: str) -> list[Hunk]:
    """The conflicts of a page, in order (git's markers, with or without a base section)."""
    found: list[Hunk] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not START.match(lines[i].rstrip("\r")):
            i += 1
            continue
        hunk = _hunk(lines, i)
        if hunk is None:
            i += 1
            continue
        found.append(hunk)
        i = hunk.end
    return found


def _hunk(lines: list[str], start: int) -> Hunk | None:
    sides: list[list[str]] = [[], [], []]  # ours, base, theirs
    part = 0
    for k in range(start + 1, len(lines)):
        line = lines[k].rstrip("\r")
        if part == 0 and BASE.match(line):
            part = 1
        elif part in (0, 1) and MIDDLE.match(line):
            part = 2
        elif part == 2 and END.match(line):
            return Hunk(start + 1, k + 1, sides[0], sides[2])
        elif START.match(line):
            return None  # a second opening marker before this one closed: not git's
        else:
            sides[part].append(lines[k])
    return None


def resolve_text(text: str, take: str) -> tuple[str, int]:
    """The page with every conflict replaced by our side, theirs, or both (ours first; a line
    both sides hold once); and how many conflicts there were."""
    found = hunks(text)
    lines = text.split("\n")
    for hunk in reversed(found):
        chosen = {"ours": hunk.ours, "theirs": hunk.theirs}.get(take)
        if chosen is None:
            chosen = hunk.ours + [line for line in hunk.theirs if line not in hunk.ours or not line.strip()]
        lines[hunk.start - 1:hunk.end] = chosen
    return "\n".join(lines), len(found)


def has_markers(text: str) -> bool:
    return bool(hunks(text))


def marked(text: str) -> bool:
    """Whether any line opens or closes a conflict, paired or not: a teammate's stray "<<<<<<< HEAD"
    inside a conflict makes it none git's (`hunks` finds nothing), yet the page holds both sides (an
    attack run: `resolve --take ours` then marked it merged as it stood, markers and all)."""
    return any(START.match(line.rstrip("\r")) or END.match(line.rstrip("\r")) for line in text.split("\n"))


def blank_conflicts(text: str) -> str:
    """The page with every conflict's lines (markers and both sides) blank, the line count kept:
    what the index reads of a page a merge left unresolved."""
    found = hunks(text)
    if not found:
        return text
    lines = text.split("\n")
    for hunk in found:
        lines[hunk.start - 1:hunk.end] = [""] * (hunk.end - hunk.start + 1)
    return "\n".join(lines)
