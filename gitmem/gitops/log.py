"""Commits as `git log` describes them: the records and the reader of its output (git.py runs it)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

ZERO = "0" * 40
REGULAR_MODES = ("100644", "100755")
LOG_FORMAT = "%x01%H%x00%P%x00%ct%x00%an%x00%ae%x00%s"


@dataclass(frozen=True)
class Change:
    """One path changed by a commit, against its first parent."""

    path: str
    oid: str | None  # None: deleted, or no longer a regular file


@dataclass(frozen=True)
class Commit:
    oid: str
    parents: tuple[str, ...]
    time: int
    author: str
    email: str
    subject: str
    changes: tuple[Change, ...] = ()


def parse(raw: bytes) -> Iterator[Commit]:
    """Commits from `git log -z --raw --format=LOG_FORMAT` output, read token by
    token: six header fields, then (meta, path) pairs. A path is taken as it
    is, so a file name holding \\x01 or a leading newline cannot be misread."""
    tokens = raw.split(b"\0")
    i = 0
    while i < len(tokens):
        head = tokens[i].lstrip(b"\n")
        if not head.startswith(b"\x01"):
            i += 1
            continue
        oid, parents, ctime, author, email, subject = (
            t.decode("utf-8", "replace") for t in [head[1:], *tokens[i + 1:i + 6]])
        i += 6
        changes = []
        while i + 1 < len(tokens) and tokens[i].lstrip(b"\n").startswith(b":"):
            _old_mode, new_mode, _old, new, _status = tokens[i].lstrip(b"\n")[1:].decode().split()
            regular = new_mode in REGULAR_MODES and new != ZERO
            changes.append(Change(os.fsdecode(tokens[i + 1]), new if regular else None))
            i += 2
        yield Commit(oid, tuple(parents.split()), int(ctime), author, email, subject, tuple(changes))
