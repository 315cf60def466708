"""Merging daily logs entry by entry: the `gitmem-daily` merge driver.

Two machines that each append to today's log and then sync conflict in git's
line merge (both add at the same place, the end), and `merge=union` is worse:
it keeps only one copy of the lines both appends share (the blank line under
a heading, a repeated "- done"), so entries run into each other and lose
lines. This driver merges whole entries instead. A daily log is a preamble
(the `# Daily Log — DATE` title) and blocks that each start at an H2 heading
(`## HH:MM — ...`); the merge is three-way over those blocks:

- a block changed on one side only takes that side;
- blocks both sides added at the same place are interleaved by their time,
  each side's own order kept; a block both sides added identically (the
  title of a log both created) appears once;
- changes that touch different blocks never conflict, even when adjacent;
- only different edits of the same existing block conflict: git's markers
  then surround whole blocks and the driver exits 1, like any conflict.

The attribute lives in the notebook's committed `.gitattributes`; the driver
is configured per clone (`git mem init`, `git mem hooks install`). A clone
without that config falls back to git's ordinary merge: concurrent appends
then stop with a conflict that keeps both sides, never a silent loss.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..launch import shell_command
from ..markdown import body_offset, headings_of
from .lock import atomic_write

if TYPE_CHECKING:
    from .git import Git

DRIVER = "gitmem-daily"
ATTRIBUTES_NOTE = ("# gitmem: pages merge fact by fact, daily logs entry by entry "
                   "(drivers set up by 'git mem init' / 'git mem hooks install')")
TIME = re.compile(r"^## (\d{2}:\d{2})\b")
MARKER_SIZE = 7


def split(text: str) -> list[str]:
    """The preamble (if it has text) and each H2 block, without the blank lines after them."""
    starts = [off for off, level, _ in headings_of(text, body_offset(text)) if level == 2]
    cuts = sorted({0, *starts, len(text)})
    return [block for block in (_trim(text[a:b]) for a, b in zip(cuts, cuts[1:])) if block.strip()]


def join(blocks: list[str]) -> str:
    """Blocks back into a page: one blank line between them, one newline at the end."""
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _trim(piece: str) -> str:
    lines = piece.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def merge_text(base: str, ours: str, theirs: str, labels: tuple[str, str] = ("ours", "theirs")) -> tuple[str, bool]:
    """The merged page and whether it merged cleanly (False: conflict markers inside)."""
    crlf = "\r\n" in ours
    b, o, t = (split(text.replace("\r\n", "\n")) for text in (base, ours, theirs))
    blocks, clean = merge_blocks(b, o, t, labels)
    out = join(blocks)
    return (out.replace("\n", "\r\n") if crlf else out), clean


Interleave = Callable[[list[str], list[str]], list[str]]
Conflict = Callable[[list[str], list[str], tuple[str, str]], str]


def merge_blocks(base: list[str], ours: list[str], theirs: list[str],
                 labels: tuple[str, str] = ("ours", "theirs"), mix: Interleave | None = None,
                 conflict: Conflict | None = None, fine: bool = False) -> tuple[list[str], bool]:
    """Three-way merge of block lists (see the module docstring). The fact merge (factmerge.py)
    runs the same merge over lines, with its own `mix` of both sides' insertions and `conflict`,
    and `fine`: a side's change of several items is taken item by item (see _changes)."""
    changes = sorted([(lo, hi, 0, new) for lo, hi, new in _changes(base, ours, fine)]
                     + [(lo, hi, 1, new) for lo, hi, new in _changes(base, theirs, fine)],
                     key=lambda c: (c[0], c[1], c[2]))
    out: list[str] = []
    clean = True
    pos = i = 0
    while i < len(changes):
        lo, hi = changes[i][0], changes[i][1]
        group = [changes[i]]
        i += 1
        while i < len(changes) and _overlap(lo, hi, changes[i][0], changes[i][1]):
            group.append(changes[i])
            hi = max(hi, changes[i][1])
            i += 1
        out += base[pos:lo]
        merged, ok = _resolve(base, lo, hi, group, labels, mix or interleave, conflict or _conflict)
        out += merged
        clean = clean and ok
        pos = hi
    out += base[pos:]
    return out, clean


