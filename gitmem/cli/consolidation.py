"""`git mem` commands for consolidation: consolidate, review, confirm, prune."""

from __future__ import annotations

import click

from .common import json_option, notebook, show


@click.command()
@click.argument("sessions", nargs=-1)
@click.option("--since", metavar="PERIOD|DATE", help="Only sessions from then on: 7d, 2w or a date.")
@click.option("--max-sessions", type=click.IntRange(1, 10_000), default=20, show_default=True,
              help="Send at most this many sessions in this run; the rest wait for the next.")
@click.option("--max-chars", type=click.IntRange(1, 100_000_000), default=200_000, show_default=True,
              help="Send at most this many characters in this run (the bill's cap).")
@click.option("--dry-run", is_flag=True, help="Show what would be sent (and to which sessions), send nothing.")
@click.option("--apply/--review", "apply", default=None,
              help="Write to the checked-out branch, or propose on gitmem/proposed "
                   "[as .gitmem.toml's [consolidate] review says; proposals by default].")
@json_option
def consolidate(sessions: tuple[str, ...], since: str | None, max_sessions: int, max_chars: int, dry_run: bool,
                apply: bool | None, as_json: bool) -> None:
    """Learn facts, preferences and summaries from saved sessions, through an LLM.

    Each saved session not yet consolidated (all, the ones named, or --since)
    goes to an OpenAI-compatible endpoint (GITMEM_LLM_URL, GITMEM_LLM_MODEL,
    GITMEM_LLM_KEY, or git config mem.llm.url / mem.llm.model), with the
    notebook's facts on its subject. What it extracts becomes one commit per
    session on the branch gitmem/proposed, for 'git mem review'; --apply (or
    [consolidate] review = false) writes it directly, except changes to pages
    that steer the agent (SOUL.md, USER.md, the always-on pages), which are
    always proposed. Private sessions are never sent. A session that fails
    (after 3 attempts) is tried again next run.

    \b
    Examples:
      git mem consolidate                   everything pending, as proposals
      git mem consolidate --dry-run         what would be sent, and its size
      git mem consolidate --since 7d --max-sessions 5
      git mem consolidate sessions/2026-11-20-0930-ab12cd34.md --apply
    """
    from ..agent import consolidate as consolidation
    from . import output

    opts = consolidation.Options(sessions, since, max_sessions, max_chars, dry_run, apply)
    result = consolidation.run(notebook(), opts)
    show(result, as_json, output.consolidated)


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def review(ctx: click.Context, as_json: bool) -> None:
    """List the pending proposals of consolidation, with their diffs.

    \b
    Examples:
      git mem review                        each pending proposal and its diff
      git mem review accept 3f2a9c1         bring one in (one commit, naming its session)
      git mem review accept --all
      git mem review drop 3f2a9c1           discard it (its session is not proposed again)
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..agent import review as proposals
    from . import output

    show(proposals.pending(notebook()), as_json, output.proposals)


@review.command("accept")
@click.argument("ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Accept every pending proposal, oldest first.")
@json_option
def review_accept(ids: tuple[str, ...], every: bool, as_json: bool) -> None:
    """Accept proposals: each becomes one commit on the checked-out branch.

    Only the proposal's own change is made to the pages as they are now:
    what you edited, forgot or deleted since stays so, and a proposal that
    does not apply cleanly, or touches anything but a note, is refused whole.

    \b
    Examples:
      git mem review accept 3f2a9c1
      git mem review accept --all
    """
    _decide("accept", ids, every, as_json)


@review.command("drop")
@click.argument("ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Drop every pending proposal.")
@json_option
def review_drop(ids: tuple[str, ...], every: bool, as_json: bool) -> None:
    """Drop proposals (recorded on gitmem/proposed; their sessions stay consolidated).

    \b
    Examples:
      git mem review drop 3f2a9c1
      git mem review drop --all
    """
    _decide("drop", ids, every, as_json)


def _decide(verb: str, ids: tuple[str, ...], every: bool, as_json: bool) -> None:
    from ..agent import review as proposals
    from . import output

    decide = proposals.accept if verb == "accept" else proposals.drop
    show(decide(notebook(), ids, every), as_json, output.reviewed)


@click.command()
@click.argument("spec", metavar="PATH:LINE")
@json_option
def confirm(spec: str, as_json: bool) -> None:
    """Confirm a fact is still true: its confidence starts decaying afresh.

    Stamps 'confirmed DATE' into the fact's gitmem comment (one commit), so git
    knows when it was last confirmed.

    \b
    Examples:
      git mem confirm knowledge/facts.md:12
    """
    from ..notes import prune as pruning
    from . import output

    show(pruning.confirm(notebook(), spec), as_json, output.written)


@click.command()
@click.option("--dry-run", is_flag=True, help="List what would be removed; change nothing.")
@json_option
def prune(dry_run: bool, as_json: bool) -> None:
    """Remove facts whose confidence fell under 0.25, and old session summaries.

    One commit lists every line removed (git is the audit trail: 'git revert'
    brings them back). Session summaries in daily logs older than the
    retention ([consolidate] retention_days, 30) go too. Always-on pages are
    never pruned.

    \b
    Examples:
      git mem prune --dry-run
      git mem prune
    """
    from ..notes import prune as pruning
    from . import output

    show(pruning.run(notebook(), dry_run), as_json, output.pruned)


COMMANDS = [consolidate, review, confirm, prune]
