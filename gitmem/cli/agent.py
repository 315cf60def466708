"""`git mem` commands for agents: context, session, mcp."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .. import verbs
from ..errors import EmptyText
from .common import guard_option, json_option, notebook, show, stdin_bytes
from .options import options, request


@click.command()
@options(verbs.Context)
@json_option
def context(as_json: bool, **given: Any) -> None:
    """Print the always-on memory context for an agent's prompt.

    The always-on files (SOUL.md, IDENTITY.md, USER.md, MEMORY.md,
    reference/*.md; [context] always_on in .gitmem.toml), then today's and
    yesterday's daily logs, each under a header naming its path. A file over
    the per-file budget keeps 70% of it from its head and 20% from its tail;
    the total budget caps the whole (defaults 8,000 and 32,000 characters).
    The plan (PLAN.md) comes first, then the active goals ([GOALS]).
    With --flush, the reminder to save memories before compaction.

    With --query or --budget: the plan, the active goals, the facts most
    relevant to the query (best first) and the always-on pages, never over
    --budget tokens; each block says what it left out.

    With a personal notebook (git config --global mem.personal PATH), its
    always-on pages come last under [PERSONAL] headers, within what the
    project's parts left of the same budget; --query ranks its facts too.

    \b
    Examples:
      git mem context                       for a SessionStart hook or a system prompt
      git mem context --date 2026-02-20     the daily logs of that day and the day before
      git mem context --json                the parts and their sizes
      git mem context --flush               for a PreCompact hook
      git mem context --query "beta launch" --budget 2000
                                            plan, goals, the most relevant facts, always-on pages
    """
    from ..agent import asked
    from . import output

    wanted = request(verbs.Context, given)
    result = asked.assemble(notebook(), wanted)
    show(result, as_json, output.reminder if wanted.flush else output.context)
    if not as_json:  # the text goes to an agent as it is: what a person should know, beside it
        for note in getattr(result, "notes", None) or []:
            click.echo(output.terminal_safe(f"note: {note}"), err=True)  # a page's name came with a pull


@click.group()
def session() -> None:
    """Chat transcripts saved as session files (conversation memory)."""


@session.command("save")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--chat", help="The chat's id [the transcript's own, else a hash of its text].")
@click.option("--agent", help="The agent's id [claude-code for Claude Code transcripts, else unknown].")
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "jsonl"]), default="auto", show_default=True,
              help="text: 'role: text' lines; jsonl: {role, content} messages or a Claude Code transcript.")
@click.option("--hook", is_flag=True,
              help="Read an agent hook's JSON on stdin and save the transcript it names (Claude Code).")
@click.option("--private", is_flag=True, help="A private chat: save nothing.")
@click.option("--consolidate", "then_consolidate", is_flag=True,
              help="Then consolidate this session through the LLM (see git mem consolidate).")
@guard_option
@json_option
def session_save(file: str | None, chat: str | None, agent: str | None, fmt: str, hook: bool, private: bool,
                 then_consolidate: bool, allow: bool, as_json: bool) -> None:
    """Save a chat transcript as a session file, as one commit.

    The file is sessions/YYYY-MM-DD-HHMM-XXXXXXXX.md (flat layout: memory/...),
    named by the chat's start and a hash of its id: saving the same chat again
    updates its file. It holds a header (chat, agent, time) and one 'role: text'
    paragraph per user and assistant message; tool calls and results are left
    out. Secrets are redacted (--no-guard keeps them). Input is FILE or stdin.

    \b
    Examples:
      git mem session save chat.txt --chat 42 --agent helper
      git mem session save ~/.claude/projects/x/abc.jsonl
      printf 'user: hi\\nassistant: hello\\n' | git mem session save --chat 7
      git mem session save --hook           as a Claude Code SessionEnd hook
      git mem session save --hook --consolidate   ... and propose what it learned
      git mem session save --private        saves nothing
    """
    from ..agent import session as sessions
    from . import output

    if private:
        _drain_stdin(file)
        raw, hook_chat = "", None
    elif hook:
        raw, hook_chat = sessions.from_hook(stdin_bytes().decode("utf-8", errors="replace"))
    else:
        raw, hook_chat = _read_input(file), None
    nb = notebook()
    result = sessions.save(nb, raw, chat or hook_chat, agent, fmt, private, allow)
    if then_consolidate and result.path:
        from ..agent import consolidate as consolidation
        from ..agent.llm import NoEndpoint

        try:
            result.consolidation = consolidation.after_save(nb, result.path)
        except NoEndpoint as exc:
            if not hook:
                raise
            # a hook that fails shows an error at every session's end where no LLM is set up (an agent developer's
            # run): the transcript is saved, and what consolidation needs is said on stderr
            click.echo(f"gitmem: saved, not consolidated: {exc.line()}", err=True)
    show(result, as_json, output.session_saved)


def _read_input(file: str | None) -> str:
    from ..agent import session as sessions

    if file and file != "-":
        return sessions.read_file(Path(file))
    if sys.stdin.isatty():
        raise EmptyText("no transcript given", "pass the transcript file, or pipe it on stdin")
    return stdin_bytes().decode("utf-8", errors="replace")  # a record: a wrong byte never loses the chat


def _drain_stdin(file: str | None) -> None:
    """Read and drop piped input, so the writer never fails on a closed pipe."""
    if file in (None, "-") and not sys.stdin.isatty():
        stdin_bytes()


@session.command("rm")
@click.argument("chat")
@json_option
def session_rm(chat: str, as_json: bool) -> None:
    """Delete a chat's session file, as one commit (git history keeps it).

    \b
    Examples:
      git mem session rm 42
      git mem session rm 3f2a9c1e-7b4d-4c1a-9e8f-0a1b2c3d4e5f --json
    """
    from ..agent import session as sessions
    from . import output

    show(sessions.remove(notebook(), chat), as_json, output.session_removed)


@session.command("changes")
@options(verbs.SessionChanges)
@json_option
def session_changes(as_json: bool, **given: Any) -> None:
    """What one agent session created, updated and removed, read from commit trailers.

    Every commit made with GITMEM_SESSION=ID in the environment (or by an MCP
    server, which names its session) carries a Gitmem-Session: ID trailer.
    ID defaults to GITMEM_SESSION.

    \b
    Examples:
      GITMEM_SESSION=chat-42 git mem remember "Sarah's phone is 555-1234"
      git mem session changes chat-42          this session: 1 remembered
      git mem session changes chat-42 --json
    """
    from ..agent import asked
    from .output_structure import session_changes as text

    show(asked.changes(notebook(), request(verbs.SessionChanges, given)), as_json, text)


@click.command("mcp")
def mcp_server() -> None:
    """Serve the notebook as MCP tools on stdio, for agents.

    Tools: context, remember, daily, write, get, recall, search, log, why,
    forget, mv, goal_add, goal_update, goals, watch, watch_list, unwatch, plan,
    plan_update, session_changes. Each returns the JSON its command prints
    with --json (a write adds its session's summary: "this session: 2
    remembered, 1 updated"); errors come back as tool errors that name the
    fix. The model stays loaded between calls.
    Needs the optional 'mcp' packages: pip install '.[mcp]' in a clone of
    gitmem, or pip install 'gitmem-notebook[mcp]' from the package index.

    \b
    Examples:
      git mem mcp                           in the notebook's folder
      git -C ~/notes mem mcp                the command an MCP client config runs
    """
    from ..agent import server

    server.serve(notebook())


COMMANDS = [context, session, mcp_server]
