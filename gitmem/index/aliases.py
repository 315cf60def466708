"""The roles a notebook names, and the people its facts are written under, stored when a text
is (search/aliases.py asks them).

A short text (a fact: at most SHORT characters) that says "My daughter Emma ...", "Lucy is my
sister" or "Product owner is Marcus Bell" / "- Plumber: Kev ..." gives a role (one or two
words, lower-cased) a name. Each such (role, name) is a row beside the text, found by role in
one lookup, so a question about "my daughter" costs no scan of the notebook (scanning its
texts for the role at query time took 12 ms at 10,000 chunks and 31 ms at 100,000).

The rows follow their text: a trigger drops them when the text goes (a purge, `forget`, an
unreachable commit), and which of them count for a question is decided by the question's
candidates (the notebook now, not a superseded "Product owner is ...").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..nesting import CAPITAL, ITEM, TITLES, entry_name
from . import db

if TYPE_CHECKING:
    import apsw

    from .indexer import Index

SHORT = 600  # a fact's longest text (see indexer.facts): chunks hold the same lines
# function words that are never a role, nor the first word of a name
COMMON = frozenset("""a an and are as at be but by for from has have he her his i if in is it its me my no not of on
or our she so than that the their them then there these they this to us was we were what when where which who
with you your""".split())
# a role: a lower-case word or two, or an initialism ("my GP", "Kate is my PA")
ROLE = r"((?:[a-z][\w-]{0,30}|[A-Z]{2,4}\b)(?:[ \t]+[a-z][\w-]{0,30})?)"
START_ROLE = r"([A-Za-z][\w-]{0,30}(?:[ \t]+[a-z][\w-]{0,30})?)"
# a name: one to three capitalised words (Latin-1's capitals too: Étienne, Ørsted), maybe after a
# title ("Dr Sarah Linden")
TITLE = rf"(?:{'|'.join(TITLES)})\.?"
NAME = rf"((?:{TITLE}[ \t])?[{CAPITAL}][\w'’-]{{0,40}}(?:[ \t][{CAPITAL}][\w'’-]{{0,40}}){{0,2}})"
PATTERNS = (
    re.compile(rf"\b(?i:my)[ \t]+{ROLE},?[ \t]+{NAME}"),  # My daughter Emma
    re.compile(rf"{NAME}[ \t]+is[ \t]+(?:now[ \t]+)?my[ \t]+{ROLE}"),  # Lucy is my sister
    re.compile(rf"^(?:[#>]+[ \t]+|[-*+][ \t]+|\d+[.)][ \t]+)?(?:(?i:the|our|my)[ \t]+)?{START_ROLE}"
               rf"(?:[ \t]+is(?:[ \t]+now)?|:)[ \t]+{NAME}", re.MULTILINE),  # Product owner is (now) Marcus Bell
    # Oliver Grant is (now) the product owner: only a role that names a person by what they do (PERSON),
    # not "Postgres is the database we use"
    re.compile(rf"{NAME}[ \t]+is[ \t]+(?:now[ \t]+)?(?i:the|our)[ \t]+{ROLE}"),
)
# a word that names a person by what they do: "the designer", "the accountant", "the tech lead"
PERSON = re.compile(r"(?:[a-z]{3}(?:er|or|ist|ant|ent|ian|ee)|\b(?:landlord|landlady|boss|vet|gp|nanny|coach|"
                    r"chef|nurse|cleaner|tutor|owner|lead|head|po|pm|cto|ceo|cfo|coo|contact|rep|liaison|friend|colleague|"
                    r"neighbour|neighbor|buddy))$")
NAME_FIRST = (1, 3)  # the patterns that say the name before the role
POSSESSIVE = re.compile(r"['’]s$")
RULES = "6"  # the patterns' version: an index whose roles were read under others reads them again
# The people a text's facts are written under, stored as this role (a question never asks it: no
# word holds a parenthesis): a name that list items are nested under ("- Priya Natarajan" over
# "  - phone: ..."), or that a table row starts with under a header such as "| Name | Phone |".
# Contact pages that name no role are written that way, and "someone else" (search/aliases.py)
# knows their people then. Read in texts of any length (a chunk may hold a whole contact list).
OWNER = "(owner)"
OWNERS = 200  # names read of one text, at most
WHO_HEADERS = frozenset("name names who person people contact member owner".split())
CELL = re.compile(r"^[ \t]*\|[ \t]*([^|]*?)[ \t]*\|")
RULE_ROW = re.compile(r"^[ \t]*\|?[ \t:|-]*-[ \t:|-]*$")


def found(body: str) -> list[tuple[str, str]]:
    """The (role, name) pairs a text states, in order (none in a long text)."""
    if len(body) > SHORT:
        return []
    pairs = []
    for i, pattern in enumerate(PATTERNS):
        for m in pattern.finditer(body):
            role, name = (m.group(2), m.group(1)) if i in NAME_FIRST else (m.group(1), m.group(2))
            pair = _pair(role, name)
            if pair is not None and i == 3 and not PERSON.search(pair[0]):
                pair = _pair(role.split()[0], name) if " " in role and PERSON.search(role.split()[0].lower()) \
                    else None  # "Dana is the lead of ...": ROLE took "lead of"
            if pair is not None:
                pairs.append(pair)
    return list(dict.fromkeys(pairs))


def owners(body: str) -> list[str]:
    """The names a text's facts are written under, in order (at most OWNERS): each list item that is
    all a name with an item nested under it, and each first cell that is a name in a table whose
    header's first cell says a name ("Name", "Who", "Contact"). A fact's text as the index keeps it
    starts with its path (blocks.described): "Team / Priya Natarajan" then "  - phone: ..."."""
    lines = body.split("\n")
    # the line after an item is the next that says something: in a loose list a blank line comes between
    nexts, said = [], ""
    for line in reversed(lines):
        nexts.append(said)
        said = line if line.strip() else said
    nexts.reverse()
    out = [name for i, (line, after) in enumerate(zip(lines, nexts))
           if line.strip() and (name := _nested_under(line, after, i == 0)) is not None]
    who = False  # inside a table whose header's first cell says a name
    for i, line in enumerate(lines):
        cell = CELL.match(line.rsplit(" / ", 1)[-1] if i == 0 else line)
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if cell is None:
            who = False
        elif RULE_ROW.match(after) or i == 0 and CELL.match(after):  # a header row (a fact's text keeps no rule)
            who = cell.group(1).lower() in WHO_HEADERS
        elif who and not RULE_ROW.match(line) and (name := _named(cell.group(1))) is not None:
            out.append(name)
    return list(dict.fromkeys(out))[:OWNERS]


def _nested_under(line: str, after: str, first: bool) -> str | None:
    """The name `line` is, when the line `after` is an item nested under it (the `first` line of a
    fact's text is its path, which ends with the item the fact is nested under)."""
    below = ITEM.match(after)
    if below is None or not below.group(1):
        return None
    item = ITEM.match(line)
    if item is not None:  # "- Priya Natarajan", "- **Priya Natarajan**", "- Priya Natarajan:"
        return _named(entry_name(item.group(3))) if len(item.group(1)) < len(below.group(1)) else None
    return _named(entry_name(line.rsplit(" / ", 1)[-1])) if first else None


def _named(text: str) -> str | None:
    """The text when it is all a name (one to three capitalised words, maybe after a title)."""
    name = re.fullmatch(NAME, text.strip())
    return None if name is None or name.group(1).split()[0].lower() in COMMON else name.group(1)


def store(conn: apsw.Connection, text: int, body: str) -> bool:
    """Record the roles a new text names and the people its facts are written under; whether it names any."""
    pairs = found(body) + [(OWNER, name) for name in owners(body)]
    conn.executemany("INSERT INTO aliases(role, name, text) VALUES(?, ?, ?)",
                     [(role, name, text) for role, name in pairs])
    return bool(pairs)


def naming(conn: apsw.Connection, roles: list[str], most: int) -> list[tuple[int, str, str]]:
    """(text, role, name) of every stored text that names one of these roles, by text; a role
    given more than `most` different names in all is left out (in a session transcript,
    "user: Noted, ..." names no one)."""
    if not roles:
        return []
    marks = ",".join("?" * len(roles))
    rows: list[Any] = conn.execute(f"""SELECT text, role, name FROM aliases WHERE role IN (
                                          SELECT role FROM aliases WHERE role IN ({marks})
                                           GROUP BY role HAVING count(DISTINCT name) <= ?)
                                        ORDER BY text, rowid""", (*roles, most)).fetchall()
    return [(int(t), str(r), str(n)) for t, r, n in rows]


def naming_ending(conn: apsw.Connection, word: str, most: int) -> list[tuple[int, str, str]]:
    """(text, role, name) of every stored text that names a role of two words or more ending in this
    word ("engineering manager" for "manager"), as `naming` reads them."""
    rows: list[Any] = conn.execute("""SELECT text, role, name FROM aliases WHERE role IN (
                                          SELECT role FROM aliases WHERE role LIKE '% ' || ? ESCAPE '\\'
                                           GROUP BY role HAVING count(DISTINCT name) <= ?)
                                        ORDER BY text, rowid""",
                                   (word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"),
                                    most)).fetchall()
    return [(int(t), str(r), str(n)) for t, r, n in rows]


def pairs(conn: apsw.Connection, many: int) -> list[tuple[str, str]]:
    """(role, name) of every role the notebook gives a name, none of a role given more than `many` names."""
    rows: list[Any] = conn.execute("""SELECT DISTINCT role, name FROM aliases WHERE role != ? AND role IN (
                                          SELECT role FROM aliases WHERE role != ?
                                           GROUP BY role HAVING count(DISTINCT name) <= ?)""",
                                   (OWNER, OWNER, many)).fetchall()
    return [(str(r), str(n)) for r, n in rows]


def names(conn: apsw.Connection, most: int, many: int, owners: bool = False) -> list[str]:
    """The names the notebook gives to roles (the people it knows by a role), and with `owners` the
    names its facts are written under, at most `most`, by name; none of a role given more than
    `many` names (in a transcript "user: Sure, ..." names no one)."""
    # an owner is no role that many lines give a name in passing: a contact page lists many
    rows: list[Any] = conn.execute("""SELECT DISTINCT name FROM aliases WHERE role = ? OR role IN (
                                          SELECT role FROM aliases WHERE role != ?
                                           GROUP BY role HAVING count(DISTINCT name) <= ?)
                                        ORDER BY name LIMIT ?""",
                                   (OWNER if owners else None, OWNER, many, most)).fetchall()
    return [str(r[0]) for r in rows]


def fill(index: Index) -> int:
    """Record the roles of every short text again: stored before roles were (migration 14), or
    under other RULES; how many texts name one. Inside the sync's transaction."""
    conn = index.conn
    conn.execute("DELETE FROM aliases")
    done = 0
    rows: list[Any] = conn.execute("SELECT id, body FROM texts").fetchall()  # owners are read in any text
    for tid, body in rows:
        done += store(conn, int(tid), str(body))
    db.set_meta(conn, "aliases", RULES)
    return done


def fresh(index: Index) -> None:
    """Mark an index that holds no text yet as read under these RULES: each text it stores from
    now on has its roles read as it is stored (a first build read every text's roles twice)."""
    if index.conn.execute("SELECT 1 FROM texts LIMIT 1").fetchone() is None:
        db.set_meta(index.conn, "aliases", RULES)


def pending(index: Index) -> bool:
    """Whether the stored roles were read under other rules, or not at all (before migration 14)."""
    return index.meta("aliases") != RULES


def _pair(role: str, name: str) -> tuple[str, str] | None:
    words = role.lower().split()
    if words and words[-1] in COMMON:
        words = words[:-1]  # "Lucy is my sister and ...": the role is "sister"
    name = POSSESSIVE.sub("", name.strip())
    if not words or words[0] in COMMON or not name or name.split()[0].lower() in COMMON:
        return None
    return " ".join(words), name
