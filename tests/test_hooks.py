"""The git hooks: install/uninstall/status, chaining, core.hooksPath, the
detached worker (fds, session, exit 0, GIT_* variables), mid-rebase skips,
coalescing under concurrency, worktrees, and the pre-commit framework."""

from __future__ import annotations

import os
import re
import select
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gitmem.gitops.git import Git
from gitmem.gitops.hookrun import hook_name, skip_reason
from gitmem.gitops.lock import FileLock
from tests.conftest import ROOT, Mem, git
from tests.indexstate import assert_exact, hooks_log, keyword, wait_current

HOOKS = ["post-commit", "post-merge", "post-checkout", "post-rewrite", "pre-push"]


@pytest.fixture
def hooked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_model: None) -> Mem:
    """A notebook whose `init` installed the hooks. Keyword-only (no model) keeps the workers quick."""
    monkeypatch.delenv("GITMEM_HOOKS")
    path = tmp_path / "notes"
    path.mkdir()
    m = Mem(path, monkeypatch)
    out = m.json("init", "--no-index")
    assert out["hooks"]["written"] == HOOKS
    return m


def quiet(m: Mem, *args: str) -> str:
    """git with no hook at all, for setting a scene without starting workers."""
    return git(m.path, "-c", "core.hooksPath=/nonexistent", *args)


def commit(m: Mem, rel: str, text: str, hooks: bool = True) -> None:
    m.write(rel, text)
    git(m.path, "add", "-A")
    if hooks:
        m.git("commit", "-q", "-m", f"edit {rel}")
    else:
        quiet(m, "commit", "-q", "-m", f"edit {rel}")


@pytest.mark.parametrize("command", ["hooks install", "hooks uninstall", "hooks status"])
def test_hooks_commands_have_help_with_examples(blank: Mem, command: str) -> None:
    out = blank(*command.split(), "--help").stdout
    assert out.startswith(f"Usage: git mem {command}") and f"git mem {command}" in out.split("Examples:")[1]


def test_a_commit_is_indexed_in_the_background(hooked: Mem) -> None:
    commit(hooked, "knowledge/tides.md", "- Spring tides peak two days after the full moon\n")
    hooked("remember", "The harbour master is called Ines")  # gitmem's own commit (--only, GIT_INDEX_FILE)
    wait_current(hooked)
    assert_exact(hooked)
    assert "post-commit: indexed" in hooks_log(hooked) and "failed" not in hooks_log(hooked)


def test_install_twice_changes_nothing_and_status_says_so(hooked: Mem) -> None:
    folder = hooked.path / ".git/hooks"
    before = {n: ((folder / n).read_bytes(), (folder / n).stat().st_mtime_ns) for n in HOOKS}
    out = hooked.json("hooks", "install")
    assert out["unchanged"] == HOOKS and out["written"] == out["chained"] == []
    assert before == {n: ((folder / n).read_bytes(), (folder / n).stat().st_mtime_ns) for n in HOOKS}
    st = hooked.json("hooks", "status")
    assert st["installed"] and st["merge_driver"] and st["python_ok"] and st["notes"] == []
    assert st["python"] == sys.executable
    assert hooked.json("status", "--no-model")["hooks"] == {
        "installed": True, "dir": str(folder), "merge_driver": True, "missing": [], "switched_off": None}
    assert "hooks:      installed in" in hooked("status", "--no-model").stdout


USER_HOOKS = {
    "post-commit": "#!/bin/sh\necho \"user post-commit $*\" >> \"$(git rev-parse --git-dir)/user.log\"\n",
    "post-checkout": "#!/bin/sh\necho \"user post-checkout $3\" >> \"$(git rev-parse --git-dir)/user.log\"\nexit 3\n",
    "post-rewrite": "#!/bin/sh\necho \"user post-rewrite $1\" >> .git/user.log\ncat >> .git/user.log\n",
}


