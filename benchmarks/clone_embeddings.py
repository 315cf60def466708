"""Embeddings that travel (issue 23, refs/gitmem/embeddings): the first build of a ~300-page
notebook against a fresh clone of it, with the vectors in the ref, up to its first recall.

- first build: `git mem init` in the generated notebook (benchmarks/corpus.py, --chunks, default
  3,500: about 300 pages), an empty embedding cache: chunks, embeds everything, exports the
  vectors into refs/gitmem/embeddings;
- the notebook and the ref pushed to a bare remote (`git push REMOTE main refs/gitmem/embeddings`);
- fresh clone: `git clone`, `git mem init` (fetches the ref, imports the vectors, builds the
  index) and a first hybrid `git mem recall`, in a new clone with its own empty cache;
- the ratio of the two (target <= 0.25), what the clone still embedded itself, and what the ref
  costs: bytes of its files per 1,000 vectors, and the remote's packed size with and without it.

Hooks are off (GITMEM_HOOKS=0) so that no background worker runs beside the timed commands. The
load average is recorded before and after each part.

Run:  python benchmarks/clone_embeddings.py [--chunks 3500] [--quick]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common, corpus  # noqa: E402

REF = "refs/gitmem/embeddings"
TARGET = 0.25


def load() -> float:
    return round(os.getloadavg()[0], 2)


def timed(cwd: Path, command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return round(time.perf_counter() - started, 2)


def packed(bare: Path) -> int:
    """Bytes of a bare repository's packs after a full gc."""
    common.git(bare, "gc", "-q", "--aggressive", "--prune=now")
    info = dict(line.split(": ") for line in common.git(bare, "count-objects", "-v").splitlines())
    return int(info["size-pack"]) * 1024


def ref_bytes(path: Path) -> tuple[int, int]:
    """(bytes of the ref's files, vectors in them)."""
    from gitmem.index import vecfile

    listing = common.git(path, "ls-tree", "-r", REF).splitlines()
    total = vectors = 0
    for line in listing:
        oid = line.split()[2]
        data = subprocess.run(["git", "cat-file", "blob", oid], cwd=path, capture_output=True, check=True).stdout
        total += len(data)
        content = vecfile.decode(data)
        vectors += len(content.vectors) if content else 0
    return total, vectors


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--chunks", type=int, default=3500, help="size of the generated notebook")
    args = p.parse_args()
    env = {**common.setup(), "GITMEM_HOOKS": "0"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    exe = str(Path(sys.executable).parent / "git-mem")
    chunks = 300 if args.quick else args.chunks
    result: dict = {"chunks_asked": chunks, "machine": common.machine()}
    with tempfile.TemporaryDirectory(prefix="gitmem-clone-") as tmp:
        base = Path(tmp)
        source = base / "a"
        corpus.generate(source, chunks)
        common.refresh(source)
        result["pages"] = len(common.git(source, "ls-files", "*.md").splitlines())
        common.log(f"first build of {result['pages']} pages")
        before = load()
        result["first_build_s"] = timed(source, [exe, "init"], env)
        result["first_build_load"] = [before, load()]
        result["first"] = common.counts(source, env)
        size, vectors = ref_bytes(source)
        result["ref"] = {"bytes": size, "vectors": vectors,
                         "bytes_per_1k_vectors": round(size * 1000 / vectors) if vectors else None}
        plain, shared = base / "plain.git", base / "shared.git"
        for bare in (plain, shared):
            subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
        common.git(source, "push", "-q", str(plain), "main")
        common.git(source, "push", "-q", str(shared), "main", REF)
        common.log("fresh clone, init, first recall")
        before = load()
        clone = base / "b"
        steps = {
            "clone_s": timed(base, ["git", "clone", "-q", str(shared), str(clone)], env),
            "init_s": timed(clone, [exe, "init"], env),
            "first_recall_s": timed(clone, [exe, "recall", "--json", "when is the boiler serviced"], env),
        }
        result["clone"] = {**steps, "total_s": round(sum(steps.values()), 2), "load": [before, load()],
                           "counts": common.counts(clone, env)}
        result["ratio"] = round(result["clone"]["total_s"] / result["first_build_s"], 3)
        result["remote_packed_bytes"] = {"branch only": packed(plain), "branch + embeddings": packed(shared)}
    path = common.save("clone_embeddings", result)
    c = result["clone"]["counts"]
    common.table(["measure", "value"], [
        ["pages", result["pages"]],
        ["distinct texts (first build)", result["first"].get("distinct_chunks")],
        ["first build, s (load before/after)", f"{result['first_build_s']} ({result['first_build_load']})"],
        ["clone + init + first recall, s (load)", f"{result['clone']['total_s']} ({result['clone']['load']})"],
        ["  git clone / init / recall, s", f"{steps['clone_s']} / {steps['init_s']} / {steps['first_recall_s']}"],
        ["ratio (target <= 0.25)", result["ratio"]],
        ["clone: computed / reused / pending", f"{c.get('embeddings_computed')} / {c.get('embeddings_reused')} / "
                                               f"{c.get('pending_embeddings')}"],
        ["ref: vectors, bytes per 1k", f"{vectors}, {result['ref']['bytes_per_1k_vectors']}"],
        ["remote packed: branch / branch + ref", json.dumps(result["remote_packed_bytes"])],
    ], title=f"fresh clone vs first build ({result['machine']['date']})")
    print(f"saved {path}")


if __name__ == "__main__":
    main()
