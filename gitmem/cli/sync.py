"""`git mem` commands that share memory through a git server: sync, resolve."""

from __future__ import annotations

import click

from ..errors import GitmemError
from .common import json_option, notebook, page_path, show


@click.command()
@click.option("--remote", metavar="NAME", help="The remote to sync with [the branch's upstream, else origin].")
@click.option("--allow-rewritten", is_flag=True,
              help="Merge a remote branch that was force-pushed to another history, or one begun on its own "
                   "(every fact here is kept), or a pushed commit you amended beside its old version.")
@json_option
def sync(remote: str | None, allow_rewritten: bool, as_json: bool) -> None:
    """Fetch, merge and push the notebook, retrying while others push.

    Syncs the checked-out branch, the proposals branch (gitmem/proposed) and
    gitmem's refs (refs/gitmem/*). Pages merge fact by fact and daily logs
    entry by entry, so writers adding facts never conflict; a push the remote
    rejects because someone pushed first is fetched, merged and pushed again
    (a few times, with a growing pause). The same fact changed differently on
    both sides stops the merge as git would: resolve it with 'git mem resolve'.
    Rebases instead of merging where branch.NAME.rebase or pull.rebase say so.
    Uncommitted changes are never committed by a sync. A pulled line that
    the write guard would refuse (a secret, an instruction to the model) is
    named in a note, with the command that shows it. A pushed commit you
    amended (or rebased) is named, not merged back beside its new version.

    \b
    Examples:
      git mem sync
      git mem sync --remote backup
      git mem sync --json
    """
    from ..gitops import sync as syncing
    from ..notes import pulled
    from . import output

    nb = notebook()
    before = nb.git.head()
    try:
        result = syncing.sync(nb.git, remote, allow_rewritten)
    except syncing.SyncStopped:
        # the pages that merged cleanly are in the work tree already, and `context` reads them: named now
        # (stopped on a conflict, nothing was named: an attack run, 2026-11-27), on stderr beside the error
        # (with --json too); `resolve` names them again
        from .output import terminal_safe

        try:
            came = pulled.findings(nb, *syncing.incoming(nb.git, before))
        except GitmemError:  # naming is no reason to hide why the sync stopped
            came = []
        for line in came:
            click.echo(terminal_safe(f"note: {line}"), err=True)
        raise
    result.notes.extend(pulled.findings(nb, before, result.head))
    show(result, as_json, output.synced)


@click.command()
@click.argument("path")
@click.option("--take", type=click.Choice(["ours", "theirs", "both"]),
              help="Which side of each conflict to keep; both: ours, then the lines of theirs that differ. "
                   "Without it, a page whose markers you edited away is marked merged as it stands.")
@json_option
def resolve(path: str, take: str | None, as_json: bool) -> None:
    """Settle a page's conflicting facts: keep ours, theirs, or both.

    In a merge or rebase that stopped (git mem sync, git pull), the page is
    marked merged and, once no file is left unmerged, the merge is committed
    (or the rebase continued). A page committed with markers gets one commit.
    In a rebase, ours is the remote's side and theirs your commit's, as git
    names them. Edited the markers away yourself? Leave out --take: the page
    is marked merged as it stands.

    \b
    Examples:
      git mem resolve knowledge/facts.md --take both
      git mem resolve reference/people.md --take theirs
      git mem resolve knowledge/facts.md        # the markers edited by hand
    """
    from ..notes import resolve as resolving
    from . import output

    nb = notebook()
    rel = nb.page(page_path(nb, path), must_exist=True)
    show(resolving.resolve(nb, rel, take), as_json, output.resolved)


COMMANDS = [sync, resolve]
