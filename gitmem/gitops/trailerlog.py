"""Commits whose message carries a trailer with a given value (`Gitmem-Session: ID`), with
what each did to each file: the session tracker's reader of `git log`."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .git import Git

LOG_FORMAT = "%x01%H%x00%ct%x00%s"
STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}


@dataclass(frozen=True)
class Marked:
    oid: str
    time: int
    subject: str
    files: tuple[tuple[str, str], ...]  # (repo path, "added" | "modified" | "deleted")
    trailers: dict[str, str]


def with_trailer(git: Git, key: str, value: str, path: str | None = None) -> list[Marked]:
    """Commits reachable from HEAD, oldest first, whose `key` trailer is exactly `value` (what git
    parses as the message's trailers; a mention of it in the message body does not count), each
    with the files it changed against its first parent (under `path`, if given)."""
    if git.head() is None:
        return []
    spec = ["--", path] if path else ["--"]
    raw = git.run("log", "--first-parent", "--diff-merges=first-parent", "-z", "--name-status", "--no-renames",
                  "--reverse", "--fixed-strings", f"--grep={key}: {value}", f"--format={LOG_FORMAT}", "HEAD", *spec)
    found = list(parse(raw))
    marks = git.trailers([oid for oid, *_ in found])
    return [Marked(oid, time, subject, files, marks.get(oid, {})) for oid, time, subject, files in found
            if marks.get(oid, {}).get(key) == value]


def parse(raw: bytes) -> list[tuple[str, int, str, tuple[tuple[str, str], ...]]]:
    """(commit, time, subject, files) from `git log -z --name-status --format=LOG_FORMAT` output."""
    out = []
    for block in raw.split(b"\x01")[1:]:
        tokens = block.split(b"\0")
        oid, ctime, subject = (t.decode("utf-8", "replace") for t in tokens[:3])
        rest = [t for t in (t.lstrip(b"\n") for t in tokens[3:]) if t]  # a path is never empty
        files = []
        for i in range(0, len(rest) - 1, 2):
            status = rest[i].decode("ascii", "replace")[:1]
            if status in STATUS:
                files.append((os.fsdecode(rest[i + 1]), STATUS[status]))
        out.append((oid, int(ctime), subject, tuple(files)))
    return out
