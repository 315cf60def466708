"""What every benchmark shares: the model, an isolated git setup, timing,
tables, JSON results, and generated notebooks cached between runs.

Results go to benchmarks/results/NAME-YYYYmmdd-HHMMSS.json (git-ignored).
Generated notebooks (with their index and embedding cache) live in
$GITMEM_BENCH_CACHE, default ~/.cache/gitmem-bench, so a second run embeds
nothing it has embedded before.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(os.environ.get("GITMEM_BENCH_RESULTS") or ROOT / "benchmarks" / "results")
DATA = ROOT.parent / "shared" / "bench-data"
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
sys.path.insert(0, str(ROOT))


def setup() -> dict[str, str]:
    """Point gitmem at the local model and isolate git from the user's config; returns the env."""
    os.environ.setdefault("GITMEM_MODEL_DIR", str(MODEL))
    home = cache_dir() / "home"
    home.mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    wanted = "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"
    if not gitconfig.exists() or gitconfig.read_text() != wanted:
        # written only when it differs: git reads it, so a fresh write makes every stamp of the
        # next two seconds racy (stamp.py), and the first queries of a run each ran `git status`
        gitconfig.write_text(wanted)
    os.environ.update({"GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"})
    os.environ.pop("GITMEM_HOOKS", None)
    bytecode()
    return dict(os.environ)


def bytecode() -> None:
    """Compile gitmem's modules, as `pip install` does: a fresh process then reads bytecode. Without
    it, where PYTHONDONTWRITEBYTECODE is set (as on this machine) every cold `git mem` process would
    compile each module again, about 70 ms that no installed copy pays."""
    import compileall

    compileall.compile_dir(str(ROOT / "gitmem"), quiet=1)


def cache_dir() -> Path:
    return Path(os.environ.get("GITMEM_BENCH_CACHE") or Path.home() / ".cache" / "gitmem-bench")


def parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the flags every benchmark takes."""
    p = argparse.ArgumentParser(description=(doc or "").strip().split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a small, fast run to check that the script works")
    return p


# -- running and timing --------------------------------------------------------
def git_mem(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`git mem ARGS` as a fresh process (the installed entry point's code path; -P: the
    notebook's directory is never on sys.path)."""
    return subprocess.run([sys.executable, "-P", "-m", "gitmem", *args], cwd=cwd, env=env, input=stdin, text=True,
                          capture_output=True, check=check)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def wall(command: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Seconds a fresh process takes, start to exit, as a shell sees it."""
    started = time.perf_counter()
    subprocess.run(list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


def rotating(kinds: dict[str, Callable[[str], Sequence[str]]], queries: list[str], rounds: int, cwd: Path,
             env: dict[str, str] | None = None) -> dict[str, list[float]]:
    """Wall seconds of fresh processes of each kind, interleaved query by query in rotating order
    (no kind always runs first, after another or on a cold page cache)."""
    out: dict[str, list[float]] = {k: [] for k in kinds}
    names = list(kinds)
    for r in range(rounds):
        for i, q in enumerate(queries):
            shift = (i + r) % len(names)
            for name in names[shift:] + names[:shift]:
                out[name].append(wall(kinds[name](q), cwd, env))
    return out


def gitmem_cmd(*args: str) -> list[str]:
    return [sys.executable, "-P", "-m", "gitmem", *args]


def repeat(fn: Callable[[], Any], n: int) -> list[float]:
    """Seconds of n calls."""
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def stats(seconds: Sequence[float]) -> dict[str, float]:
    """Median, p95, mean, min and max in milliseconds (p95 by nearest rank)."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered) + 0.5) - 1))]
    ms = lambda x: round(x * 1000, 1)  # noqa: E731
    return {"median_ms": ms(statistics.median(ordered)), "p95_ms": ms(p95), "mean_ms": ms(statistics.fmean(ordered)),
            "min_ms": ms(ordered[0]), "max_ms": ms(ordered[-1]), "n": len(ordered)}


# -- reporting -------------------------------------------------------------------
def machine() -> dict[str, Any]:
    model = Path(os.environ.get("GITMEM_MODEL_DIR", MODEL))
    return {"date": datetime.now().isoformat(timespec="seconds"), "cpus": os.cpu_count(),
            "load": [round(x, 2) for x in os.getloadavg()], "python": platform.python_version(),
            "git": git(ROOT, "--version").strip(), "model": model.name, "platform": platform.platform(),
            "gitmem_commit": git(ROOT, "rev-parse", "--short", "HEAD").strip()}


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> str:
    """A plain text table; numbers right-aligned. Printed and returned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h))
              for i, h in enumerate(headers)]
    numeric = [all(isinstance(row[i], (int, float)) or row[i] is None for row in rows) for i in range(len(headers))]
    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()
    out = ([title, ""] if title else []) + [line([str(h) for h in headers]), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    text = "\n".join(out)
    print(text + "\n", flush=True)
    return text


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def save(name: str, result: dict[str, Any]) -> Path:
    """Write benchmarks/results/NAME-STAMP.json (with the machine) and say where."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}-{datetime.now():%Y%m%d-%H%M%S}.json"
    out.write_text(json.dumps({"benchmark": name, "machine": machine(), **result}, indent=2) + "\n")
    print(f"written: {out}", flush=True)
    return out


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


# -- generated notebooks -----------------------------------------------------------
def size(name: str) -> int:
    """Chunks of a named size (1k, 10k, 100k), or a plain number."""
    return SIZES[name] if name in SIZES else int(name)


def notebook(chunks: int, seed: int = 7, env: dict[str, str] | None = None) -> Path:
    """The generated notebook of about `chunks` chunks, indexed and embedded, cached between runs.

    Built once (the embedding is the slow part: minutes at 10k chunks, about
    half an hour at 100k); later runs only catch its index up, which embeds
    nothing unless gitmem's chunking changed."""
    from benchmarks import corpus

    return cached_notebook(f"gen{corpus.VERSION}-{chunks}-s{seed}", lambda path: corpus.generate(path, chunks, seed),
                           env)


def refresh(path: Path) -> None:
    """Refresh git's index after a checkout, as the first `git status` of any git user does.

    A checkout writes the files and the index in the same second, so every
    entry is "racily clean" and each `git status` re-reads every file until
    the index is written again. gitmem reads with --no-optional-locks and never
    writes git's index, so without this a freshly generated 100k notebook costs
    gitmem 130-240 ms per read instead of 5-10 ms (measured)."""
    time.sleep(1.1)
    git(path, "status", "--porcelain")


def counts(path: Path, env: dict[str, str] | None = None) -> dict[str, int]:
    """`git mem status` counts of a notebook (files, chunks, distinct texts, ...)."""
    out = json.loads(git_mem(path, "status", "--json", env=env).stdout)
    return dict(out["counts"])


# -- quality: the engine in-process, checked against the CLI ----------------------------
SETTINGS = '[notebook]\npath = "."\nlayout = "folders"\n'  # a notebook on gitmem's current defaults


def settings(args: argparse.Namespace) -> tuple[str, str]:
    """(.gitmem.toml text, a name suffix) for the options of a quality benchmark: gitmem's
    defaults unless --max-chars/--overlap/--fusion say otherwise (for comparing settings)."""
    text, suffix = SETTINGS, ""
    if args.max_chars is not None or args.overlap is not None:
        from gitmem.config import Settings

        size = args.max_chars or Settings.max_chars
        overlap = args.overlap if args.overlap is not None else size // 5
        text += f"[chunking]\nmax_chars = {size}\noverlap_chars = {overlap}\n"
        suffix += f"-c{size}-{overlap}"
    if args.fusion is not None:
        text += f'[search]\nfusion = "{args.fusion}"\n'
        suffix += f"-{args.fusion}"
    return text, suffix


def setting_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-chars", type=int, help="chunk size to try instead of gitmem's default")
    p.add_argument("--overlap", type=int, help="chunk overlap to try (default: a fifth of --max-chars)")
    p.add_argument("--fusion", choices=("scores", "rrf"), help="hybrid fusion to try instead of the default")
    p.add_argument("--floor", action="store_true",
                   help="search at the default min score (weak results marked, a query may be refused) "
                        "instead of --min-score 0")


def cached_notebook(name: str, build: Callable[[Path], None], env: dict[str, str] | None = None) -> Path:
    """A notebook built by `build(path)` once, then indexed (embedding only what its cache lacks)."""
    path = cache_dir() / "notebooks" / name
    if not (path / ".git" / "gitmem" / "built").exists():
        if path.exists():
            shutil.rmtree(path)
        log(f"building {path}")
        build(path)
        refresh(path)
    log(f"indexing {name} (embeds only what its cache lacks)")
    started = time.perf_counter()
    git_mem(path, "index", env=env)
    log(f"indexed in {time.perf_counter() - started:.1f}s")
    (path / ".git" / "gitmem" / "built").write_text("ok\n")
    return path


class Engine:
    """What `git mem search --json --min-score 0` runs, in this process (the model loaded once)."""

    GROUPS = ("notebook", "daily", "sessions")

    def __init__(self, path: Path, floor: bool = False) -> None:
        from gitmem.index import embed
        from gitmem.gitops.repo import open_notebook

        self.path = path
        self.min_score = None if floor else 0.0  # None: the notebook's default
        self.nb = open_notebook(path)
        embed.load(embed.resolve(self.nb.git))

    def search(self, text: str, mode: str, limit: int) -> list[dict[str, Any]]:
        from gitmem import records
        from gitmem.search import engine as search

        query = search.Query(text, mode=mode, groups=self.GROUPS, limit=limit, min_score=self.min_score,
                             full=True)
        return _ranked(records.jsonable(search.run(self.nb, query)))

    def cli(self, text: str, mode: str, limit: int, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
        floor = [] if self.min_score is None else ["--min-score", "0"]
        out = git_mem(self.path, "search", "--json", "--full", "--mode", mode, "--limit", str(limit), *floor,
                      "--", text, env=env)
        return _ranked(json.loads(out.stdout))


def _ranked(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"path": r["path"], "start": r["lines"]["start"], "end": r["lines"]["end"], "score": r["score"],
             "chars": len(r["text"])} for r in data["results"]]


def agreement(engine: Engine, questions: list[str], modes: Sequence[str], limit: int,
              env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a sample through the real CLI and compare with the in-process ranking, result by result."""
    same = total = 0
    differing = []
    for q in questions:
        for mode in modes:
            total += 1
            a, b = engine.search(q, mode, limit), engine.cli(q, mode, limit, env)
            if [(r["path"], r["start"], r["end"]) for r in a] == [(r["path"], r["start"], r["end"]) for r in b]:
                same += 1
            else:
                differing.append({"query": q, "mode": mode})
    return {"checked": total, "identical": same, "differing": differing[:10]}
