"""The OpenAI-compatible client, against a local server: the request, the key,
retries with backoff, and how each failure is reported."""

from __future__ import annotations

import json

import pytest

from gitmem.agent import llm
from gitmem.agent.llm import Endpoint, LLMFailed
from tests.llmserver import LLMServer

pytestmark = pytest.mark.tally("bad-input/fault matrix")


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    s = LLMServer()
    yield s
    s.close()


def check(answer: object) -> None:
    if not isinstance(answer, dict) or "ok" not in answer:
        raise ValueError("no 'ok' in the answer")


def test_request_and_key(server: LLMServer) -> None:
    server.then(("json", {"ok": 1}))
    ep = Endpoint(server.url, "m1", key="sk-test-123", timeout=5)
    answer, attempts = llm.ask_json(ep, [{"role": "user", "content": "hi"}], check, sleep=lambda s: None)
    assert (answer, attempts) == ({"ok": 1}, 1)
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["model"] == "m1" and req["temperature"] == 0
    assert req["response_format"] == {"type": "json_object"} and req["messages"][0]["content"] == "hi"
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"
    assert "sk-test" not in repr(ep)


def test_retries_with_backoff_then_succeeds(server: LLMServer) -> None:
    server.then(("status", 503), ("text", "not json"), ("text", "```json\n{\"ok\": 2}\n```"))
    waits: list[float] = []
    answer, attempts = llm.ask_json(Endpoint(server.url, "m", timeout=5), [], check, sleep=waits.append)
    assert (answer, attempts) == ({"ok": 2}, 3) and waits == [llm.BACKOFF, llm.BACKOFF * 2]


@pytest.mark.parametrize("step, reason", [
    (("status", 500), "HTTP 500"),
    (("text", "Sure, here you go"), "malformed answer"),
    (("json", {"nope": 1}), "malformed answer: no 'ok' in the answer"),
    (("sleep", 1.0, {"ok": 1}), "timed out"),
])
def test_each_failure_names_its_reason(server: LLMServer, step: tuple, reason: str) -> None:
    server.then(step)
    with pytest.raises(LLMFailed) as exc:
        llm.ask_json(Endpoint(server.url, "m", timeout=0.3), [], check, sleep=lambda s: None)
    assert reason in exc.value.message and "(after 3 attempts)" in exc.value.message
    assert len(server.requests) == 3


def test_nothing_listening() -> None:
    with pytest.raises(LLMFailed, match="no answer from http://127.0.0.1:9/v1"):
        llm.chat(Endpoint("http://127.0.0.1:9/v1", "m", timeout=1), [])


def test_settings_from_env_or_git_config(mem, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from gitmem.gitops.repo import open_notebook

    for name in ("GITMEM_LLM_URL", "GITMEM_LLM_MODEL", "GITMEM_LLM_KEY"):
        monkeypatch.delenv(name, raising=False)
    nb = open_notebook(mem.path)
    with pytest.raises(llm.NoEndpoint):
        llm.endpoint(nb)
    mem.git("config", "mem.llm.url", "http://127.0.0.1:8080/v1/")
    mem.git("config", "mem.llm.model", "qwen")
    assert llm.endpoint(nb) == Endpoint("http://127.0.0.1:8080/v1", "qwen")
    monkeypatch.setenv("GITMEM_LLM_MODEL", "other")
    monkeypatch.setenv("GITMEM_LLM_KEY", "k")
    assert (llm.endpoint(nb).model, llm.endpoint(nb).key) == ("other", "k")
    monkeypatch.setenv("GITMEM_LLM_URL", "file:///etc/passwd")
    with pytest.raises(llm.NoEndpoint, match="not an http"):
        llm.endpoint(nb)


def test_a_deeply_nested_answer_is_one_failed_attempt(server: LLMServer) -> None:
    """json.loads recursed into a RecursionError (an internal error); the depth is bounded before parsing."""
    server.then(("text", "[" * 100_000 + "]" * 100_000), ("json", {"ok": 1}))
    answer, attempts = llm.ask_json(Endpoint(server.url, "m", timeout=5), [], check, sleep=lambda s: None)
    assert (answer, attempts) == ({"ok": 1}, 2)
    server.then(("text", '{"ok": ' + "[" * 30 + "]" * 30 + "}"))
    with pytest.raises(LLMFailed) as exc:
        llm.ask_json(Endpoint(server.url, "m", timeout=5), [], check, sleep=lambda s: None)
    assert exc.value.message == ("malformed answer: the answer nests arrays and objects deeper than 20 levels "
                                 "(after 3 attempts)")


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = '{"facts": ["' + "[{" * 50 + '\\"' + "}]" * 50 + '"]}'
    assert llm._depth(text) == 2 and llm.parse(text)["facts"][0].startswith("[{[{")


def test_control_characters_leave_every_string_of_an_answer(server: LLMServer) -> None:
    server.then(("json", {"ok": "a\u0000b\tc\nd\re\u001b[31m\u007f", "k\u0000": ["x\u0007y", {"z": "\u0000"}]}))
    answer, _ = llm.ask_json(Endpoint(server.url, "m", timeout=5), [], check, sleep=lambda s: None)
    assert answer == {"ok": "ab\tc\nde[31m", "k": ["xy", {"z": ""}]}


@pytest.mark.tally("bad-input/fault matrix")
def test_an_endpoint_sending_a_byte_at_a_time_is_cut_at_the_timeout(server: LLMServer) -> None:
    """Each byte comes well within the timeout, so a per-read socket timeout never fires; the
    timeout bounds the whole answer (headers and body), so the client hangs up long before the end."""
    server.then(("drip", 0.05, {"ok": 1, "padding": "x" * 300}))
    with pytest.raises(LLMFailed) as exc:
        llm.chat(Endpoint(server.url, "m", timeout=1), [])
    assert exc.value.message == f"no answer from {server.url}: timed out (the whole answer must come within 1s, " \
                                "GITMEM_LLM_TIMEOUT)"
    assert 0 < server.dripped < 300  # the answer is over 400 bytes: cut well before its end


def test_an_answer_within_the_timeout_is_read_whole(server: LLMServer) -> None:
    server.then(("json", {"ok": 1, "padding": "y" * 100_000}))
    text = llm.chat(Endpoint(server.url, "m", timeout=30), [])
    assert json.loads(text)["padding"] == "y" * 100_000
