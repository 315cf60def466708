"""The `git-mem` entry point: hand a read to the warm daemon if one serves this work tree, else
run the command in this process (cli/main.py).

Nothing but the standard library is imported before the hand-over (client.py): a read the
daemon answers never loads click, GitPython or numpy. `git mem hooks prompt` (the agent hook,
prompt.py) is answered here too, before click, since it must be quick with or without a daemon."""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    from . import client

    code = client.hand_over(argv)
    if code is not None:
        sys.exit(code)
    if argv[:2] == ["hooks", "prompt"] and not {"-h", "--help"} & set(argv[2:]):
        from . import prompt

        sys.exit(prompt.main(argv[2:]))
    from .main import main as full

    full()
