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


def test_quality_benchmarks_read_paths_and_lines_of_each_result(tmp_path: Path) -> None:
    """scifact.py and locomo.py score results by path and line range: the in-process search must return
    them (the compact record has neither), floor off by default and at the notebook's min score with --floor."""
    sys.path.insert(0, str(ROOT))
    from benchmarks import common

    page = tmp_path / "notes" / "pets.md"
    page.parent.mkdir()
    page.write_text("# Pets\n\n- Our cat Biscuit eats salmon kibble.\n- The dog walker comes on Tuesdays.\n")
    (tmp_path / ".gitmem.toml").write_text(common.SETTINGS)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=T", "-c", "user.email=t@example.com",
                                                               "commit", "-q", "-m", "pets"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    off, on = common.Engine(tmp_path), common.Engine(tmp_path, floor=True)
    assert (off.min_score, on.min_score) == (0.0, None)
    found = off.search("what does the cat eat", "hybrid", 10)
    assert found[0]["path"] == "notes/pets.md" and found[0]["start"] <= 3 <= found[0]["end"]
    assert found[0]["chars"] > 0
