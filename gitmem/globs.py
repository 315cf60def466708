"""Globs from `.gitmem.toml`, matched in time linear in the path, whatever the pattern.

The patterns travel with every clone, so a pull can bring any: translated to a backtracking
regex, a glob with 40 stars (`*a*a*a…b`) made every recall spin for minutes on a path of
a's. A pattern with at most two wildcard runs is still a regex (its worst case is bounded by
the square of the path's length, and the defaults are all such); any other is matched by
simulating its automaton over the path, one set of states per character, so the cost is
the path's length times the pattern's. A pattern longer than MAX_LENGTH is refused by config.

`*` and `?` stay inside one folder, `**` crosses folders, `**/` is zero or more folders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

MAX_LENGTH = 1024  # characters in one pattern
REGEX_WILDCARDS = 2  # up to this many `*`/`**` runs a pattern is a regex

# One state of the automaton: transitions (predicate on a character, next state) and the
# states it reaches without reading anything.
Step = Callable[[str], bool]


class Matcher(Protocol):
    def fullmatch(self, path: str) -> object: ...


def _tokens(pattern: str) -> list[str]:
    """`**/`, `**`, `*`, `?` or one literal character each (runs of stars collapsed)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            token, i = "**/", i + 3
        elif pattern.startswith("**", i):
            token, i = "**", i + 2
            while i < len(pattern) and pattern[i] == "*":
                i += 1
        elif pattern[i] in "*?":
            token, i = pattern[i], i + 1
        else:
            token, i = pattern[i], i + 1
        if token in ("*", "**") and out and out[-1] in ("*", "**"):
            out[-1] = "**"  # `***`, `*` before `**`: one run that crosses folders
            continue
        out.append(token)
    return out


def _regex(tokens: list[str]) -> re.Pattern[str]:
    parts = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(parts.get(t) or re.escape(t) for t in tokens), re.DOTALL)


class Automaton:
    """A glob as a nondeterministic automaton, simulated state set by state set (no backtracking)."""

    def __init__(self, tokens: list[str]) -> None:
        self.moves: list[list[tuple[Step, int]]] = []
        self.free: list[list[int]] = []
        for token in tokens:
            here = len(self.moves)
            if token == "**/":  # here: nothing read yet; here + 1: inside the folders
                self._add([(_any, here + 1), (_slash, here + 2)], [here + 2])
                self._add([(_any, here + 1), (_slash, here + 2)], [])
            elif token == "**":
                self._add([(_any, here)], [here + 1])
            elif token == "*":
                self._add([(_not_slash, here)], [here + 1])
            elif token == "?":
                self._add([(_not_slash, here + 1)], [])
            else:
                self._add([(token.__eq__, here + 1)], [])
        self.final = len(self.moves)

    def _add(self, moves: list[tuple[Step, int]], free: list[int]) -> None:
        self.moves.append(moves)
        self.free.append(free)

    def _closure(self, states: set[int]) -> set[int]:
        todo = list(states)
        while todo:
            state = todo.pop()
            for nxt in self.free[state] if state < self.final else ():
                if nxt not in states:
                    states.add(nxt)
                    todo.append(nxt)
        return states

    def fullmatch(self, path: str) -> bool:
        states = self._closure({0})
        for ch in path:
            states = self._closure({nxt for s in states if s < self.final
                                    for ok, nxt in self.moves[s] if ok(ch)})
            if not states:
                return False
        return self.final in states


def _any(ch: str) -> bool:
    return True


def _slash(ch: str) -> bool:
    return ch == "/"


def _not_slash(ch: str) -> bool:
    return ch != "/"


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> Matcher:
    """A matcher with `.fullmatch(path)`: a regex for a simple pattern, else the automaton."""
    tokens = _tokens(pattern)
    if sum(t in ("*", "**", "**/") for t in tokens) <= REGEX_WILDCARDS:
        return _regex(tokens)
    return Automaton(tokens)
