"""The JSON API under /api/: the CLI's --json schemas over HTTP, and Nina's debug endpoints.

Every answer is `records.jsonable` of the same domain result the CLI prints
with --json; an error is {"error": ..., "hint": ...} with a 4xx status.
State changes need the `X-Gitmem` header (see security.py)."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .. import config, credentials, params
from ..errors import UsageError
from ..records import jsonable
from ..verbs import Daily, Forget, Get, Links, Log, Mv, Recall, Remember, Search, Status, Tags, Write
from . import files
from .views import app_of, run_search, search_form

R = TypeVar("R")


def answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    """Every JSON answer of the API, each secret value in it redacted (credentials.py), as the MCP
    tools' are: a page a pull or an editor wrote never passed the write guard, and an agent can
    call this API as well as a person (a newcomer read a hand-committed key through /api/get,
    /api/export and /api/debug/notebook, 2026-11-26). The HTML pages show a person the page as it is."""
    return JSONResponse(credentials.redact_all(jsonable(data))[0], status_code=status, headers=headers)


def known(names: Any, allowed: tuple[str, ...], where: str = "field") -> None:
    """UsageError (400) for a name the CLI and MCP have no parameter for: a client's typo
    (or a field from a newer gitmem) must not be silently ignored."""
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        raise UsageError(f"unknown {where} {unknown[0]!r}", f"the {where}s are: {', '.join(allowed)}")


# Each endpoint's request (verbs.py): its fields are the MCP tool's parameters and the CLI's options
# (tests/test_verbs.py compares all three), plus the few a browser needs and an agent is never
# offered (WEB_ONLY: the editor's conflict check, write's expected; a person's confirmation, forget's yes).
REQUESTS: dict[str, type] = {"recall": Recall, "search": Search, "remember": Remember, "daily": Daily,
                             "write": Write, "forget": Forget, "mv": Mv, "log": Log, "get": Get, "links": Links,
                             "tags": Tags, "status": Status}
FIELDS: dict[str, tuple[str, ...]] = {endpoint: params.names(cls, "web") for endpoint, cls in REQUESTS.items()}
WEB_ONLY = {endpoint: set(params.names(cls, "web")) - set(params.names(cls, "mcp"))
            for endpoint, cls in REQUESTS.items() if set(params.names(cls, "web")) - set(params.names(cls, "mcp"))}
# older names the API answered to before it took the MCP/CLI names: still read, never both at once
ALIASES = {"q": "query", "tag": "tags", "path": "page", "all": "every", "n": "limit"}


def canonical(data: dict[str, Any], endpoint: str, where: str = "field") -> dict[str, Any]:
    """`data` with old names read as the current ones; UsageError for an unknown name or a name given twice."""
    allowed = FIELDS[endpoint]
    out: dict[str, Any] = {}
    said: dict[str, str] = {}  # each name as it was sent
    for name, value in data.items():
        real = ALIASES.get(name, name) if ALIASES.get(name) in allowed and name not in allowed else name
        if real in out:  # "once as 'query'" named the one of the two that was right (a newcomer's team)
            raise UsageError(f"{real!r} given twice (as {said[real]!r} and as {name!r})", f"send only {real!r}")
        out[real], said[real] = value, name
    known(out, allowed, where)
    return out


async def body(request: Request, endpoint: str | None = None) -> dict[str, Any]:
    """The request's JSON object; UsageError if it is not one, or if it has a field `endpoint` does not take."""
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError) as exc:  # RecursionError: [[[[... nested too deep to parse
        raise UsageError("the request body is not JSON", "send a JSON object, e.g. {\"text\": \"...\"}") from exc
    if not isinstance(data, dict):
        raise UsageError("the request body must be a JSON object", "e.g. {\"text\": \"...\"}")
    try:  # a "\ud800" escape decodes to a lone surrogate, which no page, path or commit can hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError("the request body holds a lone surrogate (\\ud800-\\udfff), which is not text",
                         "send the text as UTF-8, or escape a character beyond U+FFFF as a surrogate pair") from exc
    return canonical(data, endpoint) if endpoint else data


