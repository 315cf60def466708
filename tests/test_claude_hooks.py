"""The Claude Code plugin in hooks/claude-code: each hook fed the JSON Claude Code sends, run as
Claude Code runs it (the command from hooks.json, through a shell, CLAUDE_PLUGIN_ROOT set)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import Mem
from tests.llmserver import LLMServer, answer

PLUGIN = Path(__file__).resolve().parent.parent / "hooks" / "claude-code"


@pytest.fixture
def server() -> Iterator[LLMServer]:
    s = LLMServer()
    yield s
    s.close()


def run_hook(event: str, payload: dict, mem: Mem, **env: str) -> subprocess.CompletedProcess[str]:
    hooks = json.loads((PLUGIN / "hooks.json").read_text())["hooks"]
    [group] = hooks[event]
    [hook] = group["hooks"]
    assert hook["type"] == "command"
    environ = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               "CLAUDE_PLUGIN_ROOT": str(PLUGIN), "GITMEM_NOTEBOOK": str(mem.path), **env}
    return subprocess.run(hook["command"], shell=True, input=json.dumps(payload), capture_output=True, text=True,
                          env=environ, cwd="/", timeout=120)


def payload(event: str, transcript: Path, **extra: str) -> dict:
    return {"session_id": "3f2a9c1e-demo", "transcript_path": str(transcript), "cwd": "/home/you/project",
            "hook_event_name": event, **extra}


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "3f2a9c1e-demo.jsonl"
    lines = [{"type": "user", "sessionId": "3f2a9c1e-demo", "timestamp": "2026-11-20T09:30:00Z",
              "message": {"role": "user", "content": "I started at Acme as a data engineer this week"}},
             {"type": "assistant", "sessionId": "3f2a9c1e-demo", "timestamp": "2026-11-20T09:30:05Z",
              "message": {"role": "assistant", "content": [{"type": "text", "text": "Congratulations!"}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_plugin_names_its_hooks_file_and_every_script_exists() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "gitmem" and manifest["hooks"] == "./hooks.json"
    hooks = json.loads((PLUGIN / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"}
    for event in hooks.values():
        script = event[0]["hooks"][0]["command"].split("${CLAUDE_PLUGIN_ROOT}/")[1].rstrip('"')
        assert (PLUGIN / script).is_file()


def test_session_start_prints_the_context(mem: Mem, transcript: Path) -> None:
    mem("plan", "update", "Ship the beta", "--reason", "start")
    run = run_hook("SessionStart", payload("SessionStart", transcript, source="startup"), mem)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# Memory context — ")
    assert "## PLAN.md (the plan)\n\n# Plan\n\nShip the beta\n" in run.stdout


def test_user_prompt_adds_the_facts_that_bear_on_the_prompt(mem: Mem, transcript: Path) -> None:
    """The plugin had no UserPromptSubmit hook (a newcomer, 2026-11-26): only the settings recipe did."""
    mem("remember", "The staging database runs on port 5433")
    run = run_hook("UserPromptSubmit", payload("UserPromptSubmit", transcript, prompt="which port is staging on"),
                   mem, GITMEM_PROMPT_BUDGET="600", GITMEM_DAEMON="0")  # a generous budget: no timing here
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert "- The staging database runs on port 5433 (knowledge/infrastructure.md:3, " in out["additionalContext"]
    quiet = run_hook("UserPromptSubmit", {"hook_event_name": "UserPromptSubmit"}, mem)  # no prompt: nothing
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_pre_compact_saves_the_transcript_and_prints_the_flush(mem: Mem, transcript: Path) -> None:
    run = run_hook("PreCompact", payload("PreCompact", transcript, trigger="auto", custom_instructions=""), mem)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Session nearing compaction. Write any durable memories to your notebook")
    assert run.stderr.startswith("saved: sessions/2026-11-20-")  # what session save said goes to stderr
    saved = "".join(p.read_text() for p in (mem.path / "sessions").glob("*.md"))
    assert 'chat: "3f2a9c1e-demo"' in saved and "I started at Acme" in saved


def test_session_end_saves_then_consolidates(mem: Mem, transcript: Path, server: LLMServer) -> None:
    server.then(("json", answer(facts=[{"text": "The user works at Acme as a data engineer", "source": "explicit",
                                        "confidence": 0.9}], summary="The user started at Acme.", topics=["work"])))
    run = run_hook("SessionEnd", payload("SessionEnd", transcript, reason="exit"), mem,
                   GITMEM_LLM_URL=server.url, GITMEM_LLM_MODEL="test-model", GITMEM_LLM_TIMEOUT="5")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("saved: sessions/2026-11-20-")
    assert "I started at Acme" in server.sent()  # the session went to the LLM
    assert "proposed" in run.stdout or "proposal" in run.stdout


def test_session_end_without_an_llm_still_saves_and_says_what_is_missing(mem: Mem, transcript: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        for key in os.environ:
            if key.startswith("GITMEM_LLM"):
                mp.delenv(key)
        run = run_hook("SessionEnd", payload("SessionEnd", transcript, reason="exit"), mem)
    # saved, and no hook error at every session's end where no LLM is set up (an agent developer's run)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("gitmem: saved, not consolidated: no LLM endpoint is configured") and \
        "GITMEM_LLM_URL" in run.stderr
    assert run.stdout.startswith("saved: sessions/")
    assert list((mem.path / "sessions").glob("*.md"))


def test_a_hook_never_exits_2(mem: Mem, transcript: Path, tmp_path: Path) -> None:
    """Claude Code reads exit 2 as 'block'; gitmem's usage errors exit 2, the scripts turn any failure into 1."""
    run = run_hook("PreCompact", {"hook_event_name": "PreCompact"}, mem)  # no transcript_path: gitmem says so
    assert run.returncode == 1 and "transcript_path" in run.stderr


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"])
def test_a_notebook_that_is_not_there_is_named_and_exits_1(mem: Mem, transcript: Path, event: str) -> None:
    """A wrong GITMEM_NOTEBOOK exited 128 (git's "cannot change to"), not the 1 the docs promise."""
    run = run_hook(event, payload(event, transcript, prompt="hello"), mem, GITMEM_NOTEBOOK=str(mem.path / "nowhere"))
    assert (run.returncode, run.stdout) == (1, ""), run
    assert run.stderr == f"gitmem: no notebook at {mem.path / 'nowhere'} (set GITMEM_NOTEBOOK)\n"


def test_the_plugin_ships_inside_the_package() -> None:
    from importlib.resources import files

    shipped = files("gitmem.hookscripts").joinpath("claude-code")
    for name in ("hooks.json", "session-start.sh", "user-prompt.sh", "pre-compact.sh", "session-end.sh",
                 ".claude-plugin/plugin.json"):
        assert shipped.joinpath(name).read_bytes() == (PLUGIN / name).read_bytes(), name
