"""Where a piece of text came from: the commit that put it on its page.

The indexer records, for every chunk text of every page version, its origin
(`origins`): carried over from the previous version of the page if that
version held the text, else the commit that made the version. Two refinements
keep the answer true to what happened rather than to the first-parent diff:
- a page deleted in the same commit that adds text it held (a rename, or a
  page split up) passes the text's origin on, so a rename is not a rewrite;
- text that a merge brings in from the merged branch is attributed to the
  commit on that branch that introduced it (found along the branch's
  first-parent chain back to where it forked), not to the merge commit. Text
  the merge itself made (a conflict resolution, a chunk combining both sides)
  belongs to the merge commit.
Text that exists only in the work tree is "uncommitted".
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import apsw

from ..dates import iso
from ..errors import GitmemError
from . import db

if TYPE_CHECKING:
    from ..gitops.blame import Blamed
    from ..gitops.log import Commit
    from ..notebook import Notebook
    from .forgotten import Matcher
    from .indexer import Index

TRAILER_PREFIX = "Gitmem-"


@dataclass(frozen=True)
class Origin:
    commit: str | None
    date: str | None
    author: str | None
    subject: str | None


@dataclass
class Blame:
    """The commit that put some lines there in their present form (the newest that `git blame`
    names for any of them), and what gitmem recorded as having made it."""

    commit: str | None  # None: a line is not committed yet
    date: str | None
    author: str | None
    subject: str | None
    path: str | None  # repo path of the file at that commit (blame follows renames)
    lines: dict[str, int] | None  # the lines' numbers in that commit's file
    wrote: dict[str, str] = field(default_factory=dict)  # Gitmem-* trailers: Verb, Agent, Client, Session


def of_lines(nb: Notebook, withheld: Matcher, rev: str | None, path: str,
             ranges: list[tuple[int, int]], with_trailers: bool = True,
             head: str | None = None, base: str | None = None) -> dict[tuple[int, int], Blame]:
    """What `git blame` says of each line range of the page `path` (notebook-relative) at `rev`
    (None: the work tree), from one blame of all the ranges; subjects that quote forgotten text
    are withheld."""
    from ..gitops.log import ZERO

    if not ranges:
        return {}
    lines = _blamed(nb, rev, path, ranges, head, base)
    by_line = {b.line: b for b in lines}
    found: dict[tuple[int, int], Blame] = {}
    for lo, hi in ranges:
        blamed = [by_line[n] for n in range(lo, hi + 1) if n in by_line]
        if not blamed:
            continue
        if any(b.commit == ZERO for b in blamed):
            found[(lo, hi)] = Blame(None, iso(max(b.time for b in blamed)), None, "uncommitted", None, None)
            continue
        newest = _newest(nb, blamed, rev)
        same = [b for b in blamed if b.commit == newest.commit]
        span = {"start": min(b.orig_line for b in same), "end": max(b.orig_line for b in same)} if same else None
        found[(lo, hi)] = Blame(newest.commit, iso(newest.time), newest.author,
                                withheld.subject(newest.summary), newest.path, span)
    if with_trailers:  # without: the caller reads every page's trailers in one call
        fill_trailers(nb, list(found.values()))
    return found


# Whole-file blames kept in this process (the MCP server, the web app answer query after query):
# a blame at a commit never changes, and one of the work tree is the same while HEAD and the
# file's bytes are. Pages over WHOLE_FILE_LIMIT are blamed line range by line range, unkept.
_BLAMES: dict[tuple[str, ...], list[Blamed]] = {}
_BLAMES_LOCK = threading.Lock()
BLAMES_KEPT = 256
BLAMES_STORED = 4096  # blames the index keeps for later processes, at most
WHOLE_FILE_LIMIT = 256 * 1024


def _blamed(nb: Notebook, rev: str | None, path: str, ranges: list[tuple[int, int]],
            head: str | None = None, base: str | None = None) -> list[Blamed]:
    repo_path = nb.repo_path(path)
    key = blame_key(nb, rev, path, head, base)
    if key is None:
        return nb.git.blame(rev, repo_path, sorted(set(ranges)))
    kept = _BLAMES.get(key)
    if kept is not None:
        return kept
    blamed = nb.git.blame(rev, repo_path, [])
    with _BLAMES_LOCK:  # facts.cite blames pages side by side, and a server answers queries at once
        while len(_BLAMES) >= BLAMES_KEPT:
            _BLAMES.pop(next(iter(_BLAMES)))
        _BLAMES[key] = blamed
    return blamed  # not _BLAMES[key]: another thread may have evicted it already


def blame_key(nb: Notebook, rev: str | None, path: str, head: str | None = None,
              base: str | None = None) -> tuple[str, ...] | None:
    """What a whole-page blame is kept under (None: blamed range by range, never kept). The work
    tree's blame is keyed by its bytes and by `base` (else HEAD): git blame at HEAD passes the whole
    blame to a parent holding the same blob, so it is the blame at the commit that made the page's
    version, and stays valid while commits that leave the page alone go by. A blame at HEAD itself
    is keyed by `base` the same way."""
    repo_path = nb.repo_path(path)
    if rev is not None:
        oid = (head or nb.git.head()) if rev == "HEAD" else rev
        if base and oid == (head or nb.git.head()):  # the page as HEAD has it: as the commit that made it
            oid = base
        return (str(nb.git.git_dir), oid, repo_path) if oid and re.fullmatch(r"[0-9a-f]{40}", oid) else None
    try:
        data = nb.read_bytes(path)
    except (OSError, GitmemError):  # unreadable or not confined: blamed range by range, as before
        return None
    since = base or head or nb.git.head()
    if data is None or since is None or len(data) > WHOLE_FILE_LIMIT:
        return None
    return (str(nb.git.git_dir), since, repo_path, hashlib.sha1(data).hexdigest())


def is_kept(key: tuple[str, ...]) -> bool:
    """Whether this process holds the blame kept under `key`."""
    return key in _BLAMES


def bases(index: Index, head: str | None, paths: list[str]) -> dict[str, str]:
    """For each page, the commit that made its version at HEAD (first-parent history: no later
    commit changed it); none while the index lags HEAD, whose versions would be older."""
    if head is None or not paths or index.meta("commit") != head:
        return {}
    marks = ",".join("?" * len(paths))
    rows = index.conn.execute(f"""SELECT v.path, c.oid FROM versions v INDEXED BY versions_current
                                   JOIN commits c ON c.id = v.start_commit
                                   WHERE v.end_commit IS NULL AND v.path IN ({marks})""", paths)
    return {path: oid for path, oid in rows}


def load(index: Index, keys: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Bring the blames the index keeps for these keys into this process; the keys neither had
    (to `keep` once blamed)."""
    from ..gitops.blame import Blamed

    wanted = {"\0".join(key[1:]): key for key in keys if key not in _BLAMES}
    if not wanted or not _store_path(index).exists():
        return list(wanted.values())
    marks = ",".join("?" * len(wanted))
    try:
        conn = _store(index)
        try:
            rows = cast(list[tuple[str, str]], conn.execute(f"SELECT key, lines FROM blames WHERE key IN ({marks})",
                                                            list(wanted)).fetchall())
        finally:
            conn.close()
    except (apsw.Error, OSError, GitmemError):  # unreadable, or read-only and never made: blame afresh
        return list(wanted.values())
    with _BLAMES_LOCK:
        for stored, lines in rows:
            _BLAMES[wanted.pop(stored)] = [Blamed(*row) for row in json.loads(lines)]
    return list(wanted.values())


