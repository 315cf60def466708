"""The verbs that write (and get), as asked: a request of verbs.py, from any face, made the domain call."""

from __future__ import annotations

from ..notebook import Notebook
from ..verbs import Daily, Forget, Get, Remember, Write
from . import forget as forgetting
from . import memory, scopes


def remember(nb: Notebook, request: Remember) -> memory.Written:
    """The fact stored in the notebook its scope names (scopes.remember)."""
    r = request
    return scopes.remember(nb, r.text, r.to, r.section, r.category, r.force, r.allow, r.keep_both, r.scope)


def daily(nb: Notebook, request: Daily) -> memory.Written:
    return memory.daily(nb, request.text, allow=request.allow)


def write(nb: Notebook, request: Write) -> memory.Written:
    r = request
    return memory.write(nb, r.page, r.content, r.section, r.replace, r.allow, expected=r.expected)


def forget(nb: Notebook, request: Forget, agent: bool = False) -> forgetting.Forgot:
    """The lines forgotten; `agent` words a refusal for an agent, which can never pass --yes."""
    return forgetting.forget(nb, request.target, request.every, broad=request.yes, agent=agent)


def get(nb: Notebook, request: Get) -> memory.Page:
    """The page, lines, document text or PDF page the request names, now or at its revision."""
    return memory.get(nb, request.spec, request.at)
