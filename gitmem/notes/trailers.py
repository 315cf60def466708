"""What made a gitmem commit, recorded as trailers on the commit message.

`git mem why` and every fact's provenance read them back: the verb that wrote
the commit (Gitmem-Verb: remember), and, when known, the agent, the session
and the MCP client that asked for it. An agent running the CLI names itself
with GITMEM_AGENT (and GITMEM_SESSION); the MCP server names the client from
its `initialize` request. A `remember` that replaced a line names it
(Gitmem-Supersedes: PATH:LINE HASH TEXT; `superseded` reads it back). Values
are untrusted: one line each, printable, cut to MAX_VALUE characters.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .. import credentials

PREFIX = "Gitmem-"
MAX_VALUE = 80
SUPERSEDES_MAX = 200  # a path, a line, a hash and the old text
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CLIENT: ContextVar[str | None] = ContextVar("gitmem_client", default=None)
_SESSION: ContextVar[str | None] = ContextVar("gitmem_session", default=None)
_AGENT: ContextVar[bool | None] = ContextVar("gitmem_agent", default=None)  # None: as the environment says


def clean(value: str) -> str:
    """A value fit for one trailer line."""
    return " ".join(CONTROL.sub(" ", value).split())[:MAX_VALUE]


def for_verb(verb: str, **extra: str) -> list[tuple[str, str]]:
    """The trailers of a commit made by `verb` now; `extra` adds more (Reason="..." gives
    Gitmem-Reason), e.g. for_verb("plan", Reason="moved the launch")."""
    found = [("Verb", verb), ("Agent", os.environ.get("GITMEM_AGENT") or ""),
             ("Session", session() or ""), ("Client", _CLIENT.get() or ""), *extra.items()]
    return [(PREFIX + key, clean(value)) for key, value in found if clean(value)]


SUPERSEDES = re.compile(r"^(?P<path>.+?):(?P<line>\d+) (?P<hash>[0-9a-f]{12})(?: (?P<text>.*))?$")


@dataclass(frozen=True)
class Superseded:
    """What a `Gitmem-Supersedes` trailer names: the old line's path (from the repository's root),
    its line number, the start of its SHA-1 and its text (cut to MAX_VALUE characters)."""

    path: str
    line: int
    hash: str
    text: str


def fact_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-1 of a line's text, stripped (UTF-8)."""
    return hashlib.sha1(text.strip().encode("utf-8", "surrogatepass")).hexdigest()[:12]


def supersedes(path: str, line: int, text: str) -> tuple[str, str]:
    """The trailer naming the fact a write replaced: `Gitmem-Supersedes: PATH:LINE HASH TEXT`, so a
    reader can match HASH against the line in the parent commit; TEXT the line, cut to MAX_VALUE,
    its secret values redacted (a line a pull brought never passed the guard: git keeps no copy)."""
    head = " ".join(CONTROL.sub(" ", path).split()) + f":{line} {fact_hash(text)}"
    quoted = clean(credentials.redact(text)[0])
    return PREFIX + "Supersedes", f"{head} {quoted}".rstrip()[:max(len(head), SUPERSEDES_MAX)]


def superseded(value: str) -> Superseded | None:
    """A `Gitmem-Supersedes` trailer's value read back (None if it is not one: a person may write anything)."""
    m = SUPERSEDES.match(value.strip())
    if m is None:
        return None
    return Superseded(m["path"], int(m["line"]), m["hash"], m["text"] or "")


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


@contextmanager
def by_agent(agent: bool = True) -> Iterator[None]:
    """What is written inside is an agent's (an MCP tool call, the memory tool): change.apply refuses
    it the pages that tell the agent who it is and how to work; with `agent` false, a person's (a
    browser's request), whatever the environment the process was started in."""
    token = _AGENT.set(agent)
    try:
        yield
    finally:
        _AGENT.reset(token)


AGENT_ENV = "GITMEM_AGENT"  # set (not 0) for an agent that runs `git mem` at a shell


def agent_writes() -> bool:
    """Whether what is written now is an agent's: inside by_agent (MCP, the memory tool), or a
    `git mem` an agent runs at its shell: GITMEM_AGENT set, or Claude Code's Bash tool, which sets
    CLAUDECODE=1 for every command it runs (the instructions page tells agents to use `git mem write`)."""
    said = _AGENT.get()
    if said is not None:
        return said
    return os.environ.get(AGENT_ENV, "0") not in ("", "0") or os.environ.get("CLAUDECODE") == "1"
