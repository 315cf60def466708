"""The one gateway to SQLite (apsw, which bundles SQLite with extension loading).

Two databases live in the git dir, never in the work tree:
- index.db (per worktree): blobs, chunks, texts with FTS5, vectors (sqlite-vec),
  the first-parent history of the notebook. Derived data: delete it and the
  next command rebuilds it.
- embeddings.db (shared by all worktrees of a clone): embeddings keyed by
  (model, text hash), so a rebuild, a model switch back, or another worktree
  never recomputes an embedding it already has.
Beside index.db, per worktree: blames.db (whole-page blames kept for the next
process, BLAME_MIGRATIONS) and confidence.db (facts served to an agent).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from ..errors import GitmemError

BUSY_MS = 30_000
# texts_fts's tokenizer as migration 1 made it (a migration's text never changes); log --grep uses it too
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

# Numbered migrations, applied in order and recorded in `migrations`.
MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
    CREATE TABLE blobs(
        id INTEGER PRIMARY KEY, oid TEXT NOT NULL UNIQUE,
        tags TEXT NOT NULL DEFAULT '', type TEXT, private INTEGER NOT NULL DEFAULT 0,
        flags TEXT NOT NULL DEFAULT '', chunked INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE texts(
        id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, body TEXT NOT NULL,
        embedded INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX texts_pending ON texts(id) WHERE embedded = 0;
    CREATE VIRTUAL TABLE texts_fts USING fts5(
        body, content='texts', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2');
    CREATE TABLE chunks(
        id INTEGER PRIMARY KEY, blob INTEGER NOT NULL REFERENCES blobs(id),
        seq INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        heading TEXT NOT NULL DEFAULT '', text INTEGER NOT NULL REFERENCES texts(id));
    CREATE INDEX chunks_blob ON chunks(blob, seq);
    CREATE INDEX chunks_text ON chunks(text);
    CREATE TABLE commits(
        id INTEGER PRIMARY KEY, oid TEXT NOT NULL UNIQUE, seq INTEGER NOT NULL UNIQUE,
        time INTEGER NOT NULL, author TEXT NOT NULL, email TEXT NOT NULL, subject TEXT NOT NULL);
    CREATE TABLE versions(
        id INTEGER PRIMARY KEY, path TEXT NOT NULL, grp TEXT NOT NULL,
        blob INTEGER NOT NULL REFERENCES blobs(id),
        start_commit INTEGER NOT NULL REFERENCES commits(id),
        end_commit INTEGER REFERENCES commits(id));
    CREATE INDEX versions_current ON versions(path) WHERE end_commit IS NULL;
    CREATE INDEX versions_path ON versions(path, start_commit);
    CREATE INDEX versions_blob ON versions(blob);
    CREATE TABLE worktree(
        path TEXT PRIMARY KEY, grp TEXT NOT NULL, blob INTEGER REFERENCES blobs(id),
        mtime REAL) WITHOUT ROWID;
    """),
    # History: where each text on each page version came from (the commit that
    # put it there, carried across edits, renames and merges), commits of merged
    # branches that texts are attributed to, and lookups by commit. Dropping the
    # indexed commit makes the next sync re-derive history and fill `origins`.
    (2, """
    CREATE TABLE origins(
        version INTEGER NOT NULL REFERENCES versions(id),
        text INTEGER NOT NULL REFERENCES texts(id),
        oid TEXT NOT NULL, time INTEGER NOT NULL,
        PRIMARY KEY(version, text)) WITHOUT ROWID;
    CREATE TABLE merged(
        oid TEXT PRIMARY KEY, time INTEGER NOT NULL, author TEXT NOT NULL, email TEXT NOT NULL,
        subject TEXT NOT NULL) WITHOUT ROWID;
    CREATE INDEX versions_start ON versions(start_commit);
    CREATE INDEX versions_end ON versions(end_commit);
    DELETE FROM meta WHERE key = 'commit';
    """),
    # 3: salted hashes of forgotten text the index has purged (see forgotten.py)
    (3, """
    CREATE TABLE forgotten(k INTEGER NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(k, hash)) WITHOUT ROWID;
    """),
    # 4: when a work-tree file was read, kept apart from its real mtime (dates
    # use the mtime; a file read within the same timestamp tick is read again)
    (4, """
    ALTER TABLE worktree ADD COLUMN read_at REAL;
    """),
    # 5: a token renewed whenever a vector changes (vectors_changed), so that a process
    # holding a copy of the vectors (vectors.py) knows when to read them again
    (5, """
    INSERT OR REPLACE INTO meta VALUES('vectors', lower(hex(randomblob(8))));
    """),
    # 6: documents (PDF, DOCX, HTML, text): the page a chunk is on, and each document blob's
    # extraction state (pending until the background worker or a read extracts it; see extracts.py)
    (6, """
    ALTER TABLE chunks ADD COLUMN page INTEGER;
    CREATE TABLE documents(
        blob INTEGER PRIMARY KEY REFERENCES blobs(id), kind TEXT NOT NULL, size INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending', pages INTEGER, note TEXT);
    CREATE INDEX documents_pending ON documents(size) WHERE state = 'pending';
    """),
    # 7: whole-page `git blame` results kept across processes (provenance.py): a cold
    # `git mem recall` blames each result page; a blame at a commit never changes
    (7, """
    CREATE TABLE blames(key TEXT PRIMARY KEY, lines TEXT NOT NULL) WITHOUT ROWID;
    """),
    # 8: facts as retrieval units of their own (indexer.py): each list item, line, table row or
    # short paragraph of a page is a row of `chunks` with fact = 1, its text the fact under its
    # heading path, with its own keyword entry and vector. Changing the stored chunker signature
    # makes the next sync chunk every page again, facts included.
    (8, """
    ALTER TABLE chunks ADD COLUMN fact INTEGER NOT NULL DEFAULT 0;
    UPDATE meta SET value = value || ' +facts' WHERE key = 'chunker';
    """),
    # 12: pages with conflict markers are chunked without their conflicts (neither side is a fact
    # until resolved): chunk them again, and re-derive the history and work tree that held them
    (12, """
    DELETE FROM worktree WHERE EXISTS (SELECT 1 FROM blobs WHERE flags LIKE '%conflict%');
    DELETE FROM meta WHERE key = 'commit' AND EXISTS (SELECT 1 FROM blobs WHERE flags LIKE '%conflict%');
    DELETE FROM chunks WHERE blob IN (SELECT id FROM blobs WHERE flags LIKE '%conflict%');
    UPDATE blobs SET chunked = 0 WHERE flags LIKE '%conflict%';
    """),
    # 13: each page's outgoing links (index/links.py), stored when its blob is chunked, looked up
    # by the target's last name for backlinks; blobs chunked before this are read once more
    # (`linked`), the live ones at the next sync ('links' pending), others when they come back
    (13, """
    CREATE TABLE links(
        blob INTEGER NOT NULL REFERENCES blobs(id), line INTEGER NOT NULL, target TEXT NOT NULL,
        name TEXT NOT NULL, heading TEXT, label TEXT, embed INTEGER NOT NULL DEFAULT 0,
        markdown INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL);
    CREATE INDEX links_blob ON links(blob, line);
    CREATE INDEX links_name ON links(name);
    ALTER TABLE blobs ADD COLUMN linked INTEGER NOT NULL DEFAULT 0;
    INSERT OR REPLACE INTO meta VALUES('links', 'pending');
    """),
    # 14: the roles short texts name ("My daughter Emma", "Product owner is Marcus Bell",
    # index/aliases.py), stored with the text and dropped with it; texts stored before this are
    # read once ('aliases' pending)
    (14, """
    CREATE TABLE aliases(role TEXT NOT NULL, name TEXT NOT NULL, text INTEGER NOT NULL REFERENCES texts(id));
    CREATE INDEX aliases_role ON aliases(role);
    CREATE INDEX aliases_text ON aliases(text);
    CREATE TRIGGER aliases_gone AFTER DELETE ON texts BEGIN DELETE FROM aliases WHERE text = old.id; END;
    INSERT OR REPLACE INTO meta VALUES('aliases', 'pending');
    """),
    # 15: kept blames move to blames.db (BLAME_MIGRATIONS): a read no longer writes index.db
    (15, """
    DROP TABLE IF EXISTS blames;
    """),
]

