"""The record of forgotten text, and purging it from the index.

`git mem forget` takes a fact off its page, but git history still holds every
older version of that page, and the index covers history. So the forgotten
text is recorded, as salted hashes of its words (never the text itself: the
point of forgetting is privacy), in `forgotten` in the common git dir, which
every worktree shares and `git mem rebuild` keeps. The index mirrors the
record in its `forgotten` table; whenever the record has entries the index has
not applied yet, the index purges every chunk text that holds one (FTS rows,
vectors, cached embeddings) and re-chunks the blobs they came from with those
lines blanked. Chunking a blob later (a sync, a rebuild) blanks them too, so a
forgotten line never comes back from history.

An entry is (k, hash of k normalised words). A line is blanked when any run of
k consecutive words in it hashes to an entry, so the fact is caught inside a
longer line, in a list item or a daily entry, and in commit subjects.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import db
from .lock import FileLock, atomic_write
from .pages import normalize_fact

if TYPE_CHECKING:
    import apsw

    from .indexer import Index
    from .notebook import Notebook

HEADER = "# gitmem: salted hashes of forgotten text (see README, Forgetting); safe to delete after purging history"
WITHHELD = "(subject withheld: it held forgotten text)"
Entry = tuple[int, str]


def words(text: str) -> list[str]:
    """The words of a line as the record sees them (list markers and punctuation dropped)."""
    return normalize_fact(text).split()


def worth_recording(text: str) -> bool:
    """A phrase specific enough to blank wherever it appears: two words, or one long one."""
    found = words(text)
    return len(found) >= 2 or (len(found) == 1 and len(found[0]) >= 8)


@dataclass
class Record:
    """The forgotten-text record of one clone (a small file in the common git dir)."""

    path: Path
    salt: str = ""
    entries: set[Entry] = field(default_factory=set)

    @classmethod
    def load(cls, nb: "Notebook") -> "Record":
        record = cls(record_path(nb))
        try:
            lines = record.path.read_text(encoding="ascii").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return record
        for line in lines:
            key, _, value = line.partition(" ")
            if key == "salt":
                record.salt = value.strip()
            elif key.isdigit() and value:
                record.entries.add((int(key), value.strip()))
        return record

    def entry(self, phrase: list[str]) -> Entry:
        return len(phrase), _digest(self.salt, phrase)

    def add(self, texts: Iterable[str]) -> int:
        """Record these phrases (lines, or a searched-for phrase); returns how many were new."""
        if not self.salt:
            self.salt = secrets.token_hex(16)
        before = len(self.entries)
        self.entries.update(self.entry(words(t)) for t in texts if worth_recording(t))
        return len(self.entries) - before

    def save(self) -> None:
        body = [HEADER, f"salt {self.salt}"] + [f"{k} {h}" for k, h in sorted(self.entries)]
        atomic_write(self.path, ("\n".join(body) + "\n").encode("ascii"))

    def matcher(self) -> "Matcher":
        return Matcher(self.salt, self.entries)


def record_path(nb: "Notebook") -> Path:
    return nb.shared_dir / "forgotten"


def record_lock(nb: "Notebook") -> FileLock:
    return FileLock(nb.shared_dir / "forgotten.lock", timeout=60)


def signature(nb: "Notebook") -> str:
    """Changes whenever the record file does (what the index compares on every read)."""
    try:
        st = record_path(nb).stat()
    except FileNotFoundError:
        return ""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


class Matcher:
    """Finds lines holding a recorded phrase."""

    def __init__(self, salt: str, entries: Iterable[Entry]) -> None:
        self.salt = salt
        self.entries = set(entries)
        self.sizes = sorted({k for k, _ in self.entries})

    def __bool__(self) -> bool:
        return bool(self.entries)

    def holds(self, line: str) -> bool:
        found = words(line)
        for k in self.sizes:
            for i in range(len(found) - k + 1):
                if (k, _digest(self.salt, found[i:i + k])) in self.entries:
                    return True
        return False

    def redact(self, text: str) -> str:
        """The text with every line that holds a recorded phrase blanked (line count kept)."""
        if not self.entries:
            return text
        lines = text.split("\n")
        kept = ["" if self.holds(line) else line for line in lines]
        return text if kept == lines else "\n".join(kept)

    def subject(self, subject: str) -> str:
        return WITHHELD if self.entries and self.holds(subject) else subject


def _digest(salt: str, phrase: list[str]) -> str:
    return hashlib.sha256(f"{salt}\0{' '.join(phrase)}".encode("utf-8", "surrogatepass")).hexdigest()


# -- the index side ------------------------------------------------------------------
@dataclass
class Purge:
    texts: int = 0
    vectors: int = 0
    blobs_rechunked: int = 0
    subjects: int = 0
    hashes: list[str] = field(default_factory=list)  # of purged texts, for the embedding cache


def sync(index: "Index") -> Purge | None:
    """Apply record entries the index has not applied yet (inside the sync transaction).

    Returns what was purged, or None when the index was already up to date with the record."""
    conn, nb = index.conn, index.nb
    sig = signature(nb)
    if (index.meta("forgotten") or "") == sig:
        index.forgotten = Matcher(index.meta("forgotten_salt") or "",
                                  ((int(k), h) for k, h in conn.execute("SELECT k, hash FROM forgotten")))
        return None
    record = Record.load(nb)
    applied = {(int(k), h) for k, h in conn.execute("SELECT k, hash FROM forgotten")}
    if db.get_meta(conn, "forgotten_salt") not in (None, record.salt):
        applied = set()  # a new record (the old one was deleted): start over
        conn.execute("DELETE FROM forgotten")
    new = record.entries - applied
    conn.executemany("DELETE FROM forgotten WHERE k = ? AND hash = ?", list(applied - record.entries))
    conn.executemany("INSERT INTO forgotten(k, hash) VALUES(?, ?)", sorted(new))
    db.set_meta(conn, "forgotten_salt", record.salt)
    db.set_meta(conn, "forgotten", sig)
    index.forgotten = record.matcher()
    return purge(index, Matcher(record.salt, new)) if new else Purge()


def purge(index: "Index", fresh: Matcher) -> Purge:
    """Remove every text holding a fresh entry, and re-chunk (blanked) the blobs that held them."""
    conn = index.conn
    done = Purge()
    bad = [(tid, digest, body) for tid, digest, body in conn.execute("SELECT id, hash, body FROM texts")
           if any(fresh.holds(line) for line in body.split("\n"))]
    ids = [tid for tid, _, _ in bad]
    blobs = _blobs_holding(conn, ids)
    # uncommitted files are re-read from the work tree by the same sync
    conn.executemany("DELETE FROM worktree WHERE blob = ?", [(b,) for b in blobs])
    conn.executemany("DELETE FROM chunks WHERE blob = ?", [(b,) for b in blobs])
    conn.executemany("UPDATE blobs SET chunked = 0 WHERE id = ?", [(b,) for b in blobs])
    has_vectors = db.has_table(conn, "vectors")
    for tid, digest, body in bad:
        conn.execute("INSERT INTO texts_fts(texts_fts, rowid, body) VALUES('delete', ?, ?)", (tid, body))
        if has_vectors and conn.execute("SELECT 1 FROM vectors WHERE rowid = ?", (tid,)).fetchone():
            conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
            done.vectors += 1
        conn.execute("DELETE FROM texts WHERE id = ?", (tid,))
        done.hashes.append(digest)
    done.texts = len(bad)
    if done.vectors:
        db.vectors_changed(conn)
    done.blobs_rechunked = _rechunk(index, blobs)
    for cid, subject in conn.execute("SELECT id, subject FROM commits").fetchall():
        if fresh.holds(str(subject)):
            conn.execute("UPDATE commits SET subject = ? WHERE id = ?", (WITHHELD, cid))
            done.subjects += 1
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('optimize')")
    return done


def _blobs_holding(conn: "apsw.Connection", text_ids: list[int]) -> list[int]:
    found: set[int] = set()
    for i in range(0, len(text_ids), 500):
        part = text_ids[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in conn.execute(f"SELECT DISTINCT blob FROM chunks WHERE text IN ({marks})", part))
    return sorted(found)


def _rechunk(index: "Index", blobs: list[int]) -> int:
    """Chunk again, from git, the blobs that held purged text (blanked this time)."""
    from .indexer import SyncReport

    report = SyncReport()
    done = 0
    for bid in blobs:
        oid = index.conn.execute("SELECT oid FROM blobs WHERE id = ?", (bid,)).fetchone()[0]
        # a blob only the work tree had is re-read from there by the same sync, if it still is
        if index.nb.git.has_object(oid, "blob"):
            index._blob(oid, None, report)
            done += 1
    return done


def after_purge(index: "Index", purged: Purge) -> dict[str, int]:
    """Outside the transaction: drop cached embeddings of purged texts and checkpoint both WALs."""
    cache_rows = 0
    if purged.hashes:
        cache = index.cache
        with db.transaction(cache):
            for digest in purged.hashes:
                cache_rows += len(cache.execute("DELETE FROM embeddings WHERE hash = ? RETURNING 1",
                                                (digest,)).fetchall())
        cache.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    busy = index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    return {"cached_embeddings": cache_rows, "wal_busy": int(busy)}
