"""Nested facts for supersession: "  - Phone: 971-555-0188" under "- Tom Park" is Tom Park's phone.

supersede.py reads a line alone, and a nested item often names no subject: on a contacts page
written per person, "Tom Park's phone is now 971-555-0300" found no line to replace and was added
at the page's end, under the last section, while recall kept putting the old number first (a
newcomer, 2026-11-26). A nested item is also judged here with the items it is under, as recall
shows it ("Tom Park — Phone: 971-555-0188"), and when that is what the update replaces, only its
value changes, in place, its key and indentation kept. A new fact about a person who has such
an entry goes under it (`under`), not at the page's end.
"""

from __future__ import annotations

import functools
import re

from . import replacing, supersede
from .blocks import BULLET, blocks


@functools.lru_cache(maxsize=8)
def owners(page: str) -> dict[int, str]:
    """Line number -> the items a one-line nested item is under ("Tom Park"), for each such item
    (kept for the last few pages: remember asks find, then rewrite, of the same page; not to be
    changed by a caller)."""
    return {b.start: " — ".join(entry_name(part) for part in b.context.split(" / ")) for b in blocks(page)
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
             and (supersede.updates(new, line) or n in own and _one_value(line, new, own[n]))]
    return found[0] if len(found) == 1 else None


TWO = re.compile(r"\s(?:and|or|&|/|·|\+)\s|;")  # what joins two values in one


def _one_value(line: str, new: str, owner: str) -> bool:
    """Whether `new` updates the nested item, and the item holds one value: in "Phone: 971-555-0188
    (mobile), 555-0199 (desk)" (or "·", "/", "and") the update of one number took the other's place
    (two reviews, 2026-11-26), so an item with another number or address beside the old value is
    left alone."""
    if len(supersede.parts_of(line)) != 1:
        return False
    found = supersede.update(new, judged(line, owner))
    if found is None:
        return False
    if not found.old:
        return True
    span = supersede.span_of(line, found.old)
    if span is None:
        return False
    if TWO.search(line[span[0]:span[1]]):  # "971-555-0188 / 555-0199": the old value is two
        return False
    rest = (line[:span[0]].split(":", 1)[-1] if ":" in line[:span[0]] else line[:span[0]]) + line[span[1]:]
    return re.search(r"[\d@]", BULLET.sub("", rest)) is None


def rewrite(page: str, number: int, line: str, new: str, entry: str) -> str:
    """What takes the place of line `number` of `page`, which `new` updates: replacing.rewrite for a
    line that says whose it is; for a nested item only its value changed ("  - Phone: 971-555-0300"),
    else the new fact at the item's indentation."""
    owner = owners(page).get(number)
    if owner is None or supersede.updates(new, line):
        return replacing.rewrite(line, new, entry)
    found = supersede.locate(new, judged(line, owner))
    changed = replacing.value_changed(line, new, found[1]) if found is not None and found[1].old \
        and found[1].new and "\n" not in entry else None
    indent = line[:len(line) - len(line.lstrip())]
    return changed or "\n".join(indent + ln for ln in entry.split("\n"))


ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*?)[ \t]*$")


def _capitals() -> str:
    """Every capital letter of the alphabets that have them (Latin, Greek, Cyrillic, Armenian,
    Georgian: below U+2000; after them, symbols and rarer scripts, and 8 ms more at every import)
    as a character-class body of ranges: a name may start with Ł, Š, Ø, Ω or Д (Łukasz, Šimon,
    Ørsted; Latin-1's capitals alone missed the first two)."""
    out: list[str] = []
    run: list[int] = []
    for code in range(0x41, 0x2000):
        if chr(code).isupper() and (not run or code == run[-1] + 1):
            run.append(code)
            continue
        if run:
            out.append(re.escape(chr(run[0])) + ("-" + re.escape(chr(run[-1])) if len(run) > 1 else ""))
        run = [code] if chr(code).isupper() else []
    return "".join(out)