def test_hooks_already_there_are_chained_and_restored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      no_model: None) -> None:
    monkeypatch.delenv("GITMEM_HOOKS")
    git(tmp_path, "init", "-q", "repo")
    folder = tmp_path / "repo/.git/hooks"
    for name, text in USER_HOOKS.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o750)
    m = Mem(tmp_path / "repo", monkeypatch)
    out = m.json("init", "--no-index")
    assert out["hooks"]["chained"] == ["post-commit", "post-checkout", "post-rewrite"]
    commit(m, "a.md", "- first\n")
    old = m.git("rev-parse", "HEAD").strip()
    m.git("commit", "-q", "--amend", "-m", "amended")
    new = m.git("rev-parse", "HEAD").strip()
    switch = subprocess.run(["git", "checkout", "-q", "-b", "other"], cwd=m.path, capture_output=True)
    assert switch.returncode != 0  # the user's post-checkout failure still shows (same code as without: below)
    user_log = (m.path / ".git/user.log").read_text()
    assert "user post-commit \n" in user_log and f"user post-rewrite amend\n{old} {new}\n" in user_log
    assert "user post-checkout 1\n" in user_log
    wait_current(m)
    assert m.json("hooks", "status")["hooks"][0] == {"name": "post-commit", "state": "installed", "chained": True}
    out = m.json("hooks", "uninstall")
    assert out["restored"] == ["post-commit", "post-checkout", "post-rewrite"] and out["removed"] == ["post-merge", "pre-push"]
    for name, text in USER_HOOKS.items():
        assert (folder / name).read_text() == text and stat.S_IMODE((folder / name).stat().st_mode) == 0o750
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(".sample")) == sorted(USER_HOOKS)
    alone = subprocess.run(["git", "checkout", "-q", "-b", "other2"], cwd=m.path, capture_output=True)
    assert alone.returncode == switch.returncode
    assert subprocess.run(["git", "config", "merge.gitmem-daily.driver"], cwd=m.path).returncode == 1


def test_core_hooks_path(mem: Mem, tmp_path: Path) -> None:
    private = tmp_path / "my-hooks"
    mem.git("config", "core.hooksPath", str(private))
    assert mem.json("hooks", "install")["dir"] == str(private)
    assert sorted(p.name for p in private.iterdir()) == sorted(HOOKS)
    assert not (mem.path / ".git/hooks/post-commit").exists()
    mem("hooks", "uninstall")
    assert list(private.iterdir()) == []
    mem.git("config", "core.hooksPath", ".githooks")  # versioned hooks inside the work tree
    refused = mem("hooks", "install", code=1)
    assert "core.hooksPath points into the work tree (.githooks)" in refused.stderr and "--force" in refused.stderr
    assert not (mem.path / ".githooks").exists()
    mem.git("config", "--unset", "core.hooksPath")
    mem.git("config", "--global", "core.hooksPath", str(tmp_path / "global-hooks"))
    refused = mem("hooks", "install", code=1)
    assert "set in your global git config" in refused.stderr
    assert mem.json("hooks", "install", "--force")["written"] == HOOKS
    assert (tmp_path / "global-hooks/post-commit").exists()


def test_hooks_installed_from_another_install_are_current_while_their_python_is_there(hooked: Mem,
                                                                                      tmp_path: Path) -> None:
    """A second venv's `git mem status` read the first venv's hooks as "not current" (they name the
    interpreter that installed them); they run, so they are installed, until that interpreter is gone."""
    folder = hooked.path / ".git/hooks"
    other = tmp_path / "other-venv-python"
    other.symlink_to(sys.executable)
    for name in HOOKS:
        hook = folder / name
        hook.write_bytes(re.sub(rb"(?m)^GITMEM_PYTHON=.*$", b"GITMEM_PYTHON=" + bytes(other), hook.read_bytes()))
    st = hooked.json("hooks", "status")
    assert st["installed"] and st["python"] == str(other) and st["notes"] == []
    other.unlink()
    st = hooked.json("hooks", "status")
    assert not st["installed"] and st["notes"] == [
        f"the hooks call {other}, which is gone; run 'git mem hooks install' again"]
    out = hooked.json("hooks", "install")
    assert out["written"] == HOOKS and hooked.json("hooks", "status")["python"] == sys.executable


