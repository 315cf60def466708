"""A blob as the index reads it: page text, frontmatter fields, flags.

Parsing is keyed by blob id in the index, so it runs once per distinct file
content however many paths and revisions hold it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Iterable

from ..markdown import body_offset
from ..notebook import decode

CONFLICT = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)


@dataclass
class Parsed:
    text: str
    body: int
    tags: str = ""
    type: str | None = None
    private: int = 0
    flags: str = ""


def parse(data: bytes) -> Parsed:
    """A blob as page text, with frontmatter fields and flags (binary, conflict)."""
    if b"\0" in data[:8192]:
        return Parsed("", 0, flags="binary")
    text = decode(data)
    body = body_offset(text)
    parsed = Parsed(text, body)
    if body:
        _frontmatter(text[:body], parsed)
    if CONFLICT.search(text):
        parsed.flags = "conflict"
    return parsed


def _frontmatter(block: str, parsed: Parsed) -> None:
    import frontmatter  # with PyYAML, 7 ms: only for pages that have frontmatter

    try:
        meta = frontmatter.loads(block).metadata
    except Exception:  # malformed YAML is indexed as plain text, never fatal
        return
    tags = meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.replace(",", " ").split()]
    if isinstance(tags, Iterable):
        parsed.tags = "".join(f",{str(t).strip().lower()}" for t in tags if str(t).strip()) + ("," if tags else "")
    kind = meta.get("type")
    parsed.type = str(kind).strip().lower() if kind else None
    parsed.private = 1 if meta.get("private") is True or str(meta.get("private")).lower() == "true" else 0


def text_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