CAPITAL = _capitals()  # index/aliases.py and search/aliases.py read names with these too
TITLES = ("Dr", "Mr", "Mrs", "Ms", "Prof")
TITLE = rf"(?:{'|'.join(TITLES)})\.?[ \t]+"
# a list item that is all a name (one to three capitalised words, maybe after a title): a person's entry
NAME = re.compile(rf"(?:{TITLE})?[{CAPITAL}][\w'’-]{{0,40}}(?:[ \t]+[{CAPITAL}][\w'’-]{{0,40}}){{0,2}}")
# the name a fact starts with, up to its possessive or its first word in lower case ("Tom Baker's email")
WORD = rf"[{CAPITAL}][\w-]{{0,40}}(?:['’][{CAPITAL}][\w-]{{0,40}})?"  # "O'Brien" too
SAID = re.compile(rf"^[ \t]*((?:{TITLE})?{WORD}(?:[ \t]+{WORD}){{0,2}}?)(?:['’]s\b|[ \t]+[a-z0-9])")
FENCE = re.compile(r"^[ \t]*(?:```|~~~)")


def under(page: str, fact: str) -> tuple[int, str] | None:
    """Where a new fact about a person goes on a page written per person: (the line after which it
    goes, what it starts with: the indentation and list marker of the items already there, "  - ",
    or the next number of a numbered list, "  3. ") under the one item that is that person's name
    with items nested under it ("Sofia's email is ..." under "- Sofia Diaz"; "Tom Baker's ..." never
    under "- Tom Park");
    None when the fact starts with no name, or no item, or more than one, is that person's."""
    said = SAID.match(fact)
    if said is None:
        return None
    lines = page.split("\n")
    spots = []
    fenced = False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        if fenced:  # a list inside a code block is an example, not the person's entry
            continue
        item = ITEM.match(line.rstrip("\r"))
        entry = entry_name(item.group(3)) if item is not None else ""
        if item is None or not NAME.fullmatch(entry) or not _same(entry, said.group(1)):
            continue
        last, start = _subtree(lines, i, len(item.group(1)))
        if start is not None:
            spots.append((last + 1, start))
    return spots[0] if len(spots) == 1 else None


def entry_name(text: str) -> str:
    """A list item's text as a person's entry is written, bold and a closing colon left off
    ("**Sofia Diaz**", "Sofia Diaz:"), for matching it as a name; a colon after one word stays
    ("Notes:" is a label, not a person)."""
    text = text.strip()
    for mark in ("**", "__"):
        if len(text) > 4 and text.startswith(mark) and text.rstrip(":").endswith(mark):
            text = text.rstrip(":")[2:-2] + (":" if text.endswith(":") else "")
    bare = text.rstrip(":").strip()
    return bare if len(bare.split()) >= 2 or not text.endswith(":") else text


def _same(entry: str, said: str) -> bool:
    """Whether a fact's name is the entry's person: the whole name, or its first name alone (its
    surname alone after a title: "Okafor" of "Dr Okafor")."""
    entry, said = (" ".join(re.sub(rf"\b({'|'.join(TITLES)})\.", r"\1", name).split()) for name in (entry, said))
    words = entry.split()
    titled = re.match(TITLE, entry) is not None
    return said == entry or " " not in said and said == (words[-1] if titled else words[0])


def _subtree(lines: list[str], at: int, width: int) -> tuple[int, str | None]:
    """(index of the last line nested under the item at `at`, continuation lines included, what an
    item added after them starts with: the indentation and marker of the last item at the
    children's indentation, numbered one on in a numbered list); None for the start when no item is
    nested under it."""
    last, indent, marker = at, None, "-"
    j = at + 1
    while j < len(lines):
        line = lines[j].rstrip("\r")
        if not line.strip():  # a loose list: the items nested under it may come after blank lines
            k = j
            while k < len(lines) and not lines[k].strip():  # the run of blanks, once (no rescan per blank)
                k += 1
            if k < len(lines) and _indent(lines[k]) > width:
                j = k
                continue
            break
        if _indent(line) <= width:
            break
        child = ITEM.match(line)
        if child is not None and indent in (None, child.group(1)):
            indent, marker = child.group(1), child.group(2)
        last = j
        j += 1
    if indent is None:
        return last, None
    if marker[0].isdigit():  # "2." after "1.": a numbered list goes on numbered
        marker = f"{int(marker[:-1]) + 1}{marker[-1]}"
    return last, f"{indent}{marker} "


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) if line.strip() else -1
