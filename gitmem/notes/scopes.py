"""Which notebook `remember` writes to: the project's, or the person's own (see search/scopes.py).

`--scope personal` writes to the personal notebook (one commit in that repository), `--scope project`
to this one. Unsaid, a preference about how the person likes to work goes to the personal notebook
once one is configured, and the output says so; everything else stays in the project's.
"""

from __future__ import annotations

from ..errors import UsageError
from ..gitops.repo import personal_notebook
from ..notebook import Notebook
from . import memory, routing
from .written import Written

SCOPES = ("project", "personal")


def target(nb: Notebook, text: str, scope: str | None, category: str | None,
           to: str | None, replaces: str | None = None) -> tuple[Notebook, str, str | None]:
    """(the notebook to write to, its scope, a note saying why when it was not asked for)."""
    if scope == "project":
        return nb, "project", None
    personal = personal_notebook(nb)
    if scope == "personal":
        if personal is None:
            raise UsageError("no personal notebook is configured (or it is this one)",
                             "name one: git config --global mem.personal PATH (make it with: git mem init PATH)")
        return personal, "personal", None
    if personal is None or to or replaces:  # a page or line named is this notebook's
        return nb, "project", None
    if (category or routing.classify(text)) == "preference":
        return personal, "personal", (f"a preference of yours: written to your personal notebook "
                                      f"({personal.root}); --scope project keeps it in this one")
    return nb, "project", None


def remember(nb: Notebook, text: str, to: str | None = None, section: str | None = None,
             category: str | None = None, force: bool = False, allow: bool = False, keep_both: bool = False,
             scope: str | None = None, replaces: str | None = None) -> Written:
    """memory.remember in the notebook the scope names (see target); the result says which, and why
    when it was not asked for."""
    where, chosen, note = target(nb, text, scope, category, to, replaces)
    result = memory.remember(where, text, to, section, category, force, allow, keep_both, replaces)
    result.scope = chosen
    if note:
        result.hint = f"{result.hint}; {note}" if result.hint else note
    return result
