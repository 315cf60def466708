"""The notebook's files as the browser lists them: group, folder, size, last change from git."""

from __future__ import annotations

import os
import posixpath
import time
from dataclasses import dataclass, field

from ..dates import iso
from ..notebook import Notebook


@dataclass
class File:
    path: str  # notebook-relative
    group: str  # notebook | daily | sessions
    folder: str  # '' for the top of the notebook
    size: int  # bytes in the work tree
    commit: str | None  # the last commit that changed it (None: never committed)
    date: str | None  # that commit's date
    subject: str | None
    uncommitted: bool  # the work tree differs from HEAD


@dataclass
class Listing:
    notebook: str
    layout: str
    files: list[File]
    groups: dict[str, int] = field(default_factory=dict)  # group -> file count
    folders: dict[str, int] = field(default_factory=dict)  # folder -> file count
    latest_daily: str | None = None


def listing(nb: Notebook) -> Listing:
    """Every note in the work tree (tracked or not), newest change first within each folder."""
    last = last_changes(nb)
    dirty = {nb.rel(p) for p in nb.git.status(nb.prefix)}
    files: list[File] = []
    for repo_path in nb.git.files(nb.prefix):
        rel = nb.rel(repo_path)
        if rel is None or not nb.settings.is_note(rel):
            continue
        try:
            st = os.lstat(nb.file(rel))
        except OSError:  # deleted in the work tree, not yet committed
            continue
        if not os.path.isfile(nb.file(rel)) or os.path.islink(nb.file(rel)):
            continue
        commit, when, subject = last.get(rel, (None, None, None))
        files.append(File(rel, nb.settings.group_of(rel), posixpath.dirname(rel), st.st_size, commit,
                          iso(when) if when else None, subject, rel in dirty))
    files.sort(key=lambda f: (f.folder, f.path))
    out = Listing(str(nb.root), nb.settings.layout, files)
    for f in files:
        out.groups[f.group] = out.groups.get(f.group, 0) + 1
        out.folders[f.folder] = out.folders.get(f.folder, 0) + 1
    days = sorted(f.path for f in files if f.group == "daily")
    out.latest_daily = days[-1] if days else None
    return out


@dataclass
class Node:
    """A folder or a page in the file tree beside a page."""

    name: str
    path: str  # notebook-relative
    folder: bool
    children: list[Node] = field(default_factory=list)
    open: bool = False  # a folder on the way to the page shown


def tree(paths: list[str], current: str = "") -> list[Node]:
    """The notebook's pages as nested folders (folders first, then pages, each by name), with the
    folders that lead to `current` open."""
    top = Node("", "", True)
    for path in paths:
        node = top
        parts = path.split("/")
        for i, part in enumerate(parts[:-1]):
            found = next((c for c in node.children if c.folder and c.name == part), None)
            if found is None:
                found = Node(part, "/".join(parts[:i + 1]), True)
                node.children.append(found)
            found.open = found.open or current.startswith(found.path + "/")
            node = found
        node.children.append(Node(parts[-1], path, False))

    def order(node: Node) -> None:
        node.children.sort(key=lambda c: (not c.folder, c.name.lower()))
        for child in node.children:
            order(child)

    order(top)
    return top.children


def last_changes(nb: Notebook) -> dict[str, tuple[str, int, str]]:
    """notebook path -> (commit, time, subject) of the last first-parent commit that changed it."""
    head = nb.git.head()
    if head is None:
        return {}
    found: dict[str, tuple[str, int, str]] = {}
    for commit in nb.git.first_parent_log(head, None, nb.prefix):  # oldest first: later ones win
        for change in commit.changes:
            rel = nb.rel(change.path)
            if rel is not None:
                found[rel] = (commit.oid, commit.time, commit.subject)
    return found


@dataclass
class Session:
    path: str
    chat: str | None
    agent: str | None
    time: str | None
    private: bool  # `private: true` in its frontmatter: kept out of the index and of recall


def sessions(nb: Notebook) -> list[Session]:
    """The session files, newest first, with the chat, agent and time their header names."""
    from ..agent.session import header
    from ..index.blobs import parse

    found = []
    for f in listing(nb).files:
        if f.group != "sessions":
            continue
        text = nb.read(f.path)
        fields = header(text)
        found.append(Session(f.path, fields.get("chat"), fields.get("agent"), fields.get("time"),
                             bool(parse(text.encode("utf-8", "surrogatepass")).private)))
    return sorted(found, key=lambda s: s.path, reverse=True)


def export(nb: Notebook) -> dict[str, object]:
    """Every page with its text and last commit, as one JSON document (the notebook's own
    copy is git: this is for reading it elsewhere)."""
    from ..index.blobs import parse

    found = listing(nb)
    pages = []
    for f in found.files:
        text = nb.read(f.path)
        pages.append({"path": f.path, "group": f.group, "commit": f.commit, "date": f.date,
                      "uncommitted": f.uncommitted,
                      "private": bool(parse(text.encode("utf-8", "surrogatepass")).private), "text": text})
    return {"notebook": found.notebook, "head": nb.git.head(), "exported": iso(time.time()), "pages": pages}
