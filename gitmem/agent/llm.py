"""An OpenAI-compatible chat-completions client: the one protocol that Ollama,
llama.cpp's server, vLLM, LM Studio and OpenAI all speak.

The client is the standard library's urllib: consolidation makes one JSON POST
per session and needs only a timeout, so a third-party HTTP stack (httpx,
requests) would add a dependency to every install for no gain. Settings are
this machine's, never the notebook's: GITMEM_LLM_URL / GITMEM_LLM_MODEL /
GITMEM_LLM_KEY, or git config mem.llm.url / mem.llm.model (a key is read from
the environment only, so it never lands in a committed file).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import GitmemError
from ..notebook import Notebook

URL_ENV, MODEL_ENV, KEY_ENV, TIMEOUT_ENV = "GITMEM_LLM_URL", "GITMEM_LLM_MODEL", "GITMEM_LLM_KEY", "GITMEM_LLM_TIMEOUT"
URL_KEY, MODEL_KEY = "mem.llm.url", "mem.llm.model"
DEFAULT_TIMEOUT = 120.0
ATTEMPTS = 3
BACKOFF = 2.0  # seconds before the second attempt; doubled before the third
MAX_ANSWER = 200_000  # bytes read from an answer; an endpoint cannot flood memory
MAX_DEPTH = 20  # arrays and objects an answer may nest (consolidation's nest 3 deep); json.loads recurses per level


class NoEndpoint(GitmemError):
    pass


class LLMFailed(GitmemError):
    """Every attempt failed; `reason` says how the last one did."""


@dataclass(frozen=True)
class Endpoint:
    url: str
    model: str
    key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT


def endpoint(nb: Notebook) -> Endpoint:
    """This machine's endpoint, or NoEndpoint naming the settings."""
    url = os.environ.get(URL_ENV) or nb.git.config_get(URL_KEY)
    model = os.environ.get(MODEL_ENV) or nb.git.config_get(MODEL_KEY)
    if not url or not model:
        raise NoEndpoint("no LLM endpoint is configured: set GITMEM_LLM_URL and GITMEM_LLM_MODEL "
                         "(or git config mem.llm.url / mem.llm.model; a key goes in GITMEM_LLM_KEY)",
                         "e.g. GITMEM_LLM_URL=http://127.0.0.1:11434/v1 GITMEM_LLM_MODEL=llama3.1; "
                         "see docs/consolidation.md")
    if not url.startswith(("http://", "https://")):
        raise NoEndpoint(f"the LLM URL {url!r} is not an http(s) URL", "set GITMEM_LLM_URL to e.g. "
                         "http://127.0.0.1:11434/v1")
    try:
        timeout = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT)
    except ValueError:
        timeout = DEFAULT_TIMEOUT
    return Endpoint(url.rstrip("/"), model, os.environ.get(KEY_ENV) or None, timeout)


def chat(ep: Endpoint, messages: list[dict[str, str]]) -> str:
    """One chat completion's text. LLMFailed (one attempt) on an HTTP error, a
    timeout, or an answer that is not a chat completion."""
    body = json.dumps({"model": ep.model, "messages": messages, "temperature": 0, "stream": False,
                       "response_format": {"type": "json_object"}}).encode()
    headers = {"Content-Type": "application/json"}
    if ep.key:
        headers["Authorization"] = f"Bearer {ep.key}"
    request = urllib.request.Request(f"{ep.url}/chat/completions", data=body, headers=headers, method="POST")
    watch = Deadline(ep.timeout)
    opener = urllib.request.build_opener(_HTTP(watch), _HTTPS(watch))
    try:
        with opener.open(request, timeout=ep.timeout) as response:
            raw = response.read(MAX_ANSWER)
    except urllib.error.HTTPError as exc:
        raise LLMFailed(f"HTTP {exc.code} from {ep.url}") from exc
    except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
        if watch.fired:
            raise LLMFailed(watch.failure(ep)) from exc
        reason = getattr(exc, "reason", exc)
        timed_out = isinstance(reason, TimeoutError) or "timed out" in str(reason)
        raise LLMFailed(f"no answer from {ep.url}: {'timed out' if timed_out else reason}") from exc
    finally:
        watch.cancel()
    if watch.fired:  # cut at the deadline: what came is not the whole answer
        raise LLMFailed(watch.failure(ep))
    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMFailed("the endpoint's answer is not a chat completion") from exc
    if not isinstance(content, str):
        raise LLMFailed("the endpoint's answer has no text")
    return content


