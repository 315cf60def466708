"""`git mem` commands for structured memory: goal, watch, unwatch, plan."""

from __future__ import annotations

import click

from .common import guard_option, json_option, notebook, show


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
@click.argument("title")
@click.option("--description", default="", help="What the goal is about (the page's text).")
@click.option("--fact", "facts", multiple=True, metavar="PATH:LINE", help="Link the fact on this line (repeatable).")
@guard_option
@json_option
def goal_add(title: str, description: str, facts: tuple[str, ...], allow: bool, as_json: bool) -> None:
    """Add an active goal (progress 0) as goals/ID.md, one commit; prints its id.

    \b
    Examples:
      git mem goal add "Learn Spanish"                     prints: learn-spanish
      git mem goal add "Ship the beta" --description "By Friday" --fact lists/todos.md:3
      git mem goal add "Run a marathon" --json             {"id": "run-a-marathon", ...}
    """
    from ..notes import goals

    written = goals.add(notebook(), title, description, facts, allow)
    show(written, as_json, lambda w: w.id)


@goal.command("update")
@click.argument("goal_id", metavar="ID")
@click.option("--progress", type=click.IntRange(0, 100), help="How far along it is, 0-100.")
@click.option("--status", type=click.Choice(["active", "completed", "abandoned"]), help="completed sets progress 100.")
@click.option("--note", help="A dated note under the page's Notes section.")
@click.option("--fact", "facts", multiple=True, metavar="PATH:LINE", help="Link the fact on this line (repeatable).")
@guard_option
@json_option
def goal_update(goal_id: str, progress: int | None, status: str | None, note: str | None, facts: tuple[str, ...],
                allow: bool, as_json: bool) -> None:
    """Change a goal's progress or status, or add a note or linked facts: one commit.

    \b
    Examples:
      git mem goal update learn-spanish --progress 40 --note "finished unit 4"
      git mem goal update learn-spanish --status completed
      git mem goal update ship-the-beta --fact reference/contacts.md:3
    """
    from ..notes import goals
    from .output_structure import goal_written

    show(goals.update(notebook(), goal_id, progress, status, note, facts, allow), as_json, goal_written)


@goal.command("list")
@click.option("--all", "every", is_flag=True, help="Every goal, completed and abandoned too.")
@json_option
def goal_list(every: bool, as_json: bool) -> None:
    """The active goals (all with --all), oldest first, with their linked facts and latest notes.

    \b
    Examples:
      git mem goal list
      git mem goal list --all --json
    """
    from ..notes import goals
    from .output_structure import goals as text

    show(goals.listing(notebook(), every), as_json, text)


@click.command()
@click.argument("name", required=False)
@click.option("--priority", type=click.Choice(["low", "medium", "high"]), default="medium", show_default=True)
@click.option("--reason", default="", help="Why it is watched.")
@guard_option
@json_option
def watch(name: str | None, priority: str, reason: str, allow: bool, as_json: bool) -> None:
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
    from ..notes import watch as watching
    from . import output_structure as out

    nb = notebook()
    if name in (None, "list"):
        show(watching.listing(nb), as_json, out.watch_list)
        return
    show(watching.watch(nb, name, priority, reason, allow), as_json, out.watch_written)


@click.command()
@click.argument("name")
@json_option
def unwatch(name: str, as_json: bool) -> None:
    """Stop watching an entity (its line comes off the watch list), one commit.

    \b
    Examples:
      git mem unwatch Sarah
    """
    from ..notes import watch as watching
    from .output_structure import watch_written

    show(watching.unwatch(notebook(), name), as_json, watch_written)


@click.group(invoke_without_command=True)
@click.option("--history", is_flag=True, help="Every version of the plan, newest first, with date and reason.")
@json_option
@click.pass_context
def plan(ctx: click.Context, history: bool, as_json: bool) -> None:
    """The plan (PLAN.md, the agent's bedside note): print it, its history, or update it.

    \b
    Examples:
      git mem plan                          print it
      git mem plan update "Ship the beta Friday; then docs" --reason "launch moved"
      git mem plan --history                every version: date, commit, reason
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..notes import plan as plans
    from . import output_structure as out

    nb = notebook()
    if history:
        show(plans.history(nb), as_json, out.plan_history)
    else:
        show(plans.show(nb), as_json, out.plan)


@plan.command("update")
@click.argument("text")
@click.option("--reason", required=True, help="Why the plan changed (kept in the commit's Gitmem-Reason trailer).")
@guard_option
@json_option
def plan_update(text: str, reason: str, allow: bool, as_json: bool) -> None:
    """Replace the plan with TEXT, as one commit whose trailer says why.

    \b
    Examples:
      git mem plan update "1. Ship the beta  2. Write the docs" --reason "beta slipped a week"
    """
    from ..notes import plan as plans
    from .output_structure import plan_updated

    show(plans.update(notebook(), text, reason, allow), as_json, plan_updated)


COMMANDS = [goal, watch, unwatch, plan]
