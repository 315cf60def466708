"""Confining a path that a user, an agent or a settings file gives to the notebook.

Kept apart from notebook.py so that config.py can check `.gitmem.toml`
(which travels with every clone) by the same rules as the command line.
"""

from __future__ import annotations

import os
import re

from .errors import PathOutside, UsageError

MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 1024
# C0 and C1 controls (newline, ESC...) and the bidi controls that reorder text on screen
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(name: str) -> str:
    """A file name (from a pull, so untrusted) as one visible line: a control character in it is
    written as its escape, since a newline in a name could print a fake line of output."""
    return CONTROLS.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), name)


def new_name(rel: str) -> str:
    """A name for a page to be made: UsageError if it holds a control character (a file name
    with a newline or a bidi override prints as something else in every listing)."""
    if CONTROLS.search(rel):
        raise UsageError(f"the page name {rel.encode('unicode_escape').decode('ascii')!r} holds a control "
                         "character", "name the page with printable characters only")
    return rel


def confine(name: str) -> str:
    """Normalise a user-given path; PathOutside if it could leave the notebook."""
    if not name or not name.strip():
        raise UsageError("empty path", "name a page, e.g. reference/contacts.md")
    if "\0" in name:
        raise PathOutside("path contains a NUL byte", "name a page inside the notebook")
    if name.startswith(("/", "~", "\\")) or os.path.isabs(name):
        raise PathOutside(f"{name!r} is outside the notebook",
                          "use a path relative to the notebook, e.g. knowledge/facts.md")
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        raise UsageError("empty path", "name a page, e.g. reference/contacts.md")
    for part in parts:
        if part == "..":
            raise PathOutside(f"{name!r} leaves the notebook ('..')", "use a path inside the notebook")
        if part.startswith("."):
            raise PathOutside(f"{name!r} names a hidden file",
                              "gitmem pages cannot be hidden files (.git, .gitmem.toml)")
        if len(os.fsencode(part)) > MAX_NAME_BYTES:
            raise UsageError(f"a path component is longer than {MAX_NAME_BYTES} bytes", "use a shorter page name")
    rel = "/".join(parts)
    if len(os.fsencode(rel)) > MAX_PATH_BYTES:
        raise UsageError(f"path is longer than {MAX_PATH_BYTES} bytes", "use a shorter page name")
    return rel


def safe_pattern(pattern: str) -> bool:
    """Whether a glob from the settings can only match inside the notebook."""
    if not pattern or "\0" in pattern or pattern.startswith(("/", "~", "\\")) or os.path.isabs(pattern):
        return False
    return not any(part == ".." for part in pattern.replace("\\", "/").split("/"))
