"""`git mem` commands for structured memory: goal, watch, unwatch, plan."""

from __future__ import annotations

from typing import Any

import click

from .. import verbs
from .common import json_option, notebook, show
from .options import options, request


@click.group()
def goal() -> None:
    """Goals: one page each under goals/, fields in frontmatter you can edit by hand.

    \b
    Examples:
      git mem goal add "Learn Spanish" --description "Reach B1 by the summer"
      git mem goal update learn-spanish --progress 40 --note "finished unit 4"
      git mem goal list
    """


@goal.command("add")
@options(verbs.GoalAdd)
@json_option
def goal_add(as_json: bool, **given: Any) -> None:
    """Add an active goal (progress 0) as goals/ID.md, one commit; prints its id.

    \b
    Examples:
      git mem goal add "Learn Spanish"                     prints: learn-spanish
      git mem goal add "Ship the beta" --description "By Friday" --fact lists/todos.md:3
      git mem goal add "Run a marathon" --json             {"id": "run-a-marathon", ...}
    """
    from ..notes import asked

    written = asked.goal_add(notebook(), request(verbs.GoalAdd, given))
    show(written, as_json, lambda w: w.id)


@goal.command("update")
@options(verbs.GoalUpdate)
@json_option
def goal_update(as_json: bool, **given: Any) -> None:
    """Change a goal's progress or status, or add a note or linked facts: one commit.

    \b
    Examples:
      git mem goal update learn-spanish --progress 40 --note "finished unit 4"
      git mem goal update learn-spanish --status completed
      git mem goal update ship-the-beta --fact reference/contacts.md:3
    """
    from ..notes import asked
    from .output_structure import goal_written

    show(asked.goal_update(notebook(), request(verbs.GoalUpdate, given)), as_json, goal_written)


@goal.command("list")
@options(verbs.Goals)
@json_option
def goal_list(as_json: bool, **given: Any) -> None:
    """The active goals (all with --all), oldest first, with their linked facts and latest notes.

    \b
    Examples:
      git mem goal list
      git mem goal list --all --json
    """
    from ..notes import asked
    from .output_structure import goals as text

    show(asked.goal_list(notebook(), request(verbs.Goals, given)), as_json, text)


@click.command()
@options(verbs.Watch)
@json_option
def watch(as_json: bool, **given: Any) -> None:
    """Watch an entity: a write that disagrees with what the notebook holds about it is reported.

    The list is reference/watched.md (flat layout: WATCHED.md), one line per
    entity; watching one again changes its priority and reason. 'git mem watch
    list' (or no NAME) prints the list.

    \b
    Examples:
      git mem watch Sarah --priority high --reason "her details change often"
      git mem watch list
      git mem watch list --json
    """
    from ..notes import asked
    from ..notes import watch as watching
    from . import output_structure as out

    # 'list' is the command line's word for the list (MCP has a watch_list tool): no name
    name = None if given["name"] == "list" else given["name"]
    found = asked.watch(notebook(), request(verbs.Watch, given, name=name))
    show(found, as_json, out.watch_list if isinstance(found, watching.WatchList) else out.watch_written)


@click.command()
@options(verbs.Unwatch)
@json_option
def unwatch(as_json: bool, **given: Any) -> None:
    """Stop watching an entity (its line comes off the watch list), one commit.

    \b
    Examples:
      git mem unwatch Sarah
    """
    from ..notes import asked
    from .output_structure import watch_written

    show(asked.unwatch(notebook(), request(verbs.Unwatch, given)), as_json, watch_written)


@click.group(invoke_without_command=True)
@options(verbs.Plan)
@json_option
@click.pass_context
def plan(ctx: click.Context, /, as_json: bool, **given: Any) -> None:
    """The plan (PLAN.md, the agent's bedside note): print it, its history, or update it.

    \b
    Examples:
      git mem plan                          print it
      git mem plan update "Ship the beta Friday; then docs" --reason "launch moved"
      git mem plan --history                every version: date, commit, reason
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..notes import asked
    from . import output_structure as out

    wanted = request(verbs.Plan, given)
    show(asked.plan_show(notebook(), wanted), as_json, out.plan_history if wanted.history else out.plan)


@plan.command("update")
@options(verbs.PlanUpdate)
@json_option
def plan_update(as_json: bool, **given: Any) -> None:
    """Replace the plan with TEXT, as one commit whose trailer says why.

    \b
    Examples:
      git mem plan update "1. Ship the beta  2. Write the docs" --reason "beta slipped a week"
    """
    from ..notes import asked
    from .output_structure import plan_updated

    show(asked.plan_update(notebook(), request(verbs.PlanUpdate, given)), as_json, plan_updated)


COMMANDS = [goal, watch, unwatch, plan]
