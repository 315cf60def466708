"""The record of forgotten text, and purging it from the index.

`git mem forget` takes a fact off its page, but git history still holds every
older version of that page, and the index covers history. So the forgotten
text is recorded, as salted hashes of its words (never the text itself: the
point of forgetting is privacy), in `forgotten` in the common git dir, which
every worktree shares and `git mem rebuild` keeps. The index mirrors the
record in its `forgotten` table; whenever the record has entries the index has
not applied yet, the index purges every chunk text that holds one (FTS rows,
vectors, cached embeddings) and re-chunks the blobs they came from with those
lines blanked. Chunking a blob later (a sync, a rebuild, a revision off the
first-parent chain) blanks them too, so a forgotten line never comes back
from history.

An entry is (k, hash of normalised words), of two kinds:
- a forgotten line (k = -n, its n words): a line whose words are exactly
  these is blanked; a line that merely shares some of its words is not;
- the phrase the user searched for when forgetting by text (k = n >= 2
  words): a line holding these n words in a row is blanked, so the fact is
  caught inside a longer line, a list item or a daily entry.
Commit subjects and message lines are withheld when they hold forgotten text
as above, contain a forgotten line of two words or more, or are gitmem's own
quote of a forgotten fact (`mem: remember FACT`, cut at 60 characters).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..gitops.lock import FileLock, atomic_write
from ..markdown import normalize_fact
from . import chunks, confidence, db, provenance

if TYPE_CHECKING:

    from ..notebook import Notebook
    from .indexer import Index

HEADER = ("# gitmem: salted hashes of forgotten text (see docs/safety.md, Forgetting); "
          "safe to delete after purging history")
WITHHELD = "(subject withheld: it held forgotten text)"
LINE_WITHHELD = "(line withheld: it held forgotten text)"
MIN_PHRASE_WORDS = 2  # one word is too common to blank wherever it appears
SUBJECT_WIDTH = 60  # how much of a fact memory._subject quotes in a commit subject
CUT = "…"  # marks a quote cut short; never one of a line's words, so its hashes stand apart
FACT_PREFIX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?|^## \d{2}:\d{2} — ")
DAILY_TIME = re.compile(r"^## \d{2}:\d{2} — ")
QUOTING = re.compile(r"^mem: (?:remember|daily \d{4}-\d{2}-\d{2}) (?P<fact>.+)$")
Entry = tuple[int, str]  # (-n, hash): a line of n words; (n, hash): a phrase of n words


def words(text: str) -> list[str]:
    """The words of a line as the record sees them (list markers, a daily entry's time
    and punctuation dropped)."""
    return normalize_fact(DAILY_TIME.sub("", text, count=1)).split()


def quoted(fact: str) -> list[str]:
    """The words of a fact as gitmem's commit subject quotes it (`mem: remember FACT`): all of
    them, or, for a fact longer than the subject holds, CUT and the words before the cut."""
    flat = " ".join(FACT_PREFIX.sub("", fact.strip(), count=1).split())
    if len(flat) <= SUBJECT_WIDTH:
        return words(flat)
    kept = words(flat[:SUBJECT_WIDTH - 1].rstrip())[:-1]  # the last word may be cut mid-word
    return [CUT, *kept] if kept else []


@dataclass
class Record:
    """The forgotten-text record of one clone (a small file in the common git dir)."""

    path: Path
    salt: str = ""
    entries: set[Entry] = field(default_factory=set)

    @classmethod
    def load(cls, nb: Notebook) -> Record:
        record = cls(record_path(nb))
        try:
            lines = record.path.read_text(encoding="ascii").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return record
        for line in lines:
            parts = line.split()
            if len(parts) == 2 and parts[0] == "salt":
                record.salt = parts[1]
            elif len(parts) == 3 and parts[0] in ("line", "phrase") and parts[1].isdigit():
                record.entries.add((int(parts[1]) * (-1 if parts[0] == "line" else 1), parts[2]))
            elif len(parts) == 2 and parts[0].isdigit():
                # a record written before lines and phrases were told apart: every entry was
                # matched as a phrase; one word is kept as a line (it blanked too much)
                k = int(parts[0])
                record.entries.add((-k if k == 1 else k, parts[1]))
        return record

    def add(self, lines: Iterable[str], phrase: str | None = None, facts: Iterable[str] = ()) -> int:
        """Record forgotten lines, the phrase searched for (two words or more), and how
        commit subjects quote each forgotten fact; returns how many entries were new."""
        if not self.salt:
            self.salt = secrets.token_hex(16)
        before = len(self.entries)
        lines = list(lines)
        # a learned fact's line also without its annotation: the fact as confidence.db keeps it,
        # and as another version of the line (confirmed later, say) says it
        bare = [text for line in lines if (text := confidence.parse(line)[0]) != line]
        self.entries.update((-len(w), _digest(self.salt, w))
                            for w in [*map(words, lines + bare), *map(quoted, facts)] if w)
        found = words(phrase or "")
        if len(found) >= MIN_PHRASE_WORDS:
            self.entries.add((len(found), _digest(self.salt, found)))
        return len(self.entries) - before

    def data(self) -> bytes:
        """The record file's bytes."""
        body = [HEADER, f"salt {self.salt}"] + [f"{'line' if k < 0 else 'phrase'} {abs(k)} {h}"
                                                for k, h in sorted(self.entries)]
        return ("\n".join(body) + "\n").encode("ascii")

    def save(self) -> None:
        atomic_write(self.path, self.data())

    def matcher(self) -> Matcher:
        return Matcher(self.salt, self.entries)


