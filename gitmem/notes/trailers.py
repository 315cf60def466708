"""What made a gitmem commit, recorded as trailers on the commit message.

`git mem why` and every fact's provenance read them back: the verb that wrote
the commit (Gitmem-Verb: remember), and, when known, the agent, the session
and the MCP client that asked for it. An agent running the CLI names itself
with GITMEM_AGENT (and GITMEM_SESSION); the MCP server names the client from
its `initialize` request. Values are untrusted: one line each, printable, cut
to MAX_VALUE characters.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

PREFIX = "Gitmem-"
MAX_VALUE = 80
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CLIENT: ContextVar[str | None] = ContextVar("gitmem_client", default=None)
_SESSION: ContextVar[str | None] = ContextVar("gitmem_session", default=None)


def clean(value: str) -> str:
    """A value fit for one trailer line."""
    return " ".join(CONTROL.sub(" ", value).split())[:MAX_VALUE]


def for_verb(verb: str, **extra: str) -> list[tuple[str, str]]:
    """The trailers of a commit made by `verb` now; `extra` adds more (Reason="..." gives
    Gitmem-Reason), e.g. for_verb("plan", Reason="moved the launch")."""
    found = [("Verb", verb), ("Agent", os.environ.get("GITMEM_AGENT") or ""),
             ("Session", session() or ""), ("Client", _CLIENT.get() or ""), *extra.items()]
    return [(PREFIX + key, clean(value)) for key, value in found if clean(value)]


def session() -> str | None:
    """The session this process writes for: an MCP server's own (see `in_session`), else
    GITMEM_SESSION from the environment (an agent running the CLI)."""
    return _SESSION.get() or clean(os.environ.get("GITMEM_SESSION") or "") or None


@contextmanager
def in_session(session_id: str | None) -> Iterator[None]:
    """Commits made inside carry Gitmem-Session: session_id (an MCP server's session)."""
    token = _SESSION.set(clean(session_id) if session_id else None)
    try:
        yield
    finally:
        _SESSION.reset(token)


@contextmanager
def client(name: str | None) -> Iterator[None]:
    """Commits made inside are marked as asked for by this MCP client (name and version)."""
    token = _CLIENT.set(name)
    try:
        yield
    finally:
        _CLIENT.reset(token)
