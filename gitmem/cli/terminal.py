"""The terminal's manners, as git has them: colour when a person is reading, the pager for
long output, and the settings that turn either off.

Colour is added to text the output layer has already rendered and made terminal-safe
(`output.terminal_safe` removed every escape a note could carry), so the only escapes on
screen are the ones this module writes. Whether to colour: `--color=always|never|auto`
(before the verb, as `git mem --color=never log`), else NO_COLOR (no-color.org: any
non-empty value turns colour off), else auto: only when standard output is a terminal.
The pager is git's own choice (`git var GIT_PAGER`: GIT_PAGER, core.pager, PAGER, less),
used only on a terminal and never with `--no-pager`; LESS=FRX as git sets it, so a short
log prints and exits like `cat`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass

CHOICES = ("auto", "always", "never")

RESET = "\x1b[m"
BOLD, DIM, RED, GREEN, YELLOW, MAGENTA, CYAN = ("\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m",
                                                  "\x1b[35m", "\x1b[36m")


@dataclass
class Manners:
    """What this run of `git mem` was told: --color and --no-pager."""

    color: str = "auto"
    pager: bool = True


MANNERS = Manners()


def colour_on(stream: object = None) -> bool:
    """Whether to colour what goes to `stream` (standard output by default)."""
    if MANNERS.color != "auto":
        return MANNERS.color == "always"
    if os.environ.get("NO_COLOR"):
        return False
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def paint(text: str, style: str) -> str:
    return f"{style}{text}{RESET}"


# Patterns over rendered lines (see output.py): what each kind of line looks like, and how
# its parts are coloured. Only whole, known shapes are coloured; anything else is left alone.
_GROUP = re.compile(r"^(NOTEBOOK|DAILY|DOCUMENTS|SESSIONS|WEAK MATCHES)( \(\d+\).*)$")
_HIT = re.compile(r"^(  )(\S.*?)( \.{3,} )(\d\.\d\d)(  \(.*\))$")
_COMMIT = re.compile(r"^([0-9a-f]{7,40})( \d{4}-\d\d-\d\d.*)$")
# log's changed lines stand 8 spaces in (a fact quoted in recall stands 4 or 6 in, so a
# markdown list item there is never taken for a removed line)
_ADDED = re.compile(r"^( {8})(\+ .*)$")
_REMOVED = re.compile(r"^( {8})(- .*)$")
_NOTE = re.compile(r"^((?:note|hint|warning): .*)$")


def colour_line(line: str) -> str:
    if m := _GROUP.match(line):
        return paint(m[1], BOLD) + m[2]
    if m := _HIT.match(line):
        return m[1] + paint(m[2], MAGENTA) + m[3] + paint(m[4], GREEN) + paint(m[5], DIM)
    if m := _COMMIT.match(line):
        return paint(m[1], YELLOW) + m[2]
    if m := _ADDED.match(line):
        return m[1] + paint(m[2], GREEN)
    if m := _REMOVED.match(line):
        return m[1] + paint(m[2], RED)
    if m := _NOTE.match(line):
        return paint(m[1], DIM)
    return line


def colour(text: str) -> str:
    """Rendered text with its known parts coloured (results, log entries, notes)."""
    return "\n".join(colour_line(line) for line in text.split("\n"))


def error_line(text: str) -> str:
    """'error: ...' for standard error, its label red when colour is on there."""
    if text.startswith("error: ") and colour_on(sys.stderr):
        return paint("error:", RED + BOLD) + text[len("error:"):]
    return text


def pager_command() -> str | None:
    """The pager git would use here, or None when output should not be paged."""
    if not MANNERS.pager or not sys.stdout.isatty():
        return None
    from ..gitops.pager import git_pager

    chosen = git_pager()
    return None if chosen in (None, "", "cat") else chosen


def page(text: str) -> bool:
    """Show `text` through the pager; False (and nothing shown) when there is none to use."""
    command = pager_command()
    if command is None:
        return False
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")  # as git sets them: quit if one screen, keep colour, no init
    env.setdefault("LV", "-c")
    try:
        # the pager is the user's own setting, run by the shell as git runs it
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
    except OSError:
        return False
    assert proc.stdin is not None
    try:
        proc.stdin.write((text + "\n").encode("utf-8", "replace"))
        proc.stdin.close()
    except BrokenPipeError:  # the person quit the pager early: that is fine
        pass
    proc.wait()
    return True
