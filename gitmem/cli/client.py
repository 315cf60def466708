"""The warm helper's client: hand a read to `git mem daemon` when one serves this work tree.

Imports the standard library only (no click, no GitPython, no numpy): a `git mem recall` that the
daemon answers costs a Python start, this module, one socket round trip and printing.

The protocol is JSON lines over a Unix socket: one request line, one response line, both bounded
in size, the wait bounded in time. A request: {"v": 1, "op": "run" | "hook" | "ping" | "stop", ...};
a response: {"v": 1, "code": N, "stdout": "...", "stderr": "..."} for "run", or {"v": 1,
"fallback": "why"} when the caller should do the work itself (another environment, another
install of gitmem, a daemon about to stop). The socket lives in the git dir (.git/gitmem/daemon.sock,
mode 0600), or, when that path is too long for a socket, in a private folder of the user's runtime
dir named by a hash of the git dir. A socket that another user owns, or that others may open, is
refused; one that nobody answers is stale and is replaced by the next daemon.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

PROTOCOL = 1
SOCKET_NAME = "daemon.sock"
MAX_LINE = 256 * 1024  # a request: argv, cwd and a few variables
MAX_RESPONSE = 64 * 1024 * 1024
WAIT_SECONDS = 60.0  # a request the daemon has not answered by then is done in-process
CONNECT_SECONDS = 1.0
SUN_PATH_MAX = 100  # sockaddr_un holds 108 bytes on Linux, 104 on macOS
SERVED = ("recall", "search")  # what the daemon answers; anything else runs in-process
# The variables that can change an answer; a daemon started with other values does not answer.
ENV_PREFIXES = ("GITMEM_", "GIT_CONFIG", "HF_")
ENV_NAMES = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR")
# the caller's own switches, and where the agent hooks' scripts look for the notebook
ENV_IGNORED = ("GITMEM_DAEMON", "GITMEM_PROMPT_BUDGET", "GITMEM_NOTEBOOK")
NOTEBOOK_FILE = ".gitmem.toml"  # config.CONFIG_FILE, not imported here: the client stays light (a test compares)
CONFIG_KEY = "mem.daemon"  # true: a read starts the daemon when none is running
IDLE_KEY = "mem.daemonIdle"  # seconds without a request before the daemon stops
OFF = ("0", "false", "no", "off")
ON = ("1", "true", "yes", "on")


def env_snapshot() -> dict[str, str]:
    """The variables a request carries, for the daemon to compare with its own."""
    return {k: v for k, v in sorted(os.environ.items())
            if (k.startswith(ENV_PREFIXES) or k in ENV_NAMES) and k not in ENV_IGNORED}


def package_dir() -> str:
    """Which gitmem this is: a daemon of another install (or another checkout) does not answer."""
    return str(Path(__file__).resolve().parent.parent)


def find_git_dir(start: str | None = None) -> tuple[Path, Path] | None:
    """(work tree top, git dir) of the work tree holding `start`, read from the .git entries
    without running git; None if there is none (then the in-process path says so in its words)."""
    here = Path(os.path.abspath(start or os.getcwd()))
    for folder in (here, *here.parents):
        dot = folder / ".git"
        try:
            st = os.stat(dot)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            return folder, Path(os.path.realpath(dot))
        try:
            line = dot.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not line.startswith("gitdir:"):
            return None
        target = Path(line[len("gitdir:"):].strip())
        return folder, Path(os.path.realpath(target if target.is_absolute() else folder / target))
    return None


def socket_path(git_dir: Path) -> Path:
    """Where the daemon of this git dir listens."""
    inside = git_dir / "gitmem" / SOCKET_NAME
    if len(os.fsencode(str(inside))) <= SUN_PATH_MAX:
        return inside
    return runtime_dir() / f"{hashlib.sha256(os.fsencode(str(git_dir))).hexdigest()[:24]}.sock"


def runtime_dir() -> Path:
    """A folder only this user may enter, for sockets whose path in the git dir is too long."""
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return Path(base) / f"gitmem-{os.getuid()}"


def refused(path: Path) -> str | None:
    """Why the socket at `path` must not be used (not a socket, another user's, open to others), or None."""
    try:
        st = os.lstat(path)
    except OSError:
        return "no socket"
    if not stat.S_ISSOCK(st.st_mode):
        return f"{path} is not a socket"
    if st.st_uid != os.getuid():
        return f"{path} belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o077:
        return f"{path} may be opened by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def ask(path: Path, request: dict[str, Any], wait: float = WAIT_SECONDS) -> dict[str, Any] | None:
    """One request, one response; None if nobody answers (no daemon, a stale socket, a timeout,
    a response too large or not JSON)."""
    line = json.dumps({"v": PROTOCOL, **request}).encode() + b"\n"
    if len(line) > MAX_LINE:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_SECONDS)
            conn.connect(str(path))
            conn.settimeout(wait)
            conn.sendall(line)
            data = _read_line(conn, MAX_RESPONSE)
    except (OSError, ValueError):  # refused, reset, timed out, too long
        return None
    try:
        answer = json.loads(data)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) and answer.get("v") == PROTOCOL else None


