"""One request a verb: the parameters its faces (CLI, MCP tool, web API) share, defined once.

Each class is what a verb is asked; params.py derives the click options, the MCP input
schema and the web API's fields from it, and every face builds the same request and hands it
to the one domain function of the verb. `help` is the CLI's wording, `agent` the MCP tool's
where it differs (an agent reads JSON, not the terminal); `faces` names who offers a field
when not all three do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .config import CATEGORIES, DATE_BASES, GROUPS, MODES
from .params import param

PEOPLE = ("cli",)  # --no-guard, for a person at the keyboard; never offered to an agent or a web client


@dataclass(frozen=True)
class Recall:
    """recall: the notebook pages, daily logs and documents (search.recall), best first."""

    query: str = param(agent="What to look for, in any words.", words=True, required=True, default="")
    limit: int | None = param("At most this many results [15].", "--limit", "-n", minimum=1, maximum=1000)
    min_score: float | None = param(
        "Results below this are weak: shown under 'weak matches' only while fewer than 5 strong ones are there; "
        "0 shows every result [0.25]. In keyword mode (no model) the score is relative to the best result, and "
        "a result under it is left out, not marked weak.", "--min-score", minimum=0, maximum=1,
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


GUARD = "Store it even if it looks like a secret or an instruction (for people)."


@dataclass(frozen=True)
class Remember:
    """remember: one durable fact on the right page, as one commit."""

    text: str = param(agent="The fact, in one or a few sentences.", words=True, required=True, default="")
    to: str | None = param("Store it on this page (relative to the current folder, as in git; ':/PAGE' from the "
                           "notebook's root).", "--to", metavar="PAGE",
                           agent="Store it on this page (notebook-relative path).")
    section: str | None = param("Under this H2 section of the page (the page's own title: under it).", "--section")
    category: str | None = param("Route by category instead of guessing from the text.", "--category",
                                 choices=CATEGORIES, agent="Route by category instead of guessing.")
    force: bool = param("Store it even if the notebook already says it.", "--force", default=False)
    keep_both: bool = param("Add it even if it updates a line of the page (keep the old one).", "--keep-both",
                            default=False)
    replaces: str | None = param("Put it in place of this fact: PATH:LINE as recall prints it, or the old line's "
                                 "words (an update remember did not recognise).", "--replaces", metavar="WHERE",
                                 agent="Put the fact in place of this one: a recall result's `where` (PATH:LINE), or "
                                       "the old line's words, which cannot go stale; for an update remember did not "
                                       "recognise as one.")
    scope: str | None = param("Write to this notebook or your personal one (git config --global mem.personal) "
                              "[preferences: personal, once configured; the rest: project].", "--scope",
                              choices=("project", "personal"),
                              agent="Write to this notebook or the person's own (personal) notebook [preferences: "
                                    "personal, once one is configured; the rest: project].")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class Daily:
    """daily: an entry appended to today's daily log, as one commit."""

    text: str = param(agent="The entry; its first line becomes the heading.", words=True, required=True,
                      default="")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class Write:
    """write: markdown written or appended to a page, or to one of its H2 sections, as one commit."""

    page: str = param(agent="Notebook-relative page path, e.g. projects/apollo.md.", required=True, default="")
    content: str = param(agent="The markdown to write.", words=True, required=True, default="")
    section: str | None = param("Write into this H2 section (created if missing; the page's own title: under it).",
                                "--section")
    replace: bool = param("Replace the page (or the section) instead of appending.", "--replace", default=False)
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)
    expected: str | None = param("The page as the editor read it: refused if it changed since ('' for a page "
                                 "that must not exist yet).", faces=("web",))


@dataclass(frozen=True)
class Forget:
    """forget: a fact taken off its page (one commit) and out of every part of the index."""

    target: str = param(agent="The fact's text as it appears on its page, or PATH:LINES.", words=True,
                        required=True, default="")
    every: bool = param("Forget every line that holds the text (else more than one is refused).", "--all",
                        default=False, agent="Remove every line that holds it (needed when more than one does).")
    yes: bool = param("Forget more than 3 lines, or lines on more than one page (else they are listed, not "
                      "removed).", "--yes", default=False, faces=("cli", "web"))  # a person's confirmation


