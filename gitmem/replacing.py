"""What takes the place of a line a new fact updates (supersede.py judges which line): the line with
only the old value changed when it says more than the fact ("Sarah Chen — phone 555-1234, AWS
account contact" + "Sarah's phone is now 555-9999" -> "Sarah Chen — phone 555-9999, AWS account
contact"; a moved date inside a longer line), else the new fact at the line's indentation.
"""

from __future__ import annotations

import re

from . import switches
from .supersede import claim, locate, parts_of, span_of, value_span
from .switches import Update


def rewrite(line: str, new: str, entry: str) -> str:
    """What takes the place of `line` (which `new` updates): the line with only the old value
    changed when the line says more than the fact ("Sarah Chen — phone 555-1234, AWS account
    contact" + "Sarah's phone is now 555-9999" -> "Sarah Chen — phone 555-9999, AWS account
    contact"; "The party is on June 3 at the Blue Room" + "The party moved to June 10" -> "The
    party is on June 10 at the Blue Room"); else `entry`, the new fact as a list item, with the
    line's indentation."""
    indent = line[:len(line) - len(line.lstrip())]
    whole = "\n".join(indent + ln for ln in entry.split("\n"))
    found = locate(new, line)
    if found is None or not found[1].old or not found[1].new or "\n" in entry:
        return whole
    if found[0] < 0:
        moved = _moved_within(line, new, found[1])
        if moved is None and (_narrower(new, line) or _vaguer(new, line) or _goes_on(line, found[1])
                              or switches.renames(new)):  # a thing renamed or replaced: the line keeps the rest
            # "Sarah's phone is now ..." keeps "Sarah Chen's phone is"; "Tom's number is now ..." keeps "phone";
            # "... on Thursdays at 4pm with Mrs. Lindqvist" keeps who after the new when
            moved = _value_changed(line, 0, line, new, found[1], [])
        return moved or whole
    parts = parts_of(line)
    part = parts[found[0]]
    start = line.index(part)
    moved = _moved_within(part, new, found[1])
    if moved is not None:  # a date or time inside the clause: only it changes
        return line[:start] + moved + line[start + len(part):]
    return _value_changed(line, start, part, new, found[1], parts[found[0] + 1:]) or whole


def value_changed(line: str, new: str, found: Update) -> str | None:
    """`line` with the old value `found` names replaced by the new value as `new` says it (None
    when either cannot be found as written): for a line judged as another text says it (nesting.py)."""
    return _value_changed(line, 0, line, new, found, [])


def _value_changed(line: str, start: int, part: str, new: str, found: Update, following: list[str]) -> str | None:
    """`line` with the old value in its clause `part` (at `start`) replaced by the new value as
    the fact `new` says it, with what follows it in its clause; None when either value cannot
    be found as written."""
    old_span, new_span = span_of(part, found.old), value_span(new, found.new)
    if old_span is None or new_span is None or _qualifies(part[old_span[0]:old_span[1]], part[old_span[1]:]):
        return None
    article = re.search(r"\b(?:an?|the) $", new[:new_span[0]], re.IGNORECASE)
    if article and re.match(r"(?:an?|the) ", part[old_span[0]:], re.IGNORECASE):  # "is a 2019 ..." -> "is a 2024 ..."
        new_span = (article.start(), new_span[1])
    # a name or thing put in another's place is only itself ("Sofia Marino takes over from Marcus as ...")
    value = new[new_span[0]:new_span[1]] if switches.renames(new) else _to_end(new, new_span)
    tail = switches.words(value[new_span[1] - new_span[0]:])
    if tail and set(tail) <= set(switches.words(part[old_span[1]:])):
        value = new[new_span[0]:new_span[1]]  # what follows it the line says already ("... on cache-01")
    end = start + old_span[1]
    if not part[old_span[1]:].strip():  # the old value ends its clause: it may go on in the next ones
        end = _replaced_clauses(line, end, following, parts_of(value)[1:])
    return line[:start + old_span[0]] + value + line[end:]


# what may follow a value without being more of its phrase: a preposition, a joining word, a time
FOLLOWS = switches.STOP | switches.LINK | switches.DAYS | frozenset("""after before until since during via through
over under but because so as than then while when where which who each every daily weekly monthly nightly yearly
currently today tomorrow too only instead""".split())


def _qualifies(value: str, rest: str) -> bool:
    """Whether the old value, all words, qualifies the next word of the line ("dark roast" in "dark
    roast coffee"): putting the new value in its place would say something else ("I prefer green tea
    coffee with oat milk", a newcomer, 2026-11-27), so the new fact takes the line's place. A name,
    a number or a host goes on with what it is ("db-stage-03.lumen.internal port 5433")."""
    word = re.match(r" ([a-z][a-z-]*)\b", rest)
    return re.fullmatch(r"[a-z]+(?: [a-z]+)*", value) is not None and word is not None \
        and word.group(1) not in FOLLOWS


def _goes_on(line: str, found: Update) -> bool:
    """Whether the line says more after the old value (words the update does not name)."""
    span = span_of(line, found.old)
    return span is not None and bool(re.search(r"\w", line[span[1]:]))


