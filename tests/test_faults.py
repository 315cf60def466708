"""Faults: killed indexers, damaged index files, a read-only or full git dir, failed commits.

After each fault the next command must answer correctly with no manual repair,
or say in one line what is wrong; no note is ever lost. Cases count in the
bad-input/fault tally.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable

import apsw
import pytest

from gitmem.index.db import connect
from gitmem.gitops.lock import FileLock
from tests.conftest import Mem, live_git_holding_index_lock

pytestmark = pytest.mark.tally("bad-input/fault matrix")
STATE = Path(".git") / "gitmem"


def gitmem(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gitmem", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def counts(mem: Mem) -> dict[str, int]:
    c = mem.json("status", "--no-model")["counts"]
    return {k: c[k] for k in ("files", "chunks", "revisions", "versions", "blobs", "distinct_chunks", "embedded",
                              "pending_embeddings")}


def integrity(mem: Mem) -> str:
    conn = connect(mem.path / STATE / "index.db")
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


# -- SIGKILL mid-way ------------------------------------------------------------------------
def many_pages(mem: Mem, n: int, salt: str = "") -> None:
    for i in range(n):
        page = mem.path / "notes" / f"{i % 50:02d}" / f"n{i}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Note {i}\n\n{salt}entry {i}: the heron{i % 7} waits by pond {i % 13} {salt}\n")
    mem.commit(f"{n} notes {salt}")


def wait_for(proc: subprocess.Popen[str], ready: Callable[[], bool], timeout: float = 60) -> None:
    """Return once `ready()`; fail if the process finished first."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, f"finished before the kill point: {proc.communicate()}"
        assert time.monotonic() < deadline, "never reached the kill point"
        time.sleep(0.005)


def kill_when(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
    """SIGKILL the process as soon as `ready()`; fail if it finished first."""
    wait_for(proc, ready)
    assert proc.poll() is None, f"finished before the kill: {proc.communicate()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


def cache_rows(mem: Mem) -> int:
    path = mem.path / STATE / "embeddings.db"
    if not path.exists():
        return 0
    conn = connect(path, vec=False, migrations=[])
    try:
        return conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] if \
            conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'embeddings'").fetchone() else 0
    except Exception:
        return 0
    finally:
        conn.close()


