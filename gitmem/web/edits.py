"""The pages that change the notebook: edit, new, delete, rename, forget (and forget everything,
behind the typed words), session delete, rebuild.

Every save goes through the CLI's own write path (notes/memory.py write, the
guard included) as one commit. An edit form carries the page as it was
opened; if the page differs when the save arrives (an agent wrote meanwhile),
the save is refused and the difference shown, never overwritten."""

from __future__ import annotations

import base64
import difflib
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import GitmemError, Refused, UsageError
from ..notebook import Notebook
from .render import render
from .views import app_of, not_a_document, page_data

if TYPE_CHECKING:
    from .app import Web


async def preview(request: Request) -> Response:
    web = app_of(request)
    form = await request.form()
    # in a worker thread, like every other render: a big page must not stall the event loop
    from ..search.links import pages

    known = await web.call(pages)
    rendered = await run_in_threadpool(render, str(form.get("text", "")), str(form.get("path", "")), web.remote_images,
                                       known)
    return web.page(request, "preview.html", rendered=rendered)


async def edit_form(request: Request) -> Response:
    web = app_of(request)
    from ..notes import reading

    await web.call(not_a_document, request.path_params["path"])
    page = await web.call(reading.get, request.path_params["path"])
    shown = await run_in_threadpool(_preview, web, page.text, page.path)  # off the event loop: the page may be big
    return _editor(web, request, page.path, page.text, page.text, preview=shown)


async def edit_save(request: Request) -> Response:
    web = app_of(request)
    from ..notes import change, memory

    form = await request.form()
    path, text, original = request.path_params["path"], _text(form, "text"), _original(form)
    if form.get("do") == "preview":
        return _editor(web, request, path, text, original, preview=await _shown(web, text, path))
    from ..notes import resolve

    try:
        if await web.call(resolve.unmerged_page, path):  # a merge stopped on this page: the save settles it
            settled = await web.call(resolve.settle, path, text, original, allow=form.get("allow") == "1")
            # the page as it stands now, with what the merge brought, named as `resolve` names it (a merge the
            # editor concluded said nothing of it: an attack run, 2026-11-27); no redirect: notes are no flash
            data = await web.call(page_data, settled.path, None, web.remote_images)
            data["flash"] = "marked merged as you edited it" + (
                f"; the {settled.concluded} is concluded in {(settled.commit or '')[:7]}" if settled.concluded else "")
            return web.page(request, "page.html", nav="browse", notes=settled.notes, **data)
        written = await web.call(memory.write, path, text, replace=True, expected=original,
                                 allow=form.get("allow") == "1")
    except change.PageChanged as exc:
        return _editor(web, request, exc.path, text, exc.current, 409, conflict=diff(exc.seen, exc.current),
                       preview=await _shown(web, text, path))
    except GitmemError as exc:
        return _editor(web, request, path, text, original, 422, error=exc.line(), refused=isinstance(exc, Refused),
                       preview=await _shown(web, text, path))
    return _saved(written)


async def new_form(request: Request) -> Response:
    web = app_of(request)
    path = request.query_params.get("path", "")
    return web.page(request, "edit.html", nav="new", creating=True, path=path, text="", preview="",
                    title="New page")


async def new_save(request: Request) -> Response:
    web = app_of(request)
    from ..notes import change, memory

    form = await request.form()
    path, text = _text(form, "path").strip(), _text(form, "text")
    if form.get("do") == "preview":
        return web.page(request, "edit.html", nav="new", creating=True, path=path, text=text, title="New page",
                        preview=_preview(web, text, path))
    try:
        written = await web.call(memory.write, path, text, replace=True, expected="")
    except change.PageChanged as exc:
        error = f"{exc.path} already exists; open it to edit it, or choose another name"
        return web.page(request, "edit.html", 409, nav="new", creating=True, path=path, text=text,
                        preview=_preview(web, text, path), error=error, title="New page")
    except GitmemError as exc:
        return web.page(request, "edit.html", 422, nav="new", creating=True, path=path, text=text,
                        preview=_preview(web, text, path), error=exc.line(), title="New page")
    return _saved(written)


async def delete_form(request: Request) -> Response:
    web = app_of(request)
    from ..notes import reading

    await web.call(not_a_document, request.path_params["path"])
    page = await web.call(reading.get, request.path_params["path"])
    rendered = await run_in_threadpool(render, page.text, page.path, web.remote_images)
    return web.page(request, "delete.html", path=page.path, original=packed(page.text), nav="browse",
                    rendered=rendered, title=f"Delete {page.path}")


