"""Whom a question asks about: the people it names (aliases.unnamed), and which texts and facts are
theirs, said by name or by the role the notebook gives them as the asker's ("my brother")."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from ..index import fts
from . import aliases, facts
from .hits import WORD, Hit

if TYPE_CHECKING:
    import apsw


def naming(conn: apsw.Connection, unnamed: tuple[str, set[str]],
           kin: AbstractSet[str] = frozenset()) -> Callable[[list[int]], set[int]]:
    """Which of some texts say one of the names the question said, or one of their roles as the
    asker's ("my brother"): their facts are the ones that may answer a question about those people."""
    match = " OR ".join([f'"{n}"' for n in sorted(unnamed[1])] + [f'"my {r}" OR "our {r}"' for r in sorted(kin)])
    return lambda texts: set(fts.scores(conn, match, texts))


def called(unnamed: tuple[str, set[str]]) -> str:
    """The people a question names, as a note says them ("Sam and Tom")."""
    return " and ".join(n.title() for n in sorted(unnamed[1]))


def says_name(hit: Hit, names: set[str], kin: AbstractSet[str] = frozenset()) -> bool:
    """Whether a hit's fact (else its text) says one of these lower-cased names, or one of their
    roles as the asker's (aliases.says_role)."""
    text = facts.said(hit.fact) if hit.fact is not None else hit.text
    return bool({w.lower() for w in WORD.findall(text)} & parts(names)) or aliases.says_role(text, kin)


def name_terms(terms: list[str], unnamed: tuple[str, set[str]] | None) -> set[str]:
    """The FTS5 phrases among `terms` that are names of people the question names."""
    if not unnamed:
        return set()
    said = parts(unnamed[1])
    return {t for t in terms if t.strip('"') in said}


def parts(names: set[str]) -> set[str]:
    """The words of people's names, as a question is asked ("mary-kate" is asked as "mary" "kate")."""
    return {w for name in names for w in WORD.findall(name)}