def record_path(nb: Notebook) -> Path:
    return nb.shared_dir / "forgotten"


def record_lock(nb: Notebook) -> FileLock:
    return FileLock(nb.shared_dir / "forgotten.lock", timeout=60)


def current(nb: Notebook) -> Matcher:
    """The matcher of the record as it is now (what any chunking must blank)."""
    return Record.load(nb).matcher()


def signature(nb: Notebook) -> str:
    """Changes whenever the record file does (what the index compares on every read)."""
    try:
        st = record_path(nb).stat()
    except FileNotFoundError:
        return ""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


class Matcher:
    """Finds lines holding forgotten text, and subjects quoting it."""

    def __init__(self, salt: str, entries: Iterable[Entry]) -> None:
        self.salt = salt
        self.entries = set(entries)
        self.key = (salt, frozenset(self.entries))  # what a page's blanked text depends on (pagetext.py)
        self.phrases = sorted({k for k, _ in self.entries if k > 0})
        self.lines = sorted({-k for k, _ in self.entries if k <= -MIN_PHRASE_WORDS})

    def __bool__(self) -> bool:
        return bool(self.entries)

    def holds(self, line: str) -> bool:
        """Whether a line is a forgotten line (its words exactly, or without a learned fact's
        annotation) or holds a forgotten phrase."""
        found = words(line)
        if self._is(found) or self._runs(found, self.phrases, 1):
            return True
        bare = confidence.parse(line)[0] if "<!--" in line else line
        return bare != line and self._is(words(bare))

    def quotes(self, line: str) -> bool:
        """Whether a commit subject or message line holds, contains or quotes forgotten text."""
        if not self.entries:
            return False
        found = words(line)
        if self._is(found) or self._runs(found, self.phrases, 1) or self._runs(found, self.lines, -1):
            return True
        own = QUOTING.match(line.strip())
        if own is None:
            return False
        fact = own["fact"]
        return self._is(words(fact)) or (fact.endswith(CUT) and self._is([CUT, *words(fact[:-1])[:-1]]))

    def redact(self, text: str) -> str:
        """The text with every line that holds forgotten text blanked (line count kept)."""
        if not self.entries:
            return text
        lines = text.split("\n")
        kept = ["" if self.holds(line) else line for line in lines]
        return text if kept == lines else "\n".join(kept)

    def subject(self, subject: str) -> str:
        return WITHHELD if self.quotes(subject) else subject

    def message(self, message: str) -> str:
        """A commit message with each line that quotes forgotten text withheld (the first as its subject)."""
        if not self.entries:
            return message
        lines = message.split("\n")
        return "\n".join((WITHHELD if i == 0 else LINE_WITHHELD) if self.quotes(line) else line
                         for i, line in enumerate(lines))

    def _is(self, found: list[str]) -> bool:
        return bool(found) and (-len(found), _digest(self.salt, found)) in self.entries

    def _runs(self, found: list[str], sizes: list[int], sign: int) -> bool:
        for k in sizes:
            for i in range(len(found) - k + 1):
                if (sign * k, _digest(self.salt, found[i:i + k])) in self.entries:
                    return True
        return False


