"""Who a question means: the names a notebook gives to the roles a question uses.

People ask about "my daughter" or "the product owner"; their notebook says "My daughter Emma
is allergic to peanuts" once and "Emma got a gold star" everywhere else. The model does not
know that Emma is the daughter, so "how is my daughter doing at school" missed the gold star.

A role is a word (or two) after "my", "our", "the" or "your" in the question, with the few
kinship words that mean the same ("partner" for "husband"), and a few roles said in other words
("boss" for "manager"). The index keeps the roles each
short text names (index/aliases.py: "My daughter Emma", "Lucy is my sister", "Product owner
is Marcus Bell", "- Plumber: Kev"). Where the question's current candidates name a role, the
rankers and the choice of each result's fact read the names in its place: "how is Emma doing
at school". Only current candidates count (a superseded "Product owner is Marcus" does not), a
role with more than a few names is no one's, and a question about a role the notebook does
not name is asked as it was.

Replacing the role, rather than adding the name beside it, keeps the line that names the role
("Product owner is Priya Nair") from outranking the one that answers ("Priya asked for CSV
export"), which a newcomer's trial found. Whether a match is weak is judged on the question
with each role said in the notebook's word and no name ("my partner" judged as "my husband"):
a name brings its facts near, not an answer (with the names, "what did the plumber charge"
was answered by "Plumber: Kev"). Figures: docs/benchmarks.md, "Answers in other words".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..index import aliases as stored
from ..index import fts
from ..nesting import CAPITAL
from ..nesting import TITLES as NAME_TITLES
from .hits import STOPWORDS, WORD

if TYPE_CHECKING:
    import apsw

DETERMINERS = frozenset({"my", "our", "the", "your"})
KIN = {"partner": ("husband", "wife", "spouse"), "husband": ("partner", "spouse"), "wife": ("partner", "spouse"),
       "spouse": ("husband", "wife", "partner"), "mother": ("mum", "mom"), "mum": ("mother", "mom"),
       "mom": ("mother", "mum"), "father": ("dad",), "dad": ("father",), "kid": ("son", "daughter"),
       "child": ("son", "daughter"), "kids": ("children", "son", "daughter"),
       "children": ("kids", "son", "daughter"), "sibling": ("brother", "sister"),
       "siblings": ("brothers", "sisters", "brother", "sister"),
       **{w: tuple(x for x in ("grandmother", "grandma", "gran", "granny", "nan", "nana") if x != w)
          for w in ("grandmother", "grandma", "gran", "granny", "nan", "nana")},
       **{w: tuple(x for x in ("grandfather", "grandpa", "grandad", "granddad") if x != w)
          for w in ("grandfather", "grandpa", "grandad", "granddad")},
       "aunt": ("auntie", "aunty"), "auntie": ("aunt", "aunty"), "aunty": ("aunt", "auntie")}
# roles at work and in care that people say in other words ("my boss" for the notebook's "My manager
# is Helen Brooks": rank 5 for a newcomer, 2026-11-26); unlike kin, they name no relative
ALIKE = {"boss": ("manager",), "manager": ("boss",), "doctor": ("gp",), "gp": ("doctor",),
         "lawyer": ("solicitor", "attorney"), "solicitor": ("lawyer",), "attorney": ("lawyer",),
         # the short forms of roles at work ("who is the PO": a newcomer got no good match, 2026-11-27)
         "po": ("product owner",), "pm": ("product manager", "project manager"), "em": ("engineering manager",),
         "tl": ("tech lead",), "qa": ("qa lead", "tester")}
# a kinship word before one of these names a thing, not a person ("our sister company", "the
# parent directory", "the mother board"): only the two words together may be a role
KINSHIP = frozenset(KIN) | frozenset("""sister brother son daughter parent parents aunt uncle cousin niece nephew
grandmother grandfather grandma grandpa granny grandad granddad gran nan nana auntie aunty sibling""".split())
THINGS = frozenset("""account accounts app apps band board boards branch branches brand brands channel channels city
cities class classes company companies directory directories firm firms folder folders hotel hotels label labels node
nodes office offices organisation organisations organization organizations paper papers process processes product
products project projects publication repo repos repository repositories restaurant restaurants school schools service
services ship ships shop shops site sites store stores team teams tongue""".split())
# kin said as people call them, with no "my" before ("when should I send mum a card": a newcomer's got three
# strong answers that were not about her)
ADDRESSED = frozenset("mum mom dad mummy daddy grandma grandpa gran granny nan nana grandad granddad".split())
MAX_ROLES = 12
TITLES = frozenset(NAME_TITLES)
MAX_NAMES = 3
MANY = 20  # names of one role in all the index's texts (history included) past which it is not looked at

Among = Callable[[list[int]], set[int]]  # which of these texts are the question's candidates


@dataclass(frozen=True)
class Mention:
    """A role the question names: where ("my daughter", the determiner included) and the role
    phrases it may be, the longest first ("product owner" before "product"; kin last)."""
    start: int
    end: int
    determiner: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Asked:
    """A question as the rankers ask it (each named role replaced by its names) and as its
    evidence is judged (each role said with the notebook's word for it, no name)."""
    ranked: str
    judged: str
    names: tuple[str, ...] = ()  # the names that took the roles' places, as the question now says them


def mentions(question: str) -> list[Mention]:
    """The roles a question names: a word after a determiner, or two when the next is not a
    stopword ("the product owner"), with the kinship words that mean the same."""
    words = list(WORD.finditer(question))
    found: list[Mention] = []
    for i, word in enumerate(words):  # "send mum a card": what family call each other needs no "my"
        w = word.group().lower()
        if w in ADDRESSED and (i == 0 or words[i - 1].group().lower() not in DETERMINERS):
            found.append(Mention(word.start(), word.end(), "", (w, *KIN.get(w, ()))))
    for i in range(1, len(words)):
        det, word = words[i - 1], words[i]
        w = word.group().lower()
        if det.group().lower() not in DETERMINERS or not _role_word(w):
            continue
        after = words[i + 1] if i + 1 < len(words) else None
        pair = after is not None and _role_word(after.group().lower()) and question[word.end():after.start()] == " "
        if pair and after is not None:
            found.append(Mention(det.start(), after.end(), det.group(), (f"{w} {after.group().lower()}",)))
            if w in KINSHIP and after.group().lower() in THINGS:
                continue
        found.append(Mention(det.start(), word.end(), det.group(), (w, *KIN.get(w, ()), *ALIKE.get(w, ()))))
    return sorted(found, key=lambda m: (m.start, -m.end))[:MAX_ROLES]  # as said, the longest first


def roles(question: str) -> list[str]:
    """Every role phrase the question may name (mentions, flattened)."""
    return list(dict.fromkeys(r for m in mentions(question) for r in m.roles))


def expand(conn: apsw.Connection, question: str, among: Among) -> Asked:
    """The question with each role its candidates name replaced by the names (at most
    MAX_NAMES: a role with more is no one's in particular; a mention whose name the question
    says already is left as it is), and as its evidence is judged; the question itself twice
    when no role is named."""
    found = mentions(question)
    rows = stored.naming(conn, roles(question), MANY) if found else []
    rows += _wider(conn, found, {role for _, role, _ in rows})
    if not rows:
        return Asked(question, question)
    current = among(sorted({text for text, _, _ in rows}))
    named: dict[str, Counter[str]] = {}
    for text, role, name in rows:
        if text in current:
            named.setdefault(role, Counter())[name] += 1
    said = {w.lower() for w in WORD.findall(question)}
    ranked, judged, chosen, at = [], [], [], 0
    for mention in found:
        if mention.start < at:
            continue  # inside a longer mention already replaced
        choice = _names_of(mention, named)
        if choice is None or any({w.lower() for w in WORD.findall(name)} & said for name in choice[1]) \
                or NAMED_AFTER.match(question, mention.end):  # "my daughter Lucy": the question names her
            continue
        role, names = choice
        said_as = f"{mention.determiner} {role}".strip()
        if WHO_IS.search(question, 0, mention.start) and not OWNS.match(question, mention.end):
            # "who is the PO" asks for the name: the line that names the role answers, asked in its words
            # ("who is Oliver" put "Oliver wants weekly demos" above "Oliver Grant is the product owner")
            ranked += [question[at:mention.start], said_as]
        else:
            chosen += [_called(n) for n, _ in names.most_common()]
            ranked += [question[at:mention.start], " and ".join(chosen[-len(names):])]
        judged += [question[at:mention.start], said_as]
        at = mention.end
    if not ranked:
        return Asked(question, question)
    return Asked("".join([*ranked, question[at:]]), "".join([*judged, question[at:]]), tuple(chosen))


def _wider(conn: apsw.Connection, found: list[Mention], had: set[str]) -> list[tuple[int, str, str]]:
    """For a role of one word the notebook names no one for, the one person a longer role ending in
    it names, as that role's ("my boss" / "my manager": "Linda Park is the engineering manager"; a
    newcomer's missed her). Two or more such people are no one's in particular."""
    out: list[tuple[int, str, str]] = []
    for mention in found:
        if mention.roles[0] in KINSHIP or any(role in had for role in mention.roles):
            continue  # a relative is no job ("my partner" is no "tennis partner")
        for role in (r for r in mention.roles if " " not in r and stored.PERSON.search(r)):  # a person's job
            rows = stored.naming_ending(conn, role, MANY)
            if len({name for _, _, name in rows}) == 1:
                out += [(text, role, name) for text, _, name in rows]
                break
    return out


NAMED_AFTER = re.compile(rf"[ \t]+[{CAPITAL}]")
OWNS = re.compile(r"['’](?:s\b|\s)")  # "who is my daughter's ...": asks about someone of hers, by name
WHO_IS = re.compile(r"\bwho(?:['’]s|\s+(?:is|are|was|were))\s+$", re.IGNORECASE)  # right before the role


def _names_of(mention: Mention, named: dict[str, Counter[str]]) -> tuple[str, Counter[str]] | None:
    """(role, names) a mention means: its own word's names, else those of the kinship words that
    mean the same, together ("my kid": the son and the daughter); None when no name, or more
    than MAX_NAMES (a role with that many is no one's in particular)."""
    own = named.get(mention.roles[0], Counter())
    if own:
        return (mention.roles[0], own) if len(own) <= MAX_NAMES else None
    kin = [r for r in mention.roles[1:] if named.get(r)]
    together = sum((named[r] for r in kin), Counter())
    return (kin[0], together) if kin and len(together) <= MAX_NAMES else None


OTHERS = 500  # names of other people looked at, at most
# words that start a line or a question and so may be stored as a name ("Note: Can we move the demo")
NOT_NAMES = STOPWORDS | frozenset("""can could should would will shall may might must call please tell show give find
list remind let lets maybe also anyone someone everyone nobody yes no ok okay sure thanks hi hello""".split())


# what a fact is about: its first word, after a list marker, a table's bar or a title, and after
# "my ROLE" ("- Jake is allergic", "1. Jake's school", "| Aiko Sato | 555-0142 |", "My son Jake is 5",
# "Dr Okafor said ...")
SUBJECT = re.compile(rf"^\s*(?:[-*+]\s+|\d+[.)]\s+|\|\s*)?(?:\[[ xX]\]\s+)?(?:{stored.TITLE}\s+)?"
                     rf"(?:(?i:my|our)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?=[{CAPITAL}]))?(\w+(?:['’-]\w+)*)")
# a fact said as whose it is: a name of one to three capitalised words with a possessive ("Marcus Ortiz's")
WHOSE = re.compile(rf"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:{stored.TITLE}\s+)?[{CAPITAL}][\w-]*"
                   rf"(?:\s+[{CAPITAL}][\w-]*){{0,2}}['’]s\b")
# a name with an apostrophe or a hyphen inside ("O'Brien", "Mary-Kate"), which \w+ cuts in two
# from a word's start, possessive: tried at every position of a long word it took time in its square
# (a newcomer's 20 KB fact of one word took 36 s to remember)
JOINED = re.compile(r"(?<![\w'’-])\w++(?:['’-]\w++)+")
CALENDAR = frozenset("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
June July August September October November December Today Tomorrow""".split())


def someone_else(conn: apsw.Connection, asked: Asked, facts: list[str],
                 kept: dict[Any, Any] | None = None) -> list[bool]:
    """For each fact, whether it is about someone other than the one the question means: it
    starts with the name of another person the notebook knows (by a role, or as the owner of
    facts written under the name: index/aliases.owners) and says none of the
    question's names, read from a role or said ("what is my daughter allergic to", read as Emma,
    or "what is Emma allergic to": "Jake is allergic to peanuts"), or other than the one who asks
    (about_me: "what am I allergic to": "Emma is allergic to peanuts"). A name elsewhere in a fact
    ("Parents' evening with Mr Patel") is no subject. `kept`: where a warm process keeps the
    notebook's names while the index is unchanged (Index.kept)."""
    capitals = _capitals(asked.ranked)
    me = not asked.names and about_me(asked.ranked)
    if not asked.names and not capitals and not me:
        return [False] * len(facts)
    known = set(people(conn, kept, owners=True))
    mine = set(asked.names) | (capitals & known)  # as _called says them
    if not mine and not me:
        # a person no role names whom facts start with ("Maya has swim lessons ..."): the asker's own facts are
        # not theirs ("when is Maya's birthday" got "My wife Priya's birthday is March 14th" as a strong answer,
        # a newcomer's); only those (other names judged so cost the LoCoMo observations 0.766 -> 0.743)
        subjects = _named_subjects(asked.ranked, capitals, facts)
        mine_only = bool(subjects) and not {w.lower() for w in WORD.findall(asked.judged)} & FIRST_PERSON
        return [mine_only and ASKER.match(text) is not None and not _words(text) & subjects for text in facts]
    others = known - mine
    kin = roles_of(conn, {m.lower() for m in mine}, kept) if mine else set()  # "my brother's ..." says Robert
    # a question about someone else that does not say I, me or we ("what is the name of Priya's cat"): the
    # asker's own facts ("Our cat Biscuit ...") are not theirs
    # (judged: the question with its roles as said, "my daughter" kept; ranked has her name in their place)
    theirs_only = bool(mine) and not {w.lower() for w in WORD.findall(asked.judged)} & FIRST_PERSON
    out = []
    for text in facts:
        subject = SUBJECT.match(text)
        name = stored.POSSESSIVE.sub("", subject.group(1)) if subject is not None else ""
        # a name the notebook knows no other way, said as whose ("Marcus Ortiz's email is ..."), is
        # someone else's too when the question names a person
        whose = bool(mine) and WHOSE.match(text) is not None
        asker = theirs_only and ASKER.match(text) is not None
        out.append((asker or bool(name) and (name in others or whose and name[:1].isupper() and name not in capitals
                                             and name not in mine and name not in CALENDAR
                                             and name.lower() not in NOT_NAMES))
                   and not _words(text) & mine and not says_role(text, kin))
    return out


def _named_subjects(question: str, capitals: set[str], facts: list[str]) -> set[str]:
    """The question's capitalised words that facts start with and that no fact says in lower case, a
    first word only said as whose ("Maya's"): "Dentist appointment when" names no one, and the
    asker's "My dentist appointment is ..." was taken for someone else's (a review)."""
    starts = {stored.POSSESSIVE.sub("", m.group(1)) for text in facts if (m := SUBJECT.match(text))}
    lower = {w for text in facts for w in WORD.findall(text) if w[:1].islower()}
    first = WORD.match(question.lstrip())
    said_first = first.group() if first is not None and not re.match(r"\w+['’]s\b", question.lstrip()) else None
    return {c for c in capitals & starts if c.lower() not in lower and c != said_first}


FIRST_PERSON = frozenset("i me my mine myself we us our ours ourselves".split())
# a fact about the one who writes the notebook: "I ...", "My ...", "Our cat ...", "User is ..."
ASKER = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?(?:I|I['’]m|I['’]ve|My|Our|We|We['’]re|User)\b")
ME = frozenset({"i", "me", "myself"})
WHO = frozenset({"who", "whom", "whose"})


def about_me(question: str) -> bool:
    """Whether a question asks about the one who asks ("what am I allergic to"): it says I or me,
    asks no "who", and names no kin ("when did I last see my grandmother")."""
    words = {w.lower() for w in WORD.findall(question)}
    if not words & ME or words & WHO:
        return False
    found = mentions(question)
    # "how do I email the designer" asks about the designer, not the one who asks (a newcomer: Greta's
    # email, someone else's, was weak against it, 2026-11-27); "how do I take the bus" is the asker's
    return not any(role in KINSHIP for m in found for role in m.roles) and \
        not any(m.determiner.lower() == "the" and stored.PERSON.search(m.roles[0]) for m in found)


def asker_only(conn: apsw.Connection, asked: Asked, kept: dict[Any, Any] | None = None) -> bool:
    """Whether a question is about the one who asks and names no one the notebook knows by a role
    ("what am I allergic to", not "what did Marcus ask me to do"): someone_else's third case."""
    return not asked.names and about_me(asked.ranked) and \
        not _capitals(asked.ranked) & set(people(conn, kept, owners=True))


def _capitals(text: str) -> set[str]:
    """The words of a text that start with a capital, as a notebook's names are said ("Tom" of
    "Tom's", "O'Brien" of "O'Brien's"; "Tom" of "Toms" too, a possessive typed without its
    apostrophe: "whats Toms phone number" got Marcus's email, a newcomer found)."""
    words = {w for w in _words(text) if w[:1].isupper()}
    return words | {w[:-1] for w in words if len(w) > 3 and w.endswith("s") and not w.endswith("ss")}


def _words(text: str) -> set[str]:
    """A text's words, and its words joined by an apostrophe or a hyphen, a possessive's "'s" left off."""
    return set(WORD.findall(text)) | {stored.POSSESSIVE.sub("", w) for w in JOINED.findall(text)}


def people(conn: apsw.Connection, kept: dict[Any, Any] | None = None, owners: bool = False) -> dict[str, list[str]]:
    """The people the notebook knows by a role (with `owners`, also those its facts are written
    under: "- Priya Natarajan" over "  - phone: ..."): how its lines call each (_called) -> the names
    the roles give them ("Marcus": ["Marcus Bell"]). `kept`: as someone_else. Only the roles'
    people judge a question's evidence without its names (unnamed): a contact page's entry is
    its person's phone and email, and "what is Marcus's email" judged as "someone's email" was
    weak against them (a contact page of 3 people, 2026-11-26)."""
    key = "people+owners" if owners else "people"
    known: dict[str, list[str]] | None = kept.get(key) if kept is not None else None
    if known is None:
        known = {}
        for name in stored.names(conn, OTHERS, MANY, owners):
            if _called(name) not in CALENDAR and _called(name).lower() not in NOT_NAMES:  # "Note: Can we ..."
                known.setdefault(_called(name), []).append(name)
        if kept is not None:
            kept[key] = known
    return known


def unnamed(conn: apsw.Connection, asked: Asked, kept: dict[Any, Any] | None = None) -> tuple[str, set[str]] | None:
    """The question as its meaning is judged, each person the notebook knows by a role that it
    names said as "someone" ("when is Tom's birthday": "when is someone's birthday"), and those
    names (lower-cased); None when it names none. A name brings that person's facts near, not an
    answer: with it, "Tom's mother lives in Galway" was a strong answer to the birthday."""
    known = people(conn, kept)
    said = _capitals(asked.judged) & known.keys()
    if not said:
        return None
    whole = [n for called in said for n in known[called] if n in asked.judged]  # "Marcus Bell", not "someone Bell"
    pattern = "|".join(map(re.escape, sorted(whole, key=len, reverse=True) + sorted(said)))
    return re.sub(rf"\b(?:{pattern})\b", "someone", asked.judged), {w.lower() for w in said}


def roles_of(conn: apsw.Connection, names: set[str], kept: dict[Any, Any] | None = None) -> set[str]:
    """The one-word roles the notebook gives these people (lower-cased, as `unnamed` says them):
    "brother" for Robert ("My brother Robert lives in Denver"), so that "My brother's birthday is
    Nov 2" counts among Robert's facts (a newcomer's "when's Robert's birthday" left it out).
    `kept`: as people's (a query asks it twice, a warm process query after query)."""
    pairs = kept.get("pairs") if kept is not None else None
    if pairs is None:
        pairs = stored.pairs(conn, MANY)
        if kept is not None:
            kept["pairs"] = pairs
    return {role for role, name in pairs if " " not in role and _called(name).lower() in names}


def says_role(text: str, roles: AbstractSet[str]) -> bool:
    """Whether a text says one of these roles as the asker's ("my brother", "our nanny"): a role said
    as another's ("Priya's brother Sam", "the office manager") is someone else (a review)."""
    if not roles:
        return False
    pattern = "|".join(re.escape(r) for r in sorted(roles))
    return re.search(rf"\b(?i:my|our)\s+(?i:{pattern})\b", text) is not None


def _called(name: str) -> str:
    """How the notebook's other lines call a person: "Priya" for "Priya Nair" (the line that names
    the role says the whole name, and would outrank the ones that say only the first), and the
    surname after a title ("Lin" for "Prof Lin": the other lines say "Lin wants ...", and with the
    title the line that names the role outranked them)."""
    words = name.split()
    return words[-1] if words[0].rstrip(".") in TITLES else words[0]


def _role_word(word: str) -> bool:
    return word not in STOPWORDS and len(word) > 1 and not word.isdigit()


def stranger(conn: apsw.Connection, question: str, asked: Asked) -> str | None:
    """Whom or what a question asks about that the notebook never mentions, in any text: a relative
    ("your sister", when no text says sister or a word meaning the same) or a name ("Leo", said with
    a capital, when no word of any text starts so). Its facts are all about others: "what is
    Leo's favourite film" got Sam's film as a strong answer."""
    # a question that asks of the one who asks too ("Sarah's phone number, and mine") is answered in part
    mine = {w.lower() for w in WORD.findall(question)} & FIRST_PERSON
    return _relative(conn, question, asked) or (None if mine else _unknown_name(conn, question))


def _relative(conn: apsw.Connection, question: str, asked: Asked) -> str | None:
    if asked.names:
        return None
    for m in mentions(question):
        if m.determiner.lower() not in ("my", "our") or m.roles[0] not in KINSHIP:
            continue
        if not any(_said(conn, w) for r in m.roles for w in r.split()):
            return f"your {m.roles[0]}"
    return None


OWN_READ = 50  # texts read for a kinship word, at most: a word said in more is taken as said
THEIR = r"(?<![\w'’-])\w+['’]s?\s+"  # "Poppy's dad", "the Smiths' dad": someone else's relative
ENDS = r"(?:s|['’]s?)?(?![\w'’-])"  # "dad", "dads", "dad's", "dads'"


def _said(conn: apsw.Connection, word: str) -> bool:
    """Whether any text says a kinship word as the notebook's own ("my dad", "Dad's birthday",
    "Mum:"), not only as someone else's ("Poppy's dad is called Marcus": "my father" is still never
    mentioned; a newcomer's "when is my father's birthday" got their mum's as a strong answer)."""
    found = fts.bodies(conn, f'"{word}"', OWN_READ)
    said = re.compile(rf"(?<![\w'’-]){re.escape(word)}{ENDS}", re.IGNORECASE)
    their = re.compile(rf"{THEIR}{re.escape(word)}{ENDS}", re.IGNORECASE)
    return len(found) == OWN_READ or any(len(said.findall(b)) > len(their.findall(b)) for b in found)


# a word said as a name: a capital, then small letters ("Leo", "Mary-Kate"); not "API", "iPhone" or "3D"
NAMED = re.compile(r"(?<![\w'’-])[A-Z][a-z]+(?:['’-][A-Z]?[a-z]+)*")
NOT_SAID = frozenset(w.lower() for w in NOT_NAMES | CALENDAR | TITLES | KINSHIP | frozenset(ALIKE))
# right before the one a question asks about ("what does Leo do", "is Leo vegetarian")
ASKS_OF = re.compile(r"\b(?:is|was|are|were|does|did|do|has|had|will|can|could|should|would)\s+$", re.IGNORECASE)


def _unknown_name(conn: apsw.Connection, question: str) -> str | None:
    """The first person or thing the question asks about by name that no word of the notebook's
    texts starts with (a prefix match: "Postgres" is said by "PostgreSQL", "Toms" by "Tom"), when
    it says none that the notebook does ("Sarah's phone and Leo's email" is answered in part). Asked
    about: said as whose ("Leo's favourite film") or right after the question's verb ("what does Leo
    do"). A name elsewhere may be said another way by the answer: "can I visit the United States"
    is answered by "I have an ESTA valid until 2027"."""
    unknown = []
    for m in NAMED.finditer(question):
        word = stored.POSSESSIVE.sub("", m.group())
        if word == m.group() and not ASKS_OF.search(question, 0, m.start()):
            continue
        if word.lower() in NOT_SAID or len(word) < 3:
            continue
        stems = {word, word[:-1]} if word.endswith("s") and not word.endswith("ss") else {word}
        if any(fts.matching(conn, f'"{s}"*') for s in stems):
            return None
        unknown.append(word)
    return unknown[0] if unknown else None