def keep(index: Index, keys: list[tuple[str, ...]]) -> None:
    """Store in the index the blames this process made for these keys (for the next process);
    a purge of forgotten text empties the store (a commit subject may quote the text)."""
    from dataclasses import astuple

    withheld = index.forgotten.subject  # never write a subject that quotes forgotten text to disk
    rows = [("\0".join(key[1:]), json.dumps([astuple(replace(b, summary=withheld(b.summary))) for b in found]))
            for key in keys if (found := _BLAMES.get(key)) is not None]
    if not rows or index.stuck:
        return
    try:
        conn = _store(index)
        try:
            with db.transaction(conn):
                if db.one(conn.execute("SELECT count(*) FROM blames"))[0] + len(rows) > BLAMES_STORED:
                    conn.execute("DELETE FROM blames")  # bounded: pages blamed since start over
                conn.executemany("INSERT OR IGNORE INTO blames VALUES(?, ?)", rows)
        finally:
            conn.close()
    except (apsw.Error, OSError, GitmemError):  # read-only, full or busy: the next process blames again
        pass


def drop_kept(index: Index) -> None:
    """Forget every kept blame, in this process and on disk (a purge: a commit subject may quote
    forgotten text, and the commits of an unreachable history go)."""
    with _BLAMES_LOCK:
        _BLAMES.clear()
    if _store_path(index).exists():
        conn = _store(index)
        try:
            conn.execute("DELETE FROM blames")  # secure_delete (db.connect) zeroes the rows' pages
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # and the WAL's older copies go
        finally:
            conn.close()


def _store_path(index: Index) -> Path:
    return index.path.parent / "blames.db"


def _store(index: Index) -> apsw.Connection:
    """blames.db beside the index (db.BLAME_MIGRATIONS): a blame kept there leaves index.db, and
    so what warm processes keep of it, as it was."""
    return db.connect(_store_path(index), db.BLAME_MIGRATIONS, vec=False)


