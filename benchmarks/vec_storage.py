"""Reading every stored vector: from sqlite-vec's storage (what recall does) vs through vec0's rows.

index/vectors.py reads the embeddings from vec0's shadow tables, sqlite-vec's private layout
(pinned in pyproject.toml, checked by tests/test_vectors.py). This measures what that buys
over its documented interface, `SELECT rowid, embedding FROM vectors`, on random vectors of
384 dimensions (the model's), in one process.

Run:  python benchmarks/vec_storage.py [--vectors 50000] [--rounds 5] [--quick]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402


def main() -> None:
    import numpy as np

    from gitmem.index import db, vectors

    p = common.parser(__doc__)
    p.add_argument("--vectors", type=int, default=50_000)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    n = 2_000 if args.quick else args.vectors
    with tempfile.TemporaryDirectory() as tmp:
        conn = db.connect(Path(tmp) / "index.db")
        db.ensure_vectors(conn, 384)
        rng = np.random.default_rng(7)
        with db.transaction(conn):
            for i in range(n):
                conn.execute("INSERT INTO vectors(rowid, embedding) VALUES(?, ?)",
                             (i + 1, rng.standard_normal(384).astype(np.float32).tobytes()))
        ways = {"storage": lambda: vectors.from_storage(conn, 384),
                "rows": lambda: conn.execute("SELECT rowid, embedding FROM vectors").fetchall()}
        result = {name: common.stats(common.repeat(fn, args.rounds)) for name, fn in ways.items()}
        conn.close()
    print(common.table(["read", "median ms", "p95 ms"],
                       [[k, v["median_ms"], v["p95_ms"]] for k, v in result.items()], title=f"{n} vectors"))
    common.save("vec_storage", {"vectors": n, "machine": common.machine(), **result})


if __name__ == "__main__":
    main()
