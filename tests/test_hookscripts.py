"""The top-level hooks/ folder: shipped as gitmem.hookscripts, and its recipes name real commands."""

import json
import re
import shlex
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import click

from gitmem.cli.main import cli
from tests.conftest import Mem

HOOKS = Path(__file__).resolve().parent.parent / "hooks"
RECIPES = ["README.md", "claude-code-settings.json", "gitmem-nightly.cron", "gitmem-nightly.service",
           "gitmem-nightly.timer", "post-hook.sh"]


def test_the_folder_is_the_package_that_hooks_read() -> None:
    shipped = files("gitmem.hookscripts")
    for name in RECIPES:
        assert shipped.joinpath(name).read_bytes() == (HOOKS / name).read_bytes(), name
    from gitmem.gitops import hooks

    from gitmem import launch

    assert hooks.script() == (HOOKS / "post-hook.sh").read_text().replace(
        "@PYTHON@", shlex.quote(sys.executable)).replace("@HOME@", shlex.quote(launch.home())).replace(
        "@BOOT@", shlex.quote(launch.BOOT)).encode()
    assert not (Path(hooks.__file__).parent / "hook.sh").exists()  # one copy of the script


def git_mem_commands(line: str) -> list[list[str]]:
    """The `git [-C DIR] mem ARGS` commands in a shell line, as argument lists after 'mem'."""
    found = []
    for part in re.split(r"&&|;|\|\|", line) if "git mem" in line or " mem " in line else []:
        words = shlex.split(part, comments=True)
        words = words[:next((i for i, w in enumerate(words) if re.match(r"\d?>", w)), len(words))]
        if "git" in words and "mem" in words:
            found.append(words[words.index("mem") + 1:])
    return found


def exists(args: list[str]) -> bool:
    """Whether `git mem ARGS` names a command and options it has."""
    command: click.Command = cli
    ctx = click.Context(cli)
    for word in args:
        if word.startswith("-"):
            if not any(word in p.opts for p in command.params):
                return False
        elif isinstance(command, click.Group):
            sub = command.get_command(ctx, word)
            if sub is None:
                return False
            command = sub
    return not isinstance(command, click.Group)


def recipe_commands(name: str, commented: bool = False) -> list[list[str]]:
    text = (HOOKS / name).read_text()
    if name.endswith(".json"):
        settings = json.loads(text)["hooks"]
        lines = [h["command"] for event in settings.values() for group in event for h in group["hooks"]]
    else:
        lines = [ln.lstrip("# ").split("=", 1)[-1] if commented else ln for ln in text.splitlines()
                 if ln.strip().startswith("#") == commented]
    return [args for line in lines for args in git_mem_commands(line)]


def test_every_recipe_runs_commands_that_exist() -> None:
    claude = recipe_commands("claude-code-settings.json")
    assert claude == [["context"], ["session", "save", "--hook"], ["context", "--flush"],
                      ["session", "save", "--hook", "--consolidate"]]
    assert recipe_commands("gitmem-nightly.cron") == [["index"]]
    assert recipe_commands("gitmem-nightly.service") == [["index"]]
    for args in claude + recipe_commands("gitmem-nightly.cron"):
        assert exists(args), args
    # the commented lines wait for consolidate and prune (issue 14)
    assert ["consolidate"] in recipe_commands("gitmem-nightly.service", commented=True)
    assert ["prune"] in recipe_commands("gitmem-nightly.cron", commented=True)


def test_the_cron_line_is_five_times_and_a_command() -> None:
    jobs = [ln for ln in (HOOKS / "gitmem-nightly.cron").read_text().splitlines()
            if ln.strip() and not ln.startswith("#") and "=" not in ln.split()[0]]
    assert len(jobs) == 1
    fields = jobs[0].split(None, 5)
    assert fields[:5] == ["30", "3", "*", "*", "*"] and fields[5].startswith('cd "$HOME/notes" && git mem index')


def test_the_claude_code_session_end_hook_saves_the_transcript(mem: Mem, tmp_path: Path) -> None:
    """The SessionEnd command as Claude Code runs it: its JSON payload on stdin (then consolidation,
    which needs an LLM: tests/test_claude_hooks.py runs it against a scripted one)."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "the launch is on Friday"}})
                          + "\n")
    settings = json.loads((HOOKS / "claude-code-settings.json").read_text())["hooks"]
    command = settings["SessionEnd"][0]["hooks"][0]["command"].replace("~/notes", shlex.quote(str(mem.path)))
    payload = json.dumps({"session_id": "demo-1", "transcript_path": str(transcript), "hook_event_name": "SessionEnd"})
    env = {k: v for k, v in _env_with_git_mem().items() if not k.startswith("GITMEM_LLM")}
    run = subprocess.run(command, shell=True, input=payload, capture_output=True, text=True, env=env)
    # saved; no LLM to consolidate is said, and is no hook error (one at every session's end was noise)
    assert run.returncode == 0 and "saved, not consolidated" in run.stderr and "GITMEM_LLM_URL" in run.stderr, \
        run.stderr
    assert "the launch is on Friday" in "".join(p.read_text() for p in (mem.path / "sessions").glob("*.md"))


def _env_with_git_mem() -> dict:
    import os

    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
