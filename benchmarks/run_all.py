"""Run every benchmark in sequence, each as its own process (each prints its table and writes its JSON).

Run:  python benchmarks/run_all.py [--quick]

Without --quick this takes about 9 minutes with a warm cache on 2 cores (the
first run also builds and embeds the notebooks: add 20-40 minutes, most of it
the 100k-chunk notebook).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ["coldstart.py", "speed.py", "hook_cost.py", "indexing.py", "history_cost.py", "agent_calls.py", "agent_loop.py",
           "clone_embeddings.py", "scifact.py", "locomo.py", "vec_storage.py"]


def main() -> None:
    extra = sys.argv[1:]
    failed = []
    for script in SCRIPTS:
        print(f"\n=== {script} {' '.join(extra)}", flush=True)
        started = time.perf_counter()
        if subprocess.run([sys.executable, str(HERE / script), *extra]).returncode:
            failed.append(script)
        print(f"=== {script}: {time.perf_counter() - started:.0f} s", flush=True)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
