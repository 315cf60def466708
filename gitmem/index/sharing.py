"""Embeddings that travel with the notebook: vectors of committed text are exported into
refs/gitmem/embeddings (gitops/vectorref.py, format vecfile.py), and vectors found there are
imported into the embedding cache before anything is embedded, so a fresh clone computes only
what nobody computed before.

Trust: the ref comes from a clone, so a file is used only when it is well formed and says it
holds vectors of the very model configured here (an id from the model's files, not its path) of
the right dimension; anything else is ignored and remembered as ignored. A vector is looked up by
the hash of the text being embedded, so a record whose hash no text has is never used.

What is exported: vectors of texts of committed, non-private pages (the index's history) and of
the facts a query weighs on them (weighed.py), never of uncommitted or private text. Off with
`git config mem.shareEmbeddings false` (import stays on).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from ..gitops import vectorref
from . import db, vecfile, weighed

if TYPE_CHECKING:
    from .embed import Embedder
    from .indexer import Index

SHARE_KEY = "mem.shareEmbeddings"
SHARD_FILES = 4  # a shard holding more files than this is compacted into one when it next grows
MODEL_FILES = ("tokenizer.json", "1_Pooling/config.json", "modules.json", "sentence_bert_config.json", "config.json")

# texts of committed, non-private page versions that have a vector (EXISTS: a join over every
# version of the history read 1.0-1.6 s at 10k chunks under load, this 0.2 s)
EXPORTABLE = """
    SELECT t.hash FROM texts t WHERE t.embedded = 1 AND EXISTS (
        SELECT 1 FROM chunks c JOIN blobs b ON b.id = c.blob AND b.private = 0
         WHERE c.text = t.id AND EXISTS (SELECT 1 FROM versions v WHERE v.blob = c.blob))
