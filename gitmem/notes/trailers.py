"""What made a gitmem commit, recorded as trailers on the commit message.

`git mem why` and every fact's provenance read them back: the verb that wrote
the commit (Gitmem-Verb: remember), and, when known, the agent, the session
and the MCP client that asked for it. An agent running the CLI names itself
with GITMEM_AGENT (and GITMEM_SESSION); the MCP server names the client from
its `initialize` request. Values are untrusted: one line each, printable, cut
to MAX_VALUE characters.
"""

from __future__ import annotations

import hashlib
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

PREFIX = "Gitmem-"
MAX_VALUE = 80
SUPERSEDES_MAX = 200  # a path, a line, a hash and the old text
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CLIENT: ContextVar[str | None] = ContextVar("gitmem_client", default=None)


def clean(value: str) -> str:
    """A value fit for one trailer line."""
    return " ".join(CONTROL.sub(" ", value).split())[:MAX_VALUE]


def for_verb(verb: str) -> list[tuple[str, str]]:
    """The trailers of a commit made by `verb` now."""
    found = [("Verb", verb), ("Agent", os.environ.get("GITMEM_AGENT") or ""),
             ("Session", os.environ.get("GITMEM_SESSION") or ""), ("Client", _CLIENT.get() or "")]
    return [(PREFIX + key, clean(value)) for key, value in found if clean(value)]


def supersedes(path: str, line: int, text: str) -> tuple[str, str]:
    """The trailer naming the fact a write replaced: `Gitmem-Supersedes: PATH:LINE HASH TEXT`,
    HASH the first 12 hex digits of the SHA-1 of the old line (stripped, UTF-8), so a reader can
    match it against the line in the parent commit; TEXT the line, cut to fit."""
    digest = hashlib.sha1(text.strip().encode("utf-8", "surrogatepass")).hexdigest()[:12]
    head = " ".join(CONTROL.sub(" ", f"{path}:{line} {digest}").split())
    return PREFIX + "Supersedes", f"{head} {clean(text)}"[:max(len(head), SUPERSEDES_MAX)]


@contextmanager
def client(name: str | None) -> Iterator[None]:
    """Commits made inside are marked as asked for by this MCP client (name and version)."""
    token = _CLIENT.set(name)
    try:
        yield
    finally:
        _CLIENT.reset(token)
