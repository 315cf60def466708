"""`git mem`: the command line. Each command parses, calls one domain
function, and prints through `output`. Heavy modules are imported inside the
commands, so `git mem --help` stays fast and never loads the model."""

from __future__ import annotations

import os
import sys
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import click

from .errors import EmptyText, GitmemError

MODES = ("hybrid", "keyword", "semantic")
GROUPS = ("notebook", "daily", "sessions")
DATE_BASES = ("auto", "commit", "file")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class App(click.Group):
    """Maps errors to exit codes: 1 expected, 2 usage, 3 bug (traceback logged)."""

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:  # type: ignore[override]
        extra.pop("standalone_mode", None)
        try:
            code = super().main(args, "git mem", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.UsageError as exc:
            where = f"git mem {exc.ctx.command.name}" if exc.ctx and exc.ctx.command.name != "cli" else "git mem"
            hint = f"see '{where} --help'"
            if isinstance(exc, click.NoSuchOption):
                hint = f"text that starts with '-' goes after '--', e.g. {where} -- \"- item\"; {hint}"
            click.echo(f"error: {exc.format_message()} ({hint})", err=True)
            code = 2
        except click.Abort:
            click.echo("aborted", err=True)
            code = 1
        except GitmemError as exc:
            click.echo(f"error: {exc.line()}", err=True)
            code = exc.exit_code
        except Exception as exc:  # a bug: one line for the user, the traceback in a log
            from .errors import from_machine

            machine = from_machine(exc)  # ... unless the machine failed (disk full, read-only)
            if machine is not None:
                click.echo(f"error: {machine.line()}", err=True)
                sys.exit(machine.exit_code)
            log = _log_bug()
            click.echo(f"error: internal error in gitmem; details in {log} (please report it)", err=True)
            code = 3
        sys.exit(code if isinstance(code, int) else 0)


def _log_bug() -> Path:
    try:
        from .git import Git

        path = Git.find(".").git_dir / "gitmem" / "error.log"
    except Exception:
        path = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gitmem" / "error.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as log:
        log.write(f"--- {datetime.now().isoformat()} git mem {' '.join(sys.argv[1:])}\n")
        log.write(traceback.format_exc())
    return path


def show(data: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    from . import output

    click.echo(output.render(data, as_json, text))


def notebook() -> Any:
    from .notebook import open_notebook

    return open_notebook(".")


def read_text(words: tuple[str, ...], what: str) -> str:
    """The words of the argument, or stdin when given '-' or nothing on a pipe."""
    if words in ((), ("-",)) and not sys.stdin.isatty():
        return sys.stdin.read()
    if words == ("-",):
        return sys.stdin.read()
    if not words:
        raise EmptyText(f"no {what} given", f"pass the {what} as an argument, or '-' to read stdin")
    return " ".join(words)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (schema in the README).")
guard_option = click.option("--no-guard", "allow", is_flag=True,
                            help="Store it even if it looks like a secret or an instruction (for people).")


def search_options(command: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--limit", "-n", type=click.IntRange(1, 1000), help="At most this many results [15]."),
        click.option("--min-score", type=click.FloatRange(0, 1), help="Drop results scoring below this [0.25]."),
        click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True,
                     help="Rankers to use: both fused, BM25 only, or vectors only."),
        click.option("--tag", "tags", multiple=True, help="Only pages whose frontmatter tags include this."),
        click.option("--type", "kind", help="Only pages whose frontmatter type is this."),
        click.option("--at", metavar="REV|DATE",
                     help="Search the notebook as it stood at a commit, branch, tag, date (end of that day) "
                          "or period back from now (7d)."),
        click.option("--history", is_flag=True,
                     help="Search current and superseded text; old results say until when they were true "
                          "and which commit changed them."),
        click.option("--since", metavar="PERIOD|DATE", help="Only text dated since then: 30m, 24h, 7d, 2w or a date."),
        click.option("--from", "start", metavar="DATE", help="Only text dated on or after this day."),
        click.option("--to", "end", metavar="DATE", help="Only text dated on or before this day."),
        click.option("--date", "day", metavar="DATE", help="Only text dated on this day."),
        click.option("--by", type=click.Choice(DATE_BASES), default="auto", show_default=True,
                     help="The date the filters use: auto = the date in the file name for daily logs and "
                          "sessions, the commit date of the text for other pages; commit; file."),
        json_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command


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


@cli.command()
@click.argument("path", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--layout", type=click.Choice(["folders", "flat"]),
              help="folders: reference/, knowledge/, daily/, sessions/; flat: MEMORY.md + memory/.")
@click.option("--dir", "folder", help="Keep the notebook in this subfolder of the repository.")
@click.option("--no-index", is_flag=True, help="Skip building the index (and fetching the model).")
@click.option("--agent-instructions", is_flag=True,
              help="Also write reference/agent-instructions.md, how an agent should use the notebook.")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks (reads still catch up).")
@json_option
def init(path: Path, layout: str | None, folder: str | None, no_index: bool, agent_instructions: bool,
         no_hooks: bool, as_json: bool) -> None:
    """Make a folder or repository into a notebook (safe to run again).

    Creates .gitmem.toml, a .gitattributes that merges daily logs entry by
    entry, a git repository if there is none, and the index; installs the git
    hooks (see 'git mem hooks'); fetches the embedding model if it is not on
    this machine yet. Run it once in every clone of a notebook.

    \b
    Examples:
      git mem init                          this folder, layout chosen for you
      git mem init --layout flat            MEMORY.md + memory/YYYY-MM-DD.md
      git mem init --dir memory             a notebook inside a code repository
      git mem init --agent-instructions     add the page that tells an agent how to use it
    """
    from . import output, scaffold

    result = scaffold.init(path, layout, folder, build_index=not no_index, progress=_progress("embedding"),
                           agent_instructions=agent_instructions, install_hooks=not no_hooks)
    show(result, as_json, output.init)


@cli.command()
@click.argument("text", nargs=-1)
@click.option("--to", "to", metavar="PAGE", help="Store it on this page.")
@click.option("--section", help="Under this H2 section of the page.")
@click.option("--category", type=click.Choice(["fact", "preference", "contact", "todo", "shopping"]),
              help="Route by category instead of guessing from the text.")
@click.option("--force", is_flag=True, help="Store it even if the notebook already says it.")
@guard_option
@json_option
def remember(text: tuple[str, ...], to: str | None, section: str | None, category: str | None,
             force: bool, allow: bool, as_json: bool) -> None:
    """Store a fact on the right page, as one commit.

    Routing: contacts (phone, email, address) -> reference/contacts.md,
    preferences -> reference/preferences.md, todos -> lists/todos.md, shopping
    -> lists/shopping.md, anything else -> knowledge/facts.md (flat layout:
    sections of MEMORY.md). A fact the notebook already holds is not stored twice.
    Secrets and instruction-like text are refused, with the reason.

    \b
    Examples:
      git mem remember "Sarah Chen's phone is 555-1234"
      git mem remember --category preference "Prefers tea over coffee"
      git mem remember --to projects/apollo.md --section Decisions "Ship on Friday"
      echo "a longer fact" | git mem remember -
    """
    from . import memory, output

    result = memory.remember(notebook(), read_text(text, "fact"), to, section, category, force, allow)
    show(result, as_json, output.written)


@cli.command()
@click.argument("text", nargs=-1)
@guard_option
@json_option
def daily(text: tuple[str, ...], allow: bool, as_json: bool) -> None:
    """Append an entry to today's daily log, as one commit.

    The entry is '## HH:MM — first line' followed by the rest of the text, in
    daily/YYYY-MM-DD.md (flat layout: memory/YYYY-MM-DD.md).

    \b
    Examples:
      git mem daily "Called Sarah about the project timeline"
      git mem daily - < meeting-notes.txt
    """
    from . import memory, output

    show(memory.daily(notebook(), read_text(text, "entry"), allow=allow), as_json, output.written)


@cli.command()
@click.argument("page")
@click.argument("content", nargs=-1)
@click.option("--section", help="Write into this H2 section (created if missing).")
@click.option("--replace", is_flag=True, help="Replace the page (or the section) instead of appending.")
@guard_option
@json_option
def write(page: str, content: tuple[str, ...], section: str | None, replace: bool, allow: bool,
          as_json: bool) -> None:
    """Write or append to a page, or to one of its H2 sections, as one commit.

    Content comes from the arguments, or from stdin when none are given.

    \b
    Examples:
      git mem write reference/standing.md "Weekly review on Fridays"
      git mem write projects/apollo.md --section Status --replace "On track"
      cat plan.md | git mem write reference/plan.md --replace
    """
    from . import memory, output

    result = memory.write(notebook(), page, read_text(content, "content"), section, replace, allow)
    show(result, as_json, output.written)


@cli.command()
@click.argument("target", nargs=-1)
@click.option("--all", "every", is_flag=True,
              help="Forget every line that holds the text (else more than one is refused).")
@json_option
def forget(target: tuple[str, ...], every: bool, as_json: bool) -> None:
    """Remove a fact from the notebook (one commit) and from every part of the index.

    TEXT removes each line that contains it (case and spacing ignored; more
    than one line needs --all); PATH:START[-END] removes those lines. The
    index forgets it too, past revisions included. Git history still holds
    it: the README ('Forgetting') says how to purge history.

    \b
    Examples:
      git mem forget "Sarah's old phone is 555-0000"
      git mem forget reference/contacts.md:7
      git mem forget --all "Project Nightingale"
    """
    from . import forget as forgetting, output

    show(forgetting.forget(notebook(), read_text(target, "fact"), every), as_json, output.forgot)


@cli.command()
@click.argument("spec", metavar="PATH[:START[-END]]")
@click.option("--at", metavar="REV|DATE",
              help="The page as it was at a commit, branch, tag, date (end of that day) or period ago (7d).")
@json_option
def get(spec: str, at: str | None, as_json: bool) -> None:
    """Print a page, or a range of its lines.

    \b
    Examples:
      git mem get reference/contacts.md
      git mem get reference/contacts.md:3-6
      git mem get MEMORY.md:12 --json
      git mem get reference/plan.md --at 2026-01-31     as it was at the end of that day
      git mem get reference/plan.md --at HEAD~3         three commits ago (or a hash, branch, tag)
      git mem get reference/old-page.md --at 2w         a page deleted since, as it was two weeks ago
    """
    from . import memory, output

    show(memory.get(notebook(), spec, at), as_json, output.page)


def _search(words: tuple[str, ...], groups: tuple[str, ...], limit: int | None, min_score: float | None,
            mode: str, tags: tuple[str, ...], kind: str | None, as_json: bool, at: str | None = None,
            history: bool = False, since: str | None = None, start: str | None = None, end: str | None = None,
            day: str | None = None, by: str = "auto") -> None:
    from . import dates, output, search

    since, until = dates.date_range(since, start, end, day)
    query = search.Query(" ".join(words), mode, groups, limit, min_score, tags, kind, at, history, since, until, by)
    show(search.run(notebook(), query), as_json, output.results)


@cli.command()
@click.argument("query", nargs=-1)
@search_options
def recall(query: tuple[str, ...], **options: Any) -> None:
    """Find memories by meaning and keyword in the notebook and daily logs.

    Results are grouped: notebook pages first, then daily logs, each ranked by
    score (0-1). Sessions are left out; use 'git mem search --in sessions'.
    --at and --history reach back through the notebook's git history. Date
    filters use, by default, the date in the file name for daily logs and
    sessions and the commit date of the text for every other page (--by).

    \b
    Examples:
      git mem recall "Sarah's phone"
      git mem recall what does the user drink in the morning
      git mem recall --mode keyword ERR_4711 --json
      git mem recall --tag project --type plan "launch date"
      git mem recall --history "Sarah's phone"       current and superseded, with when each changed
      git mem recall --at 2026-01-31 "launch date"   as the notebook stood at the end of that day
      git mem recall --at HEAD~5 "launch date"       as it stood five commits ago (also: a hash, a tag)
      git mem recall --at 2w "launch date"           as it stood two weeks ago
      git mem recall --since 7d "what did I learn"   text committed in the last week (30m, 24h, 2w)
      git mem recall --from 2026-02-01 --to 2026-02-14 standup
      git mem recall --date 2026-02-20 Sarah         that day's daily log, and pages changed that day
      git mem recall --since 24h --by commit Sarah   by commit date even for daily logs
    """
    _search(query, ("notebook", "daily"), **options)


@cli.command()
@click.argument("query", nargs=-1)
@click.option("--in", "groups", multiple=True, type=click.Choice(GROUPS),
              help="Only these groups (repeatable); default all, sessions included.")
@search_options
def search(query: tuple[str, ...], groups: tuple[str, ...], **options: Any) -> None:
    """The same engine as recall, over every group including sessions.

    \b
    Examples:
      git mem search "deployment checklist"
      git mem search --in sessions "what did we decide about the API"
      git mem search --mode semantic "feeling tired lately" --json
      git mem search --in sessions --date 2026-02-20 "API"     sessions named for that day
      git mem search --history --in sessions "deadline"        including sessions deleted since
      git mem search --at v1.0 "deployment checklist"
    """
    _search(query, groups or GROUPS, **options)


@cli.command("log")
@click.option("--since", metavar="PERIOD|DATE", help="Only commits since then: 30m, 24h, 7d, 2w, or a date.")
@click.option("--until", metavar="PERIOD|DATE", help="Only commits up to then (a bare date: its end).")
@click.option("--path", metavar="PAGE", help="Only changes to this page (followed back through renames).")
@click.option("--grep", metavar="QUERY",
              help="Only commits whose added or removed text matches QUERY, by keyword or meaning.")
@click.option("-n", "--max-count", "limit", type=click.IntRange(1), help="At most this many commits.")
@json_option
def log_command(since: str | None, until: str | None, path: str | None, grep: str | None, limit: int | None,
                as_json: bool) -> None:
    """The memory timeline: commits that changed the notebook, newest first.

    Each entry: commit, date, author and message, then per page what was
    added, changed or removed, named by section heading, with the lines. Dates
    are commit dates. A merge is one entry with the commits it brought in.

    \b
    Examples:
      git mem log                                  the whole timeline
      git mem log --since 7d                       what was learned this week (also 30m, 24h, 2w)
      git mem log --since 2026-02-01 --until 2026-02-14
      git mem log --path reference/plan.md         how a plan evolved, and why
      git mem log --grep "Sarah's phone"           when that fact was written or changed
      git mem log -n 5 --json                      the last five, as JSON
    """
    from . import output, timeline

    show(timeline.log(notebook(), since, until, path, grep, limit), as_json, output.timeline)


@cli.command()
@json_option
def index(as_json: bool) -> None:
    """Catch the index up with git and embed whatever is new (what hooks run).

    \b
    Examples:
      git mem index
      git mem index --json
    """
    from . import maintenance, output

    show(maintenance.catch_up(notebook(), progress=_progress("embedding")), as_json, output.summary)


@cli.command()
@json_option
def rebuild(as_json: bool) -> None:
    """Drop the index and build it again from git.

    Embeddings already computed are reused from the cache, so a rebuild only
    embeds text it has never seen.

    \b
    Examples:
      git mem rebuild
    """
    from . import maintenance, output

    show(maintenance.rebuild(notebook(), progress=_progress("embedding")), as_json, output.summary)


@cli.command()
@click.option("--no-model", is_flag=True, help="Do not try to load the model (faster).")
@json_option
def status(no_model: bool, as_json: bool) -> None:
    """Index health: files, chunks, revisions, indexed commit vs HEAD, model.

    \b
    Examples:
      git mem status
      git mem status --json
    """
    from . import maintenance, output

    show(maintenance.status(notebook(), check_model=not no_model), as_json, output.status)


@cli.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--notes-only", is_flag=True, help="Skip files that are not notes of this notebook (pre-commit).")
@json_option
def guard(files: tuple[str, ...], notes_only: bool, as_json: bool) -> None:
    """Check files for secrets and instruction-like text (the pre-commit guard).

    Exits 1 and names each finding (file, line, what) if any file has one.

    \b
    Examples:
      git mem guard reference/contacts.md
      git mem guard $(git diff --cached --name-only -- '*.md')
      git mem guard --notes-only README.md memory/MEMORY.md
    """
    from . import guard as guardrails
    from .errors import Refused

    if notes_only:
        from .notebook import notes_among

        files = tuple(notes_among(notebook(), list(files)))
    found = guardrails.scan_files(list(files))
    data = {"files": len(files), "findings": [{"path": p, **vars(f)} for p, f in found]}
    if as_json:
        show(data, True, str)
    for path, finding in found if not as_json else []:
        click.echo(f"{finding.describe(path)}", err=True)
    if found:
        raise Refused(f"{len(found)} finding(s) in {len({p for p, _ in found})} file(s); nothing was committed",
                      "remove them, or commit with --no-verify if you are sure")


@cli.group()
def hooks() -> None:
    """The git hooks that keep the index current, and the daily-log merge driver."""


@hooks.command("install")
@click.option("--force", is_flag=True, help="Install even where core.hooksPath serves more than this clone.")
@json_option
def hooks_install(force: bool, as_json: bool) -> None:
    """Install the hooks, keeping any hook already there (it runs after gitmem's).

    The hooks start the index catch-up in the background and return at once,
    so git is not slowed down. Also sets up this clone's daily-log merge
    driver. Installing twice changes nothing.

    \b
    Examples:
      git mem hooks install
      git mem hooks install --force        core.hooksPath is shared, install there anyway
    """
    from . import hooks as githooks, output

    show(githooks.install(notebook(), force), as_json, output.hooks_change)


@hooks.command("uninstall")
@json_option
def hooks_uninstall(as_json: bool) -> None:
    """Remove gitmem's hooks and put back the hooks they kept.

    \b
    Examples:
      git mem hooks uninstall
    """
    from . import hooks as githooks, output

    show(githooks.uninstall(notebook()), as_json, output.hooks_change)


@hooks.command("status")
@json_option
def hooks_status(as_json: bool) -> None:
    """Whether the hooks and the daily-log merge driver are installed here.

    \b
    Examples:
      git mem hooks status
      git mem hooks status --json
    """
    from . import hooks as githooks, output

    show(githooks.status(notebook()), as_json, output.hooks_status)


@hooks.command("run", hidden=True, context_settings={"ignore_unknown_options": True})
@click.argument("name", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hooks_run(name: str | None, args: tuple[str, ...]) -> None:
    """What the hooks run: catch the index up in the background; always exits 0."""
    from . import hookrun

    hookrun.start(name, list(args))


@cli.command("merge-driver", hidden=True)
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path", required=False, default="")
def merge_driver(base: Path, ours: Path, theirs: Path, path: str) -> None:
    """What git runs to merge a daily log (%O %A %B %P): entry by entry."""
    from . import merge

    if not merge.merge_files(base, ours, theirs, path):
        click.echo(f"gitmem: {path or ours}: both sides changed the same entry; resolve the markers", err=True)
        sys.exit(1)


@cli.group()
def model() -> None:
    """The embedding model (semantic search)."""


@model.command("download")
@json_option
def model_download(as_json: bool) -> None:
    """Fetch the configured model so semantic search works offline.

    Only this command, init and rebuild ever download; a query never waits on
    the network. With GITMEM_MODEL_DIR (or git config mem.modelDir) set, this
    checks that the local model loads.

    \b
    Examples:
      git mem model download
      GITMEM_MODEL=BAAI/bge-small-en-v1.5 git mem model download
    """
    from .errors import NoNotebook, NotARepo

    try:
        nb = notebook()
    except (NotARepo, NoNotebook):
        nb = None
    from . import maintenance

    show(maintenance.fetch_model(nb), as_json,
         lambda d: f"model ready: {d['name']} ({d['dim']} dimensions, {d['source']}) in {d['seconds']}s")


def _progress(label: str) -> Callable[[int, int], None] | None:
    """A progress bar on stderr when a person is watching, else nothing."""
    if not sys.stderr.isatty():
        return None
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)
            state.pop("bar")

    return update


@cli.command()
@click.option("--date", "day", metavar="YYYY-MM-DD", help="Assemble it as of this day [today].")
@click.option("--flush", is_flag=True, help="Print the pre-compaction reminder instead (for PreCompact hooks).")
@json_option
def context(day: str | None, flush: bool, as_json: bool) -> None:
    """Print the always-on memory context for an agent's prompt.

    The always-on files (SOUL.md, IDENTITY.md, USER.md, MEMORY.md,
    reference/*.md; [context] always_on in .gitmem.toml), then today's and
    yesterday's daily logs, each under a header naming its path. A file over
    the per-file budget keeps 70% of it from its head and 20% from its tail;
    the total budget caps the whole (defaults 8,000 and 32,000 characters).
    With --flush, the reminder to save memories before compaction.

    \b
    Examples:
      git mem context                       for a SessionStart hook or a system prompt
      git mem context --date 2026-02-20     the daily logs of that day and the day before
      git mem context --json                the parts and their sizes
      git mem context --flush               for a PreCompact hook
    """
    from . import context as assembly, output

    result = assembly.run(notebook(), day, flush)
    show(result, as_json, output.reminder if flush else output.context)


@cli.group()
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
@guard_option
@json_option
def session_save(file: str | None, chat: str | None, agent: str | None, fmt: str, hook: bool, private: bool,
                 allow: bool, as_json: bool) -> None:
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
      git mem session save --private        saves nothing
    """
    from . import output, session as sessions

    if private:
        _drain_stdin(file)
        raw, hook_chat = "", None
    elif hook:
        raw, hook_chat = sessions.from_hook(sys.stdin.read())
    else:
        raw, hook_chat = _read_input(file), None
    result = sessions.save(notebook(), raw, chat or hook_chat, agent, fmt, private, allow)
    show(result, as_json, output.session_saved)


def _read_input(file: str | None) -> str:
    if file and file != "-":
        return Path(file).read_bytes().decode("utf-8", errors="replace")
    if sys.stdin.isatty():
        raise EmptyText("no transcript given", "pass the transcript file, or pipe it on stdin")
    return sys.stdin.read()


def _drain_stdin(file: str | None) -> None:
    """Read and drop piped input, so the writer never fails on a closed pipe."""
    if file in (None, "-") and not sys.stdin.isatty():
        sys.stdin.read()


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
    from . import output, session as sessions

    show(sessions.remove(notebook(), chat), as_json, output.session_removed)


@cli.command("mcp")
def mcp_server() -> None:
    """Serve the notebook as MCP tools on stdio, for agents.

    Tools: context, remember, daily, write, get, recall, search. Each returns
    the JSON its command prints with --json; errors come back as tool errors
    that name the fix. The model stays loaded between calls. Needs the
    optional 'mcp' package: pip install 'gitmem-notebook[mcp]'.

    \b
    Examples:
      git mem mcp                           in the notebook's folder
      git -C ~/notes mem mcp                the command an MCP client config runs
    """
    from . import server

    server.serve(notebook())


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
