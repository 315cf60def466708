"""The facts page (confidence shown as a dot and a label; confirm, edit, forget, export) and
the review page (consolidation proposals: accept or drop), with their JSON twins."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import UsageError
from ..notebook import Notebook
from . import files
from .api import answer, body, known
from .edits import diff_lines
from .views import app_of

LEVELS = ((0.75, "high"), (0.5, "medium"), (0.0, "low"))


def level(confidence: float) -> str:
    """A confidence as the word the page shows beside its dot."""
    return next(name for floor, name in LEVELS if confidence >= floor)


def all_facts(nb: Notebook) -> dict[str, Any]:
    """Every fact (list item) of every page, with source and effective confidence, and counts."""
    from ..index import confidence

    found = []
    for f in files.listing(nb).files:
        if f.group != "notebook":
            continue
        for fact in confidence.facts(nb, f.path):
            found.append({**asdict(fact), "level": level(fact.effective)})
    by_source: dict[str, int] = {}
    by_level: dict[str, int] = {}
    for row in found:
        by_source[row["source"]] = by_source.get(row["source"], 0) + 1
        by_level[row["level"]] = by_level.get(row["level"], 0) + 1
    return {"facts": found, "count": len(found), "by_source": by_source, "by_level": by_level}


async def facts_page(request: Request) -> Response:
    web = app_of(request)
    data = await web.call(all_facts)
    shown = request.query_params.get("level")
    facts = [f for f in data["facts"] if not shown or f["level"] == shown]
    from ..search.links import pages

    known = await web.call(pages)  # a fact's wikilinks resolve as on its page
    return web.page(request, "facts.html", nav="facts", title="Facts", stats=data, facts=facts, shown=shown,
                    pages=known)


def section_of(text: str, line: int) -> str:
    """The H2 (or H1) heading a line stands under ('' before any)."""
    from ..markdown import headings_of

    offset = sum(len(ln) + 1 for ln in text.split("\n")[:line - 1])
    above = [title for start, level, title in headings_of(text) if start < offset and level <= 2]
    return above[-1] if above else ""


def preferences(nb: Notebook) -> list[dict[str, Any]]:
    """The person's preferences by section: the preferences page (MEMORY.md's 'Preferences'
    sections in the flat layout) and every fact consolidation learned as a preference."""
    from ..notes.memory import CATEGORIES

    flat = nb.settings.layout == "flat"
    page = "MEMORY.md" if flat else CATEGORIES["preference"][0]
    texts: dict[str, str] = {}
    sections: dict[str, list[dict[str, Any]]] = {}
    for fact in all_facts(nb)["facts"]:
        if fact["path"] != page and fact["source"] != "preference":
            continue
        text = texts.setdefault(fact["path"], nb.read(fact["path"]))
        section = section_of(text, fact["line"])
        if flat and fact["path"] == page and not section.lower().startswith("preferences") \
                and fact["source"] != "preference":
            continue
        sections.setdefault(section.split(": ", 1)[-1] or "General", []).append(fact)
    return [{"section": name, "facts": found} for name, found in sections.items()]


def summaries(nb: Notebook) -> list[dict[str, Any]]:
    """The session summaries consolidation wrote into the daily logs, newest first."""
    from ..markdown import headings_of
    from ..notes.learned import SUMMARY_HEADING

    found = []
    for f in files.listing(nb).files:
        if f.group != "daily":
            continue
        text = nb.read(f.path)
        heads = headings_of(text)
        for i, (start, level, title) in enumerate(heads):
            _, _, rest = title.partition(" — ")
            if level != 2 or not rest.startswith(SUMMARY_HEADING + " ("):
                continue
            end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
            body = text[start:end].split("\n", 1)[1].strip() if "\n" in text[start:end] else ""
            paragraphs = [p.strip() for p in body.split("\n\n") if p.strip()]
            topics = next((p[len("Topics: "):] for p in paragraphs if p.startswith("Topics: ")), "")
            found.append({"path": f.path, "line": text[:start].count("\n") + 1, "time": title.split(" — ")[0],
                          "day": f.path.rsplit("/", 1)[-1][:-3], "origin": rest[len(SUMMARY_HEADING) + 2:-1],
                          "text": " ".join(p for p in paragraphs if not p.startswith("Topics: ")),
                          "topics": [t.strip() for t in topics.split(",") if t.strip()]})
    return sorted(found, key=lambda s: (s["day"], s["time"]), reverse=True)


def personal_preferences(nb: Notebook) -> dict[str, Any] | None:
    """The personal notebook's preferences beside the project's, to read only (None when none is
    configured): it is another repository, so its facts are shown as text, never linked to this
    server's pages or edit forms, and its private pages are left out."""
    from ..agent.context import is_private
    from .views import personal_of

    personal = personal_of(nb)
    if personal is None or personal["notebook"] is None:
        return personal
    mine: Notebook = personal["notebook"]
    private: dict[str, bool] = {}
    sections = []
    for section in preferences(mine):
        kept = [f for f in section["facts"]
                if not private.setdefault(f["path"], is_private(mine.read(f["path"])))]
        if kept:
            sections.append({**section, "facts": kept})
    return {"root": personal["root"], "error": None, "sections": sections}


