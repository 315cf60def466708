"""Cold start: what a fresh `git mem` process costs, and what it imports.

On a copy of the generated 1k-chunk notebook, for `git mem -h`, `get`,
`daily`, `recall --mode keyword`, `recall` (hybrid) and `status`: the wall
time of fresh processes (median and p95 of --runs), and one run under
`python -X importtime` that names the packages it imports and what each
costs. Commands that do not need the model must not import numpy,
onnxruntime, tokenizers or fastembed; the table says whether they do.
Baselines in the same run: the bare interpreter (`python -c pass`) and
`git grep`.

Run:  python benchmarks/coldstart.py [--runs 20] [--quick]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402

HEAVY = ("numpy", "onnxruntime", "tokenizers", "fastembed", "huggingface_hub", "PIL", "sqlite_vec")
NO_MODEL = ("numpy", "onnxruntime", "tokenizers", "fastembed")  # what model-free commands must not import
QUERY = "what did Sarah say about the budget"


def commands(page: str) -> dict[str, tuple[list[str], bool]]:
    """name -> (git mem arguments, whether the command needs the model)."""
    return {
        "git mem -h": (["-h"], False),
        "git mem get PAGE": (["get", page], False),
        "git mem daily TEXT": (["daily", "cold start check"], False),
        "git mem recall --mode keyword": (["recall", "--mode", "keyword", QUERY], False),
        "git mem recall (hybrid)": (["recall", QUERY], True),
        "git mem status": (["status"], True),
    }


def imports(path: Path, args: list[str], env: dict[str, str]) -> dict[str, float]:
    """Top-level package -> cumulative import ms, from one `python -X importtime` run."""
    proc = subprocess.run([sys.executable, "-P", "-X", "importtime", "-m", "gitmem", *args], cwd=path, env=env,
                          capture_output=True, text=True)
    out: dict[str, float] = defaultdict(float)
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if not name.startswith(" ") or name.startswith("  "):
            continue  # nested: counted in its top-level package
        try:
            out[name.strip().split(".")[0]] += int(cumulative) / 1000
        except ValueError:
            continue  # the header line
    return dict(out)


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--runs", type=int, default=20)
    args = p.parse_args()
    runs = 5 if args.quick else args.runs
    env = common.setup()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    source = common.notebook(common.size("1k"), env=env)
    rows, results = [], {}
    with tempfile.TemporaryDirectory(prefix="gitmem-coldstart-") as tmp:
        path = Path(tmp) / "nb"
        shutil.copytree(source, path, symlinks=True)
        page = sorted(str(p.relative_to(path)) for p in (path / "people").glob("*.md"))[0]
        baselines = {"python -c pass": [sys.executable, "-c", "pass"],
                     "git grep -i -F -e sarah": ["git", "grep", "-i", "-F", "-e", "sarah"]}
        for name, argv in baselines.items():
            s = common.stats([common.wall(argv, path, env) for _ in range(runs)])
            results[name] = {"wall": s}
            rows.append([name, s["median_ms"], s["p95_ms"], None, "-", "-"])
        for name, (argv, needs_model) in commands(page).items():
            common.wall(["git", "mem", *argv], path, env)  # first run: page cache, index catch-up
            s = common.stats([common.wall(["git", "mem", *argv], path, env) for _ in range(runs)])
            imp = imports(path, argv, env)
            heavy = sorted(m for m in HEAVY if m in imp)
            bad = [m for m in NO_MODEL if m in imp] if not needs_model else []
            top = sorted(imp.items(), key=lambda kv: -kv[1])[:5]
            results[name] = {"wall": s, "import_ms": round(sum(imp.values()), 1), "top_imports_ms":
                             {k: round(v, 1) for k, v in top}, "heavy": heavy, "needs_model": needs_model,
                             "model_free_ok": not bad}
            rows.append([name, s["median_ms"], s["p95_ms"], round(sum(imp.values()), 1),
                         ", ".join(f"{k} {v:.0f}" for k, v in top[:4]),
                         (", ".join(heavy) or "none") + ("" if not bad else "  <- SHOULD NOT")])
        # A named model that is not on this machine, the hub a blackhole: recall must answer by keyword
        # without waiting on the network (tests/test_search.py checks that no connection is tried).
        offline = {k: v for k, v in env.items() if k != "GITMEM_MODEL_DIR"}
        offline.update(GITMEM_MODEL="BAAI/bge-small-en-v1.5", HF_ENDPOINT="http://10.255.255.1",
                       XDG_CACHE_HOME=str(Path(tmp) / "no-model-cache"))
        name = "git mem recall, model not on this machine"
        s = common.stats([common.wall(["git", "mem", "recall", QUERY], path, offline) for _ in range(runs)])
        results[name] = {"wall": s}
        rows.append([name, s["median_ms"], s["p95_ms"], None, "-", "-"])
    common.table(["command", "p50 ms", "p95 ms", "imports ms", "biggest imports (ms, cumulative)", "heavy modules"],
                 rows, f"cold processes, {runs} runs each, on a copy of the 1k-chunk notebook")
    common.save("coldstart", {"runs": runs, "results": results})


if __name__ == "__main__":
    main()