def rebuilt(mem: Mem) -> dict[str, int]:
    """Counts of an index built from scratch (without `rebuild`, which may try to download a model)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{mem.path / STATE / 'index.db'}{suffix}").unlink(missing_ok=True)
    mem("index")
    return counts(mem)


@pytest.mark.parametrize("command", ["rebuild", "index"])
def test_sigkill_mid_sync_then_the_next_command_answers(mem: Mem, no_model: None, command: str) -> None:
    many_pages(mem, 8000)
    started = time.monotonic()
    reference = rebuilt(mem)
    took = time.monotonic() - started
    if command == "index":  # what the hooks run: an incremental catch-up over a big new commit
        many_pages(mem, 8000, salt="again ")
    proc = gitmem(mem.path, command)
    lock = FileLock(mem.path / STATE / "index.lock")
    wait_for(proc, lock.held_elsewhere)  # the sync transaction has begun...
    time.sleep(took * 0.3)  # ...and is well under way
    kill_when(proc, lambda: True)
    hit = mem.json("recall", "--mode", "keyword", "entry 4321")["results"][0]
    assert hit["path"] == "notes/21/n4321.md" and hit["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert integrity(mem) == "ok"
    after = counts(mem)
    assert rebuilt(mem) == after
    if command == "rebuild":
        assert after == reference


@pytest.mark.parametrize("command", ["rebuild", "index"])
def test_sigkill_mid_embedding_then_the_next_command_answers(mem: Mem, command: str) -> None:
    for i in range(420):
        mem.write(f"notes/e{i}.md", f"# Entry {i}\n\nObservation {i}: the {['otter', 'heron', 'fox'][i % 3]} "
                                    f"was seen at dawn near marker {i * 7919 % 1000}\n")
    mem.commit("420 notes")
    proc = gitmem(mem.path, command)
    kill_when(proc, lambda: cache_rows(mem) > 0)  # one batch of embeddings is in, the rest is not
    out = mem.json("recall", "--limit", "3", "otter seen at dawn near marker 3")
    assert out["results"][0]["path"].startswith("notes/e")
    # with more texts left than a read embeds itself (search.embed_on_read), it answers by keyword and says so
    assert out["semantic"] is True or any("still being prepared" in n for n in out["notes"]), out["notes"]
    assert integrity(mem) == "ok"
    mem("index")
    after = counts(mem)
    assert after["pending_embeddings"] == 0 and after["embedded"] == after["distinct_chunks"]
    mem("rebuild")
    assert counts(mem) == after


# -- damaged index files ------------------------------------------------------------------------
def scribble(path: Path, offset: int, size: int, seed: int = 7) -> None:
    data = bytearray(path.read_bytes())
    rnd = random.Random(seed)
    for i in range(offset, min(offset + size, len(data))):
        data[i] = rnd.randrange(256)
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "zero bytes": lambda p: p.write_bytes(b""),
    "garbage": lambda p: p.write_bytes(os.urandom(40_000)),
    "text file": lambda p: p.write_text("this is not a database\n" * 100),
    "truncated to 100 bytes": lambda p: os.truncate(p, 100),
    "truncated at half": lambda p: os.truncate(p, p.stat().st_size // 2 // 4096 * 4096),
    "one page short": lambda p: os.truncate(p, p.stat().st_size - 4096),
    "partial last page": lambda p: os.truncate(p, p.stat().st_size - 1),
    "header scribbled": lambda p: scribble(p, 0, 100),
    "schema page scribbled": lambda p: scribble(p, 100, 3900),
    "b-tree page scribbled": lambda p: scribble(p, 4096 * 3, 4096),
    "stray garbage -wal": lambda p: Path(f"{p}-wal").write_bytes(os.urandom(20_000)),
    "stray garbage -shm": lambda p: Path(f"{p}-shm").write_bytes(os.urandom(32_768)),
    "-wal and -shm with no database": lambda p: (Path(f"{p}-wal").write_bytes(os.urandom(8192)),
                                                 Path(f"{p}-shm").write_bytes(os.urandom(32_768)), p.unlink()),
    "index.db is a directory": lambda p: (p.unlink(), p.mkdir()),
    "embedding cache garbage": lambda p: (p.parent / "embeddings.db").write_bytes(os.urandom(9000)),
}


QUERIES = ["boiler service", "how do I reach Sarah", "basil row 150"]
_UNDAMAGED: list[tuple[Path, list[list[tuple[str, dict[str, int], str]]]]] = []


def answers(mem: Mem) -> list[list[tuple[str, dict[str, int], str]]]:
    return [[(h["path"], h["lines"], h["text"]) for h in mem.json("recall", q)["results"]] for q in QUERIES]


def undamaged(mem: Mem, factory: pytest.TempPathFactory) -> list[list[tuple[str, dict[str, int], str]]]:
    """The notebook each damage starts from, in `mem`, and its answers to QUERIES: written,
    indexed, embedded and asked once per worker, then copied (the same 2-3 s every case spent)."""
    if not _UNDAMAGED:
        made = factory.mktemp("undamaged") / "nb"
        shutil.copytree(mem.path, made, symlinks=True)
        base = Mem(made, mem._mp)
        base("remember", "The boiler was serviced in March by Heatwise")
        base("remember", "Sarah Chen's phone is 555-1234")
        base.write("knowledge/garden.md", "# Garden\n\n" + "\n\n".join(f"Bed {i}: tomatoes and basil row {i}"
                                                                      for i in range(200)) + "\n")
        base.commit("garden")
        _UNDAMAGED.append((made, answers(base)))
    made, before = _UNDAMAGED[0]
    shutil.rmtree(mem.path)
    shutil.copytree(made, mem.path, symlinks=True)
    return before


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_index_is_detected_and_rebuilt(mem: Mem, damage: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    before = undamaged(mem, tmp_path_factory)
    assert answers(mem) == before  # the copy answers as the notebook it was copied from
    db = mem.path / STATE / "index.db"
    DAMAGE[damage](db)
    result = mem("recall", "--json", "boiler service", code=None)
    if damage == "index.db is a directory":  # not rebuildable without deleting a folder gitmem did not make
        assert result.exit_code == 1 and result.stderr.startswith("error: the index cannot be opened")
        assert result.stderr.count("\n") == 1
        return
    assert result.exit_code == 0, result.output
    assert answers(mem) == before
    assert integrity(mem) == "ok" and mem.json("recall", "boiler")["semantic"] is True


# -- failed commits -----------------------------------------------------------------------------
def test_a_pre_commit_hook_that_adds_to_gitmem_s_commit_is_refused(mem: Mem) -> None:
    """A git user's run (2026-11-27): a naive formatter hook re-added the work tree's copy of each staged
    file, so gitmem's commit carried the person's draft line."""
    mem("remember", "The gate code is 1234")
    page = mem.path / "knowledge/facts.md"
    page.write_text(page.read_text() + "- DRAFT (mine, not ready)\n")
    hook = mem.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ngit diff --cached --name-only | while read f; do git add \"$f\"; done\n")
    hook.chmod(0o755)
    head = mem.git("rev-parse", "HEAD")
    result = mem("remember", "The bins go out on Tuesday", code=1)
    assert result.stderr.startswith("error: a pre-commit hook changed gitmem's commit (knowledge/facts.md): it was "
                                    "taken back, and gitmem's change is left staged; nothing was committed"), result.stderr
    assert mem.git("rev-parse", "HEAD") == head and "DRAFT" not in mem.git("show", "HEAD:knowledge/facts.md")
    assert "DRAFT" not in mem.git("show", ":knowledge/facts.md")  # git's index: gitmem's change only
    assert "DRAFT" in page.read_text() and "bins" in page.read_text()


def test_a_failed_commit_leaves_the_page_written_and_staged(mem: Mem) -> None:
    hook = mem.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'policy: no commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    head = mem.git("rev-parse", "HEAD")
    result = mem("remember", "The gate code changed to 2580", code=1)
    assert result.stderr == ("error: knowledge/facts.md is written but the commit failed: git commit failed: policy: "
                             "no commits today (your note is safe in knowledge/facts.md, and gitmem's change is "
                             "staged; fix the cause, then commit it: git commit (it takes all that is staged: see "
                             "git status first))\n")
    assert "2580" in (mem.path / "knowledge/facts.md").read_text()
    assert mem.git("diff", "--cached", "--name-only").strip() == "knowledge/facts.md"  # staged, as documented
    assert mem.git("rev-parse", "HEAD") == head
    assert mem.json("recall", "--mode", "keyword", "gate code")["results"][0]["commit"] is None  # still found
    hook.unlink()
    mem("remember", "The bins go out on Tuesday")
    # gitmem's next commit holds only its own change; the one it could not commit stays staged
    assert "2580" not in mem.git("show", "HEAD:knowledge/facts.md")
    assert "2580" in mem.git("show", ":knowledge/facts.md") and "Tuesday" in mem.git("show", ":knowledge/facts.md")
    mem.git("commit", "-q", "-m", "the gate code")  # commit the staged change, as the error said
    assert "2580" in mem.git("show", "HEAD:knowledge/facts.md")


def test_a_forget_killed_in_its_commit_is_finished_by_the_next_forget(mem: Mem, tmp_path: Path) -> None:
    """Killed while git commits (after the page and the record are written): HEAD still holds the
    fact. The next forget finds it there and commits it off, rather than saying it is gone."""
    mem("remember", "--to", "knowledge/facts.md", "The safe combination is 31-42-77")
    mem("index")
    marker = tmp_path / "in-commit"
    hook = mem.path / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nsleep 120\n")
    hook.chmod(0o755)
    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "forget", "safe combination"], cwd=mem.path,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    wait_for(proc, marker.exists)
    os.killpg(proc.pid, signal.SIGKILL)  # gitmem, its git commit and the hook
    proc.wait()
    hook.unlink()
    assert "31-42-77" in mem.git("show", "HEAD:knowledge/facts.md")  # the kill point: not committed
    assert "31-42-77" not in (mem.path / "knowledge/facts.md").read_text()
    out = mem("forget", "safe combination")
    assert out.stdout.startswith("forgot 1 line: knowledge/facts.md:3 (commit "), out.output
    assert "31-42-77" not in mem.git("show", "HEAD:knowledge/facts.md")
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: forget 1 line from knowledge/facts.md"
    assert mem.git("status", "--porcelain") == ""
    assert mem.json("recall", "--mode", "keyword", "safe combination")["results"] == []


def test_git_index_lock_held_by_someone_else_is_waited_for(mem: Mem) -> None:
    releaser = live_git_holding_index_lock(mem.path, 0.6)
    try:
        out = mem.json("remember", "Retry me until the lock is gone")
    finally:
        releaser.wait()
    assert out["commit"] == mem.git("rev-parse", "HEAD").strip()


# -- a read-only or full git dir (a private mount namespace: real EROFS / ENOSPC, even for root) ---------
def namespaces() -> bool:
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


NAMESPACE = textwrap.dedent("""
    import json, os, subprocess, sys
    mode, out = sys.argv[1], sys.argv[2]
    def sh(*cmd):
        subprocess.run(cmd, check=True)
    if mode == "read-only":
        sh("mount", "--bind", ".git", ".git")
        sh("mount", "-o", "remount,bind,ro", ".git")
    else:
        sh("cp", "-a", ".git", "../git-copy")
        sh("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", ".git")
        sh("cp", "-a", "../git-copy/.", ".git/")
        subprocess.run(["dd", "if=/dev/zero", "of=.git/filler", "bs=4k"], capture_output=True)
    results = {}
    for name, args in json.loads(sys.argv[3]).items():
        p = subprocess.run([sys.executable, "-m", "gitmem", *args], capture_output=True, text=True)
        results[name] = {"code": p.returncode, "stdout": p.stdout, "stderr": p.stderr}
    open(out, "w").write(json.dumps(results))
