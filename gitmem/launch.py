"""How gitmem starts Python again, so that nothing from a work tree is ever imported.

A notebook is a clone: whoever can push to it can commit a `gitmem/` folder
(or a `json.py`, a `sitecustomize.py`) at its top. `python -m gitmem` started
with the work tree's top as its folder puts that folder first on sys.path,
and the committed package replaces the installed one: it ran after a plain
`git pull` (the hook's worker started the document extractor that way).
So every Python gitmem starts (the background worker a read starts, the
document extractor, the git hooks, the merge driver) is

    PYTHON -I -c BOOT HOME MODULE ARGS...

`-I` (isolated mode): neither the current folder nor a script's folder is
on sys.path, PYTHON* variables are ignored (a PYTHONPATH with an empty
entry would mean the current folder), and the user's site folder is left
out. BOOT then adds HOME, the absolute folder the running gitmem was
imported from (so an install in the user's site folder still works), at
the end of sys.path, and runs MODULE as `__main__`.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

BOOT = ("import runpy,sys;d=sys.argv.pop(1);m=sys.argv.pop(1);d in sys.path or sys.path.append(d);"
        "runpy.run_module(m,run_name=\"__main__\",alter_sys=True)")


def home() -> str:
    """The folder holding the gitmem package that runs now (absolute)."""
    return str(Path(__file__).resolve().parent.parent)


def python_command(module: str, *args: str) -> list[str]:
    """The argv that runs `module` as `__main__` in an isolated Python, with this gitmem."""
    return [sys.executable, "-I", "-c", BOOT, home(), module, *args]


def shell_command(module: str, *args: str) -> str:
    """The same as one line for a shell (git's merge driver config)."""
    return shlex.join(python_command(module, *args))
