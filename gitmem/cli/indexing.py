"""`git mem` commands that keep the index and git integration: index, rebuild, status, guard,
hooks, merge-driver, model."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from .. import verbs
from ..errors import GitmemError
from .common import json_option, notebook, progress, show
from .options import options, request


@click.command()
@json_option
def index(as_json: bool) -> None:
    """Catch the index up with git and embed whatever is new (what hooks run).

    \b
    Examples:
      git mem index
      git mem index --json
    """
    from ..index import embed, maintenance
    from . import output

    embed.for_bulk()
    show(maintenance.catch_up(notebook(), progress=progress("embedding"), indexing=progress("indexing commits")),
         as_json, output.summary)


@click.command()
@json_option
def rebuild(as_json: bool) -> None:
    """Drop the index and build it again from git.

    Embeddings already computed are reused from the cache, so a rebuild only
    embeds text it has never seen.

    \b
    Examples:
      git mem rebuild
    """
    from ..index import embed, maintenance
    from . import output

    embed.for_bulk()
    show(maintenance.rebuild(notebook(), progress=progress("embedding")), as_json, output.summary)


@click.command()
@options(verbs.Status)
@json_option
def status(as_json: bool, **given: Any) -> None:
    """Index health: files, chunks, revisions, indexed commit vs HEAD, model.

    \b
    Examples:
      git mem status
      git mem status --json
    """
    from ..search import asked
    from . import output

    show(asked.status(notebook(), request(verbs.Status, given)), as_json, output.status)


@click.command()
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
    from ..notes import guard as guardrails
    from . import output

    # in a commit's hook (git sets GIT_INDEX_FILE for it, the pre-commit framework PRE_COMMIT), read
    # before opening the notebook takes git's hook variables out of this process's environment
    committing = bool(os.environ.get("PRE_COMMIT") or os.environ.get("GIT_INDEX_FILE"))
    if notes_only:
        from ..notebook import notes_among

        files = tuple(notes_among(notebook(), list(files)))
    report = guardrails.check_files(list(files))
    if report.findings or as_json:
        show(report, as_json, output.guard, err=not as_json)  # people see findings with the error
    refusal = report.refusal(committing)
    if refusal:
        raise refusal


@click.group()
def hooks() -> None:
    """The git hooks that keep the index current, and the merge drivers."""


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
    from ..gitops import hooks as githooks
    from . import output

    show(githooks.install(notebook(), force), as_json, output.hooks_change)


@hooks.command("uninstall")
@json_option
def hooks_uninstall(as_json: bool) -> None:
    """Remove gitmem's hooks and put back the hooks they kept.

    \b
    Examples:
      git mem hooks uninstall
    """
    from ..gitops import hooks as githooks
    from . import output

    show(githooks.uninstall(notebook()), as_json, output.hooks_change)


@hooks.command("status")
@json_option
def hooks_status(as_json: bool) -> None:
    """Whether the hooks and the merge drivers are installed here.

    \b
    Examples:
      git mem hooks status
      git mem hooks status --json
    """
    from ..gitops import hooks as githooks
    from . import output

    show(githooks.status(notebook()), as_json, output.hooks_status)


@hooks.command("run", hidden=True, context_settings={"ignore_unknown_options": True})
@click.argument("name", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hooks_run(name: str | None, args: tuple[str, ...]) -> None:
    """What the hooks run: catch the index up in the background; always exits 0."""
    from ..gitops import hookrun
    from ..index import background

    hookrun.start(name, list(args), background.catch_up)


@hooks.command("pulled", hidden=True)
@click.argument("since", required=False, default="ORIG_HEAD", type=click.Choice(["ORIG_HEAD", "HEAD^1"]))
def hooks_pulled(since: str) -> None:
    """What post-merge and a rebase's post-rewrite run in the foreground (and post-commit for the commit
    that concludes a merge stopped on a conflict, since its first parent): name on stderr what the merge
    or rebase brought (SINCE..HEAD) that the write guard would refuse, as sync does; exits 0."""
    from ..gitops import hookrun
    from ..notes import pulled

    if os.environ.get(pulled.SYNCING):
        return  # git mem sync names them itself, once
    try:
        nb = notebook()
        if hookrun.switched_off(nb.git):
            return
        found = pulled.findings(nb, nb.git.resolve(since), nb.git.head(), pulled.HOOK_PAGES)
    except GitmemError:
        return  # a hook never fails git for gitmem's sake; a read says what is wrong
    if found:  # pulled text, quoted: no control sequence of it reaches the terminal
        from .output import terminal_safe

        click.echo(terminal_safe("gitmem: " + "\ngitmem: ".join(found)), err=True)


@hooks.command("pre-push", hidden=True)
@click.argument("remote", required=False, default="")
@click.argument("url", required=False, default="")
def hooks_pre_push(remote: str, url: str) -> None:
    """What the pre-push hook runs: refuse a push that would carry a page marked private."""
    from ..gitops import prepush

    prepush.check(notebook(), remote or url, sys.stdin.read())


@click.command("merge-driver", hidden=True)
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path", required=False, default="")
@click.option("--facts", is_flag=True, help="Merge a page fact by fact (else a daily log entry by entry).")
def merge_driver(base: Path, ours: Path, theirs: Path, path: str, facts: bool) -> None:
    """What git runs to merge a page or a daily log (%O %A %B %P): fact by fact, entry by entry."""
    from ..gitops import factmerge, merge
    from ..paths import shown

    if not merge.merge_files(base, ours, theirs, path, factmerge.merge_facts if facts else None):
        if path and not path.lower().endswith(merge.NOTE_ENDINGS):
            sys.exit(1)  # git's own line merge stopped on a conflict: git says so, and what to do
        what, name = "fact" if facts else "entry", str(path or ours)
        # the name came with a pull: shown escaped, and quoted in the command to copy (`$(...)` in it ran)
        click.echo(f"gitmem: {shown(name)}: both sides changed the same {what}; run 'git mem resolve --take "
                   f"ours|theirs|both -- {shown(shlex.quote(name))}' or edit the markers", err=True)
        sys.exit(1)


@click.group()
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
    from ..errors import NoNotebook, NotARepo

    try:
        nb = notebook()
    except (NotARepo, NoNotebook):
        nb = None
    from ..index import maintenance
    from . import output

    show(maintenance.fetch_model(nb), as_json, output.model_ready)


COMMANDS = [index, rebuild, status, guard, hooks, merge_driver, model]
