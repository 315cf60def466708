"""The verbs that read, as asked: a request of verbs.py (recall, search, log, why, links, tags, status)
from any face."""

from __future__ import annotations

from typing import Any

from .. import dates, verbs
from ..notebook import Notebook
from ..verbs import Links, Log, Recall, Tags
from . import links as linking
from . import scopes, timeline
from . import tags as tagging
from . import why as explain
from .engine import Progress, Query
from .hits import Results
from .timeline import Timeline


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


def log(nb: Notebook, request: Log) -> Timeline:
    """The memory timeline the request filters."""
    r = request
    return timeline.log(nb, r.since, r.until, r.path, r.grep, r.limit)


def why(nb: Notebook, request: verbs.Why) -> explain.Why:
    """The chain of the fact on the line the request names."""
    return explain.why(nb, request.spec)


def links(nb: Notebook, request: Links) -> linking.Links:
    """The page's outgoing links and backlinks."""
    return linking.links(nb, request.page)


def tags(nb: Notebook, request: Tags) -> tagging.Tags:
    """Every tag with its count, or the pages and lines of the one the request names."""
    return tagging.tags(nb, request.tag)


def status(nb: Notebook, request: verbs.Status) -> dict[str, Any]:
    """Index health, read-only; the model is tried unless `no_model`."""
    from ..index import maintenance  # only status and the index's own verbs need it

    return maintenance.status(nb, check_model=not request.no_model)
