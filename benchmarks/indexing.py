"""Indexing throughput: a full `git mem rebuild` against the raw speed of the model on the same texts.

On a copy of a generated notebook with no index and no embedding cache (what
a fresh clone has), in the same run:

- raw: the model alone (fastembed, the same ONNX file and threads) embedding
  exactly the texts the rebuild embeds, sorted by length, in batches of 32
  (the fastest way to feed it), in this process after loading the model;
- rebuild: `git mem rebuild` as a fresh process, start to exit: interpreter,
  imports, model load, reading every commit, chunking, FTS, embedding,
  vectors, the embedding cache;
- rebuild again with the embedding cache warm: everything but the model.

The target: the rebuild's texts per second at least 85% of the raw rate.
The history side (embeddings computed per distinct text over 1,000 commits)
is benchmarks/history_cost.py.

Run:  python benchmarks/indexing.py [--size 10k] [--quick]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

TARGET = 0.85


def texts_of(path: Path) -> list[str]:
    """Every distinct chunk text of an indexed notebook (what a rebuild embeds)."""
    import apsw

    conn = apsw.Connection(str(path / ".git" / "gitmem" / "index.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [r[0] for r in conn.execute("SELECT body FROM texts ORDER BY id")]
    finally:
        conn.close()


def raw_rate(texts: list[str]) -> dict[str, float]:
    """The model alone on these texts: sorted by length, batches of 32."""
    from gitmem.index import embed

    started = time.perf_counter()
    embedder = embed.load(embed.resolve(None))
    loaded = time.perf_counter() - started
    model = embedder._model  # the fastembed TextEmbedding gitmem loaded: the same session and threads
    ordered = sorted(texts, key=len)
    started = time.perf_counter()
    count = sum(1 for _ in model.embed(ordered, batch_size=32))
    took = time.perf_counter() - started
    assert count == len(texts)
    return {"texts": count, "seconds": round(took, 2), "per_s": round(count / took, 1),
            "model_load_s": round(loaded, 2)}


def rebuild(path: Path, env: dict[str, str]) -> dict[str, float]:
    started = time.perf_counter()
    out = common.git_mem(path, "rebuild", "--json", env=env)
    took = time.perf_counter() - started
    summary = json.loads(out.stdout)
    done = summary["embedded"] + summary["reused"]
    return {"texts": done, "embedded": summary["embedded"], "reused": summary["reused"],
            "seconds": round(took, 2), "per_s": round(done / took, 1), "commits": summary["commits"]}


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--size", default="10k", help="1k, 10k, 100k or a number of chunks")
    args = p.parse_args()
    size = "1k" if args.quick else args.size
    env = common.setup()
    source = common.notebook(common.size(size), env=env)
    texts = texts_of(source)
    with tempfile.TemporaryDirectory(prefix="gitmem-indexing-") as tmp:
        path = Path(tmp) / "nb"
        shutil.copytree(source, path, symlinks=True, ignore=shutil.ignore_patterns("gitmem"))
        common.log(f"{size}: rebuild with an empty embedding cache ({len(texts):,} texts)")
        cold = rebuild(path, env)
        common.log(f"{size}: the model alone on the same texts")
        raw = raw_rate(texts)
        common.log(f"{size}: rebuild with the embedding cache warm")
        warm = rebuild(path, env)
    ratio = round(cold["per_s"] / raw["per_s"], 3)
    common.table(["", "texts", "seconds", "texts/s", "of raw"], [
        ["model alone (raw, sorted by length, batch 32)", raw["texts"], raw["seconds"], raw["per_s"], 1.0],
        ["git mem rebuild, empty embedding cache", cold["texts"], cold["seconds"], cold["per_s"], ratio],
        ["git mem rebuild, embedding cache warm", warm["texts"], warm["seconds"], warm["per_s"], None],
    ], f"full rebuild of the {size} notebook vs the raw model (target: rebuild >= {TARGET:.0%} of raw)")
    print(f"target {'met' if ratio >= TARGET else 'MISSED'}: rebuild at {ratio:.1%} of the raw model rate\n")
    common.save("indexing", {"size": size, "raw": raw, "rebuild_cold_cache": cold, "rebuild_warm_cache": warm,
                             "ratio": ratio, "target": TARGET, "met": ratio >= TARGET})


if __name__ == "__main__":
    main()