def _narrower(new: str, old: str) -> bool:
    """Whether the new fact names its subject with fewer of the old line's words ("Sarah" for
    "Sarah Chen"): the new fact as written would lose the rest."""
    a, b = claim(new), claim(old)
    return a is not None and b is not None and set(a.subject) < set(b.subject)


PHONE_WORDS = re.compile(r"\b(?:phone|mobile|cell|tel|telephone)\b", re.IGNORECASE)


def _vaguer(new: str, old: str) -> bool:
    """Whether the new fact calls a phone a bare "number" where the old line says which (a phone,
    a mobile): the new fact as written would lose the word that recall asks by."""
    return bool(re.search(r"\bnumber\b", new, re.IGNORECASE)) and not PHONE_WORDS.search(new) \
        and bool(PHONE_WORDS.search(old))


def _replaced_clauses(line: str, end: int, following: list[str], extra: list[str]) -> int:
    """Where the old value ends in `line` when the new value goes on over more clauses: each
    following clause of the old line that is a clause of the same kind as the new value's next
    one ("port 5432" / "port 5433", "Springfield" / "Kingsport") is part of the value it
    replaces; the first that is not (", AWS account contact") stays, with all after it."""
    for old, new in zip(following, extra):
        if not _parallel(old, new):
            break
        end = line.index(old, end) + len(old)
    return end


def _parallel(old: str, new: str) -> bool:
    """Two short clauses of one kind: the same first word that names something ("port 5432" /
    "port 5433"; never "and ...", "at ...", "the ..."), or a name or place each (up to three words)."""
    a, b = old.split(), new.split()
    if not a or not b or len(a) > 3 or len(b) > 3:
        return False
    first = a[0].lower()
    if first == b[0].lower() and first not in switches.STOP and first not in switches.LINK \
            and not any(c.isdigit() for c in first):
        return True
    # a place each: names, with a postcode's parts ("Falmouth TR11 3AB" / "Truro TR1 2HX": a newcomer's new
    # address kept the old town after it)
    return a[0][:1].isupper() and b[0][:1].isupper() and \
        all(w[:1].isupper() or re.fullmatch(r"[A-Z0-9]{2,4}", w) is not None for w in a + b)


DATED = re.compile(r"\d{1,4}(?:st|nd|rd|th|am|pm)?")
CLOCK_WORD = re.compile(r"\d{1,2}(?:am|pm)|am|pm|noon|midnight")
NAMED = switches.DAYS | frozenset("today tomorrow".split())  # a month or a day: a date said with a name
# after a date, words that make it one end of a span or one of several: "June 3 and June 4", "3 to 5"
SPAN = frozenset("and or to until till through thru".split())


# a time zone is part of the time it follows: "02:00 UTC" -> "04:00 UTC" moves only the time
# (a newcomer's backups line lost "nightly" and its bucket, 2026-11-27)
ZONES = frozenset("utc gmt bst cet cest eet eest est edt cst cdt mst mdt pst pdt ist jst aest aedt nzst".split())


def _dated(word: str) -> bool:
    return word in switches.DATEISH or word in ZONES or DATED.fullmatch(word) is not None


def _runs(words: tuple[str, ...]) -> list[tuple[int, int]]:
    """[start, end) of each run of date or time words."""
    runs, i = [], 0
    while i < len(words):
        if _dated(words[i]):
            j = i
            while j < len(words) and _dated(words[j]):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def _moved_within(text: str, new: str, found: Update) -> str | None:
    """A date or time moved inside a line (or clause) that says more ("... is on June 3 at the
    Blue Room"): the text with only that date or time changed. None, for the caller's own way,
    when the new value is not only a date or time, when the new fact goes on after it (a reason
    to keep), when the old value is nothing but that date, or when it is unclear which of the old
    one's dates moves ("June 3 and June 4", a time where a date was)."""
    if not found.new or not all(_dated(w) for w in found.new):
        return None
    new_span = span_of(new, found.new)
    if new_span is None or re.sub(r"[\W_]+", "", new[new_span[1]:]):
        return None
    clock = any(CLOCK_WORD.fullmatch(w) for w in found.new)
    named = any(w in NAMED for w in found.new)
    runs = [(i, j) for i, j in _runs(found.old)
            if (any(CLOCK_WORD.fullmatch(w) for w in found.old[i:j]) if clock and not named
                else any(w in NAMED for w in found.old[i:j]) == named)]
    if len(runs) != 1 or runs[0] == (0, len(found.old)):
        return None
    i, j = runs[0]
    if j + 1 < len(found.old) and found.old[j] in SPAN and _dated(found.old[j + 1]):
        return None  # one end of a span, or one of several dates: "June 3 and June 4", "3 to 5"
    old_span = span_of(text, found.old[i:j])
    if old_span is None:
        return None
    return text[:old_span[0]] + new[new_span[0]:new_span[1]] + text[old_span[1]:]


def _to_end(text: str, span: tuple[int, int]) -> str:
    """The new value as written, with what follows it in its clause ("March 29 because of the auth bug")."""
    end = re.search(r"[;\n]|\.(?:\s|$)", text[span[1]:])
    return text[span[0]:span[1] + (end.start() if end else len(text) - span[1])].rstrip(" .")
