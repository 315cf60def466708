"""The warm daemon (cli/daemon.py) and its client (cli/client.py), with real processes: `git mem`
as a shell runs it, the daemon started by `git mem daemon start`, the real model."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from gitmem.cli import client
from tests.conftest import Mem, git

QUERIES = ["Sarah's phone", "boiler service", "what does the user drink in the morning", "launch date plan"]
PAGES = {
    "people/sarah.md": "# Sarah\n\n- Sarah's phone is 555-1234\n- Sarah prefers email after 6pm\n",
    "home/boiler.md": "# Boiler\n\n- The boiler needs a service every October\n- The plumber is Dave\n",
    "knowledge/drinks.md": "# Mornings\n\nThe user drinks green tea every morning, never coffee.\n",
    "projects/launch.md": "# Launch\n\n## Plan\n\n- Launch date is 14 March\n- Press kit by 1 March\n",
}


def gm(path: Path, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """`git mem ARGS` as a shell starts it (the installed entry point, so the daemon can answer)."""
    exe = Path(sys.executable).parent / "git-mem"
    return subprocess.run([str(exe), *args], cwd=path, capture_output=True, text=True, input=input,
                          env={**os.environ, **(env or {})}, timeout=600)


def wait_for(check, what: str, seconds: float = 300.0) -> None:  # noqa: ANN001
    """Poll until `check()` holds (a bound on waiting, not a timing assertion)."""
    until = time.monotonic() + seconds
    while not check():
        if time.monotonic() > until:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def make_notebook(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q")
    assert gm(path, "init", "--no-index").returncode == 0
    for rel, text in PAGES.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "pages")
    assert gm(path, "index").returncode == 0
    return path


def status(path: Path) -> dict:
    out = gm(path, "daemon", "status", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture
def nb(tmp_path: Path) -> Iterator[Path]:
    path = make_notebook(tmp_path / "nb")
    yield path
    gm(path, "daemon", "stop")


def without_timing(text: str) -> dict:
    data = json.loads(text)
    data.pop("timing", None)
    return data


def test_answers_through_the_daemon_are_the_ones_given_in_process(nb: Path) -> None:
    commands = [[verb, *mode, "--json", q] for q in QUERIES for verb in ("recall", "search")
                for mode in ([], ["--mode", "keyword"])] + [["recall", "--json", "--limit", "1", "-n", "2", "Sarah"],
                                                          ["recall", "--bogus", "x"], ["recall"]]
    alone = [gm(nb, *argv, env={"GITMEM_DAEMON": "0"}) for argv in commands]
    started = gm(nb, "daemon", "start", "--json")
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["running"] is True and json.loads(started.stdout)["ready"] is True
    served = [gm(nb, *argv) for argv in commands]
    assert status(nb)["served"] == len(commands)  # every one went through the daemon
    for argv, a, b in zip(commands, alone, served):
        assert (a.returncode, a.stderr) == (b.returncode, b.stderr), argv
        if a.returncode == 0:
            assert without_timing(a.stdout) == without_timing(b.stdout), argv
        else:
            assert a.stdout == b.stdout, argv
    assert alone[0].returncode == 0 and json.loads(alone[0].stdout)["results"][0]["where"].startswith("people/sarah.md:")
    assert [a.returncode for a in alone[-2:]] == [2, 1]  # usage error, empty query: the same codes


def test_the_client_imports_no_click_gitpython_or_numpy(nb: Path) -> None:
    assert gm(nb, "daemon", "start").returncode == 0
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gitmem", "recall", "--json", "Sarah"], cwd=nb,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["results"]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "gitmem.cli.client" in imported
    heavy = {m for m in imported if m.split(".")[0] in ("click", "git", "gitdb", "numpy", "apsw", "onnxruntime")
             or m.startswith(("gitmem.search", "gitmem.index", "gitmem.cli.main"))}
    assert heavy == set()


@pytest.mark.tally("bad-input/fault matrix")
def test_the_socket_is_private_and_refused_otherwise(nb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert gm(nb, "daemon", "start").returncode == 0
    path = Path(status(nb)["socket"])
    assert path == client.socket_path(Path(os.path.realpath(nb / ".git")))
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    os.chmod(path, 0o666)
    out = gm(nb, "recall", "--json", "Sarah")
    assert out.stderr == f"warning: gitmem daemon not used: {path} may be opened by other users (mode 666)\n"
    assert json.loads(out.stdout)["results"][0]["where"].startswith("people/sarah.md:")  # answered in-process
    os.chmod(path, 0o600)
    monkeypatch.setattr(os, "getuid", lambda: 4242)
    assert client.refused(path) == f"{path} belongs to another user (uid {path.stat().st_uid})"


@pytest.mark.tally("bad-input/fault matrix")
def test_a_stale_socket_is_replaced(nb: Path) -> None:
    path = client.socket_path(Path(os.path.realpath(nb / ".git")))
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    dead.bind(str(path))  # bound, never listening: what a killed daemon leaves
    os.umask(old)
    dead.close()
    assert client.ask(path, {"op": "ping"}) is None
    out = gm(nb, "recall", "--json", "Sarah")  # nobody answers: in-process
    assert out.returncode == 0 and out.stderr == ""
    assert gm(nb, "daemon", "start").returncode == 0
    assert status(nb)["running"] is True


@pytest.mark.tally("bad-input/fault matrix")
def test_requests_are_bounded(nb: Path) -> None:
    assert gm(nb, "daemon", "start").returncode == 0
    path = Path(status(nb)["socket"])
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(str(path))  # connects and says nothing: others are still served
    assert client.ask(path, {"op": "ping"})["pid"] == status(nb)["pid"]
    for line in (b"x" * (client.MAX_LINE + 10) + b"\n", b"not json\n", b'{"v": 99, "op": "ping"}\n'):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(path))
            conn.sendall(line)
            answer = json.loads(client._read_line(conn, client.MAX_RESPONSE))
        assert "fallback" in answer, line[:20]
    assert client.ask(path, {"op": "run", "argv": ["forget", "Sarah"], "cwd": str(nb), "env": client.env_snapshot(),
                             "package": client.package_dir()}) == {"v": 1, "fallback": "not served by the daemon"}
    for other in ({**client.env_snapshot(), "GITMEM_MODEL_DIR": str(nb)}, {**client.env_snapshot(), "GITMEM_PERSONAL": "x"},
                  {**client.env_snapshot(), "GITMEM_MODEL_DIR": "models/here"}):  # a folder of the caller's
        assert client.ask(path, {"op": "run", "argv": ["recall", "x"], "cwd": str(nb), "env": other,
                                 "package": client.package_dir()})["fallback"] == "started with other environment variables"
    idle.close()


def test_a_caller_that_names_the_model_otherwise_is_served_when_it_is_the_same(nb: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook run without GITMEM_MODEL_DIR, in a notebook whose git config names the directory the
    daemon was started with, gets the daemon's answer (before, any GITMEM_ variable that differed
    sent it back to work in-process: a prompt hook then ran out of its time); GITMEM_NOTEBOOK,
    which only the hook scripts read, never counts."""
    model = os.environ["GITMEM_MODEL_DIR"]
    git(nb, "config", "mem.modelDir", model)  # as git mem init --model-dir leaves it
    assert gm(nb, "daemon", "start").returncode == 0
    served = status(nb)["served"]
    bare = {k: v for k, v in os.environ.items() if k != "GITMEM_MODEL_DIR"}
    out = subprocess.run([str(Path(sys.executable).parent / "git-mem"), "recall", "--json", "launch date"], cwd=nb,
                         capture_output=True, text=True, env={**bare, "GITMEM_NOTEBOOK": str(nb)}, timeout=600)
    assert out.returncode == 0 and json.loads(out.stdout)["semantic"] is True, out.stderr
    assert status(nb)["served"] == served + 1
    monkeypatch.setenv("GITMEM_NOTEBOOK", "/anywhere")
    assert "GITMEM_NOTEBOOK" not in client.env_snapshot()


