"""What stands between a browser and the notebook: the Host allow-list, the
access token, CSRF checks and the response headers.

- Host: a request whose Host header names anything but the addresses the
  server listens on (and localhost) is refused, so a DNS-rebinding page
  (evil.example resolving to 127.0.0.1) cannot read or write the notebook.
- Token: with --token, every request carries it (an `Authorization: Bearer`
  header, or a cookie that visiting `/?token=...` once sets).
- CSRF: every state change needs proof that it came from this app. Forms
  carry a per-server secret (`csrf` field, or the `X-Gitmem-CSRF` header that
  htmx sends); the JSON API needs an `X-Gitmem` header, which a cross-site form
  cannot send and a cross-site script can only send after a CORS preflight
  that this server never answers. A foreign Origin is refused outright.
- GET and HEAD need no proof, so they must not change anything: the app sees
  a HEAD as a GET and neither with a body (a handler that branches on the
  method, `if GET: read else: write`, once wrote on a HEAD with a body).
- No CORS headers, ever; a Content-Security-Policy that allows only this
  server's own scripts and styles, so even markup that got past the
  sanitiser could not run script.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

Scope = MutableMapping[str, Any]  # as the ASGI spec (and Starlette) types them
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE = {"GET", "HEAD"}
MAX_BODY = 8 * 1024 * 1024
TOKEN_COOKIE = "gitmem_token"
API_HEADER = b"x-gitmem"
CSRF_HEADER = b"x-gitmem-csrf"
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
NAME = re.compile(r"[^\s:@/\\?#\[\]]+")  # a host name or IPv4 address, nothing a URL would read as more


def csp(remote_images: bool) -> str:
    images = "'self' data:" + (" https: http:" if remote_images else "")
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src " + images + "; "
            "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class Guard:
    """ASGI middleware enforcing the rules in the module docstring."""

    def __init__(self, app: ASGI, hosts: set[str], csrf: str, token: str | None = None,
                 remote_images: bool = False) -> None:
        self.app, self.hosts, self.csrf, self.token = app, {h.lower() for h in hosts}, csrf, token
        self.headers = [(b"content-security-policy", csp(remote_images).encode()),
                        (b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                        (b"referrer-policy", b"same-origin"), (b"cross-origin-opener-policy", b"same-origin"),
                        (b"cross-origin-resource-policy", b"same-origin")]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        twice = sum(k.lower() == b"host" for k, _ in scope["headers"]) > 1  # which one would the app believe?
        if twice or host_name(host) not in self.hosts:
            await _plain(send, 421, "this server answers only to its own address (Host header refused)")
            return
        if self.token is not None:
            verdict = self._token(scope, headers)
            if verdict is not None:
                await verdict(send)
                return
        wrapped = _headers_added(send, self.headers)
        if scope["method"] in SAFE:
            # a copy: the server keeps its own scope, and with it the knowledge to send no body to a HEAD
            scope, receive = {**scope, "method": "GET"}, _replay(b"", receive)
        else:
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
                await _plain(wrapped, 403, "cross-site request refused (Origin)")
                return
            body, complete = await _body(receive)
            if not complete:
                await _plain(wrapped, 413, "request body too large")
                return
            if not self._proven(scope, headers, body):
                what = ("send the header 'X-Gitmem: 1' with every POST, PUT and DELETE to /api/"
                        if scope["path"].startswith("/api/") else "reload the page and submit the form again")
                await _plain(wrapped, 403, f"missing or wrong CSRF proof; {what}")
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, wrapped)

    def _proven(self, scope: Scope, headers: dict[str, str], body: bytes) -> bool:
        if hmac.compare_digest(headers.get(CSRF_HEADER.decode(), "").encode(), self.csrf.encode()):
            return True
        if scope["path"].startswith("/api/"):
            return bool(headers.get(API_HEADER.decode(), "").strip())
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/x-www-form-urlencoded":
            return False
        given = parse_qs(body.decode("utf-8", "replace")).get("csrf", [""])[0]
        return hmac.compare_digest(given.encode(), self.csrf.encode())

    def _token(self, scope: Scope, headers: dict[str, str]) -> Callable[[Send], Awaitable[None]] | None:
        """None if the request carries the token; else what to answer."""
        assert self.token is not None
        want = self.token.encode()
        bearer = headers.get("authorization", "")
        if bearer.lower().startswith("bearer ") and hmac.compare_digest(bearer[7:].strip().encode(), want):
            return None
        cookies = dict(part.strip().split("=", 1) for part in headers.get("cookie", "").split(";") if "=" in part)
        if hmac.compare_digest(cookies.get(TOKEN_COOKIE, "").encode(), want):
            return None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[0]
        if scope["method"] == "GET" and hmac.compare_digest(given.encode(), want):
            cookie = f"{TOKEN_COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/"

            # back to the same page, minus the token; never to '//other.site' (a browser reads '/\\' so too)
            location = "/" + quote(scope["path"], safe="/:@!$&'()*+,;=~").lstrip("/")

            async def admit(send: Send) -> None:  # set the cookie, and drop the token from the address bar
                await send({"type": "http.response.start", "status": 303,
                            "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode())]})
                await send({"type": "http.response.body", "body": b""})
            return admit
        return lambda send: _plain(send, 401, "this server needs its token: open the URL it printed "
                                              "(…/?token=…) or send 'Authorization: Bearer TOKEN'")


def host_name(host: str) -> str:
    """The host of a Host header or netloc, without port or brackets, lowercased; '' (allowed for no
    server) unless it is a name, an IPv4 address or a bracketed IPv6 address, then at most ':PORT'."""
    host = host.strip().lower()
    if host.startswith("["):
        inside, _, port = host[1:].partition("]")
        return inside if _address(inside) is not None and re.fullmatch(r"(:\d{1,5})?", port) else ""
    if host.count(":") > 1:  # a bare IPv6 address, as --allow-host may give one
        return host if _address(host) is not None else ""
    name, _, port = host.partition(":")
    return name if NAME.fullmatch(name) and (":" not in host or port.isdigit()) else ""


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `text` is, or None."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def allowed_hosts(bind: str, extra: tuple[str, ...] = ()) -> set[str]:
    """The names a browser may use for this server: the bound address (for a wildcard address,
    this machine's names and addresses), localhost's names when bound to loopback or a wildcard,
    and any the user added (--allow-host)."""
    hosts = {bind.lower(), *(host_name(h) for h in extra)}
    if is_loopback(bind):
        hosts |= LOCAL_NAMES
    if bind in ("0.0.0.0", "::", ""):
        hosts |= LOCAL_NAMES | machine_names()
    return hosts - {""}  # never a request without a Host header


def machine_names() -> set[str]:
    """This machine's host names and the addresses they resolve to."""
    import socket

    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    for name in list(names):
        try:
            names |= {str(info[4][0]).lower() for info in socket.getaddrinfo(name, None)}
        except OSError:
            pass
    return {n for n in names if n}


def is_loopback(bind: str) -> bool:
    """Whether `bind` is this machine alone: 'localhost' or a loopback address (not a name that
    merely starts with '127.')."""
    address = _address(bind)
    return bind.lower() == "localhost" or (address is not None and address.is_loopback)


async def _body(receive: Receive) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), True
        part = message.get("body", b"")
        size += len(part)
        if size > MAX_BODY:
            return b"", False
        chunks.append(part)
        if not message.get("more_body"):
            return b"".join(chunks), True


def _replay(body: bytes, original: Receive) -> Receive:
    """The body already read, then the client's own messages (its disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await original()

    return receive


def _headers_added(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    body = json.dumps({"error": text}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
