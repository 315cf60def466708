"""The pages that only read: home, browser, page view, search, history, timeline, status, documents,
sessions."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import config
from ..errors import UsageError
from ..notebook import Notebook
from ..verbs import Log, Recall, Search
from . import files
from .render import render

if TYPE_CHECKING:
    from .app import Web


def app_of(request: Request) -> Web:
    """The app's shared state (notebook root, CSRF secret, templates, rebuild job)."""
    web: Web = request.app.state.web
    return web


async def home(request: Request) -> Response:
    web = app_of(request)

    def work(nb: Notebook) -> dict[str, Any]:
        from ..index import maintenance

        listing = files.listing(nb)
        daily = None
        if listing.latest_daily:
            daily = {"path": listing.latest_daily, "html": render(nb.read(listing.latest_daily),
                                                                  listing.latest_daily, web.remote_images).html}
        return {"listing": listing, "daily": daily, "status": maintenance.status(nb, check_model=False),
                "personal": personal_of(nb), **structured(nb, web.remote_images)}

    return web.page(request, "home.html", nav="home", **await web.call(work))


def personal_of(nb: Notebook) -> dict[str, Any] | None:
    """{"notebook": the personal notebook, or None, "root", "error"} when one is configured, else None.
    Pages only name it and read it: this server edits the project's notebook alone."""
    from ..errors import GitmemError
    from ..gitops.repo import personal_notebook, personal_path

    try:
        personal = personal_notebook(nb)
    except GitmemError as exc:  # configured but gone: the page says so, and the rest of it still works
        return {"notebook": None, "root": str(personal_path(nb)), "error": exc.line()}
    return {"notebook": personal, "root": str(personal.root), "error": None} if personal else None


def structured(nb: Notebook, remote_images: bool) -> dict[str, Any]:
    """The plan (as HTML) and the active goals, for the home page."""
    from ..notes import goals, plan

    shown = plan.show(nb)
    body = shown.text.split("\n", 1)[1] if shown.text.startswith("# ") and "\n" in shown.text else shown.text
    # without its "# Plan" title: the card's own heading says it, and an h1 under an h2 misleads a screen reader
    html = render(body, shown.path, remote_images).html if shown.exists else None
    return {"plan": shown, "plan_html": html, "goals": goals.listing(nb)}


async def browse(request: Request) -> Response:
    web = app_of(request)
    folder = request.query_params.get("folder")
    group = request.query_params.get("group")
    listing = await web.call(files.listing)
    shown = [f for f in listing.files if (folder is None or f.folder == folder) and (not group or f.group == group)]
    return web.page(request, "browse.html", nav="browse", listing=listing, files=shown, folder=folder,
                    group=group, title="Pages")


async def page(request: Request) -> Response:
    web = app_of(request)
    at = request.query_params.get("at") or None
    data = await web.call(page_data, request.path_params["path"], at, web.remote_images,
                          request.query_params.get("lines") or None)
    return web.page(request, "page.html", nav="browse", **data)


PER_PAGE = 30  # timeline entries a page shows; "Older" continues


def page_number(request: Request) -> int:
    raw = request.query_params.get("page") or "1"
    if not re.fullmatch(r"[1-9][0-9]{0,4}", raw):
        raise UsageError(f"page={raw[:20]!r} is not a page number", "e.g. page=2")
    return int(raw)


def paged(found: Any, number: int) -> dict[str, Any]:
    """One page of a timeline, its entries grouped by day (newest first), and whether older ones exist."""
    shown = found.entries[(number - 1) * PER_PAGE:number * PER_PAGE]
    days: list[tuple[str, list[Any]]] = []
    for entry in shown:
        if not days or days[-1][0] != entry.date[:10]:
            days.append((entry.date[:10], []))
        days[-1][1].append(entry)
    return {"days": days, "page_no": number, "older": len(found.entries) > number * PER_PAGE}


async def history(request: Request) -> Response:
    web = app_of(request)
    from ..search import asked

    path, number = request.path_params["path"], page_number(request)
    found = await web.call(asked.log, Log(path=path, limit=number * PER_PAGE + 1))
    return web.page(request, "history.html", nav="browse", path=found.filters["path"], timeline=found,
                    f={}, title=f"History of {path}", **paged(found, number))


async def log(request: Request) -> Response:
    web = app_of(request)
    from ..search import asked

    q = request.query_params
    f = {k: q.get(k) or None for k in ("since", "until", "grep")}
    number = page_number(request)
    found = await web.call(asked.log, Log(f["since"], f["until"], None, f["grep"], number * PER_PAGE + 1))
    return web.page(request, "history.html", nav="log", path=None, timeline=found, f=f, title="Timeline",
                    **paged(found, number))


