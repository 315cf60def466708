"""Whole-index jobs: catch up (what hooks run), rebuild, and status."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import apsw

from ..errors import GitmemError
from ..gitops import factmerge, hookrun, hooks, sync
from ..gitops.lock import FileLock
from ..notebook import Notebook
from . import db, embed, embeddings, extracts, sharing
from .blobs import BAD_FRONTMATTER
from .db import LIVE_VIEW
from .indexer import Index, SyncReport, recovering

Progress = Callable[[int, int], None]


@dataclass
class IndexSummary:
    commit: str | None
    commits: int
    blobs_chunked: int
    texts_added: int
    embedded: int
    reused: int
    semantic: bool
    seconds: float
    notes: list[str] = field(default_factory=list)


# `git mem init` embeds at most this many texts of history itself (a notebook's past versions:
# a 20,000-commit notebook of one-line edits took 62 s); beyond it the notebook as it is now is
# embedded, and the hooks' worker embeds its history in the background
HISTORY_AT_INIT = 2_000


@recovering
def catch_up(nb: Notebook, allow_download: bool = False, progress: Progress | None = None,
             wait: float | None = None, indexing: Progress | None = None,
             history_later: int | None = None) -> IndexSummary:
    """Index every new commit and work-tree change, then embed every text
    that has no vector yet (history included; with `history_later`, the history only when at
    most that many of its texts wait, else the background worker is started for it)."""
    started = time.monotonic()
    index = Index(nb)
    loader = embed.Background(embed.resolve(nb.git), allow_download=allow_download)
    try:
        report = index.sync(wait=wait, progress=indexing)
        report.notes.extend(extracts.run(index, wait=wait, sync=report).notes)
        semantic = True
        try:
            embedder = loader.get()
        except embed.ModelUnavailable as exc:
            semantic = False
            report.notes.append(exc.off_note())
        else:
            emb = _embed_all(index, embedder, wait, progress, history_later)
            report.embedded, report.reused = emb.embedded, emb.reused
            report.notes.extend(emb.notes)
            report.notes.extend(_share(index, embedder))
        return _summary(index, report, semantic, started)
    finally:
        index.close()


def _embed_all(index: Index, embedder: embed.Embedder, wait: float | None, progress: Progress | None,
               history_later: int | None) -> SyncReport:
    """Every text's vector; with `history_later`, the notebook now first, then its history if
    at most that many of its texts wait (vectors shared through git adopted first), else a note
    and the background worker."""
    if history_later is None:
        return embeddings.embed(index, embedder, live_only=False, wait=wait, progress=progress)
    now = embeddings.embed(index, embedder, live_only=True, wait=wait, progress=progress)
    waiting = embeddings.waiting(index, embedder)
    if waiting <= history_later:
        rest = embeddings.embed(index, embedder, live_only=False, wait=wait, progress=progress)
        now.embedded, now.reused, now.notes = now.embedded + rest.embedded, now.reused + rest.reused, \
            now.notes + rest.notes
        return now
    started = hookrun.spawn(index.nb.top)
    now.notes.append(f"the notebook as it is now is embedded; {waiting} texts of its history "
                     + ("are being embedded in the background" if started else "are not embedded yet")
                     + " (recall --history finds them by keyword until then; 'git mem index' embeds them "
                     "and waits)")
    return now


def _share(index: Index, embedder: embed.Embedder) -> list[str]:
    """Export the new vectors of committed text into refs/gitmem/embeddings (sharing.py); a
    failure is a note: the index itself is complete."""
    try:
        sharing.export(index, embedder)
    except (GitmemError, apsw.Error, OSError) as exc:
        return [f"embeddings could not be shared in refs/gitmem/embeddings: {exc}"]
    return []


def fetch_model(nb: Notebook | None) -> dict[str, Any]:
    """Load the configured model, downloading a named one if it is not cached yet."""
    spec = embed.resolve(nb.git if nb else None)
    started = time.monotonic()
    embedder = embed.load(spec, allow_download=True)
    return {"name": spec.name, "path": str(spec.path) if spec.path else None, "source": spec.source,
            "dim": embedder.dim, "cache": str(embed.cache_dir()), "seconds": round(time.monotonic() - started, 2)}


def rebuild(nb: Notebook, allow_download: bool = True, progress: Progress | None = None) -> IndexSummary:
    """Drop the index and build it again from git (embeddings come from the cache)."""
    with FileLock(nb.state_dir / "index.lock"):
        db.remove(nb.state_dir / "index.db")
    return catch_up(nb, allow_download=allow_download, progress=progress)


def _summary(index: Index, report: SyncReport, semantic: bool, started: float) -> IndexSummary:
    return IndexSummary(index.meta("commit") or None, report.commits, report.blobs_chunked, report.texts_added,
                        report.embedded, report.reused, semantic, round(time.monotonic() - started, 3),
                        report.notes)


@recovering
def status(nb: Notebook, check_model: bool = True) -> dict[str, Any]:
    """Index health, read-only: counts, indexed commit vs HEAD, model, sizes."""
    index = Index(nb)
    try:
        counts, conflicts = _counts(index), _conflicts(index)
        # a merge that stopped on a conflict is in git before the index has read it: both say the same
        # count ("0 with conflict markers" above a "conflict:" line, a newcomer found)
        counts["conflicted_files"] = max(counts["conflicted_files"], conflicts.pop("files"))
        return {
            "notebook": str(nb.root), "layout": nb.settings.layout,
            "index": _index_state(index), "counts": counts,
            "documents": extracts.summary(index),
            "model": _model_state(nb, index, check_model), "sizes": _sizes(index),
            "hooks": hooks.summary(nb),
            "unparsed_frontmatter": _unparsed(index),
            "conflicts": conflicts,
        }
    finally:
        index.close()


@recovering
def documents(nb: Notebook) -> list[dict[str, Any]]:
    """Every document the notebook holds now, with its extraction state; the index catches up first
    and extracts small pending documents as a read does."""
    index = Index(nb)
    try:
        index.sync(wait=60)
        extracts.run(index, extracts.READ_SECONDS, extracts.READ_BYTES, wait=10.0)
        return extracts.listing(index)
    finally:
        index.close()


def _index_state(index: Index) -> dict[str, Any]:
    git = index.nb.git
    head = git.head()
    indexed = index.meta("commit") or None
    behind: int | None = 0
    if indexed is None and head is None:
        state = "empty"
    elif indexed == head:
        state = "current"
    else:
        state = "stale"
        # None: the indexed commit is not an ancestor of HEAD (reset, rebase).
        behind = git.count(indexed, head) if indexed and head and git.is_ancestor(indexed, head) else None
    dirty = db.one(index.conn.execute("SELECT count(*) FROM worktree"))[0]
    updating = index.lock.held_elsewhere() or hookrun.busy(index.nb.state_dir)
    return {"state": "updating" if updating else state, "head": head,
            "indexed_commit": indexed, "commits_behind": behind, "worktree_changes_indexed": dirty}


def _counts(index: Index) -> dict[str, int]:
    def one(sql: str) -> int:
        return int(db.one(index.conn.execute(sql))[0] or 0)


    return {
        "files": one(f"SELECT count(*) FROM ({LIVE_VIEW})"),
        "chunks": one(f"SELECT count(*) FROM ({LIVE_VIEW}) v JOIN chunks c ON c.blob = v.blob WHERE c.fact = 0"),
        # facts kept as retrieval units of their own (migration 8), beside the chunks
        "facts": one(f"SELECT count(*) FROM ({LIVE_VIEW}) v JOIN chunks c ON c.blob = v.blob WHERE c.fact = 1"),
        "revisions": one("SELECT count(*) FROM commits"),
        "versions": one("SELECT count(*) FROM versions"),
        # chunks summed over every page version: what indexing each revision separately would cost
        "chunks_over_history": one("SELECT count(*) FROM versions v JOIN chunks c ON c.blob = v.blob "
                                   "WHERE c.fact = 0"),
        "blobs": one("SELECT count(*) FROM blobs"),
        "distinct_chunks": one("SELECT count(*) FROM texts"),
        "embedded": one("SELECT count(*) FROM texts WHERE embedded = 1"),
        "pending_embeddings": one("SELECT count(*) FROM texts WHERE embedded = 0"),
        "embeddings_computed": int(index.meta("embeddings_computed", "0") or 0),
        "embeddings_reused": int(index.meta("embeddings_reused", "0") or 0),
        "conflicted_files": one(f"""SELECT count(*) FROM ({LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob
                                    WHERE b.flags LIKE '%conflict%'"""),
    }


def _conflicts(index: Index) -> dict[str, Any]:
    """Pages with conflict markers (their conflicts are not indexed), as the index last saw them and
    as git has them unmerged now, with how many facts conflict in each; and the merge or rebase git
    is in the middle of, if any."""
    nb = index.nb
    rows = cast(list[tuple[str]], index.conn.execute(f"""SELECT v.path FROM ({LIVE_VIEW}) v
                                  JOIN blobs b ON b.id = v.blob
                                  WHERE b.flags LIKE '%conflict%'""").fetchall())
    # repo-relative both (the index keeps notebook-relative paths: a notebook in a folder counted one page twice)
    unmerged = {p for p in sync.unmerged(nb.git) if nb.rel(p) is not None}
    paths = {nb.repo_path(path) for (path,) in rows} | unmerged
    pages = []
    for path in sorted(paths):
        rel = nb.rel(path)
        try:
            facts = len(factmerge.hunks(nb.read(rel if rel is not None else path)))
        except GitmemError:
            facts = 0
        if facts or path in unmerged:  # unmerged with no markers: a merge driver that failed (a git user's run)
            pages.append({"path": path, "facts": facts})
    return {"pages": pages, "in_progress": nb.git.in_progress(), "files": len(paths)}


def _unparsed(index: Index) -> list[str]:
    """Pages (as the index last saw them) whose frontmatter YAML cannot read; those that mention
    private are kept out of the index and the context as private."""
    rows = index.conn.execute(f"""SELECT v.path FROM ({LIVE_VIEW}) v JOIN blobs b ON b.id = v.blob
                                  WHERE b.flags LIKE '%{BAD_FRONTMATTER}%' ORDER BY v.path""")
    return [path for (path,) in rows]


def _model_state(nb: Notebook, index: Index, check: bool) -> dict[str, Any]:
    spec = embed.resolve(nb.git)
    state: dict[str, Any] = {"name": spec.name, "path": str(spec.path) if spec.path else None,
                             "source": spec.source, "indexed_with": index.meta("model")}
    if check:
        try:
            embed.load(spec)
            state["semantic"], state["note"] = True, None
        except embed.ModelUnavailable as exc:
            state["semantic"], state["note"] = False, exc.off_note()
    return state


def _sizes(index: Index) -> dict[str, int]:
    def size(path: Any) -> int:
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += (path.parent / (path.name + suffix)).stat().st_size
            except OSError:
                pass
        return total

    return {"index_bytes": size(index.path), "embedding_cache_bytes": size(index.nb.shared_dir / "embeddings.db")}
