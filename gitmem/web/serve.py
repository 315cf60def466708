"""Running the app: bind, pick a port, print the URL, open a browser."""

from __future__ import annotations

import re
import socket
import webbrowser
from collections.abc import Callable
from pathlib import Path

from ..errors import UsageError
from .security import allowed_hosts, is_loopback

DEFAULT_PORT = 8765
# long enough not to be guessed online; the same in a URL, a cookie, a header
TOKEN = re.compile(r"[A-Za-z0-9._~-]{16,}")
PACKAGES = {"starlette": "starlette", "uvicorn": "uvicorn", "jinja2": "jinja2", "markdown_it": "markdown-it-py",
            "nh3": "nh3", "multipart": "python-multipart"}


def missing() -> list[str]:
    """The web extra's packages that are not installed."""
    from importlib.util import find_spec

    return [name for module, name in PACKAGES.items() if find_spec(module) is None]


def check(host: str, token: str | None) -> None:
    """UsageError unless binding beyond this machine comes with a token."""
    if not is_loopback(host) and not token:
        raise UsageError(f"serving on {host} lets other machines reach your notebook, so it needs a token",
                         "pass --token SECRET (a long random string), or serve on 127.0.0.1")
    if token is not None and not TOKEN.fullmatch(token):
        raise UsageError("the token must be at least 16 characters of letters, digits and . _ ~ -",
                         'e.g. --token "$(openssl rand -hex 16)"')


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 lets the system pick a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                         "pick another port with --port N, or --port 0 for any free one") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def serve(root: Path, host: str, port: int, token: str | None, open_browser: bool, remote_images: bool,
          say: Callable[[str], None], allow_hosts: tuple[str, ...] = ()) -> None:
    """Serve the notebook at `root` until interrupted."""
    import uvicorn

    from .app import create_app

    check(host, token)
    sock = bind(host, port)
    address = url(host, sock.getsockname()[1], token)
    hosts = allowed_hosts(host, allow_hosts)
    app = create_app(root, hosts, token, remote_images)
    say(f"serving {root} at {address}" + ("" if is_loopback(host) else " (reachable from other machines)"))
    say("press Ctrl+C to stop")
    if open_browser:
        webbrowser.open(address)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
