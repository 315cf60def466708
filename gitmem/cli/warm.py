"""`git mem daemon start|stop|status` (the warm helper, daemon.py) and `git mem hooks prompt`
(the agent hook, prompt.py)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from . import client
from .common import json_option, notebook, show
from .indexing import hooks

START_SECONDS = 120.0  # loading the model on a loaded machine
STOP_SECONDS = 10.0


@click.group()
def daemon() -> None:
    """The warm helper: one process per work tree that keeps the model and the index loaded
    and answers recall and search (and the hooks' catch-up) in milliseconds.

    The command line, the git hooks and the agent hook use it when it runs and work
    in-process when it does not; the answers are the same. It listens on a socket in the git
    dir (mode 0600) and stops after mem.daemonIdle seconds without a request (default 1800).
    With git config mem.daemon true a read starts it when it is not running (default: only
    `git mem hooks prompt` does; mem.daemon false: not even that).

    \b
    Examples:
      git mem daemon start
      git mem daemon status --json
      git mem daemon stop
      git config mem.daemon true          started by the next read, kept warm while used
      git config mem.daemonIdle 10m       stops after ten idle minutes
    """


def _where() -> tuple[Any, Any]:
    nb = notebook()  # one clear line if there is no notebook here
    found = client.find_git_dir(str(nb.top))
    assert found is not None
    return found


def _state(top: Any, git_dir: Any, note: str | None = None) -> dict[str, Any]:
    path = client.socket_path(git_dir)
    value = client.config(top, client.CONFIG_KEY).lower()
    enabled = "true" if value in client.ON else "false" if value in client.OFF else None
    why = client.refused(path)
    answer = client.ask(path, {"op": "ping"}, wait=5.0) if why is None else None
    if answer is None or "pid" not in answer:
        if why not in (None, "no socket"):
            note = why
        return {"running": False, "enabled": enabled, "socket": str(path), "note": note}
    return {"running": True, "enabled": enabled, **{k: answer[k] for k in answer if k != "v"}}


@daemon.command("start")
@json_option
def daemon_start(as_json: bool) -> None:
    """Start the daemon for this work tree (nothing if it runs already); waits until it has caught
    the index up and loaded the model.

    \b
    Examples:
      git mem daemon start
      git mem daemon start --json
    """
    from ..errors import GitmemError

    top, git_dir = _where()
    raw = client.config(top, client.IDLE_KEY)
    if raw and client.idle(raw) is None:
        raise GitmemError(f"{client.IDLE_KEY} is {raw[:40]!r}, not a duration",
                          f"set one in seconds or with s, m or h, e.g. git config {client.IDLE_KEY} 10m")
    state = _state(top, git_dir)
    if not state["running"]:
        if not client.spawn(top):
            raise GitmemError("could not start the daemon", "check that this Python can start processes")
        until = time.monotonic() + START_SECONDS
        while not state.get("ready") and time.monotonic() < until:
            time.sleep(0.1)
            state = _state(top, git_dir)
        if not state["running"]:
            raise GitmemError("the daemon did not start", f"see {git_dir / 'gitmem' / 'daemon.log'}")
    show(state, as_json, _text)


@daemon.command("stop")
@json_option
def daemon_stop(as_json: bool) -> None:
    """Stop the daemon of this work tree (nothing if none runs).

    \b
    Examples:
      git mem daemon stop
    """
    top, git_dir = _where()
    path = client.socket_path(git_dir)
    running = client.refused(path) is None
    note = None
    if running:
        answer = client.ask(path, {"op": "stop"}, wait=5.0) or {}
        until = time.monotonic() + STOP_SECONDS
        # its socket closes first; the process may still finish a job (an agent developer saw "stopped" and
        # the process there seconds later)
        while (client.refused(path) is None or _alive(answer.get("pid"))) and time.monotonic() < until:
            time.sleep(0.05)
        note = f"stopping (pid {answer['pid']} is finishing)" if _alive(answer.get("pid")) else "stopped"
    show(_state(top, git_dir, note), as_json, _text)


def _alive(pid: object) -> bool:
    """Whether a process with this id runs (ours to signal)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a process that has exited and waits for its parent to reap it (a zombie) is gone
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


@daemon.command("status")
@json_option
def daemon_status(as_json: bool) -> None:
    """Whether the daemon runs, since when, what it has loaded and served.

    \b
    Examples:
      git mem daemon status
      git mem daemon status --json
    """
    top, git_dir = _where()
    show(_state(top, git_dir), as_json, _text)


def _text(d: dict[str, Any]) -> str:
    from . import output

    return output.daemon_state(d)


@hooks.command("prompt")
def hooks_prompt() -> None:
    """Claude Code's UserPromptSubmit hook: the facts that bear on the prompt, as context.

    Reads Claude Code's JSON on stdin and prints its hook output
    (hookSpecificOutput.additionalContext) with up to five facts that stand out (none weak, each
    scoring at least half of the best), or nothing. Never holds the prompt more
    than 0.3 s: hybrid through the daemon when it runs, else keyword in-process, else
    nothing; when no daemon runs it starts one for the next prompts (unless git config
    mem.daemon false, or GITMEM_DAEMON=0). Always exits 0. With a personal notebook
    (mem.personal), its facts too, by keyword, marked "personal:"; the project's are printed
    alone if time runs out on it.

    Recipes: hooks/claude-code-prompt.json, and the plugin in hooks/claude-code/.

    \b
    Examples:
      echo '{"hook_event_name": "UserPromptSubmit", "prompt": "how do I reach Sarah"}' | git mem hooks prompt
    """
    from . import prompt

    sys.exit(prompt.main([]))


COMMANDS = [daemon]
