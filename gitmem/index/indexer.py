"""Keep the index in step with git: history, work tree, chunks, embeddings.

Content is keyed the way git keys it. A blob is parsed and chunked once; a
chunk's text is stored once (by hash) however many blobs, paths and revisions
hold it, and is embedded once per model (the embedding cache survives
rebuilds and is shared by worktrees). `versions` records, along HEAD's
first-parent chain, which blob each path held from which commit to which.

Every read calls `Index.sync()`: it compares the indexed commit with HEAD and
the work tree and catches up from the diff. Writers take a file lock; the
flock dies with its process, so a killed indexer never blocks the next one.
"""

from __future__ import annotations

import functools
import os
import stat
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import apsw

from ..blocks import units
from ..errors import GitmemError, PathOutside, from_machine
from ..gitops import factmerge
from ..gitops.git import blob_id
from ..gitops.lock import FileLock
from ..gitops.log import Change, Commit
from ..markdown import body_offset
from ..notebook import Notebook
from . import aliases, chunker, db, extracts, forgotten, links, memo, provenance, unreachable
from .blobs import Parsed, parse, text_hash
from .db import IndexBusy

T = TypeVar("T")
READ_AHEAD = 256  # a commit's changes whose blobs are read from git in one go (at most 64 MB: see _read_ahead)
RACY_SECONDS = 2.0  # coarser than any filesystem's timestamp tick (FAT and HFS+ count in 1-2 s)
# A reader that finds the index never built (a rebuild or another first build holds the lock)
# has nothing to answer from, so it waits this long rather than the usual few seconds.
FIRST_BUILD_WAIT = 600.0


@dataclass
class SyncReport:
    commits: int = 0
    blobs_chunked: int = 0
    texts_added: int = 0
    embedded: int = 0
    reused: int = 0
    facts_embedded: int = 0  # facts search weighs that are no text of the index (weighed.py)
    waited: bool = False
    stale: bool = False
    notes: list[str] = field(default_factory=list)
    purged: dict[str, int] | None = None  # what forgotten text was purged by this sync
    unreachable: int = 0  # texts dropped because only revisions no ref reaches held them


