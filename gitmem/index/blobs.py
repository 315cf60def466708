"""A blob as the index reads it: page text, frontmatter fields, flags.

Parsing is keyed by blob id in the index, so it runs once per distinct file
content however many paths and revisions hold it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..markdown import body_offset
from ..notebook import decode
from ..privacy import is_private
from ..text import small

CONFLICT = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)
# in a frontmatter block YAML cannot read: the page may be private, so it is taken as private
MENTIONS_PRIVATE = re.compile(r"\bprivate\b", re.IGNORECASE)
BAD_FRONTMATTER = "bad-frontmatter"


@dataclass
class Parsed:
    text: str
    body: int
    tags: str = ""
    type: str | None = None
    private: int = 0
    flags: str = ""


def parse(data: bytes) -> Parsed:
    """A blob as page text, with frontmatter fields and flags (binary; conflict and/or
    bad-frontmatter, comma-separated)."""
    if b"\0" in data[:8192]:
        return Parsed("", 0, flags="binary")
    text = decode(data)
    body = body_offset(text)
    parsed = Parsed(text, body)
    flags = []
    if body and not _frontmatter(text[:body], parsed):
        flags.append(BAD_FRONTMATTER)
    if CONFLICT.search(text):
        flags.insert(0, "conflict")
    parsed.flags = ",".join(flags)
    return parsed


def _frontmatter(block: str, parsed: Parsed) -> bool:
    """Read the fields of a frontmatter block into `parsed`; False if YAML cannot read it. Such a
    block that mentions private makes the page private (`title: Therapy: notes` is a YAML error
    that must not publish a page marked `private: true`); otherwise the page is plain text."""
    import frontmatter  # with PyYAML, 7 ms: only for pages that have frontmatter

    try:
        meta = frontmatter.loads(block).metadata
    except Exception:  # malformed YAML is never fatal
        parsed.private = 1 if MENTIONS_PRIVATE.search(block) else 0
        return False
    if not small(meta):  # aliases that a walk would meet a billion times: read as bad YAML
        parsed.private = 1 if MENTIONS_PRIVATE.search(block) else 0
        return False
    if not meta and _content(block):  # a list or a bare string: the library hands back no fields
        parsed.private = 1 if MENTIONS_PRIVATE.search(block) else 0
        return False
    tags = meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.replace(",", " ").split()]
    if isinstance(tags, Iterable):
        parsed.tags = "".join(f",{str(t).strip().lower()}" for t in tags if str(t).strip()) + ("," if tags else "")
    kind = meta.get("type")
    parsed.type = str(kind).strip().lower() if kind else None
    parsed.private = 1 if is_private(meta) else 0  # the one reading (any key case, any yes-like value)
    return True


def _content(block: str) -> str:
    """A frontmatter block without its --- lines and comments."""
    lines = block.split("\n")[1:]
    return "".join(ln for ln in lines if ln.strip() not in ("---", "...") and not ln.lstrip().startswith("#")).strip()


def text_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()
