"""A person asked by a short name the notebook says in full, or the other way.

"what is Bob's phone number" in a notebook that says "Robert Chen's phone is 555-1234" answered
with weak matches and "the notebook never mentions Bob" (carried since session 15); "how do I reach
Michael" found nothing of "Mike is our landlord". A name the question says that no text of the
notebook says, whose other form (a common English short name or the name it is short for) exactly
one text's name is, is asked as that form: the question says so (`asked_as`), and who the notebook
knows the person as is judged as for any name. Only a name said with a capital, not the question's
first word unless it is said as whose ("Bob's"); and never when the notebook says the name as
asked (Bob may be another person than Robert). Recall only: `remember "Bob's phone is ..."` could
be a first fact about another person, and a replacement on a guess would destroy Robert's (a review).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..index import fts

if TYPE_CHECKING:
    import apsw

    from .aliases import Asked

# full name -> its common short forms
SHORT_FORMS = {
    "robert": "bob bobby rob robbie bert", "william": "bill billy will willy liam", "richard": "rick ricky dick rich",
    "elizabeth": "liz lizzie beth betty eliza libby", "michael": "mike mikey mick", "david": "dave davy",
    "james": "jim jimmy jamie", "thomas": "tom tommy", "anthony": "tony", "katherine": "kate katie kathy kat",
    "catherine": "cathy cate kate katie", "jennifer": "jen jenny", "christopher": "chris topher",
    "christine": "chris chrissy", "alexander": "alex alec sandy", "alexandra": "alex lexi sandra",
    "samuel": "sam sammy", "samantha": "sam sammie", "daniel": "dan danny", "matthew": "matt",
    "nicholas": "nick nicky", "stephen": "steve", "steven": "steve", "joseph": "joe joey", "benjamin": "ben benny",
    "andrew": "andy drew", "peter": "pete", "edward": "ed eddie ted ned", "susan": "sue susie",
    "margaret": "maggie meg peggy", "rebecca": "becky becca", "jessica": "jess jessie", "abigail": "abby abbie",
    "timothy": "tim timmy", "gregory": "greg", "jonathan": "jon jonny", "nathan": "nate", "nathaniel": "nate nat",
    "zachary": "zach zack", "patrick": "pat paddy", "patricia": "pat patty tricia", "lawrence": "larry",
    "gerald": "gerry jerry", "frederick": "fred freddie", "charles": "charlie chuck", "charlotte": "charlie lottie",
    "victoria": "vicky tori", "deborah": "deb debbie", "kimberly": "kim", "jacqueline": "jackie",
    "josephine": "jo josie", "joanna": "jo", "theodore": "theo ted", "benedict": "ben", "harold": "harry",
    "henry": "harry hank", "john": "jack johnny", "eleanor": "ellie nell", "gabriel": "gabe",
    "raymond": "ray", "ronald": "ron ronnie", "donald": "don donny", "kenneth": "ken kenny", "leonard": "leo len",
    "douglas": "doug", "phillip": "phil", "philip": "phil", "jeffrey": "jeff", "geoffrey": "geoff",
    "vincent": "vince vinny", "francesca": "fran frankie", "francis": "frank fran", "suzanne": "suzy sue",
    "natalie": "nat", "natasha": "tasha nat", "penelope": "penny", "dorothy": "dot dotty",
}
# a full name's short forms, and a short name's full names; not a short name's other short forms: one full
# name's short forms are often two people's own names (Fran and Frank, Nat and Nate: a review)
OTHER: dict[str, tuple[str, ...]] = {full: tuple(shorts.split()) for full, shorts in SHORT_FORMS.items()}
for _full, _shorts in SHORT_FORMS.items():
    for _short in _shorts.split():
        OTHER[_short] = (*OTHER.get(_short, ()), _full)
NAME = re.compile(r"\b([A-Z][a-z]+)\b(['’]s\b)?")


def named(conn: apsw.Connection, asked: Asked) -> Asked:
    """`asked` with each name the notebook never says, and whose other form it says as exactly one
    name, said as that form (in `ranked` and `judged`, and among `names`)."""
    swaps = _swaps(conn, asked.ranked)
    if not swaps:
        return asked
    ranked, judged = asked.ranked, asked.judged
    for said, other in swaps.items():
        pattern = re.compile(rf"\b{re.escape(said)}\b")
        ranked, judged = pattern.sub(other, ranked), pattern.sub(other, judged)
    return replace(asked, ranked=ranked, judged=judged, names=(*asked.names, *swaps.values()))


def _swaps(conn: apsw.Connection, question: str) -> dict[str, str]:
    """{name as said: the form the notebook says} for the question's names that have one."""
    out: dict[str, str] = {}
    for m in NAME.finditer(question):
        said = m.group(1)
        if (m.start() == 0 and not m.group(2)) or said.lower() not in OTHER or said in out:
            continue  # the first word is capitalised as a sentence starts: "Will it rain", "Frank answers"
        if fts.matching(conn, f'"{said}"'):
            continue  # the notebook says it, in any case: it may be another person
        known = [other for other in OTHER[said.lower()] if _a_name(conn, other)]
        if len(known) == 1:
            out[said] = known[0].title()
    return out


def _a_name(conn: apsw.Connection, word: str) -> bool:
    """Whether a text of the notebook says the word as a name, with a capital ("Rob", not "rob");
    past MOST texts that say it, taken to (a review's 3,000 facts: "Will Turner" stood after 50
    texts saying "will", and "Bill" was read as the one William)."""
    name = re.compile(rf"\b{word.title()}\b")
    bodies = fts.bodies(conn, f'"{word}"', MOST + 1)
    return len(bodies) > MOST or any(name.search(body) for body in bodies)


MOST = 50  # texts that say a word looked at for it said with a capital, at most
