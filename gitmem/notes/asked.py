"""The verbs of notes/ as asked: a request of verbs.py, from any face, made the one domain call."""

from __future__ import annotations

from .. import verbs
from ..notebook import Notebook
from ..verbs import Daily, Forget, Get, Mv, Remember, Write
from . import forget as forgetting
from . import goals, memory, plan, reading, rename, scopes
from . import watch as watching
from .written import Written


def remember(nb: Notebook, request: Remember) -> Written:
    """The fact stored in the notebook its scope names (scopes.remember)."""
    r = request
    return scopes.remember(nb, r.text, r.to, r.section, r.category, r.force, r.allow, r.keep_both, r.scope,
                          r.replaces)


def daily(nb: Notebook, request: Daily) -> Written:
    return memory.daily(nb, request.text, allow=request.allow)


def write(nb: Notebook, request: Write) -> Written:
    r = request
    return memory.write(nb, r.page, r.content, r.section, r.replace, r.allow, expected=r.expected)


def forget(nb: Notebook, request: Forget, agent: bool = False) -> forgetting.Forgot:
    """The lines forgotten; `agent` words a refusal for an agent, which can never pass --yes."""
    return forgetting.forget(nb, request.target, request.every, broad=request.yes, agent=agent)


def get(nb: Notebook, request: Get) -> reading.Page:
    """The page, lines, document text or PDF page the request names, now or at its revision."""
    return reading.get(nb, request.spec, request.at)


def mv(nb: Notebook, request: Mv) -> rename.Moved:
    """The page renamed and the links to it rewritten (one commit), or with dry_run what would change."""
    if request.dry_run:
        return rename.plan(nb, request.old, request.new)
    return rename.move(nb, request.old, request.new, links=not request.no_links)


def goal_add(nb: Notebook, request: verbs.GoalAdd) -> goals.GoalWritten:
    r = request
    return goals.add(nb, r.title, r.description, r.facts, r.allow)


def goal_update(nb: Notebook, request: verbs.GoalUpdate) -> goals.GoalWritten:
    r = request
    return goals.update(nb, r.goal_id, r.progress, r.status, r.note, r.facts, r.allow)


def goal_list(nb: Notebook, request: verbs.Goals) -> goals.Goals:
    return goals.listing(nb, request.every)


def watch(nb: Notebook, request: verbs.Watch) -> watching.WatchWritten | watching.WatchList:
    """The entity watched (one commit), or with no name the watch list."""
    r = request
    if r.name is None:
        return watching.listing(nb)
    return watching.watch(nb, r.name, r.priority, r.reason, r.allow)


def unwatch(nb: Notebook, request: verbs.Unwatch) -> watching.WatchWritten:
    return watching.unwatch(nb, request.name)


def plan_show(nb: Notebook, request: verbs.Plan) -> plan.Plan | plan.History:
    """The plan, or with `history` every version of it."""
    return plan.history(nb) if request.history else plan.show(nb)


def plan_update(nb: Notebook, request: verbs.PlanUpdate) -> plan.Updated:
    r = request
    return plan.update(nb, r.text, r.reason, r.allow)
