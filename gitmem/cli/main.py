"""`git mem`: the command line. Each command parses, calls one domain
function, and prints through `output`. Heavy modules are imported inside the
commands, so `git mem --help` stays fast and never loads the model.

This module is the entry point and the error boundary; the commands live in
notes.py, find.py, indexing.py and agent.py, their shared options in common.py."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import GitmemError, log_bug, new_bug_id
from . import agent, consolidation, find, indexing, notes, structure, sync, warm, web
from .output import terminal_safe
from .terminal import error_line

COMPLETE_VAR = "_GIT_MEM_COMPLETE"
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


GLOBAL_OPTIONS = ("--no-pager", "--color")  # options of `git mem` itself, before the command


class App(click.Group):
    """Maps errors to exit codes: 1 expected, 2 usage, 3 bug (traceback logged)."""

    # narrower than click's overloaded main (standalone_mode is always ours): an override mypy rejects
    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        extra.pop("standalone_mode", None)
        argv = list(sys.argv[1:] if args is None else args)
        if os.environ.get(COMPLETE_VAR):  # the shell asks what can come next (git mem completion)
            return super().main(args, "git-mem", complete_var=COMPLETE_VAR, **extra)
        if argv[:1] not in (["hooks"], ["merge-driver"], ["mcp"]):  # what git and agents run stays lean
            install_manpage()
        if not argv:  # like git: the short usage, exit 0
            click.echo(short_usage())
            sys.exit(0)
        try:
            code = super().main(args, "git mem", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.UsageError as exc:
            # the whole path of a subcommand ("git mem goal update"), whose name alone is no command
            where = exc.ctx.command_path if exc.ctx and exc.ctx.command.name != "cli" else "git mem"
            hint = f"see '{where} --help'"
            if isinstance(exc, click.NoSuchOption) and exc.option_name in GLOBAL_OPTIONS and where != "git mem":
                # as git: `git --no-pager log`, not `git log --no-pager`
                hint = f"{exc.option_name} goes before the command: git mem {exc.option_name} {where[8:]} ..."
            elif isinstance(exc, click.NoSuchOption) and takes_text(exc.ctx) and not OPTION.fullmatch(exc.option_name):
                hint = f"text that starts with '-' goes after '--', e.g. {dash_example(exc.ctx, where)}; {hint}"
            click.echo(error_line(terminal_safe(f"error: {exc.format_message()} ({hint})")), err=True, color=True)
            code = 2
        except click.Abort:
            click.echo("aborted", err=True)
            code = 1
        except GitmemError as exc:  # its message may quote a page name or a note
            click.echo(error_line(terminal_safe(f"error: {exc.line()}")), err=True, color=True)
            code = exc.exit_code
        except Exception as exc:  # a bug: one line for the user, the traceback in a log
            from ..errors import from_machine

            machine = from_machine(exc)  # ... unless the machine failed (disk full, read-only)
            if machine is not None:
                click.echo(f"error: {machine.line()}", err=True)
                sys.exit(machine.exit_code)
            bug_id = new_bug_id()
            log = _log_bug(bug_id)
            click.echo(f"error: internal error in gitmem (id {bug_id}); details in {log} (please report it)", err=True)
            code = 3
        sys.exit(code if isinstance(code, int) else 0)


OPTION = re.compile(r"--[A-Za-z][\w-]*")  # an option mistyped or misplaced, not text ("-v is verbose", "-5")


def takes_text(ctx: click.Context | None) -> bool:
    """Whether the command reads free text from its arguments (what may start with '-')."""
    return any(isinstance(p, click.Argument) and p.nargs == -1 for p in (ctx.command.params if ctx else []))


def dash_example(ctx: click.Context | None, where: str) -> str:
    """`git mem write PAGE -- "- item"`: the arguments that come before the text, then '--'."""
    before = []
    for param in ctx.command.params if ctx else []:
        if isinstance(param, click.Argument):
            if param.nargs == -1:
                break
            before.append(param.human_readable_name.upper())
    return " ".join([where, *before, '-- "- item"'])


def short_usage() -> str:
    """What `git mem` alone prints: the usage line and one line a command."""
    shown = [(name, command) for name, command in cli.commands.items() if not command.hidden]
    width = max(len(name) for name, _ in shown)
    lines = ["usage: git mem <command> [<options>] [<args>]", "", "commands:"]
    for name, command in sorted(shown):
        lines.append(f"   {name.ljust(width)}   {command.get_short_help_str(limit=80)}")
    lines += ["", "'git mem <command> -h' shows a command's options and examples; 'git mem -h' the overview."]
    return "\n".join(lines)


def manpage_file() -> Path | None:
    """Where `man git-mem` looks for this install's page: share/man/man1 beside the bin folder
    that git finds git-mem in (man derives its search path from PATH that way)."""
    import shutil

    found = shutil.which("git-mem")
    return Path(found).parent.parent / "share" / "man" / "man1" / "git-mem.1" if found else None


def install_manpage() -> None:
    """Put the man page where man finds it, if it is missing or older than the commands.

    git turns `git mem --help` into `man git-mem`. A wheel ships the page as a data file, but
    an editable install (`pip install -e .`) installs no data files, and man then says "No
    manual entry for git-mem". Best effort: a folder gitmem may not write to is left alone
    (`git mem -h` always works)."""
    target = manpage_file()
    if target is None:
        return
    sources = Path(__file__).parent
    try:
        newest = max(p.stat().st_mtime for p in sources.glob("*.py"))
        if target.is_file() and target.stat().st_mtime >= newest:
            return
        text = render_manpage()
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            from ..gitops.lock import atomic_write

            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, text.encode("utf-8"))
            os.chmod(target, 0o644)  # man runs as whoever reads it
        os.utime(target)
    except OSError:
        return


def _log_bug(bug_id: str) -> Path:
    from ..gitops.repo import error_log

    return log_bug(error_log("."), f"git mem {' '.join(sys.argv[1:])}", bug_id)


@click.group(cls=App, context_settings=CONTEXT)
@click.version_option(package_name="gitmem-notebook", prog_name="git mem")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True, help="Colour the output: on a terminal (auto), always, or never. "
              "NO_COLOR=1 turns auto off.")
@click.option("--no-pager", is_flag=True, help="Print long output (log) directly instead of through git's pager.")
def cli(color: str, no_pager: bool) -> None:
    """Long-term memory for agents and people: a markdown notebook in git,
    with hybrid (keyword + meaning) recall.

    \b
    Start:
      git mem init                          make this folder or repo a notebook
      git mem remember "Sarah's phone is 555-1234"
      git mem recall "how do I reach Sarah"
      git mem help recall                   a command's options and examples
    """
    from .terminal import MANNERS

    MANNERS.color, MANNERS.pager = color, not no_pager


for _module in (notes, find, indexing, agent, structure, web, consolidation, sync, warm):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


@cli.command("help")
@click.argument("verb", nargs=-1)
@click.pass_context
def help_command(ctx: click.Context, verb: tuple[str, ...]) -> None:
    """A command's options and examples (the same as 'git mem VERB -h').

    'git mem --help' opens the git-mem(1) manual, as every git command's --help
    does; 'git mem help' prints the overview and 'git mem help VERB' one verb.

    \b
    Examples:
      git mem help                          the commands, one line each
      git mem help recall                   recall's options and examples
      git mem help hooks install            a sub-command
    """
    from .reference import context_for

    if not verb:
        click.echo(short_usage())
        return
    command: click.Command = cli
    for word in verb:
        if not isinstance(command, click.Group) or word not in command.commands or command.commands[word].hidden:
            raise click.UsageError(f"no such command: git mem {' '.join(verb)}", ctx)
        command = command.commands[word]
    root = click.Context(cli, info_name="git mem", **CONTEXT)  # the terminal's width, as -h uses
    click.echo(command.get_help(context_for(root, "git mem " + " ".join(verb))))


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Completes verbs, options and their choices. For bash it completes both
    'git-mem' and 'git mem' (the latter through git's own completion, which
    calls _git_mem); zsh and fish complete 'git-mem'.

    \b
    Examples:
      source <(git mem completion bash)     in ~/.bashrc
      source <(git mem completion zsh)      in ~/.zshrc
      git mem completion fish > ~/.config/fish/completions/git-mem.fish
    """
    from .reference import completion_script

    click.echo(completion_script(cli, shell, COMPLETE_VAR), nl=False)


@cli.command(hidden=True)
@click.option("--markdown", is_flag=True, help="Print the help blocks of docs/commands.md instead.")
@click.option("--docs", "docs", type=click.Path(dir_okay=False, path_type=Path),
              help="Rewrite the generated section of this file (docs/commands.md) in place.")
def manpage(markdown: bool, docs: Path | None) -> None:
    """Print the git-mem(1) man page (what 'git mem --help' shows).

    \b
    Examples:
      git mem manpage > man/git-mem.1
      git mem manpage --docs docs/commands.md
    """
    from . import reference

    if docs is not None:
        docs.write_text(reference.splice(docs.read_text(encoding="utf-8"), reference.render_markdown(cli)),
                        encoding="utf-8")
        return
    if markdown:
        click.echo(reference.render_markdown(cli))
    else:
        click.echo(render_manpage(), nl=False)


def render_manpage() -> str:
    """Every command's --help, in roff, so that `git help mem` has a page to show."""
    from .reference import render_manpage as render

    return render(cli)


def main() -> None:
    cli()