def _digest(salt: str, phrase: list[str]) -> str:
    return hashlib.sha256(f"{salt}\0{' '.join(phrase)}".encode("utf-8", "surrogatepass")).hexdigest()


# -- the index side ------------------------------------------------------------------
@dataclass
class Purge:
    texts: int = 0
    vectors: int = 0
    subjects: int = 0
    hashes: list[str] = field(default_factory=list)  # of purged texts and log --grep documents, for the cache
    extracts: int = 0  # cached document texts with lines blanked
    served: int = 0  # records of facts served to an agent (confidence.db) dropped
    states: int = 0  # JSON state files with strings withheld


def sync(index: Index) -> Purge | None:
    """Apply record entries the index has not applied yet (inside the sync transaction).

    Returns what was purged, or None when the index was already up to date with the record."""
    conn, nb = index.conn, index.nb
    sig = signature(nb)
    if (index.meta("forgotten") or "") == sig:
        index.forgotten = current(nb)  # the record as applied (read as this version reads it)
        return None
    record = Record.load(nb)
    applied = {(int(k), h) for k, h in conn.execute("SELECT k, hash FROM forgotten")}
    before = Matcher(db.get_meta(conn, "forgotten_salt") or "", applied)
    if db.get_meta(conn, "forgotten_salt") not in (None, record.salt):
        applied = set()  # a new record (the old one was deleted): start over
        conn.execute("DELETE FROM forgotten")
    new = record.entries - applied
    conn.executemany("DELETE FROM forgotten WHERE k = ? AND hash = ?", list(applied - record.entries))
    conn.executemany("INSERT INTO forgotten(k, hash) VALUES(?, ?)", sorted(new))
    db.set_meta(conn, "forgotten_salt", record.salt)
    db.set_meta(conn, "forgotten", sig)
    index.forgotten = record.matcher()
    return purge(index, Matcher(record.salt, new), before) if new else Purge()


def purge(index: Index, fresh: Matcher, before: Matcher | None = None) -> Purge:
    """Remove every text holding a fresh entry, and re-chunk (blanked) the blobs that held them.
    `before`: what the index blanked until now (how `log --grep` saw the changes it embedded)."""
    conn = index.conn
    done = Purge()
    bad = [(tid, digest, body) for tid, digest, body in conn.execute("SELECT id, hash, body FROM texts")
           if any(fresh.holds(line) for line in body.split("\n"))]
    seen = {tid for tid, _, _ in bad}
    for tid in _split_across_chunks(index, fresh):
        if tid not in seen:
            seen.add(tid)
            bad.append(db.one(conn.execute("SELECT id, hash, body FROM texts WHERE id = ?", (tid,))))
    ids = [tid for tid, _, _ in bad]
    blobs = sorted(chunks.blobs_holding(conn, ids))
    # uncommitted files are re-read from the work tree by the same sync
    conn.executemany("DELETE FROM worktree WHERE blob = ?", [(b,) for b in blobs])
    conn.executemany("DELETE FROM chunks WHERE blob = ?", [(b,) for b in blobs])
    conn.executemany("UPDATE blobs SET chunked = 0 WHERE id = ?", [(b,) for b in blobs])
    provenance.drop_kept(index)  # kept blames carry commit subjects, which may quote the text
    has_vectors = db.has_table(conn, "vectors")
    for tid, digest, body in bad:
        conn.execute("INSERT INTO texts_fts(texts_fts, rowid, body) VALUES('delete', ?, ?)", (tid, body))
        if has_vectors and conn.execute("SELECT 1 FROM vectors WHERE rowid = ?", (tid,)).fetchone():
            conn.execute("DELETE FROM vectors WHERE rowid = ?", (tid,))
            done.vectors += 1
        conn.execute("DELETE FROM texts WHERE id = ?", (tid,))
        done.hashes.append(digest)
    done.texts = len(bad)
    done.hashes.extend(_grep_documents(index, blobs, before or Matcher("", ())))
    if done.vectors:
        db.vectors_changed(conn)
    _rechunk(index, blobs)
    if bad:
        # re-chunked blobs have new text ids, which `origins` does not know: the same sync
        # re-derives history from the indexed commits (every chunk and embedding is reused)
        db.set_meta(conn, "commit", "")
    for table in ("commits", "merged"):  # merged: branch commits that texts are attributed to
        for oid, subject in conn.execute(f"SELECT oid, subject FROM {table}").fetchall():
            if fresh.quotes(str(subject)):
                conn.execute(f"UPDATE {table} SET subject = ? WHERE oid = ?", (WITHHELD, oid))
                done.subjects += 1
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('optimize')")
    done.extracts = _redact_extracts(index, fresh)
    done.served = confidence.forget_served(index.nb, fresh)
    done.states = withhold_in_states(index.nb, fresh)
    return done