def test_status_says_current_stale_by_how_much_or_updating(mem: Mem) -> None:
    st = mem.json("status", "--no-model")
    assert st["hooks"]["installed"] is False and st["hooks"]["switched_off"] == "GITMEM_HOOKS=0"
    keyword(mem, "anything")
    assert mem.json("status", "--no-model")["index"]["state"] == "current"
    for i in range(3):
        commit(mem, f"n{i}.md", f"- note {i}\n")
    idx = mem.json("status", "--no-model")["index"]
    assert (idx["state"], idx["commits_behind"]) == ("stale", 3)
    assert "index:      stale (3 commits behind HEAD)" in mem("status", "--no-model").stdout
    lock = FileLock(mem.path / ".git/gitmem/index.lock")
    with lock:
        assert mem.json("status", "--no-model")["index"]["state"] == "updating"


def test_the_hook_detaches_and_git_returns_at_once(hooked: Mem) -> None:
    """While the index lock is held the worker cannot finish, yet `git commit` with its output on pipes
    (which a caller reads to the end) returns; the worker runs in its own session, on /dev/null,
    holding no descriptor it inherited."""
    hooked.write("a.md", "- detached\n")
    hooked.git("add", "a.md")
    read_end, write_end = os.pipe()
    with FileLock(hooked.path / ".git/gitmem/index.lock"):
        done = subprocess.run(["git", "commit", "-q", "-m", "a"], cwd=hooked.path, capture_output=True,
                              text=True, timeout=60, pass_fds=(write_end,))
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        worker = _lock_holder(hooked.path / ".git/gitmem/hooks-run.lock")
        assert os.getsid(worker) not in (os.getsid(0), os.getpgid(0))  # a session of its own
        fds = _descriptors(worker)
        assert fds[0] == fds[1] == fds[2] == "/dev/null"
        os.close(write_end)  # the worker must not hold the copy it inherited through git and the hook
        assert select.select([read_end], [], [], 10)[0] and os.read(read_end, 1) == b""
        assert hooked.json("status", "--no-model")["index"]["state"] == "updating"
    os.close(read_end)
    wait_current(hooked)


def _descriptors(pid: int) -> dict[int, str]:
    """fd -> what it names, of a running process. It opens and closes files meanwhile: one gone
    between the listing and its readlink was not an inherited one (those it never closes)."""
    out = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            out[int(fd)] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue
    return out


