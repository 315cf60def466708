"""Frontmatter fields of the pages gitmem keeps structured (goals, the plan): read with
python-frontmatter (PyYAML's safe loader, as the index reads them) and written back as one
`key: value` line each, values in JSON (which YAML reads as is), so a person can edit them
by hand and gitmem can read what they wrote."""

from __future__ import annotations

import json
from typing import Any

from ..errors import GitmemError
from ..markdown import body_offset
from ..text import MAX_NODES, small


class BadFields(GitmemError):
    """A page's frontmatter is not YAML gitmem can read."""


def read(text: str, rel: str) -> tuple[dict[str, Any], str]:
    """(fields, body) of a page; BadFields naming the page if its frontmatter is not YAML."""
    top = body_offset(text)
    if not top:
        return {}, text
    import frontmatter  # with PyYAML: only for the pages that have frontmatter

    try:
        meta = frontmatter.loads(text[:top]).metadata
    except Exception as exc:  # any YAML error: the page is the person's to fix
        raise BadFields(f"{rel}: its frontmatter is not YAML gitmem can read; nothing was written",
                        f"fix the lines between the two '---' at the top of {rel} by hand, then run it again") from exc
    if not small(meta):
        raise BadFields(f"{rel}: its frontmatter's YAML aliases stand for more than {MAX_NODES:,} values; "
                        "nothing was written", f"fix the lines between the two '---' at the top of {rel} by hand")
    return dict(meta), text[top:]


def render(meta: dict[str, Any], body: str) -> str:
    """A page of these fields (None left out) and this body."""
    lines = ["---", *(f"{key}: {json.dumps(_plain(value), ensure_ascii=False)}" for key, value in meta.items()
                      if value is not None), "---"]
    return "\n".join(lines) + "\n" + body.lstrip("\n")


def _plain(value: Any) -> Any:
    """YAML reads dates as date objects: written back as the ISO text they were."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