@pytest.mark.tally("bad-input/fault matrix")
def test_the_daemon_never_imports_a_gitmem_from_the_work_tree(nb: Path) -> None:
    marker = nb.parent / "imported"
    (nb / "gitmem" / "cli").mkdir(parents=True)
    for rel in ("gitmem/__init__.py", "gitmem/cli/__init__.py", "gitmem/cli/daemon.py", "gitmem/__main__.py"):
        (nb / rel).write_text(f"open({str(marker)!r}, 'w').write('{rel}')\n")
    assert gm(nb, "daemon", "start").returncode == 0
    assert gm(nb, "recall", "--json", "Sarah").returncode == 0
    assert status(nb)["package"] == client.package_dir() and not marker.exists()


def test_idle_timeout_stop_and_auto_start(nb: Path) -> None:
    git(nb, "config", "mem.daemonIdle", "1s")
    assert gm(nb, "daemon", "start").returncode == 0
    wait_for(lambda: not status(nb)["running"], "the idle daemon to stop")
    assert "idle for 1s" in (nb / ".git/gitmem/daemon.log").read_text()
    git(nb, "config", "--unset", "mem.daemonIdle")
    assert gm(nb, "recall", "Sarah").returncode == 0 and not status(nb)["running"]  # mem.daemon unset: off
    git(nb, "config", "mem.daemon", "true")
    assert gm(nb, "recall", "Sarah").returncode == 0  # answered in-process, the daemon started for the next
    wait_for(lambda: status(nb)["running"], "the daemon started on demand")
    pid = status(nb)["pid"]
    stopped = gm(nb, "daemon", "stop", "--json")
    assert json.loads(stopped.stdout) == {"running": False, "enabled": "true", "socket": status(nb)["socket"],
                                          "note": "stopped"}
    from gitmem.cli import warm  # "stopped" once the process is gone, not only its socket (an agent developer's)

    assert not warm._alive(pid)