""")
RUNS = {"remember": ["remember", "Parcel is with the neighbour at 12"], "daily": ["daily", "Took the parcel in"],
        "write": ["write", "lists/todo.md", "--", "- return the parcel"], "forget": ["forget", "old locker"],
        "recall": ["recall", "--mode", "keyword", "locker"], "index": ["index"], "status": ["status", "--no-model"]}


@pytest.fixture(scope="module", params=["read-only", "full"])
def cramped(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, dict]:
    if not namespaces():
        pytest.skip("needs `unshare -rm` (user and mount namespaces) to make a real read-only or full git dir")
    root = tmp_path_factory.mktemp("cramped")
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_GLOBAL": str(root / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
           "GITMEM_MODEL": "sentence-transformers/all-MiniLM-L6-v2", "XDG_CACHE_HOME": str(root / "cache"),
           # no background indexer from the hooks: one still writing when .git is copied below brings a
           # -wal the first command checkpoints away, and that frees room on the "full" disk
           "GITMEM_HOOKS": "0"}
    env.pop("GITMEM_MODEL_DIR", None)
    (root / "gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n")
    repo = root / "notes"
    repo.mkdir()
    run = lambda *a: subprocess.run([sys.executable, "-m", "gitmem", *a], cwd=repo, env=env, check=True,  # noqa
                                    capture_output=True)
    run("init", "--no-index")
    run("remember", "The old locker is number 221")
    run("index")
    script = root / "ns.py"
    script.write_text(NAMESPACE)
    out = root / "results.json"
    subprocess.run(["unshare", "-rm", sys.executable, str(script), request.param, str(out), json.dumps(RUNS)],
                   cwd=repo, env=env, check=True, timeout=300)
    return request.param, repo, json.loads(out.read_text())


@pytest.mark.parametrize("name", RUNS)
def test_read_only_or_full_git_dir(cramped: tuple[str, Path, dict], name: str) -> None:
    mode, repo, results = cramped
    got = results[name]
    assert "Traceback" not in got["stderr"] and "internal error" not in got["stderr"], got
    if name == "recall":  # answered from the index as it is, with a note that says why
        assert got["code"] == 0, got
        assert "knowledge/facts.md" in got["stdout"] and "The old locker is number 221" in got["stdout"], got
        why = "the disk is full" if mode == "full" else "the index cannot be opened"
        assert f"note: the index could not be brought up to date ({why}" in got["stdout"], got
        return
    if got["code"] == 0:
        assert name in ("recall", "status"), got  # reading may still work; writing may not
        return
    assert got["code"] == 1 and got["stderr"].startswith("error: ") and got["stderr"].count("\n") == 1, got
    if name in ("remember", "daily", "write"):
        page = {"remember": "knowledge/facts.md", "write": "lists/todo.md"}.get(name) or \
            next(str(p.relative_to(repo)) for p in (repo / "daily").glob("*.md")) if (repo / "daily").exists() else ""
        if mode == "read-only":  # refused before anything was written
            assert "nothing was changed" in got["stderr"]
        else:  # the page is written in the work tree and the error says so: no note is lost
            assert "is written but the commit failed" in got["stderr"], got
            assert "No space left on device" in got["stderr"] or "Out of diskspace" in got["stderr"], got
            text = (repo / page).read_text()
            assert {"remember": "Parcel is with the neighbour", "daily": "Took the parcel in",
                    "write": "return the parcel"}[name] in text
    if name == "forget":
        assert "221" in (repo / "knowledge/facts.md").read_text()  # nothing forgotten halfway


def test_expected_errors_skip_the_damage_check(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty query or a full disk is not a reason to run an integrity check, let alone drop the index."""
    from gitmem.index import db

    mem("recall", "--mode", "keyword", "warm up")
    monkeypatch.setattr(db, "healthy", lambda path: pytest.fail("integrity check for an expected error"))
    assert mem("recall", "  ", code=1).stderr.startswith("error: empty query")
    assert (mem.path / STATE / "index.db").exists()