# Whole-page `git blame` results kept across processes (provenance.py), in a file of their own:
# a warm process that wrote them into index.db moved the index's generation (memo.py), and every
# answer it and other processes kept was dropped, query after query
BLAME_MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE blames(key TEXT PRIMARY KEY, lines TEXT NOT NULL) WITHOUT ROWID;
    """),
]

CACHE_MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE embeddings(
        model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL,
        PRIMARY KEY(model, hash)) WITHOUT ROWID;
    """),
    # 2: text extracted from documents, by blob: shared by worktrees, kept by rebuilds, so a
    # document's content is extracted once, ever. A failure is kept for the limits it met.
    (2, """
    CREATE TABLE extracts(
        oid TEXT NOT NULL, kind TEXT NOT NULL, signature TEXT NOT NULL, pages TEXT NOT NULL,
        failed TEXT, note TEXT, total_pages INTEGER, seconds REAL NOT NULL,
        PRIMARY KEY(oid, kind)) WITHOUT ROWID;
    """),
    # 3: embeddings shared through git (sharing.py): the files of refs/gitmem/embeddings already
    # read (imported, or ignored and why), the text hashes the ref holds per model id, and the
    # ref tips last read
    (3, """
    CREATE TABLE shared_blobs(oid TEXT PRIMARY KEY, model TEXT NOT NULL, note TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE shared(model TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID;
    CREATE TABLE shared_state(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    """),
]


