"""Texts of revisions no ref reaches any more, purged when the history is derived again.

The index keeps every chunk text it ever made, so a commit taken off the
branch (reset, then `reflog expire` and `gc`, or a force-pushed rewrite
pulled) would leave its text searchable until a rebuild nobody is told to
run. HEAD moving other than fast-forward is the only way a revision can leave
the history, and the only time the index derives its history again: then,
the blobs the old history held that the new one does not (nor the work tree)
are looked at, and those whose every commit no ref reaches (`git rev-list
--all`: reflogs are not refs) go, with the texts no other blob holds: chunks,
texts, FTS rows, vectors, kept blames (origins are derived again by the same
sync). The shared embedding cache keeps their vectors (keyed by hash, no
text): a reset taken back, or another worktree, chunks the text again and
embeds nothing. A fast-forward never pays for any of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import db, provenance

if TYPE_CHECKING:
    import apsw

    from .indexer import Index


def history_blobs(index: Index) -> dict[int, set[str]]:
    """Each blob of the indexed history, with the commits that brought it (read before the
    history is derived again)."""
    found: dict[int, set[str]] = {}
    for bid, oid in index.conn.execute("SELECT v.blob, c.oid FROM versions v JOIN commits c ON c.id = v.start_commit"):
        found.setdefault(int(bid), set()).add(str(oid))
    return found


def purge(index: Index, before: dict[int, set[str]]) -> int:
    """Drop what only revisions no ref reaches held (see the module docstring), inside the sync's
    transaction; how many texts went."""
    conn = index.conn
    held = {int(b) for (b,) in conn.execute("SELECT blob FROM versions UNION "
                                            "SELECT blob FROM worktree WHERE blob IS NOT NULL")}
    left = {bid: oids for bid, oids in before.items() if bid not in held}
    if not left:
        return 0
    reachable = set(index.nb.git.run("rev-list", "--all").decode().split())
    # commits of merged branches that texts were attributed to, with their subjects
    conn.executemany("DELETE FROM merged WHERE oid = ?",
                     [(oid,) for (oid,) in conn.execute("SELECT oid FROM merged").fetchall() if oid not in reachable])
    gone = sorted(bid for bid, oids in left.items() if not oids & reachable)
    if not gone:
        return 0
    texts = _only_in(conn, gone)
    has_vectors = db.has_table(conn, "vectors")
    for tid, _, body in texts:
        conn.execute("INSERT INTO texts_fts(texts_fts, rowid, body) VALUES('delete', ?, ?)", (tid, body))
        if has_vectors:
            conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
        conn.execute("DELETE FROM texts WHERE id = ?", (tid,))
    for table, column in (("chunks", "blob"), ("links", "blob"), ("documents", "blob"), ("blobs", "id")):
        conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(b,) for b in gone])
    provenance.drop_kept(index)  # kept blames were made at commits that may be among them
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('optimize')")  # old segments still hold the words
    if texts and has_vectors:
        db.vectors_changed(conn)
    return len(texts)


def _only_in(conn: apsw.Connection, blobs: list[int]) -> list[tuple[int, str, str]]:
    """(id, hash, body) of the texts whose every chunk is in these blobs."""
    ids: set[int] = set()
    for i in range(0, len(blobs), 500):
        part = blobs[i:i + 500]
        marks = ",".join("?" * len(part))
        ids.update(r[0] for r in conn.execute(
            f"""SELECT DISTINCT c.text FROM chunks c WHERE c.blob IN ({marks}) AND NOT EXISTS (
                  SELECT 1 FROM chunks o WHERE o.text = c.text AND o.blob NOT IN ({marks}))""", part + part))
    return [db.one(conn.execute("SELECT id, hash, body FROM texts WHERE id = ?", (tid,))) for tid in sorted(ids)]