@pytest.mark.parametrize("command", [["log", "--json"], ["forget", "--json", "boiler"]])
def test_every_command_that_reads_the_index_rebuilds_a_damaged_one(mem: Mem, command: list[str]) -> None:
    mem("remember", "The boiler was serviced in March by Heatwise")
    mem.write("knowledge/garden.md", "# Garden\n\n" + "\n\n".join(f"Bed {i}: tomatoes row {i}" for i in range(300)))
    mem.commit("garden")
    mem("log")
    db = mem.path / STATE / "index.db"
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = [r[0] for r in conn.execute("SELECT rootpage FROM sqlite_master WHERE name IN ('commits', 'texts')")]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    for page in pages:  # what log and forget read first; the header and schema stay readable
        scribble(db, (page - 1) * size, size)
    result = mem(*command, code=None)
    assert result.exit_code == 0, result.output
    assert integrity(mem) == "ok"


def test_recall_answers_from_the_index_as_it_is_when_the_catch_up_cannot_write(mem: Mem, monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    """The same without namespaces: the catch-up's write fails with ENOSPC; recall still answers."""
    import errno

    from gitmem.index.indexer import Index

    mem("remember", "The old locker is number 221")
    mem("index")
    mem.write("knowledge/new.md", "# New\n\nThe new locker is number 305\n")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Index, "_sync", full)
    out = mem.json("recall", "--mode", "keyword", "locker")
    assert [r["path"] for r in out["results"]] == ["knowledge/facts.md"]  # the new page is not indexed yet
    assert out["notes"][0].startswith("the index could not be brought up to date (the disk is full), so this answer "
                                      "comes from the index as it is and may miss recent changes")
    assert mem("index", code=1).stderr.startswith("error: the disk is full")  # a writer still fails, clearly