# The notebook now: HEAD's versions overlaid by the work tree's changed files
LIVE_VIEW = """
    SELECT path, grp, blob, id AS version FROM versions
     WHERE end_commit IS NULL AND path NOT IN (SELECT path FROM worktree)
    UNION ALL
    SELECT path, grp, blob, NULL AS version FROM worktree WHERE blob IS NOT NULL
"""


class IndexBusy(GitmemError):
    """Another process holds the index lock longer than the caller can wait."""


class IndexCorrupt(GitmemError):
    """index.db cannot be read; the caller deletes and rebuilds it."""


def is_damage(exc: BaseException) -> bool:
    """Whether an exception means the database file is damaged (not a bug, not a busy lock)."""
    if isinstance(exc, (IndexCorrupt, apsw.CorruptError, apsw.NotADBError)):
        return True
    if isinstance(exc, UnicodeDecodeError):
        return True  # gitmem only ever stores valid UTF-8: a scribbled value
    # sqlite-vec reports a broken chunk of vectors as a plain SQL error
    return isinstance(exc, apsw.SQLError) and "blob read error" in str(exc)


def vec_extension() -> str:
    """Path of the sqlite-vec loadable extension.

    Found without importing the sqlite_vec package: its __init__ imports
    numpy.typing, which costs time on keyword paths and races with the model
    loader importing numpy on its own thread.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise GitmemError("sqlite-vec is not installed", "pip install sqlite-vec")
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def _load_vec(conn: apsw.Connection) -> None:
    conn.enable_load_extension(True)
    conn.load_extension(vec_extension())
    conn.enable_load_extension(False)


# The local record of facts served to an agent (index/confidence.py): a read reinforces
# a fact's confidence without a commit. Per clone, rebuilt from nothing if lost.
CONFIDENCE_MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE reinforced(
        path TEXT NOT NULL, fact TEXT NOT NULL, at REAL NOT NULL,
        PRIMARY KEY(path, fact, at)) WITHOUT ROWID;
    """),
]

