"""`git mem`: the command line. Each command parses, calls one domain
function, and prints through `output`. Heavy modules are imported inside the
commands, so `git mem --help` stays fast and never loads the model.

This module is the entry point and the error boundary; the commands live in
notes.py, find.py, indexing.py and agent.py, their shared options in common.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from . import agent, consolidation, find, indexing, notes, structure, web
from .output import terminal_safe
from ..errors import GitmemError, log_bug

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class App(click.Group):
    """Maps errors to exit codes: 1 expected, 2 usage, 3 bug (traceback logged)."""

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        extra.pop("standalone_mode", None)
        argv = list(sys.argv[1:] if args is None else args)
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
            where = f"git mem {exc.ctx.command.name}" if exc.ctx and exc.ctx.command.name != "cli" else "git mem"
            hint = f"see '{where} --help'"
            if isinstance(exc, click.NoSuchOption):
                hint = f"text that starts with '-' goes after '--', e.g. {dash_example(exc.ctx, where)}; {hint}"
            click.echo(terminal_safe(f"error: {exc.format_message()} ({hint})"), err=True)
            code = 2
        except click.Abort:
            click.echo("aborted", err=True)
            code = 1
        except GitmemError as exc:  # its message may quote a page name or a note
            click.echo(terminal_safe(f"error: {exc.line()}"), err=True)
            code = exc.exit_code
        except Exception as exc:  # a bug: one line for the user, the traceback in a log
            from ..errors import from_machine

            machine = from_machine(exc)  # ... unless the machine failed (disk full, read-only)
            if machine is not None:
                click.echo(f"error: {machine.line()}", err=True)
                sys.exit(machine.exit_code)
            log = _log_bug()
            click.echo(f"error: internal error in gitmem; details in {log} (please report it)", err=True)
            code = 3
        sys.exit(code if isinstance(code, int) else 0)


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
    ctx = click.Context(cli, info_name="git mem", terminal_width=100, **CONTEXT)
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


def _log_bug() -> Path:
    try:
        from ..gitops.git import Git

        path = Git.find(".").git_dir / "gitmem" / "error.log"
    except Exception:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gitmem" / "error.log"
    return log_bug(path, f"git mem {' '.join(sys.argv[1:])}")


@click.group(cls=App, context_settings=CONTEXT)
@click.version_option(package_name="gitmem-notebook", prog_name="git mem")
def cli() -> None:
    """Long-term memory for agents and people: a markdown notebook in git,
    with hybrid (keyword + meaning) recall.

    \b
    Start:
      git mem init                          make this folder or repo a notebook
      git mem remember "Sarah's phone is 555-1234"
      git mem recall "how do I reach Sarah"
    """


for _module in (notes, find, indexing, agent, structure, web, consolidation):
    for _command in _module.COMMANDS:
        cli.add_command(_command)


@cli.command(hidden=True)
def manpage() -> None:
    """Print the git-mem(1) man page (what 'git mem --help' shows)."""
    click.echo(render_manpage(), nl=False)


def render_manpage() -> str:
    """Every command's --help, in roff, so that `git help mem` has a page to show."""
    def esc(text: str) -> str:
        lines = text.replace("\\", "\\e").split("\n")
        return "\n".join("\\&" + ln if ln.startswith((".", "'")) else ln for ln in lines)

    parts = [".TH GIT-MEM 1 \"\" \"gitmem\" \"Git Manual\"", ".SH NAME",
             "git-mem \\- long-term memory for agents, kept as a markdown notebook in git",
             ".SH SYNOPSIS", ".B git mem", "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]", ".SH DESCRIPTION", ".nf"]
    ctx = click.Context(cli, info_name="git mem", terminal_width=80, **CONTEXT)
    parts += [esc(cli.get_help(ctx)), ".fi", ".SH COMMANDS"]
    for name, command in _commands(cli, "git mem"):
        sub = click.Context(command, info_name=name.rsplit(" ", 1)[-1], parent=ctx)
        parts += [f".SS {esc(name)}", ".nf", esc(command.get_help(sub)), ".fi"]
    return "\n".join(parts) + "\n"


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        if command.hidden:
            continue
        found.append((f"{prefix} {name}", command))
        if isinstance(command, click.Group):
            found.extend(_commands(command, f"{prefix} {name}"))
    return found


def main() -> None:
    cli()
