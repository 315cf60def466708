"""The benchmark scripts run (a smoke test on a tiny notebook; no timing is asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_speed_benchmark_runs_on_a_tiny_generated_notebook(tmp_path: Path) -> None:
    env = {**os.environ, "GITMEM_BENCH_CACHE": str(tmp_path / "cache"), "GITMEM_BENCH_RESULTS": str(tmp_path / "out")}
    proc = subprocess.run([sys.executable, "benchmarks/speed.py", "--sizes", "120", "--rounds", "1", "--queries", "2"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "git mem recall vs git grep -i" in proc.stdout
    [written] = (tmp_path / "out").glob("speed-*.json")
    result = json.loads(written.read_text())["results"][0]
    assert 100 <= result["counts"]["chunks"] <= 200 and result["counts"]["pending_embeddings"] == 0
    assert {k: v["n"] for k, v in result["cold"].items()} == {"keyword": 2, "hybrid": 2, "git grep": 2}
    assert result["warm"]["hybrid"]["n"] == 6 and result["ratio_to_git_grep"]["hybrid"] > 0
    assert (tmp_path / "cache" / "notebooks" / "gen1-120-s7" / "daily").is_dir()  # built in the cache, not the repo