async def delete(request: Request) -> Response:
    web = app_of(request)
    from ..notes import removal

    form = await request.form()
    written = await web.call(removal.remove, request.path_params["path"], expected=_original(form))
    return RedirectResponse(f"/browse?flash={quote('deleted ' + written.path)}", status_code=303)


async def rename_form(request: Request) -> Response:
    """The page's new name, and whether the links to it follow (how many, on how many pages).
    The app's script sends it to /api/mv as JSON; without the script the form posts here."""
    web = app_of(request)
    from ..search.links import links

    await web.call(not_a_document, request.path_params["path"])
    found = await web.call(links, request.path_params["path"])
    linking = sorted({b.path for b in found.backlinks})
    return web.page(request, "rename.html", path=found.page, links=len(found.backlinks), linking=linking,
                    nav="browse", title=f"Rename {found.page}")


async def rename(request: Request) -> Response:
    web = app_of(request)
    from ..notes import rename as renaming

    form = await request.form()
    moved = await web.call(renaming.move, request.path_params["path"], str(form.get("new", "")),
                           form.get("links") is not None)
    return RedirectResponse(f"/page/{quote(moved.new)}?flash={quote('renamed from ' + moved.old)}", status_code=303)


async def forget_form(request: Request) -> Response:
    web = app_of(request)
    return web.page(request, "forget.html", nav="forget", title="Forget")


async def forget(request: Request) -> Response:
    web = app_of(request)
    from ..notes import forget as forgetting

    form = await request.form()
    target, every = _text(form, "target"), bool(form.get("all"))
    data: dict[str, Any] = {"nav": "forget", "target": target, "every": every, "title": "Forget"}
    try:
        if form.get("confirm") == "yes":
            # the person saw the list on the confirmation page: that is the CLI's --yes, for the
            # lines they saw (the form carries their fingerprint, checked under the write lock)
            data["done"] = await web.call(forgetting.forget, target, every, broad=True, seen=_text(form, "seen"))
        else:
            data["spots"], data["seen"] = await web.call(_spots, target, every, form.get("fact"))
    except (forgetting.LinesChanged, LineMoved) as exc:
        data["spots"], data["seen"] = await web.call(_spots, target, every, None, False)
        return web.page(request, "forget.html", 409, error=exc.line(), **data)
    except GitmemError as exc:
        return web.page(request, "forget.html", 422, error=exc.line(), **data)
    return web.page(request, "forget.html", **data)


async def everything_form(request: Request) -> Response:
    web = app_of(request)
    from ..notes import forget as forgetting

    return web.page(request, "everything.html", nav="forget", title="Forget everything",
                    survey=await web.call(forgetting.survey))


async def everything(request: Request) -> Response:
    """Forget everything, once the person typed the words; anything else shows the page again."""
    web = app_of(request)
    from ..notes import forget as forgetting

    form = await request.form()
    try:
        done = await web.call(forgetting.everything, _text(form, "confirm"))
    except forgetting.NotConfirmed as exc:
        return web.page(request, "everything.html", 422, nav="forget", title="Forget everything",
                        survey=exc.survey, error=f"nothing was forgotten: type the words “{forgetting.EVERYTHING}” "
                                                 "in the box to confirm")
    return web.page(request, "everything.html", nav="forget", title="Forget everything", done=done,
                    lines=done.lines(), pages=done.pages())


async def session_delete(request: Request) -> Response:
    """Delete a session once asked: by the browser's dialog (JavaScript) or, without it, on a page."""
    web = app_of(request)
    from ..agent import session

    form = await request.form()
    chat = _text(form, "chat")
    if form.get("confirm") != "yes":
        return web.page(request, "session_delete.html", nav="sessions", chat=chat, title="Delete a session")
    removed = await web.call(session.remove, chat)
    return RedirectResponse(f"/sessions?flash={quote('deleted ' + removed.path)}", status_code=303)


async def rebuild(request: Request) -> Response:
    web = app_of(request)
    job = web.rebuild.start()
    if request.headers.get("hx-request"):
        return web.page(request, "rebuild.html", job=job)
    return RedirectResponse("/rebuild", status_code=303)