def fill_trailers(nb: Notebook, blames: list[Blame]) -> None:
    """Each blame's `wrote`, from one `git log` of all their commits."""
    wrote = trailers(nb, [b.commit for b in blames if b.commit])
    for b in blames:
        b.wrote = wrote.get(b.commit or "", {})


def trailers(nb: Notebook, oids: list[str]) -> dict[str, dict[str, str]]:
    """What gitmem recorded as having made each commit: its Gitmem-* trailers, as
    {verb, agent, session, client} (empty for a commit gitmem did not make)."""
    found = nb.git.trailers(sorted(set(oids)))
    return {oid: {k[len(TRAILER_PREFIX):].lower(): v for k, v in pairs.items() if k.startswith(TRAILER_PREFIX)}
            for oid, pairs in found.items()}


def _newest(nb: Notebook, blamed: list[Blamed], rev: str | None) -> Blamed:
    """The line whose commit is the latest: by date, and among commits of the same second the
    one the others are ancestors of. Lines from two branches (neither commit holds the other's
    line) first stood together in a merge: that merge, found on the way from one to `rev`."""
    top = max(b.time for b in blamed)
    tied = list({b.commit: b for b in blamed if b.time == top}.values())
    best = tied[0]
    for other in tied[1:]:
        if nb.git.is_ancestor(best.commit, other.commit):
            best = other
    others = {b.commit for b in blamed} - {best.commit}
    if all(nb.git.is_ancestor(o, best.commit) for o in others):
        return best
    for merge in nb.git.descendants(best.commit, rev or "HEAD"):
        if all(nb.git.is_ancestor(o, merge) for o in others):
            c = nb.git.describe(merge)
            return replace(best, commit=c.oid, author=c.author, time=c.time, summary=c.subject)
    return best


def of_text(index: Index, path: str, version: int | None, text: int) -> Origin:
    """The commit that introduced `text` into `path` (as seen at `version`;
    None means the work tree)."""
    conn = index.conn
    if version is None:
        row = conn.execute("""SELECT o.oid FROM versions v INDEXED BY versions_current
                               JOIN origins o ON o.version = v.id
                               WHERE v.path = ? AND v.end_commit IS NULL AND o.text = ?""",
                           (path, text)).fetchone()
    else:
        row = conn.execute("SELECT oid FROM origins WHERE version = ? AND text = ?", (version, text)).fetchone()
    if row is None:
        return _uncommitted(index, path)
    return commit(index, row[0])


def commit(index: Index, oid: str) -> Origin:
    """A commit's id, date, author and subject, from the first-parent chain
    or from the merged branches texts were attributed to."""
    row = index.conn.execute("""SELECT time, author, subject FROM commits WHERE oid = ?
                                UNION ALL SELECT time, author, subject FROM merged WHERE oid = ?""",
                             (oid, oid)).fetchone()
    if row is None:
        described = index.nb.git.describe(oid)
        return Origin(oid, iso(described.time), described.author, described.subject)
    return Origin(oid, iso(row[0]), row[1], row[2])


def _uncommitted(index: Index, path: str) -> Origin:
    try:
        mtime = index.nb.file(path).lstat().st_mtime
    except OSError:
        return Origin(None, None, None, "uncommitted")
    return Origin(None, iso(mtime), None, "uncommitted")


# -- recording (called by the indexer for each commit on the chain) ---------
def record(index: Index, commit: Commit, added: list[tuple[int, str, int | None]],
           deleted: list[int]) -> None:
    """Origins of the texts of the versions `commit` made: (version, path,
    previous version of that path) for each; `deleted` = versions it ended
    by deleting their page."""
    conn = index.conn
    for vid, _path, prev in added:
        conn.execute("""INSERT OR IGNORE INTO origins(version, text, oid, time)
                        SELECT v.id, c.text, coalesce(o.oid, ?), coalesce(o.time, ?)
                          FROM versions v JOIN chunks c ON c.blob = v.blob
                          LEFT JOIN origins o ON o.version = ? AND o.text = c.text
                         WHERE v.id = ?""", (commit.oid, commit.time, prev, vid))
    if deleted and added:
        _carry_moved(index, commit, [vid for vid, _, _ in added], deleted)
    if len(commit.parents) > 1 and added:
        _attribute_merged(index, commit, added)