async def search(request: Request) -> Response:
    web = app_of(request)
    from ..errors import GitmemError

    form = search_form(request.query_params)
    results, error, code = None, None, 200
    try:
        recall = await web.call(lambda nb: nb.settings.recall)
        if form["q"].strip():
            results = await web.call(run_search, form)
    except GitmemError as exc:  # bad input: the form stays, filled in, with what to fix
        error, code = exc.line(), web.status_of(exc)
    strong = [h for h in results.results if not h.weak] if results else []
    grouped = [(g, [h for h in strong if h.group == g]) for g in config.GROUPS]
    if results and form["kind"] == "search":  # search is one ranking, best first, as in the CLI
        grouped = [("results", strong)]
    weak = [h for h in results.results if h.weak] if results else []
    closest = urlencode([*[(k, v) for k, v in request.query_params.multi_items() if k != "min_score"],
                         ("min_score", "0")])
    from ..search.links import pages

    known = await web.call(pages)
    return web.page(request, "search.html", code, nav="search", f=form, results=results, error=error,
                    grouped=[(g, hits) for g, hits in grouped if hits], weak=weak, groups=config.GROUPS,
                    recall=recall, closest=closest, modes=config.MODES, bases=config.DATE_BASES, title="Search",
                    notes=browser_notes(results.notes if results else []), pages=known)


SESSIONS_HINT = re.compile(r"^(\d+) match(?:es)? in sessions: git mem search --in sessions .*$")
CLI_TAIL = re.compile(r"; pass --min-score 0 to see the closest anyway$")


def browser_notes(notes: list[str]) -> list[dict[str, str]]:
    """The engine's notes as a browser says them: a hint naming a CLI command becomes a link that
    does the same here ("2 matches in saved sessions" searches them), a CLI flag is left out."""
    out = []
    for note in notes:
        found = SESSIONS_HINT.match(note)
        if found:
            n = int(found.group(1))
            out.append({"text": f"{n} match{'es' if n != 1 else ''} in saved sessions", "link": "search them",
                        "kind": "sessions"})
            continue
        out.append({"text": CLI_TAIL.sub("", note)})
    return out


async def status(request: Request) -> Response:
    web = app_of(request)
    from ..index import maintenance

    data = await web.call(maintenance.status, check_model=request.query_params.get("model") == "1")
    if request.query_params.get("model") != "1":
        data["model"]["semantic"] = None
    return web.page(request, "status.html", nav="status", status=data, job=web.rebuild.state(), title="Status")


async def documents(request: Request) -> Response:
    web = app_of(request)
    from ..index import maintenance

    return web.page(request, "documents.html", nav="status", documents=await web.call(maintenance.documents),
                    title="Documents")


async def rebuild_progress(request: Request) -> Response:
    web = app_of(request)
    name = "rebuild.html" if request.headers.get("hx-request") else "rebuild_page.html"
    return web.page(request, name, nav="status", job=web.rebuild.state(), title="Rebuild")


async def sessions(request: Request) -> Response:
    web = app_of(request)
    return web.page(request, "sessions.html", nav="sessions", sessions=await web.call(files.sessions),
                    title="Sessions")


async def tags(request: Request) -> Response:
    web = app_of(request)
    from ..search.tags import tags as find

    found = await web.call(find, request.query_params.get("tag") or None)
    return web.page(request, "tags.html", nav="tags", found=found, title="Tags")


ROUTES = [Route("/", home), Route("/tags", tags), Route("/browse", browse), Route("/page/{path:path}", page),
          Route("/history/{path:path}", history), Route("/log", log), Route("/search", search),
          Route("/status", status), Route("/documents", documents),
          Route("/rebuild", rebuild_progress, methods=["GET"]),
          Route("/sessions", sessions)]


def _conflicts(text: str) -> int:
    from ..gitops.factmerge import START

    return sum(1 for line in text.split("\n") if START.match(line))


def _fenced(text: str) -> str:
    """A page's conflicts (a merge's markers and both sides) as code blocks: rendered as markdown, the
    markers were seven nested quotes and "=======" ran into the line above (a newcomer's team)."""
    from ..gitops.factmerge import END, START

    out, inside = [], False
    for line in text.split("\n"):
        if START.match(line) and not inside:
            out += ["", "~~~~~~~~~~ text"]
            inside = True
        out.append(line)
        if END.match(line) and inside:
            out += ["~~~~~~~~~~", ""]
            inside = False
    return "\n".join(out + (["~~~~~~~~~~"] if inside else []))