class Index:
    """The derived SQLite index of one notebook (one worktree)."""

    def __init__(self, nb: Notebook, as_is: bool = False) -> None:
        """as_is: a reader that can answer from the index as it stands when the disk cannot take
        a write (full, read-only): it then opens read-only and `sync` notes that instead of failing."""
        self.nb = nb
        self.path = nb.state_dir / "index.db"
        self.lock = FileLock(nb.state_dir / "index.lock")
        self.as_is = as_is
        self.stuck: str | None = None  # why the index cannot be brought up to date (as_is readers)
        self.conn = self._open_as_is() if as_is else self._open()
        self._cache: apsw.Connection | None = None
        self._kept: tuple[int, dict[Hashable, dict[Any, Any]]] | None = None
        self.forgotten = forgotten.current(nb)  # whatever chunks a blob must blank forgotten text

    def _open(self) -> apsw.Connection:
        conn = None
        try:
            conn = db.connect(self.path)
            conn.execute("SELECT count(*) FROM meta").fetchone()
            cut = db.truncated(self.path)
            if cut == "partial page" or (cut == "short" and not db.quick_check(conn)):
                raise db.IndexCorrupt(f"{self.path.name} is truncated")
            return conn
        except (db.IndexCorrupt, apsw.CorruptError, apsw.NotADBError, apsw.SQLError):
            if conn is not None:
                conn.close()
            discard(self.nb)
            return db.connect(self.path)

    def _open_as_is(self) -> apsw.Connection:
        try:
            return self._open()
        except Exception as exc:
            machine = from_machine(exc)
            if machine is None or "busy" in machine.message or not self.path.is_file():
                raise
            try:
                conn = db.connect_as_is(self.path)
            except apsw.Error:
                raise exc from None  # not readable either: the first failure says what is wrong
            self.stuck = self._why(machine.message)
            return conn

    def _why(self, message: str) -> str:
        """A machine failure as the user should hear it: SQLite reports a full disk as an I/O
        error when it cannot size its shared-memory file."""
        try:
            st = os.statvfs(self.nb.state_dir)
        except OSError:
            return message
        return "the disk is full" if st.f_bavail * st.f_frsize < 1 << 16 else message

    def close(self) -> None:
        self.conn.close()
        if self._cache is not None:
            self._cache.close()

    @property
    def cache(self) -> apsw.Connection:
        if self._cache is None:
            try:
                self._cache = db.connect(self.nb.shared_dir / "embeddings.db", db.CACHE_MIGRATIONS, vec=False)
            except db.IndexCorrupt:
                db.remove(self.nb.shared_dir / "embeddings.db")
                self._cache = db.connect(self.nb.shared_dir / "embeddings.db", db.CACHE_MIGRATIONS, vec=False)
        return self._cache

    def reload_forgotten(self) -> None:
        """Read again what was forgotten; called under the write lock, as a forget may just have landed."""
        self.forgotten = forgotten.current(self.nb)

    def meta(self, key: str, default: str | None = None) -> str | None:
        return db.get_meta(self.conn, key, default)

    def kept(self, kind: Hashable, most: int = memo.MAX_ENTRIES) -> dict[Any, Any]:
        """Answers of one kind this process keeps while the index stays as it is (see memo.py):
        asked for once per Index, and again after this Index wrote (a catch-up). A reader that
        answers from the file as it is on disk (`stuck`: no WAL read) keeps nothing."""
        changes = self.conn.total_changes()
        if self._kept is None or changes != self._kept[0]:
            self._kept = (changes, memo.kept(self.path) if self.stuck is None else {})
        return memo.of(self._kept[1], kind, most)

    def lock_or_stale(self, wait: float | None, report: SyncReport, busy: str) -> bool:
        """Take the write lock; if another process holds it past `wait` s, mark the report stale,
        saying `busy`, and return False (the caller answers from the index as it stands)."""
        if self.lock.acquire(timeout=wait):
            return True
        report.stale = True
        report.notes.append(busy)
        return False

    # -- catching up -----------------------------------------------------
    def sync(self, wait: float | None = 10.0, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Bring history and work tree up to date (no embedding).

        If another process holds the lock longer than `wait` seconds, answer
        from the index as it stands and say so (report.stale)."""
        started = time.monotonic()
        report = SyncReport()
        if self.stuck is None:
            try:
                return self._sync(wait, started, report, progress)
            except Exception as exc:
                machine = from_machine(exc) if self.as_is else None
                if machine is None or "busy" in machine.message:
                    raise
                self.stuck = self._why(machine.message)
        report.stale = True
        report.notes.append(f"the index could not be brought up to date ({self.stuck}), so this answer comes from "
                            "the index as it is and may miss recent changes; free space in the git dir (or make it "
                            "writable), then run 'git mem index'")
        return report

    def _sync(self, wait: float | None, started: float, report: SyncReport,
              progress: Callable[[int, int], None] | None) -> SyncReport:
        head = self.nb.git.head()
        work = self._scan_worktree()
        if self._current(head, work):
            return report
        asked = time.monotonic()
        if wait is not None and self.meta("commit") is None:
            wait = max(wait, FIRST_BUILD_WAIT)
        if not self.lock_or_stale(wait, report, "index is being updated by another process; results may be behind"):
            return report
        try:
            # waited for the lock (not for our own git status: on a loaded machine that alone took
            # longer, and every catch-up ran git status twice)
            report.waited = time.monotonic() - asked > 0.05
            with db.transaction(self.conn):
                rechunk = self.meta("chunker") not in (None, self.nb.settings.chunker_signature())
                self._check_signature()
                purge = forgotten.sync(self)
                if aliases.pending(self):
                    aliases.fresh(self)
                head = self.nb.git.head()
                before = self._sync_history(head, report, progress) if self.meta("commit") != (head or "") else {}
                # after a wait, another process may have changed the work tree meanwhile
                self._sync_worktree(self._scan_worktree() if report.waited else work, report)
                links.fill(self)  # live pages whose links were never read (indexed before links were)
                if aliases.pending(self):
                    aliases.fill(self)  # texts stored before their roles were
                if before:
                    report.unreachable = unreachable.purge(self, before)
                if rechunk:
                    self._drop_unused_texts()
            if report.unreachable:  # secure_delete zeroed the pages: put them in the file, empty the WAL
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            if purge is not None and purge.texts:
                report.purged = {"texts": purge.texts, "vectors": purge.vectors, "subjects": purge.subjects,
                                 **forgotten.after_purge(self, purge)}
        finally:
            self.lock.release()
        return report

    def _current(self, head: str | None, work: dict[str, tuple[float, int] | None]) -> bool:
        s = self.nb.settings
        if self.meta("commit") != (head or "") or self.meta("chunker") != s.chunker_signature() \
                or self.meta("layout") != s.layout_signature():
            return False
        if (self.meta("forgotten") or "") != forgotten.signature(self.nb) or links.pending(self) \
                or aliases.pending(self):
            return False
        rows = self._worktree_rows()
        return rows.keys() == work.keys() and all(_unchanged(rows[p], work[p]) for p in rows)

    def _worktree_rows(self) -> dict[str, tuple[float | None, float | None]]:
        return {p: (m, r) for p, m, r in self.conn.execute("SELECT path, mtime, read_at FROM worktree")}

    def _drop_unused_texts(self) -> None:
        """After every page was chunked again (new chunking rules), drop the texts no chunk holds
        any more, such as a page's that is private under the new rules."""
        conn = self.conn
        unused = conn.execute("SELECT id, body FROM texts WHERE id NOT IN (SELECT text FROM chunks)").fetchall()
        has_vectors = db.has_table(conn, "vectors")
        for tid, body in unused:
            conn.execute("INSERT INTO texts_fts(texts_fts, rowid, body) VALUES('delete', ?, ?)", (tid, body))
            if has_vectors:
                conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
            conn.execute("DELETE FROM texts WHERE id = ?", (tid,))
        if unused and has_vectors:
            db.vectors_changed(conn)

    def _check_signature(self) -> None:
        """Different chunking settings: forget every chunk (texts and vectors stay).
        Different notes or groups (path, include, group patterns): re-derive the
        history and the work-tree overlay, reusing every chunk."""
        s = self.nb.settings
        chunker, layout = s.chunker_signature(), s.layout_signature()
        if self.meta("chunker") not in (None, chunker):
            self.conn.execute("DELETE FROM chunks")
            self.conn.execute("UPDATE blobs SET chunked = 0")
        if self.meta("chunker") not in (None, chunker) or self.meta("layout") not in (None, layout):
            db.set_meta(self.conn, "commit", "")
            self.conn.execute("DELETE FROM worktree")
        db.set_meta(self.conn, "chunker", chunker)
        db.set_meta(self.conn, "layout", layout)

    def _sync_history(self, head: str | None, report: SyncReport,
                      progress: Callable[[int, int], None] | None = None) -> dict[int, set[str]]:
        """Bring the history up to HEAD; when HEAD moved other than fast-forward, the blobs the
        old history held, by the commits that brought them (see unreachable.py)."""
        indexed = self.meta("commit") or None
        git = self.nb.git
        fast_forward = False
        if indexed and head and git.has_object(indexed):
            chain = git.first_parents(indexed, head)
            fast_forward = bool(chain) and git.parents(chain[0])[:1] == [indexed]
        before = unreachable.history_blobs(self) if not fast_forward and indexed else {}
        if not fast_forward:
            self.conn.execute("DELETE FROM versions")
            self.conn.execute("DELETE FROM commits")
            self.conn.execute("DELETE FROM origins")
        if head:
            log = git.first_parent_log(head, indexed if fast_forward else None, self.nb.prefix)
            commits = list(log) if progress else log  # counted only for a progress bar
            for done, commit in enumerate(commits, start=1):
                self._apply(commit, report)
                if progress and isinstance(commits, list):
                    progress(done, len(commits))
        db.set_meta(self.conn, "commit", head or "")
        return before

    def _apply(self, commit: Commit, report: SyncReport) -> None:
        seq = (db.one(self.conn.execute("SELECT max(seq) FROM commits"))[0] or 0) + 1
        cid = db.one(self.conn.execute(
            "INSERT INTO commits(oid, seq, time, author, email, subject) VALUES(?,?,?,?,?,?) RETURNING id",
            (commit.oid, seq, commit.time, commit.author, commit.email,
             self.forgotten.subject(commit.subject))))[0]
        report.commits += 1
        added: list[tuple[int, str, int | None]] = []
        deleted: list[int] = []
        indexed = [(change, rel, extracts.kind_of(self.nb, rel)) for change in commit.changes
                   if (rel := self.nb.rel(change.path)) is not None and self._indexable(rel)]
        ahead: dict[str, bytes] = {}
        for n, (change, rel, kind) in enumerate(indexed):
            if n % READ_AHEAD == 0:
                ahead = self._read_ahead(indexed[n:n + READ_AHEAD])
            # by the partial index of current versions: SQLite's planner took versions_path, which
            # walks every past version of the page, so each commit cost more than the one before
            # (a page edited in 20,000 commits: 10.7 s in this lookup, 0.02 s by this index)
            prev = self.conn.execute("SELECT id FROM versions INDEXED BY versions_current WHERE path = ? "
                                     "AND end_commit IS NULL", (rel,)).fetchone()
            self.conn.execute("UPDATE versions INDEXED BY versions_current SET end_commit = ? WHERE path = ? "
                              "AND end_commit IS NULL", (cid, rel))
            if change.oid:
                blob = self.chunk_blob(change.oid, ahead.pop(change.oid, None), report, kind)
                vid = db.one(self.conn.execute(
                    "INSERT INTO versions(path, grp, blob, start_commit) VALUES(?,?,?,?) RETURNING id",
                    (rel, self.nb.settings.group_of(rel), blob, cid)))[0]
                added.append((vid, rel, prev[0] if prev else None))
            elif prev:
                deleted.append(prev[0])
        provenance.record(self, commit, added, deleted)

    def _read_ahead(self, changes: Sequence[tuple[Change, str, str | None]]) -> dict[str, bytes]:
        """The bytes of the notes (not documents: a kind) among `changes` (change, path, kind) not
        chunked yet, read from git in one go (a commit of a few pages is read as before, one blob
        at a time)."""
        oids = [change.oid for change, _, kind in changes if change.oid and not kind]
        if len(oids) < 8:
            return {}
        marks = ",".join("?" * len(oids))
        done = {r[0] for r in self.conn.execute(f"SELECT oid FROM blobs WHERE chunked = 1 AND oid IN ({marks})",
                                                oids)}
        return self.nb.git.read_blobs([o for o in oids if o not in done], largest=1 << 18)

    def _indexable(self, rel: str) -> bool:
        """A note or document whose name SQLite can store: a name that is not UTF-8 is left out of the index."""
        if not self.nb.settings.is_indexed(rel):
            return False
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True

    def _scan_worktree(self) -> dict[str, tuple[float, int] | None]:
        """Notes that differ from HEAD: (mtime, size) for a file, None if deleted."""
        found: dict[str, tuple[float, int] | None] = {}
        for repo_path in self.nb.git.status(self.nb.prefix):
            rel = self.nb.rel(repo_path)
            if rel is None or not self._indexable(rel):
                continue
            try:
                st = self.nb.file(rel).lstat()
            except (FileNotFoundError, NotADirectoryError):
                found[rel] = None
                continue
            # A symlink or special file is never followed or indexed.
            found[rel] = (st.st_mtime_ns / 1e9, st.st_size) if stat.S_ISREG(st.st_mode) else None
        return found

    def _sync_worktree(self, work: dict[str, tuple[float, int] | None], report: SyncReport) -> None:
        known = self._worktree_rows()
        for rel in known.keys() - work.keys():
            self.conn.execute("DELETE FROM worktree WHERE path = ?", (rel,))
        for rel, info in work.items():
            if info is not None and rel in known and _unchanged(known[rel], info):
                continue
            blob = None
            kind = extracts.kind_of(self.nb, rel)
            if info is not None and kind and info[1] > self.nb.settings.doc_max_bytes:
                blob = self.chunk_blob(f"{extracts.OVERSIZE}{info[1]}", None, report, kind)  # never read
            elif info is not None:
                try:
                    data = self.nb.read_bytes(rel)
                except PathOutside:  # became a symlink since the scan: never followed
                    data = None
                if data is None:
                    info = None
                else:
                    blob = self.chunk_blob(blob_id(data), data, report, kind)
            self.conn.execute(
                "INSERT OR REPLACE INTO worktree(path, grp, blob, mtime, read_at) VALUES(?,?,?,?,?)",
                (rel, self.nb.settings.group_of(rel), blob, info[0] if info else None, time.time()))

    def add_blobs(self, oids: list[str], wait: float | None = 10.0,
                  kinds: dict[str, str | None] | None = None) -> dict[str, int]:
        """Row ids of these blobs, chunking any not seen yet (for revisions off
        the indexed first-parent chain); `kinds`: the document kind of a blob, if it is one."""
        known = {oid: bid for oid in oids for (bid,) in self.conn.execute(
            "SELECT id FROM blobs WHERE oid = ? AND chunked = 1", (oid,))}
        missing = [oid for oid in oids if oid not in known]
        if missing:
            if not self.lock.acquire(timeout=wait):
                raise IndexBusy("the index is being updated by another process", "try again in a moment")
            try:
                with db.transaction(self.conn):
                    self.reload_forgotten()
                    report = SyncReport()
                    known.update({oid: self.chunk_blob(oid, None, report, (kinds or {}).get(oid))
                                  for oid in missing})
            finally:
                self.lock.release()
        return known

    # -- blobs, chunks, texts ---------------------------------------------
    def chunk_blob(self, oid: str, data: bytes | None, report: SyncReport | None = None,
                   kind: str | None = None) -> int:
        """The row id of a blob, chunking it if this is the first time it is seen.
        `kind`: the document kind (pdf, docx, html, txt) of the path it was met at, if any."""
        report = SyncReport() if report is None else report
        row = self.conn.execute("SELECT id, chunked FROM blobs WHERE oid = ?", (oid,)).fetchone()
        if row and row[1]:
            return int(row[0])
        kind = kind or (extracts.blob_kind(self, row[0]) if row else None)
        if kind:
            return extracts.add(self, oid, kind, data, row, report)
        if data is None:
            data = self.nb.git.read_blob(oid)
        parsed = parse(data)
        if row:
            bid = int(row[0])
            self.conn.execute("UPDATE blobs SET tags=?, type=?, private=?, flags=?, chunked=1 WHERE id=?",
                              (parsed.tags, parsed.type, parsed.private, parsed.flags, bid))
        else:
            bid = db.one(self.conn.execute(
                "INSERT INTO blobs(oid, tags, type, private, flags, chunked) VALUES(?,?,?,?,?,1) RETURNING id",
                (oid, parsed.tags, parsed.type, parsed.private, parsed.flags)))[0]
        report.blobs_chunked += 1
        links.store(self.conn, bid, links.linkable(self, parsed))
        spans, seq = set(), -1
        for seq, piece, body in self.pieces(parsed):
            tid = self.text_row(body, report)
            self.conn.execute(
                "INSERT INTO chunks(blob, seq, start_line, end_line, heading, text) VALUES(?,?,?,?,?,?)",
                (bid, seq, piece.start_line, piece.end_line, piece.heading, tid))
            spans.add((piece.start_line, piece.end_line))
        for n, (start, end, heading, body) in enumerate(self.facts(parsed, spans), start=seq + 1):
            self.conn.execute(
                "INSERT INTO chunks(blob, seq, start_line, end_line, heading, text, fact) VALUES(?,?,?,?,?,?,1)",
                (bid, n, start, end, heading, self.text_row(body, report)))
        return bid

    def facts(self, parsed: Parsed, chunks: set[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
        """(start, end, heading, text) of each fact of a page kept as a retrieval unit of its own
        (blocks.units: a list item, line, table row or short paragraph under its heading path),
        so that a one-line fact on a long page is found by a question in other words; none of a
        private or binary page, forgotten lines and conflicts blanked, none that is all a chunk holds."""
        if parsed.private or "binary" in parsed.flags:
            return []
        text = self.forgotten.redact(parsed.text)
        if "conflict" in parsed.flags:  # as in pieces: neither side of a conflict is a fact yet
            text = factmerge.blank_conflicts(text)
        found = units(text)
        alone = set()  # a fact that is all a chunk says: the chunk is its unit already
        for lo, hi in chunks:
            inside = [(start, end) for start, end, _, _ in found if lo <= start and end <= hi]
            if len(inside) == 1:
                alone.add(inside[0])
        return [(start, end, heading, body) for start, end, heading, body in found
                if (start, end) not in chunks and (start, end) not in alone]

    def pieces(self, parsed: Parsed) -> Iterator[tuple[int, chunker.Chunk, str]]:
        """(seq, chunk, stored text) of each chunk of a blob the index keeps: none of a private
        or binary one, forgotten lines and conflicts (markers and both sides) blanked (even in
        history), blank chunks left out."""
        if parsed.private or "binary" in parsed.flags:
            return
        s = self.nb.settings
        # blanked in the whole text before it is cut: a forgotten line is whole here, wherever
        # a chunk border would fall (mid-list, or inside a line longer than a chunk)
        text = self.forgotten.redact(parsed.text)
        if "conflict" in parsed.flags:  # an unresolved merge: neither side of a conflict is a fact yet
            text = factmerge.blank_conflicts(text)
        body = parsed.body if text is parsed.text else body_offset(text)
        for seq, piece in enumerate(chunker.chunk(text, s.max_chars, s.overlap_chars, body)):
            if piece.text.strip():
                yield seq, piece, piece.text

    def text_row(self, body: str, report: SyncReport | None = None) -> int:
        """The id of a chunk text, stored (with its FTS row) if new."""
        digest = text_hash(body)
        row = self.conn.execute("SELECT id FROM texts WHERE hash = ?", (digest,)).fetchone()
        if row:
            return int(row[0])
        tid = db.one(self.conn.execute("INSERT INTO texts(hash, body) VALUES(?, ?) RETURNING id",
                                       (digest, body)))[0]
        self.conn.execute("INSERT INTO texts_fts(rowid, body) VALUES(?, ?)", (tid, body))
        aliases.store(self.conn, tid, body)
        if report is not None:
            report.texts_added += 1
        return int(tid)


def _unchanged(row: tuple[float | None, float | None], info: tuple[float, int] | None) -> bool:
    """Whether a work-tree file is as it was when the index read it.

    A file read less than RACY_SECONDS after it was modified could have changed
    again within the same filesystem timestamp tick without its mtime moving
    ("racily clean", as git calls it), so it is read again."""
    mtime, read_at = row
    if info is None or mtime is None:
        return info is None and mtime is None
    return mtime == info[0] and read_at is not None and read_at - mtime >= RACY_SECONDS


def recovering(action: Callable[..., T]) -> Callable[..., T]:
    """Decorate a function of (nb, ...) that reads the index: if it finds the
    index damaged, the index is dropped and the function runs once more."""
    @functools.wraps(action)
    def run(nb: Notebook, *args: Any, **kwargs: Any) -> T:
        try:
            return action(nb, *args, **kwargs)
        except Exception as exc:
            expected = isinstance(exc, GitmemError) and not isinstance(exc, db.IndexCorrupt)
            if expected or from_machine(exc) is not None:
                raise
            # anything else may be silent damage (a scribbled page): ask SQLite
            if not db.is_damage(exc) and db.healthy(nb.state_dir / "index.db"):
                raise
        discard(nb)
        return action(nb, *args, **kwargs)

    return run


def discard(nb: Notebook) -> None:
    """Drop a damaged index (under the lock if it can be had); the next open starts afresh."""
    lock = FileLock(nb.state_dir / "index.lock")
    held = lock.acquire(timeout=10)
    try:
        db.remove(nb.state_dir / "index.db")
    finally:
        if held:
            lock.release()