def test_a_hook_asks_the_daemon_to_catch_up(nb: Path) -> None:
    env = {"GITMEM_HOOKS": "1"}
    assert gm(nb, "hooks", "install", env=env).returncode == 0
    assert gm(nb, "daemon", "start", env=env).returncode == 0
    (nb / "people/sarah.md").write_text(PAGES["people/sarah.md"] + "- Sarah's new mobile is 555-9876\n")
    git(nb, "commit", "-qam", "new mobile", env=env)
    head = git(nb, "rev-parse", "HEAD").strip()
    log = nb / ".git/gitmem/hooks.log"
    wait_for(lambda: log.exists() and f"daemon post-commit: indexed {head[:7]}" in log.read_text(),
             "the daemon's catch-up")
    found = json.loads(gm(nb, "recall", "--json", "Sarah's mobile", env=env).stdout)
    assert found["results"][0]["text"] == "- Sarah's new mobile is 555-9876"


@pytest.mark.parametrize(("raw", "seconds"), [("1800", 1800.0), ("10m", 600.0), ("1H", 3600.0), ("45s", 45.0),
                                              ("0.5", 0.5), ("banana", None), ("0", None), ("-5m", None), ("", None),
                                              ("inf", None), ("nan", None), ("m", None)])
def test_the_idle_setting_is_a_duration_or_nothing(raw: str, seconds: float | None) -> None:
    assert client.idle(raw) == seconds


@pytest.mark.tally("bad-input/fault matrix")
def test_daemon_start_refuses_an_idle_setting_that_is_no_duration(mem: Mem) -> None:
    """A newcomer's `git config mem.daemonIdle banana` was taken silently as 1800 s (2026-11-26)."""
    mem.git("config", "mem.daemonIdle", "banana")
    out = mem("daemon", "start", code=1)
    assert out.stderr == ("error: mem.daemonIdle is 'banana', not a duration (set one in seconds or with s, m or h, "
                          "e.g. git config mem.daemonIdle 10m)\n")
    assert not (mem.path / ".git/gitmem/daemon.sock").exists()


def test_stop_ends_the_daemon_at_once_not_at_its_next_check(nb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git mem daemon stop` waited for the accept loop's next timeout (2 s, a newcomer noticed): the
    stop now wakes the loop. With the check every hour, only the wake-up can end it."""
    import threading

    from gitmem.cli import daemon

    monkeypatch.setattr(daemon, "CHECK_SECONDS", 3600.0)
    server = daemon.Daemon(nb, 3600.0)
    monkeypatch.setattr(server, "_catch_up_loop", lambda: None)  # about stopping only
    server.bind()
    serving = threading.Thread(target=server.serve, daemon=True)
    serving.start()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30.0)
        conn.connect(str(server.path))
        time.sleep(0.5)  # the loop is back in accept() before the stop arrives (orders events; no timing)
        conn.sendall(json.dumps({"v": client.PROTOCOL, "op": "stop"}).encode() + b"\n")
        assert json.loads(client._read_line(conn, client.MAX_RESPONSE))["stopping"] is True
    serving.join(120)  # a bound on waiting (the hour it would take otherwise), not a timing
    assert not serving.is_alive() and not server.path.exists()
