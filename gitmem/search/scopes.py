"""Two scopes: the project's notebook and a personal one beside it.

A person names their own notebook (its own repository, its own remote) with
`git config --global mem.personal PATH` or GITMEM_PERSONAL. A search from a project notebook then
reads both: each is searched as it is (its own index, its own catch-up), every hit says which it
came from (`scope`: "project" or "personal"), and the two lists are merged by group and score,
within the query's limit. Nothing of the personal notebook is ever written into the project's.
"""

from __future__ import annotations

from dataclasses import replace

from ..config import GROUPS
from ..gitops.repo import personal_notebook
from ..notebook import Notebook
from . import engine, scale
from .engine import Progress, Query
from .hits import Results


def run(nb: Notebook, query: Query, progress: Progress | None = None, indexing: Progress | None = None) -> Results:
    """engine.run over the project's notebook and, when one is configured, the personal one."""
    return widen(nb, query, engine.run(nb, query, progress=progress, indexing=indexing), progress, indexing)


def widen(nb: Notebook, query: Query, found: Results, progress: Progress | None = None,
          indexing: Progress | None = None) -> Results:
    """`found` (the project's results for `query`) with the personal notebook's merged in and every
    result labelled, when one is configured; else `found` as it is. The prompt hook calls it after
    it has the project's answer in hand, so a slow personal notebook never costs it that."""
    personal = personal_notebook(nb)
    if personal is None:
        return found
    groups = query.groups or nb.settings.recall
    # a recall (no groups asked) leaves the agent's instructions page out in both notebooks
    mine = engine.run(personal, replace(query, groups=groups, instructions=query.instructions and bool(query.groups)),
                      progress=progress, indexing=indexing)
    for hit in mine.results:
        hit.scope = "personal"
    limit = query.limit or nb.settings.limit
    order = {group: i for i, group in enumerate(GROUPS)}
    merged = sorted(found.results + mine.results, key=lambda h: (h.weak, order.get(h.group, len(order)), -h.score))
    found.results = merged[:limit]
    found.scoped = True
    if found.results:  # one notebook's "no good match" is no verdict on what the other one answered
        found.notes = [n for n in found.notes if not n.startswith(scale.NO_MATCH)]
        mine.notes = [n for n in mine.notes if not n.startswith(scale.NO_MATCH)]
    found.notes = [*found.notes, *(f"personal notebook: {note}" for note in mine.notes),
                   f"read the personal notebook too ({personal.root}); each result's scope says which"]
    if mine.evidence is not None and (found.evidence is None or
                                      mine.evidence.confidence > found.evidence.confidence):
        found.evidence = mine.evidence  # how well the best of the two answers the query
    return found