def withhold_in_states(nb: Notebook, fresh: Matcher) -> int:
    """Withhold each string of gitmem's JSON state files (consolidate.json: a failed run's reason
    may quote the conversation) and each line of its logs (error.log, hooks.log: an error may
    quote what it was given) that holds or quotes forgotten text; how many files changed."""
    changed = 0
    for path in sorted({*nb.state_dir.glob("*.json"), *nb.state_dir.glob("*.log")}):
        try:
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            data = json.loads(text) if path.suffix == ".json" else text
        except (OSError, ValueError):
            continue
        kept = _withheld(data, fresh) if path.suffix == ".json" else \
            "\n".join(LINE_WITHHELD if fresh.quotes(line) else line for line in text.split("\n"))
        if kept != data:
            atomic_write(path, json.dumps(kept, indent=2).encode() if path.suffix == ".json"
                         else str(kept).encode("utf-8", "surrogateescape"))
            changed += 1
    return changed


def _withheld(value: object, fresh: Matcher) -> object:
    if isinstance(value, str):
        return LINE_WITHHELD if any(fresh.quotes(line) for line in value.split("\n")) else value
    if isinstance(value, list):
        return [_withheld(item, fresh) for item in value]
    if isinstance(value, dict):
        return {key: _withheld(item, fresh) for key, item in value.items()}
    return value


def _redact_extracts(index: Index, fresh: Matcher) -> int:
    """Blank the forgotten lines in the cached text of every document (a removed one included:
    the cache is by blob and outlives the file), in the shared embeddings.db; how many changed."""
    cache = index.cache
    changed = []
    rows = cast(list[tuple[str, str, str]], cache.execute("SELECT oid, kind, pages FROM extracts").fetchall())
    for oid, kind, pages in rows:
        was = json.loads(pages)
        now = [fresh.redact(page) for page in was]
        if now != was:
            changed.append((json.dumps(now), oid, kind))
    if changed:
        with db.transaction(cache):
            cache.executemany("UPDATE extracts SET pages = ? WHERE oid = ? AND kind = ?", changed)
        cache.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # secure_delete zeroes the old pages on disk
    return len(changed)


def _split_across_chunks(index: Index, fresh: Matcher) -> set[int]:
    """Texts of chunks that hold part of a forgotten line which a chunk border cut (a list longer
    than a chunk, a line longer than a chunk): no chunk holds the whole line, so each blob of more
    than one chunk is read whole, and every chunk overlapping a line that holds forgotten text
    counts. A blob only the work tree had is left to the sync that re-reads the work tree."""
    from ..notebook import decode

    conn, git = index.conn, index.nb.git
    found: set[int] = set()
    many = cast(list[tuple[int, str]], conn.execute("SELECT b.id, b.oid FROM blobs b WHERE (SELECT count(*) "
                                                    "FROM chunks c WHERE c.blob = b.id) > 1").fetchall())
    for bid, oid in many:
        data = git.blob_or_none(oid)
        if data is None:
            continue
        hit = [n for n, line in enumerate(decode(data).split("\n"), start=1) if fresh.holds(line)]
        if not hit:
            continue
        for tid, start, end in conn.execute("SELECT text, start_line, end_line FROM chunks WHERE blob = ?", (bid,)):
            if any(start <= n <= end for n in hit):
                found.add(int(tid))
    return found