async def preferences_page(request: Request) -> Response:
    web = app_of(request)
    from ..search.links import pages

    found, known = await web.call(preferences), await web.call(pages)
    mine = await web.call(personal_preferences)
    return web.page(request, "preferences.html", nav="facts", title="Preferences", sections=found, pages=known,
                    personal=mine)


async def summaries_page(request: Request) -> Response:
    web = app_of(request)
    return web.page(request, "summaries.html", nav="facts", title="Summaries", found=await web.call(summaries))


async def facts_json(request: Request) -> Response:
    web = app_of(request)
    data = await web.call(all_facts)
    download = request.query_params.get("download") == "1"
    headers = {"content-disposition": 'attachment; filename="facts.json"'} if download else None
    return answer(data, headers=headers)


async def confirm(request: Request) -> Response:
    web = app_of(request)
    from ..notes import prune

    form = await request.form()
    done = await web.call(prune.confirm, str(form.get("spec", "")))
    return RedirectResponse(f"/facts?flash={'saved in ' + done.commit[:7] if done.commit else 'nothing changed'}",
                            status_code=303)


async def confirm_json(request: Request) -> Response:
    web = app_of(request)
    from ..notes import prune

    d = await body(request)
    known(d, ("spec",))
    return answer(await web.call(prune.confirm, str(d.get("spec") or "")))


async def review_page(request: Request) -> Response:
    web = app_of(request)
    from ..agent import review

    pending = await web.call(review.pending)
    shown = [{"p": p, "diff": diff_lines(p.diff)} for p in pending.proposals]
    return web.page(request, "review.html", nav="review", title="Review", proposals=shown,
                    notes=pending.notes)


async def decide(request: Request) -> Response:
    web = app_of(request)
    from ..agent import review

    form = await request.form()
    verb = request.path_params["verb"]
    ids = tuple(str(i) for i in form.getlist("id") if str(i).strip())
    if not ids:
        raise UsageError("no proposal chosen", "press Accept or Drop beside a proposal")
    done = await web.call(review.accept if verb == "accept" else review.drop, ids)
    n = len(done.proposals)
    flash = f"saved in {done.commits[-1][:7]}" if done.commits and verb == "accept" else \
        f"dropped {n} proposal{'s' if n != 1 else ''}" if verb == "drop" and n else "nothing changed"
    return RedirectResponse(f"/review?flash={quote(flash)}", status_code=303)


async def review_json(request: Request) -> Response:
    web = app_of(request)
    from ..agent import review

    if request.method in ("GET", "HEAD"):
        return answer(await web.call(review.pending))
    d = await body(request)
    known(d, ("ids", "all"))
    ids = d.get("ids") or []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise UsageError("'ids' must be a list of proposal ids", "e.g. {\"ids\": [\"3f2a9c1\"]}")
    decide_fn = review.accept if request.path_params["verb"] == "accept" else review.drop
    return answer(await web.call(decide_fn, tuple(ids), bool(d.get("all"))))


ROUTES = [Route("/facts", facts_page), Route("/facts/preferences", preferences_page),
          Route("/facts/summaries", summaries_page), Route("/facts/confirm", confirm, methods=["POST"]),
          Route("/review", review_page), Route("/review/{verb:str}", decide, methods=["POST"]),
          Route("/api/facts", facts_json), Route("/api/facts/confirm", confirm_json, methods=["POST"]),
          Route("/api/review", review_json),
          Route("/api/review/{verb:str}", review_json, methods=["POST"])]


