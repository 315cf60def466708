"""recall and search as asked: a verbs.Recall (or Search) request, from any face, made a Query."""

from __future__ import annotations

from .. import dates
from ..notebook import Notebook
from ..verbs import Recall
from . import scopes
from .engine import Progress, Query
from .hits import Results


def query(request: Recall) -> Query:
    """The engine's query for a request: the same for the CLI, MCP and the web. It is served:
    its hits go to a person or an agent, so the facts they show are reinforced."""
    since, until = dates.date_range(request.since, request.start, request.end, request.day)
    return Query(request.query, request.mode, request.groups_asked(), request.limit, request.min_score,
                 request.tags, request.kind, request.at, request.history, since, until, request.by, served=True,
                 full=request.full)


def find(nb: Notebook, request: Recall, progress: Progress | None = None,
         indexing: Progress | None = None) -> Results:
    """The results of a recall or search, from the project's notebook and the personal one."""
    return scopes.run(nb, query(request), progress=progress, indexing=indexing)
