"""Nested facts for supersession: "  - Phone: 971-555-0188" under "- Tom Park" is Tom Park's phone.

supersede.py reads a line alone, and a nested item often names no subject: on a contacts page
written per person, "Tom Park's phone is now 971-555-0300" found no line to replace and was added
at the page's end, under the last section, while recall kept putting the old number first (a
newcomer, 2026-11-26). A nested item is also judged here with the items it is under, as recall
shows it ("Tom Park — Phone: 971-555-0188"), and when that is what the update replaces, only its
value changes, in place, its key and indentation kept.
"""

from __future__ import annotations

from . import supersede
from .blocks import BULLET, blocks


def owners(page: str) -> dict[int, str]:
    """Line number -> the items a one-line nested item is under ("Tom Park"), for each such item."""
    return {b.start: b.context.replace(" / ", " — ") for b in blocks(page)
            if b.context and b.start == b.end and not b.context.lstrip().startswith("|")}


def judged(line: str, owner: str) -> str:
    """A nested item as supersession reads it: a list item saying whose it is."""
    return f"- {owner} — {BULLET.sub('', line.strip())}"


def find(page: str, new: str) -> tuple[int, str] | None:
    """supersede.find, each nested item also read with the items it is under: the line of `page` that
    the fact `new` updates (1-based, and its text), if exactly one does."""
    own = owners(page)
    found = [(n, line) for n, line in enumerate(page.split("\n"), start=1)
             if line.strip() and not line.lstrip().startswith("#")
             and (supersede.updates(new, line) or n in own and supersede.updates(new, judged(line, own[n])))]
    return found[0] if len(found) == 1 else None


def rewrite(page: str, number: int, line: str, new: str, entry: str) -> str:
    """What takes the place of line `number` of `page`, which `new` updates: supersede.rewrite for a
    line that says whose it is; for a nested item only its value changed ("  - Phone: 971-555-0300"),
    else the new fact at the item's indentation."""
    owner = owners(page).get(number)
    if owner is None or supersede.updates(new, line):
        return supersede.rewrite(line, new, entry)
    found = supersede.locate(new, judged(line, owner))
    changed = supersede.value_changed(line, new, found[1]) if found is not None and found[1].old \
        and found[1].new and "\n" not in entry else None
    indent = line[:len(line) - len(line.lstrip())]
    return changed or "\n".join(indent + ln for ln in entry.split("\n"))