def field(data: dict[str, Any], name: str, kind: type = str, default: Any = None) -> Any:
    value = data.get(name, default)
    if value is not None and not isinstance(value, kind):
        raise UsageError(f"{name!r} must be a {kind.__name__}", f"fix the field {name!r} of the JSON body")
    return value


def status_asked(request: Request) -> Status:
    """The status request from the query string. The web spells the CLI's --no-model as
    `model=0` (the model is tried unless model=0), so `model` is read as no_model, inverted;
    `no_model=1` is read too. Any other name is refused, as for every verb."""
    pairs = [("no_model", "1" if v == "0" else "0") if k == "model" else (k, v)
             for k, v in request.query_params.multi_items()]
    canonical({k: None for k, _ in pairs}, "status", "parameter")
    return params.from_mapping(Status, pairs, "web", strings=True)


async def status(request: Request) -> Response:
    web = app_of(request)
    from ..search import asked as reads

    return answer(await web.call(reads.status, status_asked(request)))


def query_of(request: Request, endpoint: str) -> QueryParams:
    """The query string with old names read as the current ones, checked like a JSON body."""
    pairs = [(k, v) for k, v in request.query_params.multi_items()]
    canonical({k: None for k, _ in pairs}, endpoint, "parameter")  # refuses an unknown name, or one given twice
    return QueryParams([(ALIASES.get(k, k) if ALIASES.get(k) in FIELDS[endpoint] else k, v) for k, v in pairs])


def asked(request: Request, endpoint: str, cls: type[R]) -> R:
    """The verb's request from the query string: the CLI's and MCP's, checked the same way."""
    return params.from_mapping(cls, query_of(request, endpoint).multi_items(), "web", strings=True)


async def recall(request: Request) -> Response:
    web = app_of(request)
    from ..search.asked import find

    return answer(await web.call(find, asked(request, "recall", Recall)))


async def search(request: Request) -> Response:
    web = app_of(request)
    from ..search.asked import find

    return answer(await web.call(find, asked(request, "search", Search)))


async def debug_search(request: Request) -> Response:
    web = app_of(request)
    form = search_form(request.query_params)
    sources = [s.strip() for s in request.query_params.get("sources", "notebook,daily").split(",") if s.strip()]
    unknown = [s for s in sources if s not in config.GROUPS]
    if unknown:
        raise UsageError(f"unknown source {unknown[0]!r}", f"sources are {', '.join(config.GROUPS)}")
    return answer(await web.call(run_search, {**form, "kind": "search", "groups": tuple(sources)}))


async def log(request: Request) -> Response:
    web = app_of(request)
    from ..search import asked as reads

    return answer(await web.call(reads.log, asked(request, "log", Log)))


async def get(request: Request) -> Response:
    web = app_of(request)
    from ..notes import asked as notes

    return answer(await web.call(notes.get, asked(request, "get", Get)))


async def links(request: Request) -> Response:
    """A page's outgoing links and backlinks, as `git mem links PAGE --json` gives them."""
    web = app_of(request)
    from ..search import asked as reads

    return answer(await web.call(reads.links, asked(request, "links", Links)))


async def tags(request: Request) -> Response:
    """The notebook's tags (`git mem tags --json`); ?tag=NAME for one tag's pages and lines."""
    web = app_of(request)
    from ..search import asked as reads

    return answer(await web.call(reads.tags, asked(request, "tags", Tags)))


async def listing(request: Request) -> Response:
    web = app_of(request)
    return answer(await web.call(files.listing))


async def export(request: Request) -> Response:
    web = app_of(request)
    data = await web.call(files.export)
    return answer(data, headers={"content-disposition": 'attachment; filename="notebook.json"'})


async def sessions(request: Request) -> Response:
    web = app_of(request)
    return answer({"sessions": [jsonable(s) for s in await web.call(files.sessions)]})


async def session_rm(request: Request) -> Response:
    web = app_of(request)
    from ..agent import session

    return answer(await web.call(session.remove, request.path_params["chat"]))