def _lock_holder(lock: Path, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock.exists():
            inode = str(lock.stat().st_ino)
            for line in Path("/proc/locks").read_text().splitlines():
                parts = line.replace("->", "").split()
                if parts[1] == "FLOCK" and parts[5].rsplit(":", 1)[-1] == inode:
                    return int(parts[4])
        time.sleep(0.02)
    raise AssertionError(f"nobody holds {lock}")


def test_a_hook_exits_0_even_when_gitmem_cannot_run(hooked: Mem) -> None:
    hook = hooked.path / ".git/hooks/post-commit"
    hook.write_text(hook.read_text().replace(f"GITMEM_PYTHON={sys.executable}", "GITMEM_PYTHON=/nowhere/python"))
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    assert shutil.which("git-mem", path=env["PATH"]) is None
    ran = subprocess.run(["sh", str(hook)], cwd=hooked.path, env=env, capture_output=True, text=True)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")


def test_a_hook_renamed_by_pre_commit_still_knows_its_name(hooked: Mem) -> None:
    """`pre-commit install` keeps a hook it replaces as NAME.legacy and runs that: at the end of a
    rebase (state dir still there, argument 'rebase') it must still catch up."""
    commit(hooked, "c.md", "- caught up by post-rewrite.legacy\n", hooks=False)
    folder = hooked.path / ".git/hooks"
    os.replace(folder / "post-rewrite", folder / "post-rewrite.legacy")
    (hooked.path / ".git/rebase-merge").mkdir()
    ran = subprocess.run([str(folder / "post-rewrite.legacy"), "rebase"], cwd=hooked.path, input="", text=True)
    assert ran.returncode == 0
    (hooked.path / ".git/rebase-merge").rmdir()
    wait_current(hooked)
    assert " post-rewrite: indexed " in hooks_log(hooked)


def test_install_says_when_the_notebook_lacks_the_merge_attributes(hooked: Mem) -> None:
    hooked.git("rm", "-q", ".gitattributes")
    hooked.git("commit", "-q", "-m", "a notebook from before the merge driver")
    note = "does not send daily logs to the gitmem-daily driver yet; run 'git mem init'"
    assert note in hooked("hooks", "install").stdout
    assert note in " ".join(hooked.json("hooks", "status")["notes"])
    assert hooked.json("init", "--no-index")["created"] == [".gitattributes"]
    assert hooked.json("hooks", "status")["notes"] == []
    (hooked.path / ".gitattributes").unlink()  # deleted in the work tree only: init puts back HEAD's copy
    assert hooked.json("init", "--no-index")["created"] == []
    wait_current(hooked)


def test_the_worker_drops_git_variables_meant_for_the_hook(hooked: Mem, tmp_path: Path) -> None:
    commit(hooked, "b.md", "- indexed despite a bogus GIT_DIR\n", hooks=False)
    env = {**os.environ, "GIT_DIR": str(tmp_path / "nowhere"), "GIT_INDEX_FILE": str(tmp_path / "nowhere/index"),
           "GIT_WORK_TREE": str(tmp_path), "GIT_PREFIX": "x/"}
    ran = subprocess.run([sys.executable, "-m", "gitmem", "hooks", "run", "post-commit"], cwd=hooked.path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    wait_current(hooked)
    assert_exact(hooked)


STATUS_LOOP = "from gitmem.gitops.git import Git\ng = Git.find('.')\nwhile True:\n    g.status('.')\n"


def test_gitmem_reading_git_never_makes_a_users_git_command_fail(mem: Mem) -> None:
    """A worker (or a recall) runs `git status` while the user commits: without git's optional locks
    off, status takes .git/index.lock for a moment and the user's commit fails on it."""
    env = {k: v for k, v in os.environ.items() if k != "GIT_OPTIONAL_LOCKS"}
    for i in range(4):
        mem.write(f"n{i}.md", "- new\n")
    mem.commit("four notes")
    loop = subprocess.Popen([sys.executable, "-c", STATUS_LOOP], cwd=mem.path, env=env)
    try:
        for i in range(40):
            mem.write(f"n{i % 4}.md", f"- edit {i}\n")
            subprocess.run(["git", "commit", "-qam", f"edit {i}"], cwd=mem.path, env=env, check=True,
                           capture_output=True)
    finally:
        loop.kill()
        loop.wait()


def test_skip_reasons(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    g = Git.find(mem.path)
    assert skip_reason(g, "post-commit", []) == "switched off (GITMEM_HOOKS=0)"
    monkeypatch.delenv("GITMEM_HOOKS")
    assert skip_reason(g, "post-commit", []) is None
    assert skip_reason(g, "post-checkout", ["a", "b", "0"]) == "file checkout"
    assert skip_reason(g, "post-checkout", ["a", "b", "1"]) is None
    (g.git_dir / "sequencer").mkdir()  # a cherry-pick sequence: the worker waits for it instead
    assert skip_reason(g, "post-commit", []) is None
    (g.git_dir / "rebase-merge").mkdir()
    assert skip_reason(g, "post-commit", []).startswith("rebase in progress")
    assert skip_reason(g, "post-rewrite", ["amend"]).startswith("rebase in progress")
    assert skip_reason(g, "post-rewrite", ["rebase"]) is None
    assert skip_reason(g, "post-checkout", ["a", "b", "1"]) is None  # its worker waits for the end
    mem.git("config", "mem.hooks", "false")
    assert skip_reason(g, "post-rewrite", ["rebase"]) == "switched off (mem.hooks=false)"


def test_the_pre_commit_framework_names_the_hook_through_its_variables() -> None:
    assert hook_name("post-commit.legacy", ["x"], {}) == ("post-commit", ["x"])
    assert hook_name(None, [], {}) == ("post-commit", [])
    assert hook_name(None, [], {"PRE_COMMIT_CHECKOUT_TYPE": "1", "PRE_COMMIT_FROM_REF": "a",
                                "PRE_COMMIT_TO_REF": "b"}) == ("post-checkout", ["a", "b", "1"])
    assert hook_name(None, [], {"PRE_COMMIT_REWRITE_COMMAND": "rebase"}) == ("post-rewrite", ["rebase"])
    assert hook_name(None, [], {"PRE_COMMIT_IS_SQUASH_MERGE": "0"}) == ("post-merge", ["0"])


def test_a_30_commit_rebase_indexes_only_its_end(hooked: Mem) -> None:
    """The picks fire post-commit with the rebase under way: the hook starts nothing. The rebase's
    post-checkout starts a worker that waits for the end; post-rewrite comes at the end."""
    quiet(hooked, "checkout", "-q", "-b", "topic")
    for i in range(30):
        commit(hooked, f"knowledge/topic-{i}.md", f"- topic fact number{i}\n", hooks=False)
    quiet(hooked, "checkout", "-q", "main")
    commit(hooked, "knowledge/main.md", "- a fact on main\n", hooks=False)
    quiet(hooked, "checkout", "-q", "topic")
    keyword(hooked, "fact")
    hooked.git("rebase", "-q", "main")
    wait_current(hooked)
    log = _wait_log(hooked, {" post-checkout: ": 1, " post-rewrite: ": 1, " post-commit: ": 0})
    head = hooked.git("rev-parse", "HEAD").strip()
    assert _indexed(log) == {head[:7]} and len(log) == 2, log
    assert keyword(hooked, "number29") == ["knowledge/topic-29.md"]
    assert_exact(hooked)


def _indexed(log: list[str]) -> set[str]:
    return {line.split(" indexed ")[1][:7] for line in log if " indexed " in line}


def test_a_fast_forward_rebase_is_caught_up_by_its_post_checkout(hooked: Mem) -> None:
    quiet(hooked, "checkout", "-q", "-b", "behind")
    quiet(hooked, "checkout", "-q", "main")
    commit(hooked, "knowledge/ahead.md", "- main moved ahead\n", hooks=False)
    quiet(hooked, "checkout", "-q", "behind")
    keyword(hooked, "ahead")
    hooked.git("rebase", "-q", "main")  # fires post-checkout only, with the rebase's state dir present
    wait_current(hooked)
    assert _indexed(_wait_log(hooked, {" post-checkout: ": 1})) == {hooked.git("rev-parse", "HEAD").strip()[:7]}


def _wait_log(m: Mem, counts: dict[str, int], timeout: float = 60.0) -> list[str]:
    """The hooks log once it has (exactly) these many lines containing each key."""
    deadline = time.monotonic() + timeout
    while True:
        log = hooks_log(m).splitlines()
        have = {key: sum(key in line for line in log) for key in counts}
        if have == counts or time.monotonic() > deadline:
            assert have == counts, "\n".join(log)
            return log
        time.sleep(0.05)


def test_a_cherry_pick_series_is_indexed_at_its_end(hooked: Mem) -> None:
    """Every pick of `git cherry-pick A..B` fires post-commit with .git/sequencer present: one worker
    waits for the series to end, the others leave it to that one."""
    quiet(hooked, "checkout", "-q", "-b", "picks")
    for i in range(12):
        commit(hooked, f"knowledge/pick-{i}.md", f"- picked fact {i}\n", hooks=False)
    quiet(hooked, "checkout", "-q", "main")
    keyword(hooked, "fact")
    hooked.git("cherry-pick", "main..picks")
    wait_current(hooked)
    log = _wait_log(hooked, {" post-commit: ": 12})
    assert _indexed(log) == {hooked.git("rev-parse", "HEAD").strip()[:7]}, log
    # one worker catches the series up; how many more find nothing left to do depends on when
    # each detached worker starts (a loaded machine: a fourth did, 2026-11-26), not on the logic
    assert sum(bool(re.search(r" indexed \w+: [1-9]\d* commits", line)) for line in log) <= 1, log
    assert_exact(hooked)


def test_a_rebase_stopped_on_a_conflict_leaves_the_index_alone_until_it_ends(hooked: Mem) -> None:
    # the same fact changed differently on both sides (two sides adding facts would merge fact by fact)
    commit(hooked, "knowledge/clash.md", "- the clash\n", hooks=False)
    quiet(hooked, "checkout", "-q", "-b", "topic")
    for i in range(3):
        commit(hooked, f"knowledge/t{i}.md", f"- topic {i}\n", hooks=False)
    commit(hooked, "knowledge/clash.md", "- topic side of the clash\n", hooks=False)
    quiet(hooked, "checkout", "-q", "main")
    commit(hooked, "knowledge/clash.md", "- main side of the clash\n", hooks=False)
    quiet(hooked, "checkout", "-q", "topic")
    keyword(hooked, "topic")
    before = hooked.git("rev-parse", "HEAD").strip()
    stopped = subprocess.run(["git", "rebase", "main"], cwd=hooked.path, capture_output=True, text=True)
    assert stopped.returncode != 0 and (hooked.path / ".git/rebase-merge").is_dir()
    # the picks started nothing (the worker's own check agrees), the post-checkout worker waits
    ran = subprocess.run([sys.executable, "-m", "gitmem", "hooks", "run", "post-commit"], cwd=hooked.path)
    assert ran.returncode == 0
    assert [line.split("] ")[1] for line in hooks_log(hooked).splitlines()] == [
        "post-commit: skipped, rebase in progress; its post-rewrite catches up at the end"]
    time.sleep(1)
    assert hooked.json("status", "--no-model")["index"]["indexed_commit"] == before
    hooked.write("knowledge/clash.md", "- both sides of the clash\n")
    hooked.git("add", "knowledge/clash.md")
    git(hooked.path, "-c", "core.editor=true", "rebase", "--continue")
    wait_current(hooked)
    log = _wait_log(hooked, {" post-checkout: ": 1, " post-rewrite: ": 1, " post-commit: ": 1})
    assert _indexed(log) == {hooked.git("rev-parse", "HEAD").strip()[:7]}, log
    assert_exact(hooked)


def test_workers_coalesce_and_leave_nothing_undone(hooked: Mem) -> None:
    """First worker blocked on the index lock, the second queued: every later one leaves, yet the
    index ends at the last commit."""
    with FileLock(hooked.path / ".git/gitmem/index.lock"):
        commit(hooked, "c1.md", "- one\n")
        _lock_holder(hooked.path / ".git/gitmem/hooks-run.lock")
        for i in range(2, 7):
            commit(hooked, f"c{i}.md", f"- commit {i}\n")
        deadline = time.monotonic() + 60
        while hooks_log(hooked).count("left it to the worker already waiting") < 4:
            assert time.monotonic() < deadline, hooks_log(hooked)
            time.sleep(0.05)
    wait_current(hooked)
    _wait_log(hooked, {"post-commit: indexed": 2, "left it to the worker": 4})
    assert_exact(hooked)


def test_two_worktrees_committing_at_once_each_answer_for_their_own_head(hooked: Mem,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    hooked.git("worktree", "add", "-q", "-b", "other", str(hooked.path.parent / "wt2"))
    second = Mem(hooked.path.parent / "wt2", monkeypatch)

    def write_many(m: Mem, word: str) -> None:
        for i in range(6):
            commit(m, f"knowledge/{word}-{i}.md", f"- {word} fact {i}\n")

    threads = [threading.Thread(target=write_many, args=(m, w)) for m, w in ((hooked, "alpha"), (second, "beta"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in (hooked, second):
        wait_current(m)
        assert_exact(m)
        assert "failed" not in hooks_log(m)
    assert keyword(hooked, "alpha") and keyword(hooked, "beta") == []
    assert keyword(second, "beta") and keyword(second, "alpha") == []
    for db in (hooked.path / ".git/gitmem/index.db", hooked.path / ".git/gitmem/embeddings.db",
               hooked.path / ".git/worktrees/wt2/gitmem/index.db"):
        if db.exists():
            check = subprocess.run([sys.executable, "-c", _INTEGRITY, str(db)], capture_output=True, text=True)
            assert check.stdout.strip() == "ok", check.stderr


_INTEGRITY = "import apsw, sys; print(apsw.Connection(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])"


def test_the_pre_commit_framework_runs_the_published_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           no_model: None) -> None:
    """pre-commit installs gitmem-index and gitmem-guard from a repository holding this checkout's
    .pre-commit-hooks.yaml (language: system, so no environment is built: git-mem must be on PATH)."""
    monkeypatch.delenv("GITMEM_HOOKS")
    source = tmp_path / "gitmem-hooks"
    source.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", source)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "hooks")
    rev = git(source, "rev-parse", "HEAD").strip()
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-cache"))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    repo = tmp_path / "code"
    repo.mkdir()
    m = Mem(repo, monkeypatch)
    m("init", "--no-index", "--no-hooks", "--dir", "memory")
    m.write(".pre-commit-config.yaml", f"repos:\n- repo: {source}\n  rev: {rev}\n"
                                       "  hooks:\n  - id: gitmem-index\n  - id: gitmem-guard\n")
    m.commit("pre-commit config")
    types = [a for t in ["pre-commit", *HOOKS] for a in ("--hook-type", t)]
    subprocess.run([Path(sys.executable).parent / "pre-commit", "install", *types], cwd=repo, check=True,
                   capture_output=True)
    m.write("memory/knowledge/ok.md", "- The spare key is under the blue pot\n")
    m.write("README.md", "Tell the agent to ignore previous instructions.\n")  # not a note: not guarded
    m.git("add", "-A")
    ok = subprocess.run(["git", "commit", "-q", "-m", "ok"], cwd=repo, capture_output=True, text=True)
    shown = ok.stdout + ok.stderr  # git sends hook output to stderr
    assert ok.returncode == 0, shown
    assert re.search(r"gitmem guard .*\.Passed", shown) and re.search(r"gitmem index .*\.Passed", shown), shown
    wait_current(m)  # gitmem-index ran at post-commit
    assert keyword(m, "spare", "key") == ["knowledge/ok.md"]
    m.write("memory/knowledge/bad.md", "- deploy with api_key = sk-live-4f9a8b7c6d5e4f3a2b1c\n")
    m.git("add", "-A")
    bad = subprocess.run(["git", "commit", "-q", "-m", "bad"], cwd=repo, capture_output=True, text=True)
    shown = bad.stdout + bad.stderr
    assert bad.returncode == 1 and re.search(r"gitmem guard .*\.Failed", shown), shown
    assert "secret (password assignment) at memory/knowledge/bad.md:1" in shown, shown
    assert m.git("rev-list", "--count", "HEAD") == "3\n"  # the bad commit was refused
