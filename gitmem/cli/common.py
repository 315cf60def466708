"""What every `git mem` command shares: options, input, output and progress."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

import click

from ..errors import EmptyText, NotText
from ..verbs import GUARD


def show(data: Any, as_json: bool, text: Callable[[Any], str], err: bool = False, paged: bool = False,
         redacted: bool = False) -> None:
    """Print a command's result: JSON, or text for people (coloured on a terminal, and
    through git's pager when `paged` and the person is at one); `redacted`: see output.render."""
    from . import output, terminal

    out = output.render(data, as_json, text, redacted)
    coloured = not as_json and terminal.colour_on(sys.stderr if err else sys.stdout)
    if coloured:
        out = terminal.colour(out)
    if paged and not err and terminal.page(out):
        return
    click.echo(out, err=err, color=coloured or None)  # click strips escapes off a non-terminal unless told


# The warm daemon keeps each folder's notebook open between requests (its Git keeps its `git
# cat-file` running), until .gitmem.toml changes; None in every other process.
KEPT: dict[str, tuple[tuple[int, int], Any]] | None = None


def notebook() -> Any:
    from ..gitops.repo import open_notebook

    if KEPT is None:
        return open_notebook(".")
    here = os.getcwd()
    kept = KEPT.get(here)
    if kept is not None and kept[0] == _stamp(kept[1].top):
        return kept[1]
    nb = open_notebook(".")
    if len(KEPT) >= 64:  # folders of one work tree: a bound all the same
        KEPT.clear()
    KEPT[here] = (_stamp(nb.top), nb)
    return nb


def _stamp(top: Any) -> tuple[int, int]:
    try:
        st = os.stat(os.path.join(top, ".gitmem.toml"))
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


RANGE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")


def page_path(nb: Any, name: str, cwd: str | None = None) -> str:
    """A page path as the user typed it, made notebook-relative the way git reads paths:
    relative to the current folder; ':/path' from the notebook's root; an absolute path
    inside the notebook. Standing outside the notebook (the repository top above a
    'git mem init --dir' notebook), a path that does not lead into it is taken from the
    notebook's root, as before. Whatever comes out is still confined by Notebook.page."""
    if name.startswith(":/"):
        return name[2:]
    root = os.path.realpath(nb.root)
    here = os.path.realpath(cwd or os.getcwd())
    full = os.path.normpath(os.path.join(here, name))
    inside = os.path.relpath(full, root)
    if not os.path.isabs(name) and os.path.relpath(here, root).startswith(".."):
        return name if inside.startswith("..") else inside.replace(os.sep, "/")
    if inside.startswith(".."):
        return name  # outside the notebook: Notebook.page refuses it in its own words
    return inside.replace(os.sep, "/")


def page_spec(nb: Any, spec: str) -> str:
    """PATH[:START[-END]] with PATH made notebook-relative (see page_path)."""
    found = RANGE_SUFFIX.search(spec)
    head, tail = (spec[:found.start()], found.group(0)) if found and found.start() else (spec, "")
    return page_path(nb, head) + tail


def forget_target(nb: Any, target: str) -> str:
    """forget's TEXT or PATH:LINES: a PATH:LINES naming a page from the current folder is made
    notebook-relative; anything else ("Meeting at 10:30") stays the text it is."""
    stripped = target.strip()
    found = RANGE_SUFFIX.search(stripped)
    if not found or not found.start() or any(ch.isspace() for ch in stripped):
        return target
    spec = page_spec(nb, stripped)
    page = spec[:len(spec) - len(found.group(0))]
    return spec if spec != stripped and os.path.isfile(os.path.join(nb.root, page)) else target


def stdin_bytes() -> bytes:
    """Everything on stdin, as bytes (decoding is the caller's choice)."""
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8", "surrogateescape")


def read_stdin(what: str) -> str:
    """stdin as UTF-8 text; other bytes (Latin-1, say) are refused in one line, never guessed:
    a fact stored with a wrong letter in it is worse than one not stored yet."""
    data = stdin_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(f"the {what} on stdin is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                      "convert it first, e.g. iconv -f latin1 -t utf-8") from exc


def read_text(words: tuple[str, ...], what: str) -> str:
    """The words of the argument, or stdin when given '-' or nothing on a pipe."""
    if words in ((), ("-",)) and not sys.stdin.isatty():
        return read_stdin(what)
    if words == ("-",):
        return read_stdin(what)
    if not words:
        raise EmptyText(f"no {what} given", f"pass the {what} as an argument, or '-' to read stdin")
    return " ".join(words)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (schema in docs/commands.md).")
guard_option = click.option("--no-guard", "allow", is_flag=True, help=GUARD)  # as the write verbs' (verbs.py)


def progress(label: str, delay: float = 1.0) -> Callable[[int, int], None] | None:
    """A progress bar on stderr when a person is watching, else nothing. It appears only once
    the work has taken `delay` seconds, so a quick catch-up prints nothing."""
    if not sys.stderr.isatty():
        return None
    import time

    state: dict[str, Any] = {"started": time.monotonic()}

    def update(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            if done >= total or time.monotonic() - state["started"] < delay:
                return
            bar = state["bar"] = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)
            state.pop("bar")

    return update
