"""Links between pages in the index: each page version's outgoing links (wikilinks and
markdown links to a page, gitmem/links.py), stored once per blob when the blob is chunked,
so that a page's backlinks are one lookup, not a read of every page.

A link is stored as written (its target's last name kept apart to look backlinks up by) and
resolved when asked, against the pages the notebook has then: a link to a page that does
not exist yet starts counting once the page is made, with no page re-read. What counts is
the live notebook (HEAD overlaid by the work tree, db.LIVE_VIEW), so a changed, deleted or
renamed page changes its rows with the same catch-up that changes its chunks. Nothing of a
private page is stored (as none of its chunks is); forgotten lines are blanked first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..links import Link, every_link, lookup_name
from . import db

if TYPE_CHECKING:
    import apsw

    from .blobs import Parsed
    from .indexer import Index

LINE_CHARS = 500  # the linking line as stored (shown beside a backlink)


@dataclass(frozen=True)
class Stored:
    path: str  # the linking page
    link: Link
    text: str  # the line the link stands on, trimmed


def store(conn: apsw.Connection, blob: int, text: str | None) -> None:
    """Record the links of a blob's text (None: a private, binary or document blob: none)."""
    conn.execute("DELETE FROM links WHERE blob = ?", (blob,))
    if text:
        lines = text.split("\n")
        conn.executemany(
            "INSERT INTO links(blob, line, target, name, heading, label, embed, markdown, text) "
            "VALUES(?,?,?,?,?,?,?,?,?)",
            [(blob, ln.line, ln.target, lookup_name(ln.target), ln.heading, ln.label, int(ln.embed),
              int(ln.markdown), lines[ln.line - 1].strip()[:LINE_CHARS]) for ln in every_link(text)])
    conn.execute("UPDATE blobs SET linked = 1 WHERE id = ?", (blob,))


def linkable(index: Index, parsed: Parsed) -> str | None:
    """The text whose links a blob contributes: none of a private or binary page; forgotten
    lines blanked, as in its chunks."""
    if parsed.private or "binary" in parsed.flags:
        return None
    return index.forgotten.redact(parsed.text)


def fill(index: Index) -> int:
    """Store the links of live blobs chunked before links were indexed (migration 13), or
    chunked then and live again now (a reset to an old commit); how many. Inside the sync's
    transaction."""
    from ..gitops.git import blob_id
    from .blobs import parse

    conn, nb = index.conn, index.nb
    rows = conn.execute(f"SELECT v.path, b.id, b.oid, v.version FROM ({db.LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob "
                        "WHERE b.linked = 0").fetchall()
    done = 0
    for row in rows:
        path, bid, oid, version = str(row[0]), int(str(row[1])), str(row[2]), row[3]
        if not nb.settings.is_note(path):
            store(conn, bid, None)  # a document: no links
            continue
        data = nb.git.blob_or_none(oid) if version is not None else nb.read_bytes(path)
        if data is None or (version is None and blob_id(data) != oid):
            continue  # changed since the scan: the next sync chunks (and links) it
        store(conn, bid, linkable(index, parse(data)))
        done += 1
    db.set_meta(conn, "links", "")
    return done


def pending(index: Index) -> bool:
    """Whether links of blobs indexed before migration 13 still need reading."""
    return index.meta("links") == "pending"


def _rows(conn: apsw.Connection, where: str, args: tuple[object, ...]) -> list[Stored]:
    sql = (f"SELECT v.path, l.line, l.target, l.heading, l.label, l.embed, l.markdown, l.text "
           f"FROM ({db.LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob JOIN links l ON l.blob = b.id "
           f"WHERE b.private = 0 AND {where} ORDER BY v.path, l.line, l.rowid")
    return [Stored(path, Link(target, heading, label, line, bool(embed), bool(markdown)), text)
            for path, line, target, heading, label, embed, markdown, text in conn.execute(sql, args)]


def outgoing(conn: apsw.Connection, path: str) -> list[Stored]:
    """The links on a page as the notebook has it now (none if the page is private)."""
    return _rows(conn, "v.path = ?", (path,))


def naming(conn: apsw.Connection, page: str) -> list[Stored]:
    """Links on other pages whose target could name `page` (same last name): the candidates for
    its backlinks, which the caller resolves against the notebook's pages."""
    return _rows(conn, "l.name = ? AND v.path != ?", (lookup_name(page), page))


def private(conn: apsw.Connection, path: str) -> bool:
    """Whether the page's live version is private (as the index read it)."""
    row = conn.execute(f"SELECT b.private FROM ({db.LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob "
                       "WHERE v.path = ?", (path,)).fetchone()
    return bool(row and row[0])
