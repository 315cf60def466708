"""The expected failures of gitmem, each with a hint that names the next step.

The CLI turns a GitmemError into one line on stderr and exit 1 (exit 2 for a
UsageError); anything else is a bug, logged with its traceback, exit 3.
"""

from __future__ import annotations


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