@dataclass(frozen=True)
class Mv:
    """mv: a page renamed (one commit), with the links to it on other pages."""

    old: str = param(agent="The page's path, e.g. projects/apollo.md.", required=True, default="")
    new: str = param(agent="Its new path.", required=True, default="")
    no_links: bool = param("Rename the page only; leave the links to it as they are.", "--no-links", default=False,
                           agent="Leave the links to it as they are.")
    dry_run: bool = param("Say which pages' links would change; rename nothing.", "--dry-run", default=False,
                          agent="Rename nothing; say what would change.")


@dataclass(frozen=True)
class Get:
    """get: a page, a range of its lines, a document's text or one PDF page, now or at a revision."""

    spec: str = param(wire="path", metavar="PATH[:START[-END]] | DOC.pdf#pN[:START[-END]]", required=True,
                      default="", agent="PATH or PATH:START-END, e.g. reference/contacts.md:3-6; a PDF page as "
                                         "PATH#pN[:START-END], e.g. manuals/boiler.pdf#p12, as search results name it.")
    at: str | None = param("The page as it was at a commit, branch, tag, date (end of that day) or period ago (7d).",
                           "--at", metavar="REV|DATE",
                           agent="Read it as it was at a commit, branch, tag, date or period (7d).")


@dataclass(frozen=True)
class Log:
    """log: the memory timeline, newest first."""

    since: str | None = param("Only commits since then: 30m, 24h, 7d, 2w, or a date.", "--since",
                              metavar="PERIOD|DATE")
    until: str | None = param("Only commits up to then (a bare date: its end).", "--until", metavar="PERIOD|DATE")
    path: str | None = param("Only changes to this page (followed back through renames; relative to the current "
                             "folder, ':/PAGE' from the notebook's root).", "--path", metavar="PAGE",
                             agent="Only changes to this page (followed back through renames).")
    grep: str | None = param("Only commits whose added or removed text matches QUERY, by keyword or meaning.",
                             "--grep", metavar="QUERY",
                             agent="Only commits whose added or removed text matches this, by keyword or meaning.")
    limit: int | None = param("At most this many commits.", "-n", "--max-count", minimum=1)


@dataclass(frozen=True)
class Why:
    """why: where the fact on a line came from."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")  # no web endpoint asks it
    spec: str = param(wire="path", metavar="PATH:LINE", required=True, default="",
                      agent="PATH:LINE, e.g. reference/contacts.md:3.")


@dataclass(frozen=True)
class Context:
    """context: the always-on memory for an agent's prompt, or the facts for a query within a token budget."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")  # for agents (and hooks); the web has no use for it

    day: str | None = param("Assemble it as of this day [today].", "--date", wire="date", metavar="YYYY-MM-DD",
                            pattern=r"^\d{4}-\d{2}-\d{2}$", agent="Assemble it as of this day, YYYY-MM-DD [today].")
    flush: bool = param("Print the pre-compaction reminder instead (for PreCompact hooks).", "--flush",
                        default=False, agent="Return the pre-compaction reminder instead.")
    query: str | None = param("Add the facts most relevant to this, within --budget.", "--query", metavar="TEXT",
                              agent="Also the facts most relevant to this, and keep it all within budget.")
    budget: int | None = param("Never more than this many tokens (UTF-8 bytes / --bytes-per-token, rounded up) "
                               "[8000].", "--budget", minimum=1, metavar="TOKENS",
                               agent="At most this many tokens [8000 with query].")
    mode: str = param("How --query finds facts: both rankers, BM25 only, or vectors only.", "--mode", choices=MODES,
                      default="hybrid", show_default=True, agent="How query finds facts [hybrid].")
    bytes_per_token: int = param("How tokens are counted: 4 is an estimate; 1 an upper bound for any byte-level "
                                 "BPE tokenizer.", "--bytes-per-token", minimum=1, default=4, show_default=True,
                                 agent="Token counting: UTF-8 bytes / this, rounded up [4; 1 is an upper bound for "
                                       "byte-level BPE tokenizers].")

    def budgeted(self) -> bool:
        """A query or a budget asks for the facts within a token budget (agent/budget.py), unless flushing."""
        return bool(self.query or self.budget) and not self.flush