def _grep_documents(index: Index, blobs: list[int], before: Matcher) -> list[str]:
    """Hashes of what `log --grep` may have embedded (in the shared cache) for the commits that
    changed these blobs: their changed lines as the timeline showed them before this purge."""
    from .blobs import text_hash
    from .diffs import Commit, Differ

    commits: set[int] = set()
    for i in range(0, len(blobs), 500):
        part = blobs[i:i + 500]
        marks = ",".join("?" * len(part))
        commits.update(r[0] for r in index.conn.execute(
            f"""SELECT start_commit FROM versions WHERE blob IN ({marks})
                UNION SELECT end_commit FROM versions WHERE blob IN ({marks}) AND end_commit IS NOT NULL""",
            part + part))
    differ = Differ(index, before)
    docs = [differ.doc(Commit(cid, "", 0, "", "", "", set())) for cid in sorted(commits)]
    return [text_hash(doc) for doc in docs if doc.strip()]


def _rechunk(index: Index, blobs: list[int]) -> None:
    """Chunk again, from git, the blobs that held purged text (blanked this time)."""
    for bid in blobs:
        oid = db.one(index.conn.execute("SELECT oid FROM blobs WHERE id = ?", (bid,)))[0]
        # a blob only the work tree had is re-read from there by the same sync, if it still is
        if index.nb.git.has_object(oid, "blob"):
            index.chunk_blob(oid, None)


def after_purge(index: Index, purged: Purge) -> dict[str, int]:
    """Outside the transaction: drop cached embeddings of purged texts, and every cached embedding
    that neither a text of the index nor a fact a query weighs on its pages as they read now
    (weighed.py) holds: a `log --grep` document's, say, keyed by the hash of a text that may quote
    what was forgotten (any such is embedded again when next asked for); checkpoint both WALs."""
    from . import weighed

    cache_rows = 0
    if purged.hashes:
        cache = index.cache
        held = {digest for (digest,) in index.conn.execute("SELECT hash FROM texts")}
        held.update(weighed.of_blobs(index, weighed.every_blob(index.conn)))  # read with the lines blanked
        with db.transaction(cache):
            for digest in purged.hashes:
                cache_rows += len(cache.execute("DELETE FROM embeddings WHERE hash = ? RETURNING 1",
                                                (digest,)).fetchall())
                cache.execute("DELETE FROM shared WHERE hash = ?", (digest,))  # the ref's record of it
            unheld = [(model, digest) for model, digest in cache.execute("SELECT model, hash FROM embeddings")
                      if digest not in held]
            cache.executemany("DELETE FROM embeddings WHERE model = ? AND hash = ?", unheld)
            cache_rows += len(unheld)
        cache.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    busy = db.one(index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)"))[0]
    return {"cached_embeddings": cache_rows, "wal_busy": int(busy)}


# -- what the index holds, for forget to find a fact's lines in -------------------------------------
def bodies(index: Index, documents: bool = True) -> list[str]:
    """Every chunk text the index holds, every indexed revision included; without `documents`,
    only the texts of notes (a text some document's chunk has is left out)."""
    # a fact row's text repeats lines of a chunk's (indexer.facts): counted once, in its chunk
    chunk = "EXISTS (SELECT 1 FROM chunks c WHERE c.text = t.id AND c.fact = 0)"
    if documents:
        return [body for (body,) in index.conn.execute(f"SELECT body FROM texts t WHERE {chunk}")]
    return [body for (body,) in index.conn.execute(f"""SELECT t.body FROM texts t WHERE {chunk} AND NOT EXISTS (
                                                        SELECT 1 FROM chunks c JOIN documents d ON d.blob = c.blob
                                                         WHERE c.text = t.id)""")]


def document_bodies(index: Index) -> list[tuple[str, str]]:
    """(path, chunk text) of each document the notebook holds now."""
    from .db import LIVE_VIEW

    return cast(list[tuple[str, str]], index.conn.execute(f"""SELECT DISTINCT v.path, t.body FROM ({LIVE_VIEW}) v
                                    JOIN documents d ON d.blob = v.blob JOIN chunks c ON c.blob = v.blob
                                    JOIN texts t ON t.id = c.text""").fetchall())