async def remember(request: Request) -> Response:
    web = app_of(request)
    from ..notes import asked

    return answer(await web.call(asked.remember, params.from_mapping(Remember, await body(request, "remember"), "web")))


async def daily(request: Request) -> Response:
    web = app_of(request)
    from ..notes import asked

    return answer(await web.call(asked.daily, params.from_mapping(Daily, await body(request, "daily"), "web")))


async def write(request: Request) -> Response:
    web = app_of(request)
    from ..notes import asked

    return answer(await web.call(asked.write, params.from_mapping(Write, await body(request, "write"), "web")))


async def mv(request: Request) -> Response:
    """Rename a page (and the links to it): `git mem mv OLD NEW --json`."""
    web = app_of(request)
    from ..notes import asked

    return answer(await web.call(asked.mv, params.from_mapping(Mv, await body(request, "mv"), "web")))


async def forget(request: Request) -> Response:
    web = app_of(request)
    from ..notes import asked

    return answer(await web.call(asked.forget, params.from_mapping(Forget, await body(request, "forget"), "web")))


async def everything(request: Request) -> Response:
    """GET: what forgetting everything would take. POST {"confirm": "forget everything"}: do it."""
    web = app_of(request)
    from ..notes import forget as forgetting

    if request.method == "GET":
        return answer(await web.call(forgetting.survey))
    d = await body(request)
    known(d, ("confirm",))
    return answer(await web.call(forgetting.everything, field(d, "confirm", default="")))


async def documents(request: Request) -> Response:
    web = app_of(request)
    from ..index import maintenance

    return answer(await web.call(maintenance.documents))


async def rebuild(request: Request) -> Response:
    web = app_of(request)
    if request.method == "POST":
        return answer(web.rebuild.start(), 202)
    return answer(web.rebuild.state())


async def debug_status(request: Request) -> Response:
    web = app_of(request)
    from ..search import asked as reads

    data = await web.call(reads.status, status_asked(request))
    return answer({**data, "rebuild": web.rebuild.state()})


async def compaction(request: Request) -> Response:
    web = app_of(request)
    from ..agent import context

    return answer(await web.call(context.run, request.query_params.get("date"), True))


async def notebook_page(request: Request) -> Response:
    web = app_of(request)
    from ..notes import memory, reading, removal

    path = request.path_params["path"]
    if request.method in ("GET", "HEAD"):  # HEAD too: it skips the CSRF check, so it must never write
        return answer(await web.call(reading.get, path, request.query_params.get("at") or None))
    if request.method == "DELETE":
        return answer(await web.call(removal.remove, path, expected=request.query_params.get("expected")))
    d = await body(request)
    known(d, ("content", "section", "expected"))
    replace = request.method == "PUT"
    written = await web.call(memory.write, path, field(d, "content", default=""), field(d, "section"),
                             replace, expected=field(d, "expected"))
    return answer(written, 201 if written.action != "unchanged" else 200)


ROUTES = [Route("/api/status", status), Route("/api/recall", recall), Route("/api/search", search),
          Route("/api/log", log), Route("/api/get", get), Route("/api/links", links), Route("/api/tags", tags),
          Route("/api/files", listing), Route("/api/export", export),
          Route("/api/documents", documents),
          Route("/api/sessions", sessions), Route("/api/sessions/{chat}", session_rm, methods=["DELETE"]),
          Route("/api/remember", remember, methods=["POST"]), Route("/api/daily", daily, methods=["POST"]),
          Route("/api/write", write, methods=["POST"]), Route("/api/forget", forget, methods=["POST"]),
          Route("/api/mv", mv, methods=["POST"]),
          Route("/api/forget/everything", everything, methods=["GET", "POST"]),
          Route("/api/debug/memory/status", debug_status),
          Route("/api/debug/memory/search", debug_search),
          Route("/api/debug/memory/files", listing),
          Route("/api/debug/memory/rebuild", rebuild, methods=["GET", "POST"]),
          Route("/api/debug/memory/simulate-compaction", compaction, methods=["POST"]),
          Route("/api/debug/notebook/{path:path}", notebook_page, methods=["GET", "PUT", "POST", "DELETE"])]
