"""Text from outside (a transcript, stdin, an LLM's answer, an agent), made safe to store.

`clean_text` is what every text from outside goes through before it is written to a page or a
session. A NUL makes git and gitmem take the whole file for binary (`get`, `context` and later
saves then refuse it), and the other C0 controls (ESC, BEL, backspace, a lone CR) are no part of
a note: they only hide or fake text in a terminal. `loads` reads JSON with its nesting bounded,
so a transcript or hook input nested thousands deep is one clear error, not a crash.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls except tab and newline, and DEL; CR is handled first (line ends are kept)
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SURROGATES = re.compile(r"[\ud800-\udfff]")
MAX_DEPTH = 64  # nesting of JSON from outside: transcripts nest 5 or 6 deep
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def clean_text(s: str) -> str:
    """`s` without NUL and the other C0 controls except tab and newline (and without DEL);
    CRLF and a lone CR become a newline; a lone surrogate (from a JSON `\\ud800` escape, which no
    file can hold as UTF-8) becomes U+FFFD."""
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = CONTROLS.sub("", s)
    return SURROGATES.sub("\ufffd", s) if SURROGATES.search(s) else s


class TooDeep(ValueError):
    """JSON nested deeper than the bound."""


def depth(raw: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    deepest = level = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub('""', raw) if '"' in raw else raw):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def loads(raw: str, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads, with TooDeep (a ValueError) for a text nested deeper than `max_depth`."""
    if raw.count("[") + raw.count("{") > max_depth and depth(raw) > max_depth:
        raise TooDeep(f"nested deeper than {max_depth} levels")
    return json.loads(raw)


MAX_NODES = 10_000  # values in a page's frontmatter, counted as a walk meets them (a page's few dozen)


def small(value: Any, most: int = MAX_NODES) -> bool:
    """Whether walking `value` (YAML read from a page: mappings, lists, scalars) meets at most
    `most` values. YAML's aliases let a few lines stand for a structure met a billion times in a
    walk ("billion laughs": ten lists of ten references, nine deep); a pulled page with one kept
    the hooks' worker at full CPU for minutes, and every recall waited for its lock."""
    left = most
    stack = [value]
    while stack:
        item = stack.pop()
        left -= 1
        if left < 0:
            return False
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return True
