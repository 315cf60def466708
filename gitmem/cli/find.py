"""`git mem` commands that find things: recall, search, log."""

from __future__ import annotations

from typing import Any

import click

from ..verbs import Links, Log, Recall, Search, Tags, Why
from .common import json_option, notebook, page_path, progress, show
from .options import options, request


def _search(request: Recall, as_json: bool, flat: bool = False) -> None:
    from ..search import asked
    from . import output_found as output

    found = asked.find(notebook(), request, progress=progress("embedding new text"),
                       indexing=progress("indexing commits"))
    show(found, as_json, output.ranked if flat else output.results)


@click.command()
@options(Recall)
@json_option
def recall(as_json: bool, **given: Any) -> None:
    """Find memories by meaning and keyword in the notebook, daily logs and documents.

    Results are grouped: notebook pages first, then daily logs, then documents
    (PDF, DOCX, HTML, text files; a PDF hit names its page: manual.pdf#p12:3-8),
    each ranked by score (0-1, one scale in every mode). Each names the fact that
    answers: the list item, line or paragraph, under its heading path, with its
    lines (git mem get PATH:LINES prints it) and the commit git blame names for
    them. Matches that may not answer are shown last, under WEAK MATCHES (JSON:
    last too, "weak": true); with nothing above the notebook's background: no
    good match, and a note (--min-score 0 shows the closest anyway). --json
    gives each result's fact, PATH:LINES, score, weak, date and short commit;
    with --full, each result is the whole hit instead: its chunk with path and
    lines, and its fact with full commit, author and subject. Sessions are left
    out; when they would answer, a note says so; use 'git mem search --in
    sessions'. So is the agent's instructions page (reference/agent-instructions.md,
    which 'git mem context' loads whole); search finds it. search.recall in
    .gitmem.toml changes which groups recall reads.
    --at and --history reach back through the notebook's git history. Date
    filters use, by default, the date in the file name for daily logs and
    sessions and the commit date of the text for every other page (--by).

    \b
    Examples:
      git mem recall "Sarah's phone"
      git mem recall what does the user drink in the morning
      git mem recall --mode keyword ERR_4711 --json
      git mem recall --tag project --type plan "launch date"
      git mem recall --history "Sarah's phone"       current and superseded, with when each changed
      git mem recall --at 2026-01-31 "launch date"   as the notebook stood at the end of that day
      git mem recall --at HEAD~5 "launch date"       as it stood five commits ago (also: a hash, a tag)
      git mem recall --at 2w "launch date"           as it stood two weeks ago
      git mem recall --since 7d "what did I learn"   text committed in the last week (30m, 24h, 2w)
      git mem recall --from 2026-02-01 --to 2026-02-14 standup
      git mem recall --date 2026-02-20 Sarah         that day's daily log, and pages changed that day
      git mem recall --since 24h --by commit Sarah   by commit date even for daily logs
    """
    _search(request(Recall, given), as_json)


@click.command()
@options(Search)
@json_option
def search(as_json: bool, **given: Any) -> None:
    """The same engine as recall, over every group including sessions, as one ranking.

    Results are listed best first whatever their group (each names it), weak
    matches last.

    \b
    Examples:
      git mem search "deployment checklist"
      git mem search --in sessions "what did we decide about the API"
      git mem search --in documents "boiler pressure"          PDF, DOCX, HTML and text files only
      git mem search --mode semantic "feeling tired lately" --json
      git mem search --in sessions --date 2026-02-20 "API"     sessions named for that day
      git mem search --history --in sessions "deadline"        including sessions deleted since
      git mem search --at v1.0 "deployment checklist"
    """
    _search(request(Search, given), as_json, flat=True)


@click.command("log")
@options(Log)
@json_option
def log_command(as_json: bool, **given: Any) -> None:
    """The memory timeline: commits that changed the notebook, newest first.

    Each entry: commit, date, author and message, then per page what was
    added, changed or removed, named by section heading, with the lines. Dates
    are commit dates. A merge is one entry with the commits it brought in.

    \b
    Examples:
      git mem log                                  the whole timeline
      git mem log --since 7d                       what was learned this week (also 30m, 24h, 2w)
      git mem log --since 2026-02-01 --until 2026-02-14
      git mem log --path reference/plan.md         how a plan evolved, and why
      git mem log --grep "Sarah's phone"           when that fact was written or changed
      git mem log -n 5 --json                      the last five, as JSON
      git mem --no-pager log                       print it directly, not through git's pager
    """
    from ..search import asked
    from . import output_found as output

    nb = notebook()
    path = given["path"]
    show(asked.log(nb, request(Log, given, path=page_path(nb, path) if path else None)), as_json, output.timeline,
         paged=True, redacted=True)  # a log quotes lines a pull or an editor wrote: no secret in it


@click.command()
@options(Why)
@json_option
def why(as_json: bool, **given: Any) -> None:
    """Where the fact on a line came from: who wrote it, when, and what made it.

    The fact is the list item, line or paragraph holding LINE. Last changed by:
    the commit git blame names for its lines (the newest of them). Introduced
    by: the oldest commit git log -L finds for them. For commits gitmem made,
    what made them (the verb; the agent, session or MCP client when known).

    \b
    Examples:
      git mem why reference/contacts.md:3
      git mem why knowledge/facts.md:12 --json
    """
    from ..search import asked
    from . import output_found as output

    show(asked.why(notebook(), request(Why, given)), as_json, output.why, redacted=True)


@click.command()
@options(Links)
@json_option
def links(as_json: bool, **given: Any) -> None:
    """The pages a page links to, and the pages that link to it (backlinks).

    Links are wikilinks as Obsidian writes them: [[page]], [[page|label]],
    [[page#heading]], ![[page]], and markdown links to a page, [x](page.md).
    A wikilink's target is a path from the notebook's top (.md optional) or a
    page's name anywhere in it. Links are kept in the index, caught up like
    everything else on each read. Private pages are left out.

    \b
    Examples:
      git mem links reference/contacts.md
      git mem links projects/apollo.md --json
    """
    from ..search import asked
    from . import output

    nb = notebook()
    show(asked.links(nb, request(Links, given, page=page_path(nb, given["page"]))), as_json, output.links)


@click.command()
@options(Tags)
@json_option
def tags(as_json: bool, **given: Any) -> None:
    """The notebook's tags, from frontmatter and #hashtags, with where each is used.

    A tag in a page's frontmatter (tags: [a, b]) or a #hashtag in its text
    (a word after '#', outside code). Most used first; private pages are left
    out. Recall filters by the frontmatter ones: git mem recall --tag NAME.

    \b
    Examples:
      git mem tags                          every tag and how many pages carry it
      git mem tags apollo                   the pages and lines tagged apollo
      git mem tags --json
    """
    from ..search import asked
    from . import output

    show(asked.tags(notebook(), request(Tags, given)), as_json, output.tags)


COMMANDS = [recall, search, log_command, why, links, tags]
