"""The index catch-up in the background: the hooks' worker (gitops/hookrun.py) running
maintenance.catch_up.

A read that leaves many texts to embed starts it (hookrun.spawn) as
`python -I -c BOOT HOME gitmem.index.background background` (launch.python_command:
isolated, this gitmem's own folder, never the work tree's code), so the worker is this
module, not the command line. The git hooks start it through `git mem hooks run NAME`
(hooks/post-hook.sh), which first offers the catch-up to a warm daemon (cli/client.py) and
otherwise calls main() here. Either way the worker detaches, queues behind the hooks'
locks and logs one line to hooks.log; it always exits 0.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..gitops import hookrun

if TYPE_CHECKING:
    from ..notebook import Notebook
    from .maintenance import IndexSummary


def catch_up(nb: Notebook, wait: float) -> IndexSummary:
    """What the worker runs once it has its turn (hookrun.work): history, work tree, embeddings."""
    from . import embed, maintenance  # imported in the detached worker only, after the fork

    embed.for_bulk()
    return maintenance.catch_up(nb, wait=wait)


def main(argv: list[str]) -> None:
    """Start the worker for hook NAME (or `background`, a read's) with the hook's arguments."""
    hookrun.start(argv[0] if argv else None, argv[1:], catch_up)


if __name__ == "__main__":
    main(sys.argv[1:])