def page_data(nb: Notebook, path: str, at: str | None, remote_images: bool, lines: str | None = None) -> dict[str, Any]:
    from ..notes import reading

    found = reading.get(nb, path, at)
    document = document_kind(found.path) is not None
    # a document's lines are its paragraphs, headings and table rows: each its own block, never run together
    text = "\n\n".join(found.text.split("\n")) if document else found.text
    from ..search.links import links, pages

    known = pages(nb)
    conflicts = 0 if document else _conflicts(text)
    data: dict[str, Any] = {"path": found.path, "revision": found.revision, "title": found.path,
                            "rendered": render(_fenced(text) if conflicts else text, found.path, remote_images, known),
                            "document": document, "conflicts": conflicts}
    if not document and found.path in known:
        data["links"] = links(nb, found.path)
    data["tree"] = files.tree(known, found.path)
    if lines:  # a search hit: its lines, as text, above the page
        if not re.fullmatch(r"[0-9]{1,9}(-[0-9]{1,9})?", lines):  # else it would be read as part of the path
            raise UsageError(f"lines={lines[:40]!r} is not a line or a range of lines", "e.g. lines=12 or lines=12-18")
        data["excerpt"] = reading.get(nb, f"{path}:{lines}", at)
    if found.revision:
        data["described"] = commit_info(nb, found.revision)
        return data
    touched = nb.git.touching("HEAD", nb.repo_path(found.path), 1) if nb.git.head() else []
    data["last"] = commit_info(nb, touched[0][0]) if touched else None
    data["uncommitted"] = nb.repo_path(found.path) in nb.git.status(nb.repo_path(found.path))
    return data


def document_kind(path: str) -> str | None:
    """'pdf', 'docx', ... for a document (its extracted text is shown, never edited as a page), else None."""
    from ..index.documents import kind_of
    from ..notes.reading import path_part

    return kind_of(path_part(path).split("#", 1)[0])


def not_a_document(nb: Notebook, path: str) -> None:
    """Refuse to edit or delete a document as a page: the write path would make PATH.md beside it."""
    from ..errors import UsageError

    kind = document_kind(path)
    if kind is not None:
        raise UsageError(f"{path} is a document ({kind.upper()}); gitmem reads its text but never changes the file",
                         "change it in its own program (or git rm it) and commit; write notes about it in a page")


def commit_info(nb: Notebook, oid: str) -> dict[str, str]:
    from ..dates import iso

    c = nb.git.describe(oid)
    return {"commit": c.oid, "date": iso(c.time), "author": c.author, "subject": c.subject}


def search_form(q: Any) -> dict[str, Any]:
    """The search form's fields from the query string, with the CLI's defaults."""
    groups = tuple(g for g in q.getlist("in") if g in config.GROUPS) if hasattr(q, "getlist") else ()
    form = {"q": q.get("q") or q.get("query", ""), "kind": "search" if q.get("kind") == "search" else "recall",
            "mode": q.get("mode") if q.get("mode") in config.MODES else "hybrid",
            "tag": q.get("tag", ""), "type": q.get("type", ""), "at": q.get("at", ""), "since": q.get("since", ""),
            "start": q.get("from", ""), "end": q.get("to", ""), "day": q.get("date", ""),
            "by": q.get("by") if q.get("by") in config.DATE_BASES else "auto", "history": bool(q.get("history")),
            "limit": q.get("limit"), "min_score": q.get("min_score", ""),
            "full": q.get("full", "") not in ("", "0", "false")}
    form["groups"] = () if form["kind"] == "recall" else (groups or config.GROUPS)  # (): search.recall
    form["advanced"] = any(form[k] for k in ("tag", "type", "at", "since", "start", "end", "day", "history")) \
        or form["mode"] != "hybrid" or form["by"] != "auto" or form["min_score"] != ""
    return form


def run_search(nb: Notebook, form: dict[str, Any]) -> Any:
    """recall/search with the form's filters: the same request, and domain function, as the CLI's."""
    from ..search import asked

    return asked.find(nb, searched(form))  # the personal notebook too, when one is configured (as the CLI and MCP)


def searched(form: dict[str, Any]) -> Recall:
    """The search form's fields as the request the CLI and MCP build (Search when it names groups)."""
    try:
        limit = int(form["limit"]) if form.get("limit") else None
    except ValueError as exc:
        raise UsageError(f"limit must be a number, not {form['limit']!r}", "e.g. limit=15") from exc
    if limit is not None and not 1 <= limit <= 1000:  # the CLI's --limit range
        raise UsageError(f"limit must be from 1 to 1000, not {limit}", "e.g. limit=15")
    try:
        floor = float(form["min_score"]) if form.get("min_score") else None
    except ValueError as exc:
        raise UsageError(f"min_score must be a number, not {form['min_score']!r}",
                         "e.g. min_score=0 to see the closest anyway") from exc
    asked = Recall(query=form["q"], limit=limit, min_score=floor, mode=form["mode"],
                   tags=tuple(t.strip() for t in form["tag"].split(",") if t.strip()), kind=form["type"] or None,
                   at=form["at"] or None, history=form["history"], since=form["since"] or None,
                   start=form["start"] or None, end=form["end"] or None, day=form["day"] or None, by=form["by"],
                   full=bool(form.get("full")))
    groups = tuple(form["groups"])
    return Search(**vars(asked), groups=groups) if groups else asked
