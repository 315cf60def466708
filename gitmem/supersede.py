"""Supersession: whether a new fact updates an old one (same subject and attribute,
another value), so that `remember` replaces the old line instead of adding a
contradicting one, and what takes the old line's place.

No model: a fact is read as (subject, attribute, value) by patterns, and only
for attributes that hold one value at a time (a phone number per kind, an
email, an address, a birthday, an employer, a "favourite X", a date or a time
of day something is on, any "KEY: value" line), or as a preference with a
polarity ("likes X" / "hates X", "prefers A over B" / "prefers B over A");
updates said in time ("is now", "no longer", "moved to", "switched from A to
B") are read by switches.py. A wrong replacement destroys a current fact, so
anything unsure is kept: both subjects must name the same one (one's words
within the other's: "Sarah" and "Sarah Chen", not "Sarah Lee"), qualifiers
must agree ("work phone" is not "home phone"), and attributes that hold many
values at once (children, friends, allergies, likes of different things)
never replace. A line of several clauses ("Sarah Chen — phone 555-1234, AWS
account contact") is judged clause by clause with its head, and
replacing.rewrite() changes only the value the update names. Measured on benchmarks/sets/supersede*.jsonl
by benchmarks/supersede.py.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from . import switches
from .blocks import BULLET
from .markdown import exact_differ, long_form, normalize_fact
from .switches import AFTER_WHEN, DAYS, Update

# attribute -> the words that name it (longest first when matching)
SINGLE: dict[str, tuple[str, ...]] = {
    "phone": ("phone number", "telephone number", "phone no", "phone", "telephone", "tel", "mobile number",
              "mobile", "cell number", "cell", "number"),  # a bare "number" only as _phone_number allows
    "email": ("email address", "e mail address", "email", "e mail", "mail address"),
    "address": ("home address", "postal address", "address", "lives at", "lives in", "moved to", "is based in",
                "based in", "resides in", "lives on"),
    "birthday": ("birthday", "date of birth", "born on", "birth date", "dob"),
    "employer": ("works at", "works for", "employed at", "employed by", "employer", "company"),
    "title": ("job title", "job", "role", "position", "title"),
    "age": ("years old", "age"),
    "deadline": ("deadline", "due date", "is due on", "is due", "due on", "due"),
    "date": ("is scheduled for", "scheduled for", "is on", "takes place on", "happens on", "moved to", "date",
             "ships on", "ships", "launches on", "launches", "goes live on", "goes live", "release date",
             "is planned for", "is set for", "pushed to", "pushed back to", "postponed to", "postponed until",
             "rescheduled to", "rescheduled for", "delayed to", "delayed until", "brought forward to"),
    "time": ("starts at", "begins at", "is at", "time"),
    "password": ("wifi password", "password", "pin", "passcode"),
    "name": ("is called", "is named", "name is", "name"),
    "size": ("shoe size", "size"),
    "status": ("status",),
    "owner": ("owner", "owned by", "lead", "led by", "manager", "managed by"),
    "budget": ("budget",),
    "location": ("location", "venue", "is held at", "is held in", "meets in", "meets at"),
}
QUALIFIERS = frozenset("work home office personal private business mobile cell landline main second "
                       "primary secondary school guest".split())
MULTI = frozenset("son sons daughter daughters child children kid kids brother brothers sister sisters friend "
                  "friends colleague colleagues allergy allergies pet pets hobby hobbies language languages "
                  "cousin cousins".split())
POSITIVE = ("likes", "loves", "enjoys", "adores", "is a fan of", "is into")
NEGATIVE = ("dislikes", "hates", "can t stand", "cannot stand", "doesn t like", "does not like",
            "no longer likes", "stopped liking", "avoids", "is not a fan of")
PREFERS = re.compile(r"^(?P<subject>.*?)\s*\bprefers?\s+(?P<a>.+?)\s+(?:over|to|rather than|instead of)\s+(?P<b>.+)$")
AGE = re.compile(r"^(?P<subject>.+?) (?:is|turned|turns) (?P<value>\d+)(?: years old)?$")
FAVOURITE = re.compile(r"^(?P<subject>.*?)\s*\bfavou?rite\s+(?P<attr>[a-z]+(?: [a-z]+)?)\s+(?:is|are|was)\s+"
                       r"(?P<value>.+)$")
FILLER = frozenset("the a an my our his her their is are was now has have s new changed to updated will be "
                   "currently".split())
# the words of a move said before its value ("deadline pushed out to March 15": the value is March 15)
MOVE_WORDS = re.compile(rf"^(?:(?:was|has been|got|is) )?{switches.MOVES}(?: again)? (?:to|until) ")
NUMBER = re.compile(r"\d")
# "Tom's number is now 07700 900123" is his phone, as people say it; "Room number is 12", "NHS number ..."
# and "Order number ..." are not: a bare "number" is a phone's when its value has a phone's 7-15
# digits and its subject names none of the things that carry other numbers
NOT_A_PHONE = frozenset("account room order flight ticket reference ref invoice policy passport case tracking serial "
                        "model member membership customer client nhs vat tax licence license registration plate "
                        "insurance bank sort card seat gate platform table house building apartment flat unit "
                        "version build issue bug pr job employee student id social security booking "
                        "confirmation part product item batch lot page line".split())


@dataclass(frozen=True)
class Claim:
    subject: tuple[str, ...]
    attribute: str
    value: tuple[str, ...]
    polarity: int = 0  # preferences: +1 likes, -1 dislikes; 0 otherwise


def _words(text: str) -> list[str]:
    return normalize_fact(text).replace("'", " ").split()


def _clean(words: list[str]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in FILLER)


# "My brother Tom's email", "our nanny Ana's phone": a role before a name says whose, it is no plural
# attribute ("brother" is one of MULTI: "Tom's brothers are ..." never replaces)
ROLE_BEFORE_NAME = re.compile(r"^\s*(?:[-*+]\s+)?(?i:my|our)\s+([a-z][\w-]*)\s+(?=[A-Z])")


def read(line: str) -> Claim | None:
    """A fact as (subject, attribute, value), when it has an attribute that holds one value."""
    role = ROLE_BEFORE_NAME.match(line)
    text = " ".join(_words(line))
    if not text:
        return None
    age = AGE.match(text)
    if age:
        return Claim(_clean(age["subject"].split()), "age", (age["value"],))
    favourite = FAVOURITE.match(text)
    if favourite:
        return Claim(_clean(favourite["subject"].split()), "favourite " + favourite["attr"],
                     _clean(favourite["value"].split()))
    prefers = PREFERS.match(text)
    if prefers:
        a, b = _clean(prefers["a"].split()), _clean(prefers["b"].split())
        return Claim(_clean(prefers["subject"].split()), "prefers " + " ".join(sorted((" ".join(a), " ".join(b)))),
                     a + ("over",) + b)
    for words, sign in ((NEGATIVE, -1), (POSITIVE, 1)):
        for w in words:
            m = re.search(rf"(?:^| ){w} (?P<object>.+)$", text)
            if m:
                return Claim(_clean(text[:m.start()].split()), "likes " + " ".join(_clean(m["object"].split())),
                             (), sign)
    return _attribute(text, role[1].lower() if role else None)


def _attribute(text: str, role: str | None = None) -> Claim | None:
    """`role`: the word of a "my ROLE Name" the line starts with (not a plural attribute)."""
    for attr, names in SINGLE.items():
        for name in sorted(names, key=len, reverse=True):
            m = re.search(rf"(?:^| ){name}(?: |$)", text)
            if not m:
                continue
            if attr == "address" and name == "moved to" and _when(text[m.end():].split()):
                continue  # "moved to Friday", "moved to 3pm": a date or a time, not a home
            before, after = text[:m.start()].split(), MOVE_WORDS.sub("", text[m.end():].lstrip()).split()
            qualifiers = tuple(w for w in before if w in QUALIFIERS)
            subject = _clean([w for w in before if w not in QUALIFIERS])
            owner = _owner(after)  # "the budget for Apollo is ...": Apollo's budget, not Kestrel's
            if owner:
                subject, after = subject + _clean(after[1:owner]), after[owner:]
            if any(w in MULTI and w != role for w in subject) or not after:
                return None
            if attr in ("date", "time"):  # "with Mrs. Lindqvist" is who, not when: the line keeps it
                after = list(itertools.takewhile(lambda w: w not in AFTER_WHEN, after))
            elif attr == "address":  # "lives in York with his two cats": the place, the cats stay when he moves
                after = list(itertools.takewhile(lambda w: w not in switches.AFTER_PLACE, after))
            value = _clean(after)
            if not value or not _fits(attr, value):
                continue  # "is on vacation" is no date; another attribute may fit
            if name == "number" and not _phone_number(subject, value):
                return None
            if attr in ("date", "time"):
                attr = "time" if _clock(value) else "date"  # "is at 9:30" and "moved to 10:00" are one kind
            return Claim(subject, " ".join(qualifiers + (attr,)), value)
    return None


OWNER_LINKS = frozenset("is are was were will would should must shall has have had moved changed now becomes "
                        "became stays remains".split())


def _owner(after: list[str]) -> int:
    """Where the value starts when the attribute is followed by whose it is ("deadline for the tax
    return is ...", "phone number of Sarah is ..."): the first link word, else 0 (no owner)."""
    if len(after) < 3 or after[0] not in ("for", "of"):
        return 0
    return next((i for i, w in enumerate(after) if i > 1 and w in OWNER_LINKS), 0)


def _phone_number(subject: tuple[str, ...], value: tuple[str, ...]) -> bool:
    """Whether "SUBJECT number is VALUE" gives a phone number (see NOT_A_PHONE)."""
    digits = sum(c.isdigit() for c in "".join(value))
    return bool(subject) and 7 <= digits <= 15 and not any(w in NOT_A_PHONE for w in subject)


CLOCK = re.compile(r"^(?:\d{1,2}|\d{1,2}(?:am|pm)|am|pm|noon|midnight|at)$")


def _clock(value: tuple[str, ...] | list[str]) -> bool:
    """A time of day alone ("9 30", "3pm"), no day: normalised words have lost the colon."""
    return bool(value) and all(CLOCK.match(w) for w in value) and any(w != "at" for w in value)


def _when(value: list[str]) -> bool:
    return bool(value) and (all(w in DAYS or w.isdigit() for w in value) or _clock(value))


def _fits(attr: str, value: tuple[str, ...]) -> bool:
    """Whether a value can be of this attribute (a phone has digits, a date names a day)."""
    joined = " ".join(value)
    if attr in ("phone", "age"):
        return bool(NUMBER.search(joined))
    if attr in ("birthday", "date", "deadline"):
        return bool(NUMBER.search(joined)) or any(w in DAYS for w in value)
    if attr == "time":
        return bool(NUMBER.search(joined)) or any(w in ("noon", "midnight", "am", "pm") for w in value)
    return True


# keys that label an entry of a log, not an attribute with one value: "Standup: Dana is out
# Thursday" and then "Standup: webhook retries fixed by Priya" are two entries, and a later one
# replacing the first would drop it (`remember` did)
LOG_KEYS = frozenset("note notes nb ps fyi idea ideas todo to do task action actions follow up followup reminder "
                     "retro retrospective standup stand up sync meeting meetings call update updates news log "
                     "journal entry done fixed blocked blocker blockers progress today yesterday tomorrow "
                     "question questions q a answer learning learnings lesson lessons tip tips observation "
                     "insight thought thoughts summary recap feedback issue issues bug bugs risk risks caveat "
                     "warning decision decisions user assistant human ai system bot agent me you".split())
# ... and keys that say who said it: "Sarah said: ..." then "Sarah said: ..." are two things she said
SAID = frozenset("said says asked asks mentioned noted wrote suggested suggests thinks wants agreed discussed "
                 "reported replied".split())
# a `Key: value` line gives one value when its value is a few words (a code, a number, a name, "in
# review"); the labelled sets' longest is 4 ("4 Calle Mayor, Madrid"). A label before a sentence is
# an entry of a list of many: goals, rules, principles, what someone said ("Sarah: I'll send ...")
KEYED_WORDS = 4
KEY_VALUE = re.compile(r"^(?P<key>.{2,60}?)(?:(?<!\d):|:(?!\d))\s*(?P<value>.+)$")  # not 9:30


def keyed(line: str) -> Claim | None:
    """`Key: value` lines ("Wifi password: larch42", "Sarah: 555-1234")."""
    body = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?", "", line).strip()
    m = KEY_VALUE.match(body)
    if not m or "://" in body:
        return None
    key = _words(m["key"])
    if not key or len(key) > 6 or any(w in MULTI or w in SAID for w in key) \
            or key[0] in LOG_KEYS:
        return None
    value = _clean(_words(m["value"]))
    if len(value) > KEYED_WORDS:
        return None  # a sentence after a label ("Goal: ship the beta to ten customers"): an entry, not a value
    return Claim(tuple(key), ":", value)


def claim(line: str) -> Claim | None:
    found = read(line)
    if found is not None:
        return found
    return keyed(line)


def _same_subject(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if not a and not b:
        return True  # both about the user ("prefers tea over coffee")
    if not a or not b:
        return False
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return {long_form(w) for w in small} <= {long_form(w) for w in large}


def updates(new: str, old: str) -> bool:
    """Whether the fact `new` replaces the line `old` (same subject and attribute, another value)."""
    return update(new, old) is not None


def update(new: str, old: str) -> Update | None:
    """How the fact `new` updates the line `old`, judged on the whole line and, for a line of
    several clauses ("Sarah Chen — phone 555-1234, AWS account contact"), on each clause with
    the line's head; None when it does not."""
    found = locate(new, old)
    return found[1] if found else None


MAX_CHARS = 400  # longer than a fact of one value: never judged (and the patterns stay cheap)


def _judged(new: str, old: str) -> bool:
    """Whether the pair is judged at all: neither too long, nor the same fact (a duplicate)."""
    return len(new) <= MAX_CHARS and len(old) <= MAX_CHARS and normalize_fact(new) != normalize_fact(old)


def _with_head(parts: list[str]) -> list[str]:
    """Each clause of a line as it is judged: the first as it is, the others after it (its head)."""
    return [part if i == 0 else f"{parts[0]} {part}" for i, part in enumerate(parts)]


def locate(new: str, old: str) -> tuple[int, Update] | None:
    """(the clause of `old` that `new` updates, -1 for the whole line; how) or None."""
    if not _judged(new, old):
        return None
    parts = parts_of(old)
    if len(parts) > 1:
        for i, clause in enumerate(_with_head(parts)):
            part = parts[i]
            found = _update(new, clause)
            if found is not None:
                # an update without a value to put in ("no longer", a taste that flips), or whose values
                # cannot be found as written, would take the whole line's place: a line that says more
                # keeps it, and the new fact joins it
                spliced = found.old and found.new and _span(part, found.old) and value_span(new, found.new)
                return (i, found) if spliced else None
    found = _update(new, old)
    if found is not None and len(parts) > 1 and not (found.old and found.new):
        return None
    return (-1, found) if found is not None else None


def outdates(new: str, old: str) -> str | None:
    """Whether the fact `new` updates the line `old` where both stay on a page: "whole", "part"
    (a clause of a line that says more, which `remember` keeps: "I prefer dark roast coffee, no
    sugar" + "I no longer drink coffee"), or None."""
    if not _judged(new, old):
        return None
    parts = parts_of(old)
    if len(parts) > 1 and any(_update(new, clause) for clause in _with_head(parts)):
        return "part"
    return "whole" if _update(new, old) is not None else None


CLAUSE = re.compile(r"[,;]\s+(?!\d{4}\b)|\s+[—–|]\s+|\s+-\s+")  # not before a year: "June 3, 2026"


def parts_of(line: str) -> list[str]:
    """A line's clauses: split at ", ", "; ", " — ", " | " (not inside 1,300)."""
    bullet = BULLET.match(line)
    body = line[bullet.end():] if bullet else line
    return [p for p in CLAUSE.split(body.strip()) if p.strip()]


def _update(new: str, old: str) -> Update | None:
    forms = [new] + [core for core, _ in (switches.core(c) for c in switches.clauses(new))]
    for form in dict.fromkeys(f for f in forms if f):
        found = _claimed(form, old, new)
        if found is not None:
            return found
    return switches.switch(new, old)


def _claimed(new: str, old: str, given: str) -> Update | None:
    """The update of `old` by one form of the fact (`given` as written, or a clause of it)."""
    if normalize_fact(new) == normalize_fact(old):
        return None
    a, b = claim(new), claim(old)
    if a is None or b is None or a.attribute != b.attribute or not _same_subject(a.subject, b.subject):
        return None
    key_a, key_b = keyed(given), keyed(old)
    if key_a is not None and key_b is not None and _key(key_a, a.attribute) != _key(key_b, a.attribute):
        return None  # "Budget for Q3: 40k" and "Budget for Q4: 55k": two keys
    if a.attribute.startswith("likes "):
        return Update((), ()) if a.polarity != b.polarity else None
    if a.attribute == ":" and a.subject != b.subject:
        return None
    if a.value == b.value or not a.value or not b.value:
        return None
    if a.attribute.startswith("prefers "):
        return Update((), ())  # the same two things, the other way round
    # "rosa.new@example.pt" only adds a word to "rosa@example.pt" as normalised: another address all the same
    return Update(b.value, a.value) if _comparable(a, b) or exact_differ(given, old) else None


def _key(found: Claim, attribute: str) -> set[str]:
    """A `Key:` line's key without the words that name the attribute ("mobile" is "phone number")."""
    names = {w for name in SINGLE.get(attribute.split()[-1], ()) for w in name.split()}
    return set(found.subject) - FILLER - names


def _comparable(a: Claim, b: Claim) -> bool:
    """Values of one kind: both numbers (a phone, a date) or both words; a value that only
    adds words to the other ("Paris" -> "Paris, France") is the same value said more fully."""
    if bool(NUMBER.search(" ".join(a.value))) != bool(NUMBER.search(" ".join(b.value))) and \
            a.attribute in ("phone", "age", "size", "birthday"):
        return False
    small, large = (a.value, b.value) if len(a.value) <= len(b.value) else (b.value, a.value)
    return not set(small) <= set(large)


def find(page: str, new: str) -> tuple[int, str] | None:
    """The line of `page` (1-based, and its text) that the fact `new` updates, if exactly one does."""
    found = [(n, line) for n, line in enumerate(page.split("\n"), start=1)
             if line.strip() and not line.lstrip().startswith("#") and updates(new, line)]
    return found[0] if len(found) == 1 else None


def value_span(text: str, words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the new value stands in the new fact, with the capitalised words just before it that
    the value's words leave out ("New" of "New York": a filler word on its own)."""
    span = _span(text, words)
    if span is None:
        return None
    start = span[0]
    while (before := re.search(r"(?:^|\s)([A-Z][\w-]*)\s+$", text[:start])) is not None and \
            before.group(1).lower() not in switches.LINK | switches.SELF:
        start = before.start(1)
    return start, span[1]


def span_of(text: str, words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the normalised words stand in the text (once), as [start, end) offsets."""
    return _span(text, words)


def _span(text: str, words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the normalised words stand in the text (once), as [start, end) offsets."""
    pattern = r"(?<!\w)" + r"[\W_]+".join(re.escape(w) for w in words) + r"(?!\w)"
    found = list(re.finditer(pattern, text, re.IGNORECASE))
    return (found[0].start(), found[0].end()) if len(found) == 1 else None
