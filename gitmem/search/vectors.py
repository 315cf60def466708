"""Exact nearest neighbours by one matrix product over the stored vectors.

The embeddings are stored in sqlite-vec's vec0 table `vectors` (rowid = text
id). sqlite-vec's own KNN computes distances without SIMD and keeps its best k
by repeated selection, so its cost grows with k: over 114,000 vectors on the
2-core benchmark machine, 56 ms for k = 100 and 197 ms for k = 1,000. numpy
scores every vector in one product (7 ms) and ranks as deep as the caller
needs at almost no extra cost, which lets the search keep to its candidates by
checking (see candidates.py) instead of listing them all first.

The matrix is read straight from vec0's storage (index/vectors.py), a
fraction of the time of selecting every row through the virtual table. A process that answers many
queries (the MCP server) keeps the matrix between them: the indexer renews a
token in the index's meta table whenever it changes a vector
(db.vectors_changed), and a different token means reading the matrix again.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..index import db
from ..index import vectors as stored

if TYPE_CHECKING:
    import apsw
    import numpy as np


@dataclass
class Matrix:
    ids: np.ndarray  # int64 text ids, one per row
    unit: np.ndarray  # float32 rows scaled to length 1 (zero rows stay zero)

    def nearest(self, query: bytes, n: int, among: Collection[int] | None = None) -> list[tuple[int, float]]:
        """The n rows most similar to `query` (among those ids, if given), best first, as
        (id, cosine distance) like vec0 reports them. Ties go to the lower id."""
        import numpy as np

        sims = self.similarities(query)
        rows = np.arange(len(self.ids))
        if among is not None:
            rows = rows[np.isin(self.ids, np.fromiter(among, dtype=np.int64, count=len(among)))]
        if len(rows) > n:
            # every row as good as the n-th best, so that ties are cut by id below and a
            # deeper call extends a shallower one (equal vectors are common: inputs are cut)
            nth = np.partition(-sims[rows], n - 1)[n - 1]
            rows = rows[-sims[rows] <= nth]
        order = rows[np.lexsort((self.ids[rows], -sims[rows]))][:n]
        return [(int(self.ids[i]), float(1.0 - sims[i])) for i in order]

    def of(self, query: bytes, ids: Collection[int]) -> dict[int, float]:
        """The cosine similarity to `query` of the rows with these ids (ids without a row left out)."""
        import numpy as np

        sims = self.similarities(query)
        rows = np.flatnonzero(np.isin(self.ids, np.fromiter(ids, dtype=np.int64, count=len(ids))))
        return {int(self.ids[i]): float(sims[i]) for i in rows}

    def similarities(self, query: bytes) -> np.ndarray:
        """The cosine similarity of every row to `query` (the last query's kept: a search asks twice)."""
        held: tuple[bytes, np.ndarray] | None = self.__dict__.get("_last")
        if held is not None and held[0] == query:
            return held[1]
        sims: np.ndarray = self.unit @ unit(query)
        self.__dict__["_last"] = (query, sims)
        return sims

    def background(self, query: bytes) -> tuple[float, float]:
        """Mean and standard deviation of the similarities of every stored text to `query`: how close
        this notebook's texts are to it by chance, whatever it is about."""
        sims = self.similarities(query)
        return (float(sims.mean()), float(sims.std())) if len(sims) else (0.0, 0.0)


def unit(vector: bytes) -> np.ndarray:
    """A stored vector (float32 bytes) scaled to length 1 (a zero vector stays zero)."""
    import numpy as np

    q = np.frombuffer(vector, dtype=np.float32)
    norm = float(np.linalg.norm(q))
    scaled: np.ndarray = q / norm if norm else q
    return scaled


def unit_rows(vecs: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (zero rows stay zero)."""
    import numpy as np

    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    scaled: np.ndarray = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
    return scaled


def cosines(query: bytes, vectors: list[bytes]) -> np.ndarray:
    """The cosine similarity of each of `vectors` to `query`: the one cosine of recall, log
    --grep and the facts a hit is judged by."""
    import numpy as np

    if not vectors:
        return np.zeros(0, dtype=np.float32)
    sims: np.ndarray = unit_rows(np.stack([np.frombuffer(v, dtype=np.float32) for v in vectors])) @ unit(query)
    return sims


_cache: dict[str, tuple[str | None, Matrix]] = {}
_lock = threading.Lock()


def matrix(conn: apsw.Connection, path: Path) -> Matrix:
    """Every stored vector of the index at `path`, kept in this process until they change."""
    token = db.get_meta(conn, "vectors")
    key = str(path)
    with _lock:
        held = _cache.get(key)
        if held is not None and held[0] == token and token is not None:
            return held[1]
        found = _read(conn)
        _cache[key] = (token, found)
        return found


def _read(conn: apsw.Connection) -> Matrix:
    import numpy as np

    dim = int(db.get_meta(conn, "dim") or 0)
    if not dim or not db.has_table(conn, "vectors"):
        return Matrix(np.zeros(0, dtype=np.int64), np.zeros((0, max(dim, 1)), dtype=np.float32))
    ids, vecs = stored.every(conn, dim)
    return Matrix(ids, unit_rows(vecs))
