"""The stored embeddings (sqlite-vec's vec0 table `vectors`, rowid = text id) read whole.

They are read straight from vec0's storage, one blob per 1,024 vectors with a validity
bitmap and the rowids: its shadow tables `vectors_chunks` (chunk_id, size, validity,
rowids) and `vectors_vector_chunks00` (rowid = chunk_id, vectors). That is sqlite-vec's
private layout, not its documented interface, so pyproject.toml pins sqlite-vec exactly and
tests/test_vectors.py fails when the layout changes. Selecting every row through the
virtual table (the documented way, kept as the fallback when the storage does not look as
expected) took 4,503 ms for 50,000 vectors of 384 dimensions against 1,178 ms from the
storage (2026-11-25, load 10 on 2 cores; benchmarks/vec_storage.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import db

if TYPE_CHECKING:
    import apsw

# the shadow tables and columns of vec0 read here (tests/test_vectors.py checks them)
SHADOW = {"vectors_chunks": ("chunk_id", "size", "validity", "rowids"),
          "vectors_vector_chunks00": ("rowid", "vectors")}


def every(conn: apsw.Connection, dim: int) -> tuple[Any, Any]:
    """(ids as int64, vectors as float32 rows) of every stored embedding, in storage order."""
    import numpy as np

    parts = from_storage(conn, dim)
    if parts is None:
        rows: list[Any] = conn.execute("SELECT rowid, embedding FROM vectors").fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        vecs = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
        return ids, vecs
    ids = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    vecs = np.concatenate([p[1] for p in parts]) if parts else np.zeros((0, dim), dtype=np.float32)
    return ids, vecs


def from_storage(conn: apsw.Connection, dim: int) -> list[tuple[Any, Any]] | None:
    """(ids, vectors) per vec0 chunk, valid slots only; None if the storage is not the layout we know."""
    import numpy as np

    if not all(db.has_table(conn, name) for name in SHADOW):
        return None
    parts = []
    for size, validity, rowids, vectors in conn.execute(
            """SELECT c.size, c.validity, c.rowids, v.vectors FROM vectors_chunks c
                 JOIN vectors_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id"""):
        if (not isinstance(validity, bytes) or len(validity) * 8 < size or len(rowids) != 8 * size
                or len(vectors) != 4 * dim * size):
            return None
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
        parts.append((np.frombuffer(rowids, dtype=np.int64)[valid],
                      np.frombuffer(vectors, dtype=np.float32).reshape(size, dim)[valid]))
    return parts
