"""The Starlette application behind `git mem serve`: routes, templates, errors.

Each request opens the notebook afresh (GitPython's long-lived git processes
are not safe to share between the threads that serve requests) and runs the
same domain functions as the CLI, in a worker thread."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from ..errors import (
    BadRange,
    EmptyText,
    GitmemError,
    PageNotFound,
    PathOutside,
    UsageError,
    from_machine,
    log_bug,
    new_bug_id,
)
from ..markdown import unlearned, untrailered
from ..notebook import Notebook
from .jobs import Rebuild
from .render import inline
from .security import Guard, new_secret

T = TypeVar("T")
FLASH = re.compile(r"^(saved in [0-9a-f]{7}|nothing changed|(deleted|renamed from) [\w./ -]{1,200}"
                   r"|dropped \d+ proposals?)$")
STATIC = Path(__file__).with_name("static")
STATUS_OF: list[tuple[type[GitmemError], int]] = [(PageNotFound, 404), (PathOutside, 400), (UsageError, 400),
                                                  (EmptyText, 400), (BadRange, 400)]


@dataclass
class Web:
    """What every route needs: where the notebook is, the CSRF secret, the templates."""

    root: Path
    csrf: str
    templates: Environment
    rebuild: Rebuild
    remote_images: bool = False

    def notebook(self) -> Notebook:
        from ..gitops.repo import open_notebook

        return open_notebook(self.root)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """fn(notebook, *args) in a worker thread, on a notebook opened for this call."""
        def work() -> T:
            return fn(self.notebook(), *args, **kwargs)

        return await run_in_threadpool(work)

    def status_of(self, exc: GitmemError) -> int:
        """The HTTP status of an expected error (for routes that show it in their own page)."""
        return status_of(exc)

    def page(self, request: Request, name: str, code: int = 200, **data: Any) -> HTMLResponse:
        flash = request.query_params.get("flash", "")
        data.setdefault("flash", flash if FLASH.match(flash) else None)  # never arbitrary text from a link
        html = self.templates.get_template(name).render(csrf=self.csrf, notebook=str(self.root),
                                                        request=request, **data)
        return HTMLResponse(html, status_code=code)


def status_of(exc: GitmemError) -> int:
    from ..notes.change import PageChanged

    if isinstance(exc, PageChanged):
        return 409
    return next((code for kind, code in STATUS_OF if isinstance(exc, kind)), 422)


def record_bug(root: Path, what: str, bug_id: str, exc: BaseException) -> Path:
    """Write the traceback of `exc` to the notebook's error.log, where the CLI logs its bugs."""
    from ..gitops.repo import error_log

    return log_bug(error_log(root), f"git mem serve: {what}", bug_id, exc)


def filesize(size: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if size < 1024 or unit == "MiB":
            return f"{size} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def templates() -> Environment:
    from .facts import level

    env = Environment(loader=PackageLoader("gitmem.web", "templates"), autoescape=select_autoescape(default=True),
                      trim_blocks=False)
    env.filters["filesize"] = filesize
    env.filters["unlearned"] = lambda text: unlearned(str(text))
    env.filters["level"] = level
    env.filters["untrailered"] = untrailered
    env.filters["inline"] = lambda text, rel="", pages=None: Markup(inline(unlearned(str(text)), rel, pages))
    env.filters["pageurl"] = lambda params, number: urlencode([*((k, v) for k, v in params.multi_items()
                                                                 if k != "page"), ("page", str(number))])
    return env


def create_app(root: Path, hosts: set[str], token: str | None = None, remote_images: bool = False) -> Any:
    """The app for the notebook at `root`, answering only to `hosts`, wrapped in the security guard."""
    from . import api, edits, facts, settings, views

    web = Web(root, new_secret(), templates(), Rebuild(root), remote_images)
    routes = [*views.ROUTES, *edits.ROUTES, *facts.ROUTES, *settings.ROUTES, *api.ROUTES,
              Mount("/static", app=StaticFiles(directory=STATIC), name="static")]

    async def failed(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, GitmemError)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.message, "hint": exc.hint}, status_code=status_of(exc))
        return web.page(request, "error.html", status_of(exc), message=exc.message, hint=exc.hint)

    async def missing(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": getattr(exc, "detail", "not found")}, status_code=code)
        return web.page(request, "error.html", code, heading="Not here", message=getattr(exc, "detail", ""))

    async def bug(request: Request, exc: Exception) -> Response:
        """A machine failure is one line as in the CLI; a bug is logged to error.log under a short id."""
        machine = from_machine(exc)
        if machine is not None:  # the machine failed (disk full, read-only): 503, said as the CLI says it
            if request.url.path.startswith("/api/"):
                return JSONResponse({"error": machine.message, "hint": machine.hint}, status_code=503)
            return web.page(request, "error.html", 503, message=machine.message, hint=machine.hint)
        bug_id = new_bug_id()
        log = await run_in_threadpool(record_bug, web.root, f"{request.method} {request.url.path}", bug_id, exc)
        message = f"internal error in gitmem (id {bug_id}); details in {log}, please report it"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message, "id": bug_id}, status_code=500)
        return web.page(request, "error.html", 500, heading="Something went wrong", message=message)

    app = Starlette(routes=routes, exception_handlers={GitmemError: failed, 404: missing, 405: missing,
                                                      Exception: bug})
    app.state.web = web
    return Guard(AsPerson(app), hosts, web.csrf, token, remote_images)


class AsPerson:
    """Every request is a person's (the browser's), whatever the environment the server was started in:
    started from Claude Code's Bash tool it has CLAUDECODE=1, and USER.md edited in the browser would
    have been refused as an agent's write (notes/change.not_the_agents)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state  # the app's, as the Starlette app inside the guard has it

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from ..notes import trailers

        with trailers.by_agent(False):
            await self.app(scope, receive, send)
