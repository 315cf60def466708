"""One request a verb: the parameters its faces (CLI, MCP tool, web API) share, defined once.

Each class is what a verb is asked; params.py derives the click options, the MCP input
schema and the web API's fields from it, and every face builds the same request and hands it
to the one domain function of the verb. `help` is the CLI's wording, `agent` the MCP tool's
where it differs (an agent reads JSON, not the terminal); `faces` names who offers a field
when not all three do.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import DATE_BASES, GROUPS, MODES
from .params import param

PEOPLE = ("cli",)  # --no-guard, for a person at the keyboard; never offered to an agent or a web client


@dataclass(frozen=True)
class Recall:
    """recall: the notebook pages, daily logs and documents (search.recall), best first."""

    query: str = param(agent="What to look for, in any words.", words=True, required=True, default="")
    limit: int | None = param("At most this many results [15].", "--limit", "-n", minimum=1, maximum=1000)
    min_score: float | None = param(
        "Results below this are weak: shown under 'weak matches' only while fewer than 5 strong ones are there; "
        "0 shows every result [0.25].", "--min-score", minimum=0, maximum=1,
        agent="Results below this are weak: shown marked weak: true, only while fewer than 5 strong ones are "
              "there; 0 shows every result [0.25].")
    mode: str = param("Rankers to use: both fused, BM25 only, or vectors only.", "--mode", choices=MODES,
                      default="hybrid", show_default=True,
                      agent="Rankers: both fused (default), BM25 only, or vectors only.")
    tags: tuple[str, ...] = param("Only pages whose frontmatter tags include this.", "--tag", default=(),
                                  agent="Only pages whose frontmatter tags include these (one tag as a string is "
                                        "fine too).")
    kind: str | None = param("Only pages whose frontmatter type is this.", "--type", wire="type")
    at: str | None = param("Search the notebook as it stood at a commit, branch, tag, date (end of that day) or "
                           "period back from now (7d).", "--at", metavar="REV|DATE")
    history: bool = param("Search current and superseded text; old results say until when they were true and "
                          "which commit changed them.", "--history", default=False)
    since: str | None = param("Only text dated since then: 30m, 24h, 7d, 2w or a date.", "--since",
                              metavar="PERIOD|DATE")
    start: str | None = param("Only text dated on or after this day.", "--from", wire="from", metavar="DATE",
                              agent="Only text dated on or after this day (YYYY-MM-DD).")
    end: str | None = param("Only text dated on or before this day.", "--to", wire="to", metavar="DATE",
                            agent="Only text dated on or before this day (YYYY-MM-DD).")
    day: str | None = param("Only text dated on this day.", "--date", wire="date", metavar="DATE",
                            agent="Only text dated on this day (YYYY-MM-DD).")
    by: str = param("The date the filters use: auto = the date in the file name for daily logs and sessions, the "
                    "commit date of the text for other pages; commit; file.", "--by", choices=DATE_BASES,
                    default="auto", show_default=True,
                    agent="The date the filters use: auto (file-name date for daily logs and sessions, commit "
                          "date otherwise), commit, or file.")
    full: bool = param("With --json: every field of each result (the whole chunk, the fact's author, commit "
                       "subject and trailers), not just the fact, its lines, score and date.", "--full",
                       default=False,
                       agent="Every field of each result: the whole chunk around the fact, the fact's author, "
                             "commit subject and trailers [false: the fact's text, PATH:LINES, score, weak, date "
                             "and short commit].")

    def groups_asked(self) -> tuple[str, ...]:
        """The groups to search; (): the notebook's search.recall."""
        return ()


@dataclass(frozen=True)
class Search(Recall):
    """search: recall's engine over every group (sessions included) as one ranking, or the groups named."""

    groups: tuple[str, ...] = param("Only these groups (repeatable); default all, sessions included.", "--in",
                                    wire="in", choices=GROUPS, default=(),
                                    agent="Only these groups [all]; one group as a string is fine too, e.g. "
                                          "\"sessions\".")

    def groups_asked(self) -> tuple[str, ...]:
        return self.groups or GROUPS
