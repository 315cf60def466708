"""`git mem` commands that write and read pages: init, remember, daily, write, forget, get."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..errors import UsageError
from ..verbs import Daily, Forget, Get, Mv, Remember, Write
from .common import forget_target, json_option, notebook, page_path, page_spec, progress, read_text, show
from .options import options, request


@click.command()
@click.argument("path", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--layout", type=click.Choice(["folders", "flat"]),
              help="folders: reference/, knowledge/, daily/, sessions/; flat: MEMORY.md + memory/.")
@click.option("--dir", "folder", help="Keep the notebook in this subfolder of the repository.")
@click.option("--no-index", is_flag=True, help="Skip building the index (and fetching the model).")
@click.option("--agent-instructions", is_flag=True,
              help="Also write reference/agent-instructions.md, how an agent should use the notebook.")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks (reads still catch up).")
@click.option("--model-dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Use the embedding model in this folder, and remember it in git config mem.modelDir.")
@json_option
def init(path: Path, layout: str | None, folder: str | None, no_index: bool, agent_instructions: bool,
         no_hooks: bool, model_dir: Path | None, as_json: bool) -> None:
    """Make a folder or repository into a notebook (safe to run again).

    Creates .gitmem.toml, a .gitattributes that merges pages fact by fact and
    daily logs entry by entry, a git repository if there is none, and the index; installs the git
    hooks (see 'git mem hooks'); fetches the embedding model if it is not on
    this machine yet. Run it once in every clone of a notebook.

    \b
    Examples:
      git mem init                          this folder, layout chosen for you
      git mem init --layout flat            MEMORY.md + memory/YYYY-MM-DD.md
      git mem init --dir memory             a notebook inside a code repository
      git mem init --agent-instructions     add the page that tells an agent how to use it
      git mem init --model-dir ~/models/all-MiniLM-L6-v2-onnx-int8   a local model, kept for later shells
    """
    from ..index import embed
    from ..notes import scaffold
    from . import output

    embed.for_bulk()  # init builds the index: batches
    result = scaffold.init(path, layout, folder, build_index=not no_index, progress=progress("embedding"),
                           agent_instructions=agent_instructions, install_hooks=not no_hooks, model_dir=model_dir)
    show(result, as_json, output.init)


@click.command()
@options(Remember)
@json_option
def remember(as_json: bool, **given: Any) -> None:
    """Store a fact on the right page, as one commit.

    Routing, first match wins: shopping (buy, out of, pick up) ->
    lists/shopping.md; rules (policy, approval, any/all/every ... must,
    "Never deploy ...") -> reference/rules.md; todos (need to, remember to,
    due, or a task verb first: call, book, renew...) -> lists/todos.md;
    decisions (decided, agreed, chose) -> knowledge/decisions.md;
    infrastructure (servers, databases, hosts, ports, CI, DNS) ->
    knowledge/infrastructure.md; contacts (phone, e-mail, address, birthday,
    account contact) -> reference/contacts.md; preferences (likes, prefers,
    allergic, no longer drinks, how to answer you) -> reference/preferences.md;
    events (a date and a meeting, launch, flight...) -> knowledge/events.md;
    anything else -> knowledge/facts.md (flat layout: sections of MEMORY.md).
    --category or --to overrides it; the output says where it went. A fact the
    notebook already holds is not stored twice (a short form counts as its
    word: "the prod db" is "the production database").
    A fact that updates a line of its page (the same person's phone with
    another value, a preference that flips, or an update said in time: moved
    to, no longer, switched from, now, instead of, changed to, as of) replaces
    that line in the same commit and says so, keeping the rest of a longer
    line; a role the notebook names counts as the name ("My sister's phone
    is now ..." updates "Lucy's phone is ..." when Lucy is the sister, and
    the line keeps "Lucy"); --keep-both keeps the old line too. An update the
    rules miss is stored beside the line and the output names the line it may
    update ("maybe updates:"); --replaces PATH:LINE (a recall result's place)
    or the old line's words puts the fact in that line's place instead, the
    commit naming the old line.
    Secrets and instruction-like text are refused, with the reason.

    \b
    Examples:
      git mem remember "Sarah Chen's phone is 555-1234"
      git mem remember --category preference "Prefers tea over coffee"
      git mem remember "Sarah Chen's phone is 555-9999"     replaces her old number
      git mem remember "Apollo 2.0 moved to March 29"       replaces its old date
      git mem remember --keep-both "Sarah's phone is 555-0000"
      git mem remember --replaces knowledge/events.md:4 "Standup is at 10:00"
      git mem remember --to projects/apollo.md --section Decisions "Ship on Friday"
      git mem remember --scope personal "I review code in the morning"
      echo "a longer fact" | git mem remember -
    """
    from ..notes import asked
    from . import output

    nb = notebook()
    to, replaces = given["to"], given["replaces"]
    result = asked.remember(nb, request(Remember, given, text=read_text(given["text"], "fact"),
                                        to=page_path(nb, to) if to else None,
                                        replaces=forget_target(nb, replaces) if replaces is not None else None))
    show(result, as_json, output.written)


@click.command()
@options(Daily)
@json_option
def daily(as_json: bool, **given: Any) -> None:
    """Append an entry to today's daily log, as one commit.

    The entry is '## HH:MM — first line' followed by the rest of the text, in
    daily/YYYY-MM-DD.md (flat layout: memory/YYYY-MM-DD.md).

    \b
    Examples:
      git mem daily "Called Sarah about the project timeline"
      git mem daily - < meeting-notes.txt
    """
    from ..notes import asked
    from . import output

    nb = notebook()
    show(asked.daily(nb, request(Daily, given, text=read_text(given["text"], "entry"))), as_json, output.written)


@click.command()
@options(Write)
@json_option
def write(as_json: bool, **given: Any) -> None:
    """Write or append to a page, or to one of its H2 sections, as one commit.

    Content comes from the arguments, or from stdin when none are given.
    PAGE is relative to the current folder, as in git; ':/PAGE' is from the
    notebook's root.

    \b
    Examples:
      git mem write reference/standing.md "Weekly review on Fridays"
      git mem write projects/apollo.md --section Status --replace "On track"
      cat plan.md | git mem write reference/plan.md --replace
    """
    from ..notes import asked
    from . import output

    nb = notebook()
    result = asked.write(nb, request(Write, given, page=page_path(nb, given["page"]),
                                     content=read_text(given["content"], "content")))
    show(result, as_json, output.written)


@click.command()
@options(Forget)
@click.option("--everything", is_flag=True,
              help="Forget every memory of the notebook: all lines but headings and frontmatter (needs --yes).")
@json_option
def forget(everything: bool, as_json: bool, **given: Any) -> None:
    """Remove a fact from the notebook (one commit) and from every part of the index.

    TEXT removes each line that contains it (case and spacing ignored; more
    than one line needs --all); PATH:START[-END] removes those lines (PATH
    relative to the current folder, ':/PATH' from the notebook's root). The
    index forgets it too, past revisions included. Git history still holds
    it: docs/safety.md ('Forgetting') says how to purge history. More than
    3 lines, or lines on more than one page, are listed and kept until you
    run the command again with --yes. Each clone
    forgets for itself: text that no page holds any more but the index's
    history does (a clone that pulled the forget) leaves the index, no commit.
    Text that no page in the work tree holds but HEAD still does (a forget
    killed before its commit) is committed off HEAD.

    --everything takes every memory off every page (all lines but headings
    and frontmatter; daily entries and sessions included) in one commit, and
    every such line of history out of the index; documents stay. Without
    --yes it only says how much that is.

    \b
    Examples:
      git mem forget "Sarah's old phone is 555-0000"
      git mem forget reference/contacts.md:7
      git mem forget --all "Project Nightingale"
      git mem forget --all --yes "Project Nightingale"
      git mem forget --everything --yes
    """
    from ..notes import asked
    from ..notes import forget as forgetting
    from . import output

    nb = notebook()
    if everything:
        if given["target"] or given["every"]:
            raise UsageError("--everything takes no TEXT and no --all", "run: git mem forget --everything --yes")
        show(forgetting.everything(nb, forgetting.EVERYTHING if given["yes"] else None), as_json, output.forgot)
        return
    try:
        result = asked.forget(nb, request(Forget, given, target=forget_target(nb, read_text(given["target"], "fact"))))
    except forgetting.TooBroad as exc:
        show(exc.preview, as_json, output.forget_preview, err=not as_json)  # what would go, then the error
        raise
    show(result, as_json, output.forgot)


@click.command()
@options(Get)
@json_option
def get(as_json: bool, **given: Any) -> None:
    """Print a page, or a range of its lines; a document's extracted text, or one PDF page.

    A document (PDF, DOCX, HTML, text) prints the text gitmem extracted and
    indexed: PATH#pN is page N of a PDF, PATH#pN:START-END lines of that page
    (as recall names them); a DOCX or HTML file has one paragraph a line.

    PATH is relative to the current folder, as in git (in projects/,
    'git mem get apollo.md' reads projects/apollo.md); ':/PATH' is from the
    notebook's root, wherever you stand.

    \b
    Examples:
      git mem get reference/contacts.md
      git mem get :/reference/contacts.md        from the notebook's root, from any folder
      git mem get reference/contacts.md:3-6
      git mem get MEMORY.md:12 --json
      git mem get reference/plan.md --at 2026-01-31     as it was at the end of that day
      git mem get reference/plan.md --at HEAD~3         three commits ago (or a hash, branch, tag)
      git mem get reference/old-page.md --at 2w         a page deleted since, as it was two weeks ago
      git mem get manuals/boiler.pdf#p12                page 12 of a PDF, as extracted
      git mem get manuals/boiler.pdf#p12:3-8            lines 3-8 of that page
      git mem get letters/landlord.docx:4               the fourth paragraph of a letter
      git mem get manuals/boiler.pdf --at HEAD~1        the whole text of the manual it replaced
    """
    from ..errors import PageNotFound
    from ..notes import asked
    from . import output

    nb = notebook()
    spec, at = given["spec"], given["at"]
    resolved = page_spec(nb, spec)
    try:
        page = asked.get(nb, request(Get, given, spec=resolved))
    except PageNotFound as exc:
        if resolved != spec and not spec.startswith(":/") and at is None:
            raise PageNotFound(exc.message, f"paths are relative to the current folder, as in git; from the "
                                            f"notebook's root it is: git mem get :/{spec}") from exc
        raise
    show(page, as_json, output.page)


@click.command("mv")
@options(Mv)
@json_option
def mv(as_json: bool, **given: Any) -> None:
    """Rename a page, and the links to it on other pages, as one commit.

    Like git mv for a notebook page: NEW must not exist, and the page must be
    committed. Links to it follow it ([[old]], [[old|label]], [[old#heading]],
    ![[old]], [x](old.md)), each keeping its form; private pages are left
    alone. Paths are relative to the current folder, as in git. A note says
    when remember still routes facts to the old path (it would start that
    page again; use remember --to NEW) or when the page leaves the always-on
    pages that git mem context gives an agent.

    \b
    Examples:
      git mem mv projects/apollo.md projects/apollo-2026.md
      git mem mv ideas/draft.md archive/draft.md --no-links
      git mem mv reference/contacts.md reference/people.md --dry-run --json
      git mem mv reference/contacts.md people/contacts.md    then: git mem remember --to people/contacts.md ...
    """
    from ..notes import asked
    from . import output

    nb = notebook()
    wanted = request(Mv, given, old=page_path(nb, given["old"]), new=page_path(nb, given["new"]))
    show(asked.mv(nb, wanted), as_json, output.moved)


COMMANDS = [init, remember, daily, write, forget, get, mv]
