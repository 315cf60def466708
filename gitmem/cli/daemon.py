"""The warm helper (`git mem daemon`): one process per work tree that keeps the model, the
index's caches and gitmem's modules loaded, and answers reads over a Unix socket, the way
git's own `git fsmonitor--daemon` serves `git status`.

It is started as `python -I /absolute/path/gitmem/cli/daemon.py TOP` (client.spawn): isolated
mode and an absolute entry, so neither the work tree nor any PYTHON* variable can put another
`gitmem` on sys.path; it then checks that the gitmem it imported is the one its entry belongs to.

- "run": a read (recall, search) runs the same click command as in-process, with the caller's
  arguments and folder, its output captured: the answer is the same by construction. Runs go
  one at a time (the folder and stdout are the process's); a caller whose variables or gitmem
  install differ from the daemon's is told to do the work itself ("fallback").
- "hook": a git hook asks for a catch-up; a thread runs the hooks' own worker logic
  (hookrun.work: skip, settle, queue behind the hooks' locks, maintenance.catch_up) with the
  model already loaded, coalescing what arrives meanwhile.
- "prompt": the agent hook's recall (prompt.py), formatted here as it is in-process.
- "ping", "stop".

It stops after mem.daemonIdle seconds without a request (default 1800), on `git mem daemon
stop`, on SIGTERM, when its git dir goes away, and when gitmem's own files change (an upgrade:
the next read starts a fresh one if mem.daemon is on). Requests are bounded: a line of
client.MAX_LINE bytes, read within REQUEST_SECONDS; a run waits at most BUSY_SECONDS for its
turn. Only the daemon's own user may connect (SO_PEERCRED), and the socket is mode 0600.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:  # started by path (client.spawn): run the installed module
    import site

    # the gitmem this file belongs to, wherever it is installed; -I left out the user's site
    # folder, which a `pip install --user` needs (with its .pth files)
    _home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if _home == site.getusersitepackages():
        site.addsitedir(_home)
    sys.path.insert(0, _home)
    from gitmem.cli.daemon import main as _main

    sys.exit(_main(sys.argv[1:], entry=os.path.abspath(__file__)))

import io
import json
import signal
import socket
import struct
import threading
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import config
from . import client

if TYPE_CHECKING:
    from ..gitops.git import Git

REQUEST_SECONDS = 5.0  # to send a request line once connected
BUSY_SECONDS = 30.0  # a run waits this long for the one before it, then the caller works itself
IDLE_DEFAULT = 1800.0
CHECK_SECONDS = 2.0  # how often the daemon looks at its idle time, git dir and source files
LOG_NAME = "daemon.log"
# variables whose difference same_model settles: the model each names, else git config's
MODEL_VARIABLES = frozenset({config.MODEL_DIR_ENV, config.MODEL_NAME_ENV})


class Daemon:
    def __init__(self, top: Path, idle: float) -> None:
        found = client.find_git_dir(str(top))
        if found is None:
            raise SystemExit(f"not a git work tree: {top}")
        self.top, self.git_dir = found
        self.path = client.socket_path(self.git_dir)
        self.idle = idle
        self.env = client.env_snapshot()
        self.package = client.package_dir()
        self.stamp = source_stamp(Path(self.package))
        self.started = time.time()
        self.last = time.monotonic()
        self.served = 0
        self.run_lock = threading.Lock()
        self.wanted: list[tuple[str, list[str]]] = []  # hooks waiting for the catch-up thread
        self.wake = threading.Condition()
        self.stopping = threading.Event()
        self.sock: socket.socket | None = None
        self.inode: int | None = None
        self.ready = False  # caught up and warmed: the first answers are warm ones
        self.git: Git | None = None  # the work tree's Git, read for same_model

    # -- the socket -----------------------------------------------------------
    def bind(self) -> None:
        """Listen on the socket, replacing a stale one; SystemExit if a daemon already answers
        there or the place is not this user's."""
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
        if st.st_uid != os.getuid():
            raise SystemExit(f"{folder} belongs to another user; the daemon will not listen there")
        if folder.parent == client.runtime_dir().parent:  # the shared fallback folder: private
            os.chmod(folder, 0o700)
        if os.path.lexists(self.path):
            why = client.refused(self.path)
            if why and "another user" in why:
                raise SystemExit(f"refused: {why}")
            if client.ask(self.path, {"op": "ping"}, wait=client.CONNECT_SECONDS) is not None:
                raise SystemExit("a daemon already serves this work tree")
            os.unlink(self.path)  # stale: its daemon died without removing it
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(32)
        sock.settimeout(CHECK_SECONDS)
        self.sock = sock
        self.inode = os.lstat(self.path).st_ino

    def serve(self) -> None:
        assert self.sock is not None
        threading.Thread(target=self._catch_up_loop, daemon=True, name="catch-up").start()
        self.want("daemon-start", [])
        checked = time.monotonic()
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                conn = None
            except OSError:
                break
            # checked on a clock, not only when no one connects: a steady stream of pings (which
            # keep nothing warm) must not keep an idle daemon alive by starving the timeout
            if time.monotonic() - checked >= CHECK_SECONDS:
                checked = time.monotonic()
                self._check()
            if conn is not None:
                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
        self.close()

    def close(self) -> None:
        self.stopping.set()
        if self.sock is not None:
            self.sock.close()
        try:  # only our own socket: a newer daemon may have replaced it
            if self.inode is not None and os.lstat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass
        self.log(f"stopped after {self.served} requests")

    def _check(self) -> None:
        if self.ready and time.monotonic() - self.last > self.idle and not self.run_lock.locked():
            self.log(f"idle for {self.idle:.0f}s")
            self.stopping.set()
        elif not self.git_dir.is_dir():
            self.stopping.set()
        elif source_stamp(Path(self.package)) != self.stamp:
            self.log("gitmem's files changed")
            self.stopping.set()
        elif self.inode is not None and _inode(self.path) != self.inode:
            self.log("the socket was replaced")
            self.stopping.set()

    # -- requests -------------------------------------------------------------
    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                if not _same_user(conn):
                    return
                conn.settimeout(REQUEST_SECONDS)
                request = json.loads(client._read_line(conn, client.MAX_LINE))
                if not isinstance(request, dict) or request.get("v") != client.PROTOCOL:
                    answer: dict[str, Any] = {"fallback": "unknown protocol"}
                else:
                    answer = self.answer(request)
                    if request.get("op") not in ("ping", "stop"):  # asking whether it runs keeps nothing warm
                        self.last = time.monotonic()
            except (OSError, ValueError) as exc:  # a slow, oversized or malformed request
                answer = {"fallback": f"bad request: {exc}"}
            except Exception:  # noqa: BLE001 - a bug: the caller works itself, the log says why
                self.log(f"failed\n{traceback.format_exc()}")
                answer = {"fallback": "internal error (see .git/gitmem/daemon.log)"}
            try:
                conn.settimeout(REQUEST_SECONDS)
                conn.sendall(json.dumps({"v": client.PROTOCOL, **answer}).encode() + b"\n")
            except OSError:
                pass  # the caller gave up waiting and works itself
        if answer.get("stopping"):
            self._wake()

    def _wake(self) -> None:
        """Have the accept loop see `stopping` now, not at its next CHECK_SECONDS timeout (`git mem
        daemon stop` waited up to 2 s for it): one connection to our own socket."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wake:
                wake.settimeout(1.0)
                wake.connect(str(self.path))
        except OSError:
            pass  # closed meanwhile: the loop has seen it

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "ping":
            return self.status()
        if op == "stop":
            self.stopping.set()
            return {"stopping": True, "pid": os.getpid()}
        if self.stopping.is_set():
            return {"fallback": "stopping"}
        if request.get("env") != self.env and not self.same_model(request.get("env")):
            return {"fallback": "started with other environment variables"}
        if op == "hook":
            args = [str(a) for a in request.get("args") or []]
            if not args:
                return {"fallback": "no hook named"}
            self.want(args[0], args[1:])
            return {"queued": True}
        if op == "run":
            return self._run(request)
        if op == "prompt":
            return self._prompt(request)
        return {"fallback": f"unknown request {op!r}"}

    def same_model(self, env: Any) -> bool:
        """Whether a request whose variables differ from this daemon's only in naming the model
        would be answered as this daemon answers: its model is the one this daemon uses (a hook
        run without GITMEM_MODEL_DIR, in a notebook whose git config names the same directory)."""
        from ..gitops.git import Git
        from ..index import embed

        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            return False
        differ = {k for k in set(env) | set(self.env) if env.get(k) != self.env.get(k)}
        if not differ <= MODEL_VARIABLES:
            return False
        if any(not os.path.isabs(os.path.expanduser(e.get(config.MODEL_DIR_ENV, "/"))) for e in (env, self.env)):
            return False  # a relative directory means the caller's folder, which may be another
        if self.git is None:
            self.git = Git.find(self.top)
        try:
            return embed.resolve(self.git, env).key == embed.resolve(self.git, self.env).key
        except OSError:
            return False

    def status(self) -> dict[str, Any]:
        from ..index import embed

        return {"pid": os.getpid(), "top": str(self.top), "socket": str(self.path), "since": self.started,
                "served": self.served, "ready": self.ready, "idle_seconds": self.idle, "python": sys.executable,
                "package": self.package, "models": sorted(embed._loaded)}

    def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        argv, cwd = request.get("argv"), request.get("cwd")
        if request.get("package") != self.package:
            return {"fallback": "another install of gitmem"}
        if not isinstance(argv, list) or not argv or argv[0] not in client.SERVED or not isinstance(cwd, str):
            return {"fallback": "not served by the daemon"}
        if not self.run_lock.acquire(timeout=BUSY_SECONDS):
            return {"fallback": "busy"}
        try:
            self.served += 1
            return run_cli([str(a) for a in argv], cwd)
        finally:
            self.run_lock.release()

    def _prompt(self, request: dict[str, Any]) -> dict[str, Any]:
        from . import prompt

        query = request.get("query")
        if not isinstance(query, str):
            return {"fallback": "no query"}
        if not self.run_lock.acquire(timeout=float(request.get("wait") or BUSY_SECONDS)):
            return {"fallback": "busy"}
        try:
            self.served += 1
            return {"text": prompt.context(str(self.top), query, "hybrid")}
        finally:
            self.run_lock.release()

    # -- catching up ----------------------------------------------------------
    def want(self, name: str, args: list[str]) -> None:
        with self.wake:
            self.wanted = [(name, args)]  # the newest is enough: the catch-up reads HEAD when it runs
            self.wake.notify()

    def _catch_up_loop(self) -> None:
        from ..gitops import hookrun
        from ..index import background

        while not self.stopping.is_set():
            with self.wake:
                if not self.wanted:
                    self.wake.wait(CHECK_SECONDS)
                    continue
                (name, args), self.wanted = self.wanted[0], []
            first = name == "daemon-start"
            try:
                hookrun.work(hookrun.BACKGROUND if first else name, args, background.catch_up, where=str(self.top),
                             who="daemon " if not first else "daemon start, ")
                if first:
                    self._warm()
            except Exception:  # noqa: BLE001 - the next hook or read catches up
                self.log(f"{name}: failed\n{traceback.format_exc()}")
            if first:  # idle time counts from when the daemon could first answer, not from its spawn
                self.last = time.monotonic()
            self.ready = True

    def _warm(self) -> None:
        """Import what a read imports and read the vectors once, so the first request is warm."""
        from ..gitops.repo import open_notebook
        from ..search import engine
        from . import find, main, output  # noqa: F401

        engine.run(open_notebook(self.top), engine.Query("gitmem warm-up", limit=1, detail=False))

    def log(self, line: str) -> None:
        from ..gitops.hookrun import HookLog

        try:
            out = HookLog(self.git_dir / "gitmem")
            out.path = out.path.with_name(LOG_NAME)
            out.write(f"daemon: {line}")
        except OSError:
            pass


def run_cli(argv: list[str], cwd: str) -> dict[str, Any]:
    """`git mem ARGV` in `cwd`, in this process, its output captured: what the caller prints."""
    from . import common
    from .main import cli

    if common.KEPT is None:
        common.KEPT = {}

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    code: Any = 0
    try:
        os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                cli.main(argv)
            except SystemExit as exc:
                code = exc.code
    except OSError as exc:  # the caller's folder is gone
        return {"fallback": f"cannot enter {cwd}: {exc}"}
    finally:
        os.chdir(here)
    code = code if isinstance(code, int) else (0 if code is None else 1)
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def source_stamp(package: Path) -> tuple[int, float]:
    """How many source files gitmem has and when the newest changed: an upgrade changes it."""
    newest, count = 0.0, 0
    for folder, _dirs, files in os.walk(package):
        for name in files:
            if name.endswith(".py"):
                count += 1
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime)
                except OSError:
                    pass
    return count, newest


def _inode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except OSError:
        return None


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this user (Linux SO_PEERCRED; elsewhere the 0600 socket decides)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid) == os.getuid()


def idle_seconds(top: Path) -> float:
    """mem.daemonIdle: seconds, or a number with s, m or h (the default when unset or not one:
    `git mem daemon start` and `status` say so, this detached process cannot)."""
    return client.idle(client.config(top, client.IDLE_KEY)) or IDLE_DEFAULT


def main(argv: list[str], entry: str | None = None) -> int:
    """The daemon process: bind, catch up, serve until idle or told to stop."""
    here = Path(__file__).resolve()
    if entry is not None and Path(entry).resolve() != here:
        return 2  # the gitmem imported is not the one whose entry was started: never serve with it
    if len(argv) != 1:
        return 2
    top = Path(argv[0]).resolve()
    os.chdir(top)
    daemon = Daemon(top, idle_seconds(top))
    try:
        daemon.bind()
    except SystemExit as exc:
        daemon.log(f"not started: {exc.code}")
        return 1
    signal.signal(signal.SIGTERM, lambda *_: daemon.stopping.set())
    signal.signal(signal.SIGINT, lambda *_: daemon.stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    daemon.log(f"started, pid {os.getpid()}, socket {daemon.path}, idle {daemon.idle:.0f}s")
    daemon.serve()
    return 0
