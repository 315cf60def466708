"""Concurrency without loss: parallel writers, readers during a rebuild, indexers racing with commands.

Real processes, started together through a gate (a file they all wait for after
importing gitmem), on a real repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitmem.index.db import connect
from tests.conftest import Mem

pytestmark = pytest.mark.tally("bad-input/fault matrix")

GATED = """
import os, sys, time
from gitmem.cli.main import cli  # imported before the gate, so that all start together
gate = sys.argv[1]
while not os.path.exists(gate):
    time.sleep(0.001)
sys.argv = ["git-mem", *sys.argv[2:]]
cli()
"""


def start_together(cwd: Path, gate: Path, runs: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    procs = [subprocess.Popen([sys.executable, "-c", GATED, str(gate), *args], cwd=cwd, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for args in runs]
    time.sleep(0.8)  # let every process import and wait at the gate
    gate.write_text("go")
    done = []
    for proc, args in zip(procs, runs):
        out, err = proc.communicate(timeout=240)
        done.append(subprocess.CompletedProcess(args, proc.returncode, out, err))
    return done


@pytest.mark.parametrize("spread", ["one page", "eight pages"])
def test_eight_remembers_at_the_same_moment_all_commit(mem: Mem, tmp_path: Path, spread: str) -> None:
    colours = "red blue green amber violet teal grey gold".split()
    facts = [f"Locker {i} holds the {w} kit" for i, w in enumerate(colours)]
    runs = [["remember", "--json", "--to", "knowledge/lockers.md" if spread == "one page" else f"knowledge/l{i}.md",
             fact] for i, fact in enumerate(facts)]
    # a user's own git commands take .git/index.lock meanwhile: gitmem must retry, not fail
    user = subprocess.Popen(["sh", "-c", "for i in $(seq 60); do git update-index -q --refresh; done"], cwd=mem.path)
    results = start_together(mem.path, tmp_path / "gate", runs)
    user.wait()
    assert [r.returncode for r in results] == [0] * 8, [(r.args, r.stderr) for r in results]
    commits = {json.loads(r.stdout)["commit"] for r in results}
    assert len(commits) == 8
    log = mem.git("log", "--format=%s").splitlines()
    assert sorted(s for s in log if s.startswith("mem: remember")) == sorted(f"mem: remember {f}" for f in facts)
    tree = "".join(mem.git("show", f"HEAD:{r[3]}") for r in {tuple(r) for r in runs})
    assert all(fact in tree for fact in facts)
    assert mem.git("status", "--porcelain") == "" and "error" not in mem.git("fsck", "--no-progress")


def test_reads_during_a_rebuild_get_answers(mem: Mem, tmp_path: Path) -> None:
    for i in range(3000):  # 3,000 pages, 60 distinct texts (embedding is not what this test is about)
        page = mem.path / "notes" / f"{i % 30:02d}" / f"n{i}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Note {i % 60}\n\nthe kestrel {i % 60} hovers over field {i % 11}\n")
    mem.write("knowledge/target.md", "The cormorant dries its wings on the pier\n")
    mem.commit("notes")
    mem("index")
    runs = [["rebuild"]] + [["recall", "--mode", "keyword", "--json", "--full", "cormorant pier"]] * 5 + \
        [["recall", "--json", "kestrel hovering over field 3"]]
    results = start_together(mem.path, tmp_path / "gate", runs)
    failed = [(r.args, r.returncode, r.stderr) for r in results if r.returncode]
    assert not failed, failed  # only the failed runs, whole (a long list was cut before the one that failed)
    for r in results[1:6]:
        assert json.loads(r.stdout)["results"][0]["path"] == "knowledge/target.md", r.stdout
    assert json.loads(results[6].stdout)["results"], results[6].stdout
    # a read may have left work to the background worker (embedding, see search.embed_on_read):
    # once nothing is updating any more, the index is current with no manual step
    deadline = time.monotonic() + 180  # a poll deadline, not a timing claim
    state = mem.json("status", "--no-model")["index"]["state"]
    while state == "updating" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = mem.json("status", "--no-model")["index"]["state"]
    assert state == "current"


def test_indexers_racing_with_commands_never_corrupt_the_index(mem: Mem, tmp_path: Path) -> None:
    """What post-commit hooks do: `git mem index` runs while commands read and write."""
    mem("remember", "The first fact is about herons")
    runs = [["index"], ["index"], ["index", "--json"],
            ["remember", "The kingfisher nests in the bank"], ["daily", "Saw a kingfisher at the weir"],
            ["write", "knowledge/birds.md", "Grebes dive for fish"],
            ["recall", "--mode", "keyword", "herons"], ["recall", "--mode", "keyword", "kingfisher"],
            ["forget", "first fact is about herons"], ["index"]]
    results = start_together(mem.path, tmp_path / "gate", runs)
    failed = [(r.args, r.returncode, r.stderr) for r in results if r.returncode]
    assert not failed, failed  # only the failed runs, whole (a long list was cut before the one that failed)
    conn = connect(mem.path / ".git" / "gitmem" / "index.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('integrity-check')")
    conn.close()
    assert mem.git("status", "--porcelain") == "" and "error" not in mem.git("fsck", "--no-progress")
    mem("index")
    live = mem.json("status", "--no-model")["counts"]
    for phrase, path in [("kingfisher nests bank", "knowledge/facts.md"), ("grebes dive", "knowledge/birds.md")]:
        assert mem.json("recall", "--mode", "keyword", phrase)["results"][0]["path"] == path
    assert mem.json("recall", "--mode", "keyword", "herons")["results"] == []
    (mem.path / ".git" / "gitmem" / "index.db").unlink()
    mem("index")
    assert mem.json("status", "--no-model")["counts"] == {**live, "embeddings_computed": 0,
                                                          "embeddings_reused": live["embedded"]}