def fill(index: Index, blob: int) -> None:
    """Origins of a blob's texts in every version that holds it, for chunks made after its
    commits were recorded (a document extracted later): carried from the version before, else
    the commit that made the version."""
    conn = index.conn
    for vid, path, start, oid, ts in conn.execute(
            """SELECT v.id, v.path, v.start_commit, c.oid, c.time FROM versions v
                 JOIN commits c ON c.id = v.start_commit WHERE v.blob = ? ORDER BY c.seq""", (blob,)).fetchall():
        prev = conn.execute("SELECT id FROM versions WHERE path = ? AND end_commit = ?", (path, start)).fetchone()
        conn.execute("""INSERT OR IGNORE INTO origins(version, text, oid, time)
                        SELECT ?, c.text, coalesce(o.oid, ?), coalesce(o.time, ?) FROM chunks c
                          LEFT JOIN origins o ON o.version = ? AND o.text = c.text
                         WHERE c.blob = ?""", (vid, oid, ts, prev[0] if prev else None, blob))


def _carry_moved(index: Index, commit: Commit, added: list[int], deleted: list[int]) -> None:
    """Text new on a page in a commit that deleted a page holding it moved there."""
    gone = ",".join(str(int(v)) for v in deleted)
    for vid in added:
        index.conn.execute(f"""UPDATE origins SET (oid, time) = (
                                   SELECT d.oid, d.time FROM origins d
                                    WHERE d.version IN ({gone}) AND d.text = origins.text
                                    ORDER BY d.time LIMIT 1)
                                WHERE version = ? AND oid = ? AND text IN (
                                   SELECT text FROM origins WHERE version IN ({gone}))""", (vid, commit.oid))


def _attribute_merged(index: Index, merge: Commit, added: list[tuple[int, str, int | None]]) -> None:
    conn = index.conn
    hashes: dict[str, set[str]] = {}
    fresh = {vid: dict(cast(list[tuple[str, int]], conn.execute("""SELECT t.hash, t.id FROM origins o
                                        JOIN texts t ON t.id = o.text
                                        WHERE o.version = ? AND o.oid = ?""", (vid, merge.oid)).fetchall()))
             for vid, _path, _prev in added}
    for side in merge.parents[1:]:
        if not any(fresh.values()):
            return
        states, before = _branch(index, merge.parents[0], side)
        for vid, path, _prev in added:
            repo_path = index.nb.repo_path(path)
            found = _introduced(index, states.get(repo_path, []), before.get(repo_path), set(fresh[vid]), hashes)
            for digest, side_commit in found.items():
                _remember_commit(index, side_commit)
                conn.execute("UPDATE origins SET oid = ?, time = ? WHERE version = ? AND text = ?",
                             (side_commit.oid, side_commit.time, vid, fresh[vid].pop(digest)))


def _branch(index: Index, base: str, side: str) -> tuple[dict[str, list[tuple[Commit, str | None]]],
                                                             dict[str, str]]:
    """A merged branch (side's first-parent chain after it forked from
    `base`): each path's states along it, oldest first, and the blobs before it."""
    git = index.nb.git
    log = list(git.first_parent_log(side, base, index.nb.prefix))
    states: dict[str, list[tuple[Commit, str | None]]] = {}
    for c in log:
        for change in c.changes:
            states.setdefault(change.path, []).append((c, change.oid))
    before = {e.path: e.oid for e in git.tree(log[0].parents[0], index.nb.prefix)} if log and log[0].parents else {}
    return states, before


def _introduced(index: Index, states: list[tuple[Commit, str | None]], before: str | None,
                wanted: set[str], cache: dict[str, set[str]]) -> dict[str, Commit]:
    """For each wanted text hash: the branch commit that put it on the page,
    after which the page held it until the branch's tip."""
    found: dict[str, Commit] = {}
    for digest in wanted if states else ():
        i = len(states) - 1
        if digest not in _hashes(index, states[i][1], cache):
            continue
        while i > 0 and digest in _hashes(index, states[i - 1][1], cache):
            i -= 1
        if i == 0 and digest in _hashes(index, before, cache):
            continue  # older than the branch: the merge brought it back
        found[digest] = states[i][0]
    return found


def _hashes(index: Index, oid: str | None, cache: dict[str, set[str]]) -> set[str]:
    """The text hashes of a blob's chunks, computed in memory (side-branch
    blobs are not stored, so their texts are never embedded for nothing)."""
    from .blobs import parse, text_hash

    if oid is None:
        return set()
    if oid not in cache:
        parsed = parse(index.nb.git.read_blob(oid))
        cache[oid] = {text_hash(body) for _, _, body in index.pieces(parsed)}  # as the index stores them
    return cache[oid]


def _remember_commit(index: Index, c: Commit) -> None:
    index.conn.execute("INSERT OR IGNORE INTO merged(oid, time, author, email, subject) VALUES(?,?,?,?,?)",
                       (c.oid, c.time, c.author, c.email, index.forgotten.subject(c.subject)))
