"""context and session changes as asked: a request of verbs.py, from the CLI or an MCP tool, made one domain call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from .. import credentials, verbs
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

        return _redacted(budget.assemble(nb, r.query, r.budget or BUDGET, r.mode, r.bytes_per_token))
    return _redacted(context.run(nb, r.day, r.flush))


class _Text(Protocol):
    text: str


Assembled = TypeVar("Assembled", bound=_Text)


def _redacted(found: Assembled) -> Assembled:
    """The context with every secret value its pages hold redacted (credentials.py), never longer
    than it was: a page a pull or an editor wrote was never checked by the write guard."""
    found.text, count = credentials.redact(found.text, fit=True)
    where = []
    for part in getattr(found, "parts", None) or getattr(found, "blocks", None) or ():
        part.text, held = credentials.redact(part.text, fit=True)
        if held and getattr(part, "path", None):
            where.append(part.path)
    if count and hasattr(found, "notes"):
        found.notes.append(credentials.note(count, where))
    return found


def changes(nb: Notebook, request: verbs.SessionChanges) -> tracker.Changes:
    """What the session created, updated and removed. Without an id, the session this process
    writes for (trailers.session): inside an MCP server's call that is the server's own session
    (Handler.call runs the tool in trailers.in_session), on the command line GITMEM_SESSION."""
    return tracker.changes(nb, request.session_id or trailers.session() or "")
