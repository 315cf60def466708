"""Real git servers for the sync tests and benchmarks, started by the test and stopped by it:
`git daemon` (git://, receive-pack on) and smart HTTP (`git http-backend` behind Debian's nginx and
fcgiwrap, basic auth from an htpasswd file). Both listen on 127.0.0.1 only, on a free port; every
wait is bounded."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import socket
import signal
import subprocess
import time
from pathlib import Path

HTTP_BACKEND = Path("/usr/lib/git-core/git-http-backend")
FASTCGI_PARAMS = Path("/etc/nginx/fastcgi_params")


def free_port() -> int:
    """A port nothing listens on now (the kernel's pick for port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], what: str, seconds: float = 15.0) -> None:
    """Until something accepts on 127.0.0.1:port; AssertionError if the server died or never did."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on 127.0.0.1:{port} within {seconds} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def bare(base: Path, name: str = "remote.git") -> Path:
    """An empty bare repository a server serves (pushes over HTTP allowed)."""
    path = base / name
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "config", "http.receivepack", "true"], check=True)
    return path


class GitDaemon:
    """`git daemon` serving `base` on git://127.0.0.1:PORT/, pushes enabled."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--listen=127.0.0.1", f"--port={self.port}", f"--base-path={base}",
             "--export-all", "--enable=receive-pack", "--informative-errors", "--max-connections=64", str(base)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(self.port, self.proc, "git daemon")

    def url(self, name: str = "remote.git") -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        stop(self.proc)


def http_missing() -> str | None:
    """Why the HTTP server cannot run here, or None."""
    for tool in ("nginx", "fcgiwrap", "htpasswd"):
        if not (shutil.which(tool) or Path(f"/usr/sbin/{tool}").exists()):
            return f"{tool} is not installed (apt-get install nginx fcgiwrap apache2-utils; .ci/run does)"
    if not HTTP_BACKEND.exists():
        return f"{HTTP_BACKEND} is missing"
    return None


def _tool(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


class HttpServer:
    """Smart HTTP: nginx (basic auth) -> fcgiwrap -> git http-backend, serving `base`."""

    def __init__(self, base: Path, state: Path, user: str, password: str) -> None:
        self.base, self.user, self.password = base, user, password
        state.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        socket_path = state / "fcgi.sock"
        subprocess.run([_tool("htpasswd"), "-b", "-c", str(state / "htpasswd"), user, password], check=True,
                       capture_output=True)
        # its own process group: fcgiwrap forks 4 children that outlive a terminated parent
        self.fcgi = subprocess.Popen([_tool("fcgiwrap"), "-c", "4", "-s", f"unix:{socket_path}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while not socket_path.exists() and time.monotonic() < deadline and self.fcgi.poll() is None:
            time.sleep(0.05)
        for folder in ("body", "fastcgi", "proxy", "uwsgi", "scgi", "logs"):
            (state / folder).mkdir(exist_ok=True)
        conf = state / "nginx.conf"
        # run as root (a container), nginx's workers would become nobody, who cannot reach the socket
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};" \
            if os.geteuid() == 0 else ""
        conf.write_text(f"""
{user}
worker_processes 1;
daemon off;
pid {state}/nginx.pid;
error_log {state}/logs/error.log;
events {{ worker_connections 128; }}
http {{
  access_log off;
  client_body_temp_path {state}/body;
  fastcgi_temp_path {state}/fastcgi;
  proxy_temp_path {state}/proxy;
  uwsgi_temp_path {state}/uwsgi;
  scgi_temp_path {state}/scgi;
  server {{
    listen 127.0.0.1:{self.port};
    client_max_body_size 0;
    location / {{
      auth_basic "git";
      auth_basic_user_file {state}/htpasswd;
      include {FASTCGI_PARAMS};
      fastcgi_param SCRIPT_FILENAME {HTTP_BACKEND};
      fastcgi_param GIT_PROJECT_ROOT {base};
      fastcgi_param GIT_HTTP_EXPORT_ALL "";
      fastcgi_param PATH_INFO $uri;
      fastcgi_param REMOTE_USER $remote_user;
      fastcgi_param HOME {state};
      fastcgi_pass unix:{socket_path};
    }}
  }}
}}
""")
        self.nginx = subprocess.Popen([_tool("nginx"), "-p", str(state), "-e", str(state / "logs/error.log"),
                                       "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(self.port, self.nginx, "nginx")
        except AssertionError:
            self.stop()
            raise

    def url(self, name: str = "remote.git", password: str | None = None) -> str:
        return f"http://{self.user}:{password or self.password}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        stop(self.nginx)
        try:  # the whole group: the parent and the children it forked
            os.killpg(self.fcgi.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        stop(self.fcgi)


def gitmem(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git mem` as its own process (the tests' interpreter, isolated from the current folder)."""
    import sys

    out = subprocess.run([sys.executable, "-P", "-m", "gitmem", *args], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "GITMEM_HOOKS": "0"}, timeout=600)
    if check and out.returncode:
        raise AssertionError(f"git mem {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return out
