"""The settings page: what a person manages about their memory (the notebook's settings,
the embedding model, the index, the git hooks), each change made the way the CLI makes it.

Notebook settings travel with the notebook in .gitmem.toml, so they are shown, not edited
here (edit the file and commit it, as with any page). The model folder and the hooks
belong to this clone and are set here as `git mem init --model-dir` and `git mem hooks
install/uninstall` set them; the rebuild is the status page's.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import GitmemError
from ..notebook import Notebook
from .views import app_of


def settings(nb: Notebook) -> dict[str, Any]:
    """What the page shows: notebook settings, the model and where it is set, the hooks."""
    from .. import config
    from ..gitops import hooks
    from ..index.embed import resolve

    model = resolve(nb.git)
    return {"notebook": asdict(nb.settings), "file": config.CONFIG_FILE, "model": {
        "name": model.name, "path": str(model.path) if model.path else None, "source": model.source,
        "configured": nb.git.config_get(config.MODEL_DIR_KEY)}, "hooks": hooks.status(nb)}


def set_model(nb: Notebook, folder: str) -> str:
    from ..notes.scaffold import remember_model

    return remember_model(nb.git, Path(folder.strip()))


def set_hooks(nb: Notebook, on: bool) -> str:
    from ..gitops import hooks

    change = hooks.install(nb) if on else hooks.uninstall(nb)
    return f"hooks {'installed' if on else 'removed'} in {change.dir}"


async def page(request: Request, code: int = 200, **extra: Any) -> Response:
    web = app_of(request)
    return web.page(request, "settings.html", code, nav="settings", title="Settings", data=await web.call(settings),
                    **extra)


async def model(request: Request) -> Response:
    web = app_of(request)
    form = await request.form()
    try:
        done = await web.call(set_model, str(form.get("model_dir", "")))
    except GitmemError as exc:
        return await page(request, web.status_of(exc), error=exc.line())
    return await page(request, done=done)


async def hooks_change(request: Request) -> Response:
    web = app_of(request)
    form = await request.form()
    try:
        done = await web.call(set_hooks, form.get("action") == "install")
    except GitmemError as exc:
        return await page(request, web.status_of(exc), error=exc.line())
    return await page(request, done=done)


async def show(request: Request) -> Response:
    return await page(request)


ROUTES = [Route("/settings", show), Route("/settings/model", model, methods=["POST"]),
          Route("/settings/hooks", hooks_change, methods=["POST"])]