@dataclass(frozen=True)
class Links:
    """links: the pages a page links to, and the pages that link to it."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "web")  # no MCP tool (yet): an agent reads links in get's text
    page: str = param(wire="path", required=True, default="")


@dataclass(frozen=True)
class Tags:
    """tags: the notebook's tags with where each is used, or one tag's pages and lines."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "web")  # no MCP tool (yet): recall's tags filter uses them
    tag: str | None = param()


GOAL_STATUSES = ("active", "completed", "abandoned")


@dataclass(frozen=True)
class GoalAdd:
    """goal add: an active goal, a page under goals/."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    title: str = param(agent="The goal, in a few words.", required=True, default="")
    description: str = param("What the goal is about (the page's text).", "--description", default="",
                             agent="What it is about.")
    facts: tuple[str, ...] = param("Link the fact on this line (repeatable).", "--fact", metavar="PATH:LINE",
                                   default=(), agent="Facts it concerns, as PATH:LINE (e.g. reference/contacts.md:3).")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class GoalUpdate:
    """goal update: a goal's progress or status changed, or a note or linked facts added."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    goal_id: str = param(wire="id", metavar="ID", required=True, default="",
                         agent="The goal's id (from goal_add or goals).")
    progress: int | None = param("How far along it is, 0-100.", "--progress", minimum=0, maximum=100,
                                 agent="How far along, 0-100.")
    status: str | None = param("completed sets progress 100.", "--status", choices=GOAL_STATUSES)
    note: str | None = param("A dated note under the page's Notes section.", "--note",
                             agent="A dated note for the goal page's Notes section.")
    facts: tuple[str, ...] = param("Link the fact on this line (repeatable).", "--fact", metavar="PATH:LINE",
                                   default=(), agent="More facts, as PATH:LINE.")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class Goals:
    """goal list: the active goals, or all of them."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    every: bool = param("Every goal, completed and abandoned too.", "--all", default=False,
                        agent="Completed and abandoned goals too.")


PRIORITIES = ("low", "medium", "high")  # a watched entity's


@dataclass(frozen=True)
class Watch:
    """watch: an entity watched (or its priority changed), or with no name the watch list."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    # the watch tool needs a name (watch_list lists); the command line lists without one
    name: str | None = param(agent="The entity's name, e.g. Sarah.", required=True, cli_optional=True)
    priority: str = param("", "--priority", choices=PRIORITIES, default="medium", show_default=True,
                          agent="[medium]")
    reason: str = param("Why it is watched.", "--reason", default="")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class Unwatch:
    """unwatch: an entity taken off the watch list."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    name: str = param(agent="The entity's name.", required=True, default="")


@dataclass(frozen=True)
class Plan:
    """plan: the plan page, or every version of it."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    history: bool = param("Every version of the plan, newest first, with date and reason.", "--history",
                          default=False, agent="Every version, newest first, instead of the plan.")


@dataclass(frozen=True)
class PlanUpdate:
    """plan update: the plan replaced, with the reason in the commit."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    text: str = param(agent="The whole new plan, in markdown.", required=True, default="")
    reason: str = param("Why the plan changed (kept in the commit's Gitmem-Reason trailer).", "--reason",
                        required=True, default="", agent="Why it changed, in a line.")
    allow: bool = param(GUARD, "--no-guard", default=False, faces=PEOPLE)


@dataclass(frozen=True)
class SessionChanges:
    """session changes: what a session created, updated and removed, from the commits it made."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "mcp")
    # None: the session this process writes for (agent/asked.py: an MCP server's own, else GITMEM_SESSION)
    session_id: str | None = param(wire="id", metavar="[ID]", agent="The session id (GITMEM_SESSION) [this session].")


@dataclass(frozen=True)
class Status:
    """status: index health (files, chunks, revisions, indexed commit vs HEAD, model)."""

    faces: ClassVar[tuple[str, ...]] = ("cli", "web")  # no MCP tool: an agent has no use for it
    no_model: bool = param("Do not try to load the model (faster).", "--no-model", default=False)
