"""Who a question means: the names a notebook gives to the roles a question uses.

People ask about "my daughter" or "the product owner"; their notebook says "My daughter Emma
is allergic to peanuts" once and "Emma got a gold star" everywhere else. The model does not
know that Emma is the daughter, so "how is my daughter doing at school" missed the gold star
(the paraphrase set's tuning part: answer@3 0.849 -> 0.868, answer@1 0.632 -> 0.660, no
unanswerable question answered more; LoCoMo observations unchanged at 0.769).

A role is a word (or two) after "my", "our", "the" or "your" in the question, with the few
kinship words that mean the same ("partner" for "husband"). The index keeps the roles each
short text names (index/aliases.py: "My daughter Emma", "Lucy is my sister", "Product owner
is Marcus Bell", "- Plumber: Kev"). The names the question's current candidates give its roles
are added to its words, for both rankers and for choosing the fact: the question is asked as
"how is my daughter doing at school Emma". Only current candidates count (a superseded
"Product owner is Marcus" does not), and only a few names are added, so a question about a
role the notebook does not name is asked as it was. The evidence that judges whether a match
is weak stays the question's own (engine._weigh): a name brings its facts near, not an answer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..index import aliases as stored
from .hits import STOPWORDS, WORD

if TYPE_CHECKING:
    import apsw

DETERMINERS = frozenset({"my", "our", "the", "your"})
KIN = {"partner": ("husband", "wife", "spouse"), "husband": ("partner", "spouse"), "wife": ("partner", "spouse"),
       "spouse": ("husband", "wife", "partner"), "mother": ("mum", "mom"), "mum": ("mother", "mom"),
       "mom": ("mother", "mum"), "father": ("dad",), "dad": ("father",), "kid": ("son", "daughter"),
       "child": ("son", "daughter"), "kids": ("children",), "children": ("kids",)}
MAX_ROLES = 12
MAX_NAMES = 3
MANY = 20  # names of one role in all the index's texts (history included) past which it is not looked at

Among = Callable[[list[int]], set[int]]  # which of these texts are the question's candidates


def roles(question: str) -> list[str]:
    """The roles a question names: a word after a determiner, with the next word when it is not
    a stopword ("the product owner": product, product owner), and its kinship equivalents."""
    words = [w.lower() for w in WORD.findall(question)]
    found: list[str] = []
    for i in range(1, len(words)):
        word = words[i]
        if words[i - 1] not in DETERMINERS or word in STOPWORDS or len(word) < 2 or word.isdigit():
            continue
        found.append(word)
        after = words[i + 1] if i + 1 < len(words) else ""
        if len(after) > 1 and after not in STOPWORDS and not after.isdigit():
            found.append(f"{word} {after}")
        found.extend(KIN.get(word, ()))
    return list(dict.fromkeys(found))[:MAX_ROLES]


def expand(conn: apsw.Connection, question: str, among: Among) -> str:
    """The question with the names its roles have among its candidates, most often named first
    (at most MAX_NAMES, none of which the question says in part already), or the question
    itself. A role its candidates give more than MAX_NAMES names is no one's in particular."""
    wanted = roles(question)
    rows = stored.naming(conn, wanted, MANY) if wanted else []
    if not rows:
        return question
    current = among(sorted({text for text, _, _ in rows}))
    per_role: dict[str, Counter[str]] = {}
    for text, role, name in rows:
        if text in current:
            per_role.setdefault(role, Counter())[name] += 1
    counts: Counter[str] = Counter()
    for named in per_role.values():
        if len(named) <= MAX_NAMES:
            counts.update(named)
    said = {w.lower() for w in WORD.findall(question)}
    new = [n for n, _ in counts.most_common() if not {w.lower() for w in WORD.findall(n)} & said][:MAX_NAMES]
    return " ".join([question, *new])
