"""The expected failures of gitmem, each with a hint that names the next step.

The CLI turns a GitmemError into one line on stderr and exit 1 (exit 2 for a
UsageError); anything else is a bug, logged with its traceback, exit 3.
"""

from __future__ import annotations

import errno
import traceback
from datetime import datetime
from pathlib import Path

# OS errors that come from the machine, not from gitmem: one line, exit 1, no traceback.
MACHINE = {
    errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted", errno.EFBIG: "a file grew past the size this system allows",
    errno.EMFILE: "too many open files", errno.EIO: "an input/output error from the disk",
}
# The same, as SQLite reports them through apsw.
SQLITE_MACHINE = {"FullError": "the disk is full", "ReadOnlyError": "the index cannot be written (read-only)",
                  "CantOpenError": "the index cannot be opened", "IOError": "an input/output error from the disk",
                  "PermissionsError": "permission denied",
                  "BusyError": "the index stayed locked by another process for 30 s"}


class GitmemError(Exception):
    """A failure the user (or agent) can fix; `hint` says how."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def line(self) -> str:
        """The whole error as one line, as the CLI prints it."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(GitmemError):
    """The command was called wrongly (bad option value, malformed argument)."""

    exit_code = 2


class NotARepo(GitmemError):
    pass


class NoNotebook(GitmemError):
    pass


class PageNotFound(GitmemError):
    pass


class BadRange(GitmemError):
    pass


class PathOutside(GitmemError):
    pass


class EmptyText(GitmemError):
    pass


class NotText(GitmemError):
    """A binary file where a page of text was expected."""


class GitFailed(GitmemError):
    pass


class Refused(GitmemError):
    """A write refused by a guardrail; the message says what was found."""


def from_machine(exc: BaseException) -> GitmemError | None:
    """A machine failure (disk full, read-only, permissions) as an expected error, else None."""
    hint = ("gitmem writes its index in the git dir: free space there or make it writable, then run the command "
            "again; notes already committed are safe")
    if isinstance(exc, OSError) and exc.errno in MACHINE:
        return GitmemError(MACHINE[exc.errno] + (f": {exc.filename}" if exc.filename else ""), hint)
    name = type(exc).__name__
    if type(exc).__module__ == "apsw" and name in SQLITE_MACHINE:
        if name == "BusyError":
            hint = "another gitmem process is busy with the index; try again in a moment"
        return GitmemError(f"{SQLITE_MACHINE[name]} ({exc})", hint)
    return None


def log_bug(path: Path, what: str, bug_id: str = "", exc: BaseException | None = None) -> Path:
    """Append the exception being handled (or `exc`), with its traceback, to the error log at
    `path`, under a short id the user was shown if there is one, so a report can point at it."""
    trace = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as log:
        log.write(f"--- {datetime.now().isoformat()}{f' [{bug_id}]' if bug_id else ''} {what}\n{trace}")
    return path


def new_bug_id() -> str:
    """A short id for one internal error: shown to the user, written beside its traceback."""
    import secrets

    return secrets.token_hex(4)