"""

_fingerprints: dict[tuple[str, ...], str] = {}


def model_id(embedder: Embedder) -> str:
    """The model's identity across machines: a named model by name, a local folder by a hash of
    the files that decide its vectors (its path differs from clone to clone); and the input cut."""
    spec = embedder.spec
    base = f"name:{spec.name}" if spec.path is None else f"onnx-sha256:{_fingerprint(spec.path)}"
    return base + (f"@{embedder.max_tokens}" if embedder.max_tokens else "")


def _fingerprint(folder: Path) -> str:
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.onnx")) + list(MODEL_FILES)
    present = [folder / name for name in names if (folder / name).is_file()]
    key = tuple(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in present)
    if key not in _fingerprints:
        digest = hashlib.sha256()
        for path in present:
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        _fingerprints[key] = digest.hexdigest()[:32]
    return _fingerprints[key]


def folder_of(model: str) -> str:
    """The ref's folder for a model's files."""
    return hashlib.sha256(model.encode()).hexdigest()[:16]


def enabled(index: Index) -> bool:
    """Whether this clone exports (git config mem.shareEmbeddings, on unless set false)."""
    value = (index.nb.git.config_get(SHARE_KEY) or "true").strip().lower()
    return value not in ("false", "no", "off", "0")


def adopt(index: Index, embedder: Embedder) -> int:
    """Read the files of the ref (and of its remote-tracking copies) not read before into the
    embedding cache; how many vectors were new. One git call when nothing moved."""
    git = index.nb.git
    tips = vectorref.tips(git)
    if not tips:
        return 0
    model = model_id(embedder)
    seen = f"{embedder.dim} " + " ".join(sorted(tips.values()))
    if _state(index, f"tips {model}") == seen:
        return 0
    listing = vectorref.files(git, sorted(set(tips.values())), folder_of(model))
    known = {row[0] for row in index.cache.execute("SELECT oid FROM shared_blobs")}
    new = [oid for oid in dict.fromkeys(listing.values()) if oid not in known]
    added = 0
    for oid, data in vectorref.read(git, new):
        content = vecfile.decode(data)
        why = _unusable(content, model, embedder.dim)
        rows = content.vectors if content is not None and why is None else {}
        with db.transaction(index.cache):
            before = index.cache.total_changes()
            index.cache.executemany("INSERT OR IGNORE INTO embeddings VALUES(?, ?, ?)",
                                    [(embedder.key, h, v) for h, v in rows.items()])
            added += index.cache.total_changes() - before
            index.cache.executemany("INSERT OR IGNORE INTO shared VALUES(?, ?)", [(model, h) for h in rows])
            index.cache.execute("INSERT OR REPLACE INTO shared_blobs VALUES(?, ?, ?)",
                                (oid, model, why or f"{len(rows)} vectors"))
    with db.transaction(index.cache):
        index.cache.execute("INSERT OR REPLACE INTO shared_state VALUES(?, ?)", (f"tips {model}", seen))
    return added


def _unusable(content: vecfile.VecFile | None, model: str, dim: int) -> str | None:
    """Why a file of the ref is ignored, or None."""
    if content is None:
        return "ignored: not a well-formed embeddings file"
    if content.model != model:
        return f"ignored: vectors of another model ({content.model[:80]})"
    if content.dim != dim:
        return f"ignored: {content.dim} dimensions, the model has {dim}"
    return None


def _state(index: Index, key: str) -> str | None:
    row = index.cache.execute("SELECT value FROM shared_state WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def export(index: Index, embedder: Embedder) -> int:
    """Add the vectors of committed text the ref does not hold yet (one commit); how many."""
    if not enabled(index) or index.meta("model") != embedder.key:
        return 0
    model = model_id(embedder)
    # nothing to look for unless a commit was indexed or a text embedded since the last export,
    # or this clone never exported the facts a query weighs (weighed.py) by the rule of today
    mark = f"{index.meta('commit')} {index.meta('embeddings_computed')}"
    every = _state(index, f"weighed {model}") != weighed.VERSION
    if not every and _state(index, f"exported {model}") == mark:
        return 0
    adopt(index, embedder)  # what the ref holds already, from this clone or another
    shared = {row[0] for row in index.cache.execute("SELECT hash FROM shared WHERE model = ?", (model,))}
    todo = [row[0] for row in index.conn.execute(EXPORTABLE) if row[0] not in shared]
    index.reload_forgotten()  # the pages as they are now read: a forget may have landed meanwhile
    facts = weighed.of_blobs(index, _pages(index, None if every else todo))
    todo += [h for h in facts if h not in shared]
    vectors = cached(index, embedder.key, todo)
    if vectors:
        _write(index, embedder, model, vectors)
    with db.transaction(index.cache):
        index.cache.execute("INSERT OR REPLACE INTO shared_state VALUES(?, ?)", (f"exported {model}", mark))
        index.cache.execute("INSERT OR REPLACE INTO shared_state VALUES(?, ?)", (f"weighed {model}", weighed.VERSION))
    return len(vectors)


def _pages(index: Index, hashes: list[str] | None) -> set[int]:
    """The committed, non-private blobs holding texts of these hashes (None: every one): their
    facts are exported with them, so that a clone computes none."""
    committed = """SELECT DISTINCT c.blob FROM chunks c JOIN blobs b ON b.id = c.blob AND b.private = 0
                    WHERE EXISTS (SELECT 1 FROM versions v WHERE v.blob = c.blob)"""
    if hashes is None:
        return {r[0] for r in index.conn.execute(committed)}
    out: set[int] = set()
    for i in range(0, len(hashes), 500):
        part = hashes[i:i + 500]
        marks = ",".join("?" * len(part))
        out.update(r[0] for r in index.conn.execute(
            f"{committed} AND c.text IN (SELECT id FROM texts WHERE hash IN ({marks}))", part))
    return out


def _write(index: Index, embedder: Embedder, model: str, vectors: dict[str, bytes]) -> None:
    """One commit of the ref adding these vectors, by shard, compacting shards of many files."""
    folder = folder_of(model)
    git = index.nb.git
    shards: dict[str, dict[str, bytes]] = defaultdict(dict)
    for digest, vector in vectors.items():
        shards[digest[:2]][digest] = vector
    present = vectorref.files(git, sorted(set(vectorref.tips(git).values())), folder)
    blobs, drop = [], set()
    for shard, part in sorted(shards.items()):
        there = {path: oid for path, oid in present.items() if path.startswith(f"{folder}/{shard}/")}
        if len(there) >= SHARD_FILES:  # compact: one file instead of many small ones
            merged: dict[str, bytes] = {}
            paths = {oid: path for path, oid in there.items()}
            for oid, data in vectorref.read(git, list(paths)):
                content = vecfile.decode(data)
                if content is not None and _unusable(content, model, embedder.dim) is None:
                    merged.update(content.vectors)
                    drop.add(paths[oid])
            part = {**merged, **part}
        blobs.append((f"{folder}/{shard}", vecfile.encode(model, embedder.dim, part)))
    _, stored = vectorref.add(git, blobs, drop, f"mem: share {len(vectors)} embeddings\n\nModel: {model}")
    with db.transaction(index.cache):
        index.cache.executemany("INSERT OR IGNORE INTO shared VALUES(?, ?)", [(model, h) for h in vectors])
        index.cache.executemany("INSERT OR REPLACE INTO shared_blobs VALUES(?, ?, ?)",
                                [(oid, model, "exported here") for oid in stored])


def held(index: Index, key: str, hashes: list[str]) -> set[str]:
    """Those of these text hashes the embedding cache holds a vector of for the model `key`."""
    found: set[str] = set()
    for i in range(0, len(hashes), 500):
        part = hashes[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in index.cache.execute(
            f"SELECT hash FROM embeddings WHERE model = ? AND hash IN ({marks})", [key, *part]))
    return found


def cached(index: Index, key: str, hashes: list[str]) -> dict[str, bytes]:
    """hash -> vector of those of these texts the embedding cache holds for the model `key`."""
    found: dict[str, bytes] = {}
    for i in range(0, len(hashes), 500):
        part = hashes[i:i + 500]
        marks = ",".join("?" * len(part))
        found.update(index.cache.execute(
            f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})", [key, *part]))
    return found
