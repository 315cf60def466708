"""The one reading of "private" in a page's frontmatter, used everywhere a page may leave the notebook.

A page or session marked private is kept out of the index, of recall, of the always-on context, of
consolidation (never sent to an LLM), of the web app's listings and of the MCP tools. People write
the mark in many ways (`Private: true`, `PRIVATE: TRUE`, `private: 1`, `private: "yes"`,
`private: [true]`), and reading one of them as "not private" sends the page out, so the reading is
generous on purpose: the key in any case (and with spaces around it), and any value that does not
plainly say no. Only `false`/`no`/`off`/`0`/`n`/`f`/`none`/`null`, an empty value, and lists or
maps holding nothing but such values read as not private.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEY = "private"
NO = frozenset({"", "false", "no", "off", "0", "n", "f", "none", "null", "nil", "~"})


def is_private(meta: Mapping[Any, Any] | None) -> bool:
    """Whether frontmatter fields mark the page private (any key spelled `private`, any case)."""
    if not meta:
        return False
    return any(str(key).strip().lower() == KEY and says_yes(value) for key, value in meta.items())


def says_yes(value: Any, depth: int = 0) -> bool:
    """Whether a frontmatter value reads as "yes": generous, see the module's docstring."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return value.strip().strip("\"'").strip().lower() not in NO
    if depth > 8:  # a pathological nesting: private rather than published
        return True
    if isinstance(value, Mapping):
        return any(says_yes(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(says_yes(v, depth + 1) for v in value)
    return True  # a date, a timestamp, anything else set: private