def _read_line(conn: socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            raise ValueError("connection closed before a whole line")
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ValueError("line too long")


def config_on(top: Path) -> bool:
    """Whether `git config mem.daemon` asks for the daemon (one `git config` process)."""
    return config(top, CONFIG_KEY).lower() in ON


def wanted_for_prompts(top: Path) -> bool:
    """Whether the prompt hook starts the daemon here: a notebook (a plugin installed for every
    project runs the hook in every repository), with mem.daemon not false and GITMEM_DAEMON not off."""
    return not switched_off() and (top / NOTEBOOK_FILE).is_file() and not config_off(top)


def config_off(top: Path) -> bool:
    """Whether `git config mem.daemon` says no to the daemon (one `git config` process)."""
    return config(top, CONFIG_KEY).lower() in OFF


def config(top: Path, key: str) -> str:
    """`git config --get KEY` in the work tree ("" when unset or git cannot tell)."""
    try:
        return subprocess.run(["git", "config", "--get", key], cwd=top, capture_output=True,
                              timeout=5).stdout.decode(errors="replace").strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def idle(raw: str) -> float | None:
    """A mem.daemonIdle value in seconds: a number of seconds, or with s, m or h ("10m"); None if
    it is none of these or not above 0."""
    raw = raw.strip().lower()
    scale = {"s": 1, "m": 60, "h": 3600}.get(raw[-1:], 1) if raw else 1
    try:
        value = float(raw[:-1] if raw[-1:] in ("s", "m", "h") else raw) * scale
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def spawn(top: Path) -> bool:
    """Start the daemon for this work tree, detached: `python -I /absolute/path/gitmem/cli/daemon.py`
    (isolated mode, an absolute entry: a gitmem/ folder in the work tree is never imported)."""
    entry = Path(__file__).resolve().parent / "daemon.py"
    try:
        subprocess.Popen([sys.executable, "-I", str(entry), str(top)], cwd=top, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         close_fds=True)
    except OSError:
        return False
    return True


def switched_off() -> bool:
    return os.environ.get("GITMEM_DAEMON", "").strip().lower() in OFF and "GITMEM_DAEMON" in os.environ


def hand_over(argv: list[str]) -> int | None:
    """Serve `git mem ARGV` through the daemon; its exit status, or None to run it in-process."""
    if not argv or switched_off():
        return None
    hook = argv[:2] == ["hooks", "run"] and len(argv) >= 3
    if argv[0] not in SERVED and not hook:
        return None
    if hook and os.environ.get("GITMEM_HOOKS", "").strip().lower() in OFF and "GITMEM_HOOKS" in os.environ:
        return None  # switched off: the in-process path logs it
    found = find_git_dir()
    if found is None:
        return None
    top, git_dir = found
    path = socket_path(git_dir)
    why = refused(path)
    if why == "no socket":
        if config_on(top):
            spawn(top)  # for the next read; this one is served in-process (the model loads meanwhile)
            return 0 if hook else None  # a starting daemon catches up by itself
        return None
    if why:
        sys.stderr.write(f"warning: gitmem daemon not used: {why}\n")
        return None
    if hook:
        answer = ask(path, {"op": "hook", "args": argv[2:], "env": env_snapshot()}, wait=CONNECT_SECONDS)
        return 0 if answer is not None and "fallback" not in answer else None
    answer = ask(path, {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": env_snapshot(), "package": package_dir()})
    if answer is None or "fallback" in answer:
        if answer is None and config_on(top):
            spawn(top)  # the socket was stale: a new daemon replaces it
        return None
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stderr.write(str(answer.get("stderr", "")))
    sys.stdout.flush()
    code = answer.get("code", 0)
    return code if isinstance(code, int) else 1