def _changes(base: list[str], side: list[str], fine: bool = False) -> list[tuple[int, int, list[str]]]:
    """(start, end, replacement) in base coordinates for each change on one side. `fine`: a
    replacement of k items by m is k one-item replacements and then the insertion or deletion
    of the rest, so that a fact added right after one changed is not part of that change."""
    # the lines both share at the start and at the end first, as git's diff does: SequenceMatcher's
    # longest match can pair a repeated line across the page ("- a", "- a" against "- a", "", "- a"
    # read as the first line deleted and two added at the end), and a fact the other side added after
    # that first line then came before it (a property test found it, 2026-11-27)
    head = 0
    while head < min(len(base), len(side)) and base[head] == side[head]:
        head += 1
    tail = 0
    while tail < min(len(base), len(side)) - head and base[-1 - tail] == side[-1 - tail]:
        tail += 1
    matcher = SequenceMatcher(None, base[head:len(base) - tail], side[head:len(side) - tail], autojunk=False)
    out: list[tuple[int, int, list[str]]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        if not fine or tag != "replace":
            out.append((i1, i2, side[j1:j2]))
            continue
        pairs = min(i2 - i1, j2 - j1)
        out += [(i1 + t, i1 + t + 1, [side[j1 + t]]) for t in range(pairs)]
        if j2 - j1 > pairs:
            out.append((i1 + pairs, i1 + pairs, side[j1 + pairs:j2]))
        elif i2 - i1 > pairs:
            out.append((i1 + pairs, i2, []))
    return out


def _overlap(lo: int, hi: int, lo2: int, hi2: int) -> bool:
    """Changes overlap if they share a base block, or are insertions at the same place."""
    return lo2 < hi or (lo2 == hi2 == lo == hi)


def _view(base: list[str], lo: int, hi: int, group: list[tuple[int, int, int, list[str]]], side: int) -> list[str]:
    """base[lo:hi] with one side's changes applied."""
    out: list[str] = []
    pos = lo
    for c_lo, c_hi, who, new in group:
        if who == side:
            out += base[pos:c_lo] + new
            pos = c_hi
    return out + base[pos:hi]


def _resolve(base: list[str], lo: int, hi: int, group: list[tuple[int, int, int, list[str]]],
             labels: tuple[str, str], mix: Interleave, conflict: Conflict) -> tuple[list[str], bool]:
    was = base[lo:hi]
    ours, theirs = _view(base, lo, hi, group, 0), _view(base, lo, hi, group, 1)
    if ours == theirs or theirs == was:
        return ours, True
    if ours == was:
        return theirs, True
    if not was:
        return mix(ours, theirs), True
    return [conflict(ours, theirs, labels)], False


def interleave(ours: list[str], theirs: list[str]) -> list[str]:
    """Blocks both sides added at one place: shared ones once, the rest by time."""
    out: list[str] = []
    i = j = 0
    for match in SequenceMatcher(None, ours, theirs, autojunk=False).get_matching_blocks():
        out += _by_time(ours[i:match.a], theirs[j:match.b])
        out += ours[match.a:match.a + match.size]
        i, j = match.a + match.size, match.b + match.size
    return out


def _by_time(ours: list[str], theirs: list[str]) -> list[str]:
    """Merge two runs of blocks by HH:MM (ties: ours first), keeping each run's order."""
    ka, kb = _times(ours), _times(theirs)
    out: list[str] = []
    i = j = 0
    while i < len(ours) and j < len(theirs):
        if ka[i] <= kb[j]:
            out.append(ours[i])
            i += 1
        else:
            out.append(theirs[j])
            j += 1
    return out + ours[i:] + theirs[j:]


def _times(blocks: list[str]) -> list[str]:
    """Each block's HH:MM; a block without one keeps the time of the block before it."""
    keys, current = [], ""
    for block in blocks:
        found = TIME.match(block)
        current = found.group(1) if found else current
        keys.append(current)
    return keys


def _conflict(ours: list[str], theirs: list[str], labels: tuple[str, str]) -> str:
    lt, eq, gt = "<" * MARKER_SIZE, "=" * MARKER_SIZE, ">" * MARKER_SIZE
    return f"{lt} {labels[0]}\n{join(ours)}{eq}\n{join(theirs)}{gt} {labels[1]}"


NOTE_ENDINGS = (".md", ".markdown")  # the files the drivers are for; a pulled .gitattributes may name others


def _plain_merge(base: Path, ours: Path, theirs: Path) -> bool:
    """git's own line merge, into `ours`: a file that is no page (a pulled `* merge=gitmem-facts` sent
    code to the fact merge, which took both sides of an `if` as two facts: a git user's run)."""
    import subprocess

    done = subprocess.run(["git", "merge-file", "-q", str(ours), str(base), str(theirs)], stdin=subprocess.DEVNULL,
                          capture_output=True)
    return done.returncode == 0


def merge_files(base: Path, ours: Path, theirs: Path, path: str = "",
                how: Callable[[str, str, str, tuple[str, str]], tuple[str, bool]] | None = None) -> bool:
    """What git runs (%O %A %B %P): the merge goes into `ours`; False on a conflict. `how`: another
    merge of the texts (the fact merge, factmerge.merge_facts), else entry by entry as a daily log."""
    def read(p: Path) -> str:
        return p.read_bytes().decode("utf-8", errors="surrogateescape")

    if path and not path.lower().endswith(NOTE_ENDINGS):
        return _plain_merge(base, ours, theirs)
    name = path or ("page" if how else "daily log")
    text, clean = (how or merge_text)(read(base), read(ours), read(theirs), (f"ours: {name}", f"theirs: {name}"))
    atomic_write(ours, text.encode("utf-8", errors="surrogateescape"))
    return clean


# -- setting it up ----------------------------------------------------------
FACTS_DRIVER = "gitmem-facts"
NOTE_PREFIX = "# gitmem:"


def attribute_lines(settings: Settings) -> list[str]:
    """The .gitattributes lines (relative to the notebook) that send pages to the fact driver and,
    after them (the last matching line wins), daily logs to the daily-log driver."""
    pages = [f"*{pattern[2:]} merge={FACTS_DRIVER}" for pattern in settings.include
             if pattern.startswith("**.") and "/" not in pattern and not any(c.isspace() for c in pattern)]
    daily = [f"{pattern} merge={DRIVER}" for pattern in settings.daily if not any(c.isspace() for c in pattern)]
    return pages + daily


def attributes_missing(root: Path, settings: Settings) -> list[str]:
    """The lines the notebook's .gitattributes lacks, or all of them when they are out of order."""
    file = root / ".gitattributes"
    current = file.read_text(encoding="utf-8") if file.is_file() else ""
    wanted = attribute_lines(settings)
    have = [line.strip() for line in current.splitlines() if line.strip() in wanted]
    missing = [line for line in wanted if line not in have]
    return missing or ([] if have == wanted else wanted)


def write_attributes(root: Path, settings: Settings) -> bool:
    """Write gitmem's lines into the notebook's .gitattributes, as one block in their order after
    the lines a person wrote; True if the file changed."""
    if not attributes_missing(root, settings):
        return False
    file = root / ".gitattributes"
    current = file.read_text(encoding="utf-8") if file.is_file() else ""
    wanted = attribute_lines(settings)
    kept = [line for line in current.splitlines()
            if line.strip() not in wanted and not line.startswith(NOTE_PREFIX)]
    while kept and not kept[-1].strip():
        kept.pop()
    atomic_write(file, ("\n".join([*kept, ATTRIBUTES_NOTE, *wanted]) + "\n").encode("utf-8"))
    return True


def driver_command(facts: bool = False) -> str:
    """The command git runs for a merge, with the interpreter gitmem runs under now, isolated (launch.py)."""
    # "--": a page git names (%P) may start with a dash ("--help.md" was read as an option, the driver
    # failed, and git left the page unmerged with our side and no markers: a git user's run)
    return shell_command("gitmem", "merge-driver", *(["--facts"] if facts else [])) + " -- %O %A %B %P"


def driver_fault(git: Git) -> str | None:
    """What is wrong with the drivers this clone has, said for `hooks status` (None: nothing, or
    none set up): another version's command, or an interpreter or a gitmem that is gone (a venv
    made again: git then runs a driver that fails, and leaves each page it would merge unmerged)."""
    for facts, name in ((False, DRIVER), (True, FACTS_DRIVER)):
        current = git.config_get(f"merge.{name}.driver")
        if current is None:
            return None
        try:
            words = shlex.split(current)
        except ValueError:
            words = []
        wanted = shlex.split(driver_command(facts))
        if len(words) != len(wanted) or words[1:4] != wanted[1:4] or words[5:] != wanted[5:]:
            return f"the {name} merge driver is another version's"
        if not os.access(words[0], os.X_OK) or not (Path(words[4]) / "gitmem").is_dir():
            return f"the {name} merge driver calls {words[0]} with {words[4]}, which is gone"
    return None


def configured(git: Git) -> str | None:
    """The daily-log driver command this clone has, or None (both drivers are set up together)."""
    if git.config_get(f"merge.{FACTS_DRIVER}.driver") is None:
        return None
    return git.config_get(f"merge.{DRIVER}.driver")


def configure(git: Git) -> bool:
    """Set up both drivers in this clone's config; True if anything changed."""
    if configured(git) == driver_command() and git.config_get(f"merge.{FACTS_DRIVER}.driver") == driver_command(True):
        return False
    git.config_set(f"merge.{DRIVER}.name", "gitmem: daily logs merge entry by entry")
    git.config_set(f"merge.{DRIVER}.driver", driver_command())
    git.config_set(f"merge.{FACTS_DRIVER}.name", "gitmem: pages merge fact by fact")
    git.config_set(f"merge.{FACTS_DRIVER}.driver", driver_command(True))
    return True


def unconfigure(git: Git) -> bool:
    if git.config_get(f"merge.{DRIVER}.driver") is None and git.config_get(f"merge.{FACTS_DRIVER}.driver") is None:
        return False
    for name in (DRIVER, FACTS_DRIVER):
        git.config_unset(f"merge.{name}.name")
        git.config_unset(f"merge.{name}.driver")
    return True