def connect(path: Path, migrations: list[tuple[int, str]] = MIGRATIONS, vec: bool = True) -> apsw.Connection:
    """Open (creating if needed) a database, load sqlite-vec, migrate it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = apsw.Connection(str(path))
    try:
        conn.set_busy_timeout(BUSY_MS)
        if vec:
            _load_vec(conn)
        _wal(conn)
        for pragma in ("synchronous=NORMAL", "secure_delete=ON", "foreign_keys=OFF", "temp_store=MEMORY"):
            conn.execute(f"PRAGMA {pragma}")
        migrate(conn, migrations)
    except BaseException as exc:
        conn.close()
        if isinstance(exc, (apsw.CorruptError, apsw.NotADBError)):
            raise IndexCorrupt(f"{path.name} is damaged: {exc}") from exc
        raise
    return conn


def connect_as_is(path: Path) -> apsw.Connection:
    """The index read-only and as it is on disk, for when it cannot be opened for writing (a full
    or read-only disk: SQLite cannot make the WAL's shared-memory file). `immutable` reads the
    main file without locks or a WAL; an index that has one (another process is mid-write) may
    then miss its last changes, which the caller says."""
    from urllib.parse import quote

    conn = apsw.Connection(f"file:{quote(str(path))}?immutable=1",
                           flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        _load_vec(conn)
        conn.execute("SELECT count(*) FROM meta").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def _wal(conn: apsw.Connection) -> None:
    """WAL mode (persistent, so only a new file needs it). Two processes creating the
    file at once can get SQLITE_BUSY here without the busy handler being asked, so retry."""
    deadline = time.monotonic() + BUSY_MS / 1000
    while True:
        try:
            if one(conn.execute("PRAGMA journal_mode"))[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def truncated(path: Path) -> str | None:
    """How a database file looks cut short, if it does: "partial page" (damaged for
    sure) or "short" (the header promises more pages than the file has: damaged,
    or a checkpoint is extending the file right now; quick_check tells which).

    Cheap (one 100-byte read), so it runs on every open."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    if size == 0 or len(header) < 100 or not header.startswith(b"SQLite format 3\0"):
        return None  # new, or not a database at all (SQLite itself says so)
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    if size % page:
        return "partial page"
    pages = int.from_bytes(header[28:32], "big")
    valid = header[92:96] == header[24:28]  # the in-header page count is only valid when these agree
    return "short" if valid and size < pages * page else None


def remove(path: Path) -> None:
    """Delete a database and its WAL files (the next connect starts empty)."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def healthy(path: Path) -> bool:
    """False only if SQLite finds the file damaged. A full integrity check, slow on a big
    index, so only for when something already went wrong; a check that cannot run (a full
    or read-only disk, a busy lock) proves nothing and counts as healthy."""
    try:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    except (apsw.CorruptError, apsw.NotADBError):
        return False
    except apsw.Error:
        return True
    try:
        conn.set_busy_timeout(BUSY_MS)
        return [r[0] for r in conn.execute("PRAGMA integrity_check(1)")] == ["ok"]
    except (apsw.CorruptError, apsw.NotADBError):
        return False
    except apsw.Error:
        return True
    finally:
        conn.close()


def quick_check(conn: apsw.Connection) -> bool:
    try:
        return [r[0] for r in conn.execute("PRAGMA quick_check(1)")] == ["ok"]
    except (apsw.CorruptError, apsw.NotADBError, apsw.IOError, apsw.SQLError):
        return False


def migrate(conn: apsw.Connection, migrations: list[tuple[int, str]]) -> None:
    """Apply the migrations this database has not recorded yet."""
    with transaction(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS migrations(version INTEGER PRIMARY KEY, applied_at REAL)")
        done = {row[0] for row in conn.execute("SELECT version FROM migrations")}
        for version, sql in migrations:
            if version not in done:
                conn.execute(sql)
                conn.execute("INSERT INTO migrations VALUES(?, ?)", (version, time.time()))


@contextmanager
def transaction(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    """One BEGIN IMMEDIATE transaction: committed on success, rolled back on error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        # SQLite may have rolled back already (SQLITE_FULL, SQLITE_IOERR): a second
        # ROLLBACK would raise and hide the real error.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def one(cursor: apsw.Cursor) -> Any:
    """The row of a query that always yields one (count(*), RETURNING, a row the caller knows is
    there). apsw types fetchone() as row-or-None; here no row is a bug, and says so."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the query found no row")
    return row


def get_meta(conn: apsw.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: apsw.Connection, key: str, value: Any) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, None if value is None else str(value)))


def bump_meta(conn: apsw.Connection, key: str, by: int) -> None:
    if by:
        set_meta(conn, key, int(get_meta(conn, key, "0") or 0) + by)


def vectors_changed(conn: apsw.Connection) -> None:
    """Renew the token that says the vectors table changed (see vectors.py)."""
    set_meta(conn, "vectors", os.urandom(8).hex())


def ensure_vectors(conn: apsw.Connection, dim: int) -> None:
    """The vec0 table for embeddings of `dim` dimensions (rowid = texts.id)."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS vectors USING vec0("
                 f"embedding float[{int(dim)}] distance_metric=cosine)")


def has_table(conn: apsw.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None