class Deadline:
    """One deadline for a whole request: connecting, the headers and every read of the answer.

    A socket timeout bounds each read only, so an endpoint sending a byte a second was never
    timed out. Once a connection is made, a timer shuts its socket down at the deadline; the
    read then ends at once (EOF or an error) and `fired` says why."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.fired = False
        self._timers: list[threading.Timer] = []

    def connection(self, base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
        watch = self

        # a subclass of a class chosen at run time (HTTP or HTTPS), which mypy cannot follow
        class Watched(base):  # type: ignore[valid-type, misc]
            def connect(self) -> None:
                super().connect()
                watch.arm(self)

        return Watched

    def arm(self, conn: http.client.HTTPConnection) -> None:
        timer = threading.Timer(max(0.0, self.end - time.monotonic()), self._cut, (conn,))
        timer.daemon = True
        self._timers.append(timer)
        timer.start()

    def _cut(self, conn: http.client.HTTPConnection) -> None:
        self.fired = True
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def failure(self, ep: Endpoint) -> str:
        return (f"no answer from {ep.url}: timed out (the whole answer must come within {ep.timeout:g}s, "
                f"{TIMEOUT_ENV})")

    def cancel(self) -> None:
        for timer in self._timers:
            timer.cancel()


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, watch: Deadline) -> None:
        super().__init__()
        self.watch = watch

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.watch.connection(http.client.HTTPConnection), req)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, watch: Deadline) -> None:
        super().__init__()
        self.watch = watch

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        extra: dict[str, Any] = {"context": getattr(self, "_context", None)}
        if hasattr(self, "_check_hostname"):  # Python < 3.12
            extra["check_hostname"] = self._check_hostname
        return self.do_open(self.watch.connection(http.client.HTTPSConnection), req, **extra)


def ask_json(ep: Endpoint, messages: list[dict[str, str]], validate: Callable[[Any], None],
             attempts: int = ATTEMPTS, sleep: Callable[[float], None] = time.sleep) -> tuple[Any, int]:
    """The answer as JSON that passes `validate` (which raises ValueError), and the
    attempts it took; retried with backoff. LLMFailed with the last reason after `attempts`."""
    reason = ""
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            sleep(BACKOFF * 2 ** (attempt - 2))
        try:
            text = chat(ep, messages)
        except LLMFailed as exc:
            reason = exc.message
            continue
        try:
            answer = parse(text)
            validate(answer)
        except ValueError as exc:
            reason = f"malformed answer: {str(exc).splitlines()[0][:200]}"
            continue
        return answer, attempt
    raise LLMFailed(f"{reason} (after {attempts} attempts)")


def parse(text: str) -> Any:
    """A model's answer as JSON, every string in it cleaned (`_clean_text`); ValueError if it is not
    JSON or nests deeper than MAX_DEPTH (checked before parsing: json.loads recurses once a level,
    so a deep answer would end in RecursionError, an internal error, not a failed attempt)."""
    body = _unfence(text)
    if _depth(body) > MAX_DEPTH:
        raise ValueError(f"the answer nests arrays and objects deeper than {MAX_DEPTH} levels")
    return _cleaned(json.loads(body))


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")
# C0 controls but tab and newline, and DEL. A NUL on a page makes git, and every reader after it,
# take the page for a binary file; the others rewrite a terminal. (A shared `clean_text` may replace
# this one: trust-exec writes it for every untrusted text.)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _clean_text(text: str) -> str:
    """The text without NUL and the other C0 controls (tab and newline kept) and DEL."""
    return _CONTROLS.sub("", text)


def _depth(text: str) -> int:
    """How deep the JSON text's arrays and objects nest (brackets inside strings do not count)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRING.sub('""', text)):
        depth = depth + 1 if bracket in "[{" else max(0, depth - 1)
        deepest = max(deepest, depth)
    return deepest


def _cleaned(value: Any) -> Any:
    """The parsed answer with every string (keys too) cleaned; nesting is already bounded."""
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {_clean_text(k): _cleaned(v) for k, v in value.items()}
    return value


def _unfence(text: str) -> str:
    """The JSON inside a ```json fence, which small models add despite being asked not to."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped
