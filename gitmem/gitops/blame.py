"""What `git blame --porcelain` says, read into one record per line (git.py runs it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Blamed:
    """What `git blame` says of one line: the commit that put it there in its present form."""

    line: int  # in the file blamed
    commit: str  # ZERO: not committed yet
    orig_line: int  # the line's number in `path` at `commit`
    path: str  # the file's name at `commit` (blame follows renames)
    author: str
    time: int
    summary: str
    mail: str = ""  # the author's email, without its <>


def parse(raw: bytes) -> list[Blamed]:
    """Lines of `git blame --porcelain`: a header per line, commit details the first time a commit shows."""
    details: dict[str, dict[str, str]] = {}
    out: list[Blamed] = []
    current: tuple[str, int, int] | None = None
    for line in raw.decode("utf-8", "replace").split("\n"):
        if line.startswith("\t"):
            if current:
                oid, orig, final = current
                d = details[oid]
                out.append(Blamed(final, oid, orig, d.get("filename", ""), d.get("author", ""),
                                  int(d.get("author-time", "0")), d.get("summary", ""),
                                  d.get("author-mail", "").strip("<>")))
            current = None
            continue
        head = line.split(" ")
        if current is None and len(head) >= 3 and len(head[0]) == 40 and all(c in "0123456789abcdef" for c in head[0]):
            current = (head[0], int(head[1]), int(head[2]))
            details.setdefault(head[0], {})
        elif current is not None and " " in line:
            key, value = line.split(" ", 1)
            details[current[0]][key] = value
    return out