ROUTES = [Route("/preview", preview, methods=["POST"]),
          Route("/edit/{path:path}", edit_form, methods=["GET"]),
          Route("/edit/{path:path}", edit_save, methods=["POST"]),
          Route("/new", new_form, methods=["GET"]), Route("/new", new_save, methods=["POST"]),
          Route("/delete/{path:path}", delete_form, methods=["GET"]),
          Route("/delete/{path:path}", delete, methods=["POST"]),
          Route("/rename/{path:path}", rename_form, methods=["GET"]),
          Route("/rename/{path:path}", rename, methods=["POST"]),
          Route("/forget", forget_form, methods=["GET"]), Route("/forget", forget, methods=["POST"]),
          Route("/forget/everything", everything_form, methods=["GET"]),
          Route("/forget/everything", everything, methods=["POST"]),
          Route("/sessions/delete", session_delete, methods=["POST"]),
          Route("/rebuild", rebuild, methods=["POST"])]


def _original(form: Any) -> str:
    """The page as the form was opened: base64 in the form, so that its exact bytes survive the
    browser (which turns every line end in a form field into CRLF)."""
    try:
        return base64.b64decode(str(form.get("original", "")), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError("the form's copy of the page is damaged", "open the page again and redo the change") from exc


def packed(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _text(form: Any, name: str) -> str:
    """A form field as the page text it stands for: browsers send CRLF line ends."""
    return str(form.get(name, "")).replace("\r\n", "\n")


async def _shown(web: Web, text: str, path: str) -> str:
    """The preview of a form shown again, rendered off the event loop: the text may be big and hostile."""
    return await run_in_threadpool(_preview, web, text, path)


def _preview(web: Web, text: str, path: str) -> str:
    from ..search.links import pages

    rendered = render(text, path, web.remote_images, pages(web.notebook()))  # wikilinks resolve as on the page
    return web.templates.get_template("preview.html").render(rendered=rendered)


def _editor(web: Web, request: Request, path: str, text: str, original: str, code: int = 200,
            preview: str | None = None, **extra: Any) -> Response:
    shown = _preview(web, text, path) if preview is None else preview
    return web.page(request, "edit.html", code, nav="browse", path=path, text=text, original=packed(original),
                    preview=shown, title=f"Edit {path}", **extra)


def _saved(written: Any) -> Response:
    what = f"saved in {written.commit[:7]}" if written.commit else "nothing changed"
    return RedirectResponse(f"/page/{quote(written.path)}?flash={quote(what)}", status_code=303)


def diff(before: str, after: str) -> list[dict[str, str]]:
    """A unified diff as lines tagged add / del / ctx / hunk, for the conflict view."""
    return diff_lines("\n".join(difflib.unified_diff(before.split("\n"), after.split("\n"), "as you opened it",
                                                     "as it is now", lineterm="", n=2)))


def diff_lines(text: str) -> list[dict[str, str]]:
    """Unified-diff text as lines tagged add / del / ctx / hunk."""
    out = []
    for line in text.split("\n") if text else []:
        kind = "hunk" if line.startswith(("@@", "---", "+++", "diff ", "index ")) else \
            "add" if line.startswith("+") else "del" if line.startswith("-") else "ctx"
        out.append({"kind": kind, "text": line})
    return out


class LineMoved(GitmemError):
    """The line a Forget… button named no longer holds the fact it was shown beside."""


def _spots(nb: Notebook, target: str, every: bool, fact: Any = None,
           strict: bool = True) -> tuple[list[dict[str, Any]], str | None]:
    """What forgetting `target` would take off the pages, without taking it, and its fingerprint
    (what the confirmation carries). `fact`: the text a Forget… button was shown beside; the
    lines it names must still hold it (a line removed above them would make another fact go).
    Not `strict`: after a refusal, whatever can be shown of the lines as they are now."""
    from ..notes.spots import fingerprint, locate, spot_lines

    try:
        spots, _ = locate(nb, target, every)
    except GitmemError:
        if strict:
            raise
        return [], None
    out: list[dict[str, Any]] = [{"path": s.path, "start": s.start, "end": s.end, "text": " ".join(spot_lines(nb, s))}
                                 for s in spots]
    wanted = " ".join(str(fact or "").split())
    if strict and wanted and not all(wanted in " ".join(o["text"].split()) for o in out):
        raise LineMoved(f"{target} no longer holds the fact you chose (the page changed since you looked); "
                        "nothing was forgotten", "find the fact again on the Facts page")
    if not out:  # no page holds it: forget would purge it from the index's history alone
        out.append({"path": "(index history only)", "start": 0, "end": 0, "text": target})
    return out, fingerprint(nb, spots)
