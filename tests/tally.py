"""Counts the cases of the bad-input/fault matrix and of the guard lists, and prints
the figures at the end of every run (even with -q), so that they can be quoted.

A test joins a tally with `@pytest.mark.tally("name")` (or a module-level
`pytestmark`); each parametrized case counts once. Wired in by tests/conftest.py.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

RANK = {"passed": 0, "skipped": 1, "failed": 2}
_OUTCOMES: dict[str, dict[str, str]] = {}  # tally name -> node id -> worst outcome of its phases


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tally(name): count this test as a case of the named matrix in the summary")
    config.addinivalue_line("markers", "heavy: a slow case (10 MB page, 100,000 pages); CI runs it too")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    # on the report, not in this process: under pytest-xdist the workers make the reports and the
    # controller, which prints the summary, only sees them (user_properties travel with them)
    report.user_properties += [("tally", mark.args[0]) for mark in item.iter_markers("tally")]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, name in report.user_properties:
        if key != "tally":
            continue
        seen = _OUTCOMES.setdefault(str(name), {})
        before = seen.get(report.nodeid, "passed")
        if report.when == "call" or report.outcome != "passed":
            seen[report.nodeid] = max(before, report.outcome, key=RANK.__getitem__)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for name, seen in sorted(_OUTCOMES.items()):
        outcomes = list(seen.values())
        skipped = outcomes.count("skipped")
        tried = len(outcomes) - skipped
        extra = f" ({skipped} skipped)" if skipped else ""
        terminalreporter.write_line(f"{name}: {tried} cases tried, {outcomes.count('failed')} failed{extra}")
