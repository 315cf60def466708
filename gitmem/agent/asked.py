"""context and session changes as asked: a request of verbs.py, from the CLI or an MCP tool, made one domain call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import verbs
from ..notebook import Notebook
from ..notes import trailers
from . import context, tracker

if TYPE_CHECKING:  # the budgeted context reads the index: its module is loaded only when asked for
    from .budget import Budgeted

BUDGET = 8000  # tokens, for a query without a budget


def assemble(nb: Notebook, request: verbs.Context) -> context.Context | context.Reminder | Budgeted:
    """The always-on context (or the flush reminder) or, for a query or a budget, the budgeted one."""
    r = request
    if r.budgeted():
        from . import budget

        return budget.assemble(nb, r.query, r.budget or BUDGET, r.mode, r.bytes_per_token)
    return context.run(nb, r.day, r.flush)


def changes(nb: Notebook, request: verbs.SessionChanges) -> tracker.Changes:
    """What the session created, updated and removed. Without an id, the session this process
    writes for (trailers.session): inside an MCP server's call that is the server's own session
    (Handler.call runs the tool in trailers.in_session), on the command line GITMEM_SESSION."""
    return tracker.changes(nb, request.session_id or trailers.session() or "")
