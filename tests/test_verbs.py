"""Every verb with more than one face: the CLI's options, the MCP tool's schema and the web API's
fields all come from its request class (gitmem/verbs.py), and the three faces build the same
request for the same question and hand it to the same domain function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
import pytest

from gitmem import params, verbs
from gitmem.agent import asked as asked_agent
from gitmem.agent import server
from gitmem.cli.main import cli
from gitmem.errors import UsageError
from gitmem.gitops.repo import open_notebook
from gitmem.notes import asked as asked_notes
from gitmem.search import asked
from gitmem.web.api import FIELDS
from tests.conftest import Mem

# request class: (its CLI command, MCP tool or None, web API endpoint or None)
FACES: dict[type, tuple[tuple[str, ...], str | None, str | None]] = {
    verbs.Recall: (("recall",), "recall", "recall"),
    verbs.Search: (("search",), "search", "search"),
    verbs.Remember: (("remember",), "remember", "remember"),
    verbs.Daily: (("daily",), "daily", "daily"),
    verbs.Write: (("write",), "write", "write"),
    verbs.Forget: (("forget",), "forget", "forget"),
    verbs.Get: (("get",), "get", "get"),
    verbs.Mv: (("mv",), "mv", "mv"),
    verbs.Log: (("log",), "log", "log"),
    verbs.Why: (("why",), "why", None),
    verbs.Context: (("context",), "context", None),
    verbs.Links: (("links",), None, "links"),
    verbs.Tags: (("tags",), None, "tags"),
    verbs.GoalAdd: (("goal", "add"), "goal_add", None),
    verbs.GoalUpdate: (("goal", "update"), "goal_update", None),
    verbs.Goals: (("goal", "list"), "goals", None),
    verbs.Watch: (("watch",), "watch", None),
    verbs.Unwatch: (("unwatch",), "unwatch", None),
    verbs.Plan: (("plan",), "plan", None),
    verbs.PlanUpdate: (("plan", "update"), "plan_update", None),
    verbs.SessionChanges: (("session", "changes"), "session_changes", None),
    verbs.Status: (("status",), None, "status"),
}
CLI_EXTRA = {"as_json", "everything"}  # --json: how the CLI prints; forget --everything: a verb of its own


def command_of(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize("cls", list(FACES), ids=lambda c: c.__name__)
def test_the_cli_options_are_the_requests_fields(cls: type) -> None:
    command = command_of(FACES[cls][0])
    fields = params.fields(cls, "cli")
    assert {p.name for p in command.params} - CLI_EXTRA == {f.attr for f in fields}, "an option not in the request"
    by_name = {p.name: p for p in command.params}
    # what it gets unasked, read in a context under `git mem`'s own (click caches a command's help
    # option from the first context that asks: one without -h would change the man page)
    top = click.Context(cli, info_name="git mem", **cli.context_settings)
    given = command.make_context(command.name or "", [], parent=top, resilient_parsing=True).params
    for f in fields:
        p = by_name[f.attr]
        if not f.param.flags:
            assert isinstance(p, click.Argument) and (p.nargs == -1) == f.param.words, f.attr
            continue
        assert isinstance(p, click.Option) and p.opts + p.secondary_opts == list(f.param.flags), f.attr
        assert p.is_flag == (f.kind == "boolean") and p.multiple == (f.kind == "array"), f.attr
        assert (given[f.attr] or None) == (f.default or None), f.attr
        choices = tuple(p.type.choices) if isinstance(p.type, click.Choice) else ()
        assert choices == f.param.choices, f.attr
        assert p.help == f.param.help, f.attr


@pytest.mark.parametrize("cls", list(FACES), ids=lambda c: c.__name__)
def test_the_mcp_schema_and_web_fields_are_the_requests_fields(cls: type) -> None:
    _, tool_name, endpoint = FACES[cls]
    tools = {t.name: t for t in server.TOOLS}
    tool = tools[tool_name] if tool_name else server.Tool("", "", {}, (), lambda nb, a: None)
    if tool_name:
        assert tool.schema() == params.schema(cls) and tool.schema()["additionalProperties"] is False
    web = FIELDS[endpoint] if endpoint else ()
    assert web == params.names(cls, "web")
    # the three faces name the same parameters, spelled alike, of one kind, with one default
    cli_names = {f.name for f in params.fields(cls, "cli")}
    for f in params.fields(cls):
        offered = {"cli": f.name in cli_names, "mcp": f.name in tool.params, "web": f.name in web}
        faces = getattr(cls, "faces", params.FACES)
        assert offered == {face: face in f.param.faces and face in faces for face in params.FACES}, f.name
        if f.name in tool.params:
            assert tool.params[f.name]["type"] == f.kind, f.name
            assert tool.params[f.name].get("default", f.default) == f.default, f.name


# one question asked of each face: CLI arguments, MCP arguments, web API request (a GET's URL, a
# POST's path and JSON body, or None where the web has no such endpoint)
CALLS: list[tuple[type, list[str], dict[str, Any] | None, str | tuple[str, dict[str, Any]] | None]] = [
    (verbs.Recall, ["recall", "Sarah", "phone"], {"query": "Sarah phone"}, "/api/recall?query=Sarah+phone"),
    (verbs.Recall, ["recall", "--mode", "keyword", "--tag", "a", "--tag", "b", "--from", "2026-01-01", "-n", "5",
                    "--min-score", "0", "--history", "--type", "plan", "--by", "commit", "--full", "Sarah"],
     {"query": "Sarah", "mode": "keyword", "tags": ["a", "b"], "from": "2026-01-01", "limit": 5, "min_score": 0,
      "history": True, "type": "plan", "by": "commit", "full": True},
     "/api/recall?query=Sarah&mode=keyword&tags=a&tags=b&from=2026-01-01&limit=5&min_score=0&history=1&type=plan"
     "&by=commit&full=true"),
    (verbs.Search, ["search", "--in", "sessions", "--in", "daily", "--date", "2026-02-20", "API"],
     {"query": "API", "in": ["sessions", "daily"], "date": "2026-02-20"},
     "/api/search?query=API&in=sessions&in=daily&date=2026-02-20"),
    (verbs.Search, ["search", "deadline"], {"query": "deadline"}, "/api/search?q=deadline"),
    (verbs.Remember, ["remember", "Sarah's", "phone", "is", "555-1234"], {"text": "Sarah's phone is 555-1234"},
     ("/api/remember", {"text": "Sarah's phone is 555-1234"})),
    (verbs.Remember, ["remember", "--to", "projects/apollo.md", "--section", "Decisions", "--category", "decision",
                      "--force", "--keep-both", "--scope", "project", "Ship on Friday"],
     {"text": "Ship on Friday", "to": "projects/apollo.md", "section": "Decisions", "category": "decision",
      "force": True, "keep_both": True, "scope": "project"},
     ("/api/remember", {"text": "Ship on Friday", "to": "projects/apollo.md", "section": "Decisions",
                        "category": "decision", "force": True, "keep_both": True, "scope": "project"})),
    (verbs.Daily, ["daily", "Booked", "the", "train"], {"text": "Booked the train"},
     ("/api/daily", {"text": "Booked the train"})),
    (verbs.Write, ["write", "projects/apollo.md", "--section", "Status", "--replace", "On", "track"],
     {"page": "projects/apollo.md", "content": "On track", "section": "Status", "replace": True},
     ("/api/write", {"path": "projects/apollo.md", "content": "On track", "section": "Status", "replace": True})),
    (verbs.Forget, ["forget", "--all", "Project", "Nightingale"], {"target": "Project Nightingale", "every": True},
     ("/api/forget", {"target": "Project Nightingale", "all": True})),
    (verbs.Get, ["get", "reference/contacts.md:3-6", "--at", "HEAD~1"], {"path": "reference/contacts.md:3-6",
                                                                         "at": "HEAD~1"},
     "/api/get?path=reference/contacts.md:3-6&at=HEAD~1"),
    (verbs.Log, ["log", "--since", "7d", "--path", "reference/plan.md", "--grep", "Sarah", "-n", "5"],
     {"since": "7d", "path": "reference/plan.md", "grep": "Sarah", "limit": 5},
     "/api/log?since=7d&path=reference/plan.md&grep=Sarah&n=5"),
    (verbs.Log, ["log"], {}, "/api/log"),
    (verbs.Mv, ["mv", "projects/apollo.md", "projects/apollo-2026.md", "--no-links"],
     {"old": "projects/apollo.md", "new": "projects/apollo-2026.md", "no_links": True},
     ("/api/mv", {"old": "projects/apollo.md", "new": "projects/apollo-2026.md", "no_links": True})),
    (verbs.Why, ["why", "reference/contacts.md:3"], {"path": "reference/contacts.md:3"}, None),
    (verbs.Context, ["context", "--date", "2026-02-20", "--flush"], {"date": "2026-02-20", "flush": True}, None),
    (verbs.Context, ["context", "--query", "beta launch", "--budget", "2000", "--bytes-per-token", "1"],
     {"query": "beta launch", "budget": 2000, "bytes_per_token": 1}, None),
    (verbs.Links, ["links", "projects/apollo.md"], None, "/api/links?path=projects/apollo.md"),
    (verbs.Tags, ["tags"], None, "/api/tags"),
    (verbs.Tags, ["tags", "apollo"], None, "/api/tags?tag=apollo"),
    (verbs.GoalAdd, ["goal", "add", "Learn Spanish", "--description", "B1", "--fact", "a.md:3"],
     {"title": "Learn Spanish", "description": "B1", "facts": ["a.md:3"]}, None),
    (verbs.GoalUpdate, ["goal", "update", "learn-spanish", "--progress", "40", "--status", "active", "--note", "u4"],
     {"id": "learn-spanish", "progress": 40, "status": "active", "note": "u4"}, None),
    (verbs.Goals, ["goal", "list", "--all"], {"every": True}, None),
    (verbs.Watch, ["watch", "Sarah", "--priority", "high", "--reason", "her details change"],
     {"name": "Sarah", "priority": "high", "reason": "her details change"}, None),
    (verbs.Watch, ["watch", "Sarah"], {"name": "Sarah"}, None),
    (verbs.Watch, ["watch", "list"], None, None),  # the list; MCP's is the watch_list tool (below)
    (verbs.Unwatch, ["unwatch", "Sarah"], {"name": "Sarah"}, None),
    (verbs.Plan, ["plan"], {}, None),
    (verbs.Plan, ["plan", "--history"], {"history": True}, None),
    (verbs.PlanUpdate, ["plan", "update", "Ship it", "--reason", "beta"], {"text": "Ship it", "reason": "beta"},
     None),
    (verbs.SessionChanges, ["session", "changes", "chat-42"], {"id": "chat-42"}, None),
    (verbs.Status, ["status"], None, "/api/status"),
    (verbs.Status, ["status", "--no-model"], None, "/api/status?model=0"),
    (verbs.Status, ["status", "--no-model"], None, "/api/status?no_model=1"),
]
DOMAIN = {verbs.Recall: (asked, "find"), verbs.Search: (asked, "find"), verbs.Remember: (asked_notes, "remember"),
          verbs.Daily: (asked_notes, "daily"), verbs.Write: (asked_notes, "write"),
          verbs.Forget: (asked_notes, "forget"), verbs.Get: (asked_notes, "get"), verbs.Mv: (asked_notes, "mv"),
          verbs.Log: (asked, "log"),
          verbs.Why: (asked, "why"), verbs.Context: (asked_agent, "assemble"), verbs.Links: (asked, "links"),
          verbs.Tags: (asked, "tags"), verbs.GoalAdd: (asked_notes, "goal_add"),
          verbs.GoalUpdate: (asked_notes, "goal_update"), verbs.Goals: (asked_notes, "goal_list"),
          verbs.Watch: (asked_notes, "watch"), verbs.Unwatch: (asked_notes, "unwatch"),
          verbs.Plan: (asked_notes, "plan_show"),
          verbs.PlanUpdate: (asked_notes, "plan_update"), verbs.SessionChanges: (asked_agent, "changes"),
          verbs.Status: (asked, "status")}


def stop(seen: list[Any]) -> Callable[..., Any]:
    """A domain function that records the request it is handed and stops there (a usage error)."""
    def domain(nb: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(request)
        raise UsageError("stop here", "the test has what it needs")
    return domain


@pytest.mark.parametrize("cls, argv, arguments, url", CALLS)
def test_the_three_faces_hand_the_domain_the_same_request(mem: Mem, monkeypatch: pytest.MonkeyPatch, cls: type,
                                                          argv: list[str], arguments: dict[str, Any] | None,
                                                          url: str | tuple[str, dict[str, Any]] | None) -> None:
    from starlette.testclient import TestClient

    from gitmem.web.app import create_app

    seen: list[Any] = []
    module, name = DOMAIN[cls]
    monkeypatch.setattr(module, name, stop(seen))
    assert "stop here" in mem(*argv, code=2).stderr  # a usage error
    tool = FACES[cls][1]
    if tool is not None and arguments is not None:  # None: a question only the CLI asks so (watch list)
        ok, text = server.Handler(open_notebook(mem.path)).call(tool, arguments)
        assert not ok and "stop here" in text
    if url is not None:
        web = TestClient(create_app(mem.path, {"testserver"}), raise_server_exceptions=False)
        headers = {"X-Gitmem": "1"}
        answer = web.get(url, headers=headers) if isinstance(url, str) else web.post(url[0], json=url[1],
                                                                                     headers=headers)
        assert answer.status_code == 400 and answer.json()["error"] == "stop here"
    assert len(seen) == 1 + (arguments is not None) + (url is not None)
    assert all(r == seen[0] for r in seen) and type(seen[0]) is cls


@pytest.mark.parametrize("data, error", [
    ({"query": "x", "limit": "5"}, "'limit' must be a whole number from 1 to 1000, not '5'"),
    ({"query": "x", "limit": 0}, "'limit' must be a whole number from 1 to 1000, not 0"),
    ({"query": "x", "limit": True}, "'limit' must be a whole number from 1 to 1000, not True"),
    ({"query": "x", "min_score": float("nan")}, "'min_score' must be a number from 0 to 1, not nan"),
    ({"query": "x", "mode": "fuzzy"}, "'mode' must be one of hybrid, keyword, semantic, not 'fuzzy'"),
    ({"query": "x", "in": ["mail"]}, "'in' must be one of notebook, daily, documents, sessions, not 'mail'"),
    ({"query": "x", "tags": [1]}, "'tags' must be a list of text, not [1]"),
    ({"query": "x", "kind": "plan"}, "unknown field 'kind'"),
    ({"mode": "keyword"}, "missing field 'query'"),
])
def test_from_mapping_says_what_is_wrong_in_one_line(data: dict[str, Any], error: str) -> None:
    with pytest.raises(UsageError) as caught:
        params.from_mapping(verbs.Search, data)
    assert caught.value.message == error


def test_from_mapping_reads_a_query_string() -> None:
    pairs = [("query", "x"), ("tags", "a,b"), ("tags", "c"), ("limit", "7"), ("history", "0"), ("full", "on"),
             ("at", "")]
    assert params.from_mapping(verbs.Recall, pairs, "web", strings=True) == \
        verbs.Recall(query="x", tags=("a", "b", "c"), limit=7, history=False, full=True)
    with pytest.raises(UsageError, match="'limit' must be a whole number"):
        params.from_mapping(verbs.Recall, [("query", "x"), ("limit", "lots")], "web", strings=True)


def test_watch_list_is_watch_without_a_name(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """MCP's watch_list tool and the CLI's `git mem watch` alone ask the one domain call the same."""
    seen: list[Any] = []
    monkeypatch.setattr(asked_notes, "watch", stop(seen))
    assert server.Handler(open_notebook(mem.path)).call("watch_list", {})[0] is False
    mem("watch", code=2)
    assert seen == [verbs.Watch(), verbs.Watch()]


def test_the_webs_model_0_is_no_model(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """The web's model=0 is the CLI's --no-model; any other value tries the model; a typo is refused."""
    from starlette.testclient import TestClient

    from gitmem.web.app import create_app

    seen: list[Any] = []
    monkeypatch.setattr(asked, "status", stop(seen))
    web = TestClient(create_app(mem.path, {"testserver"}), raise_server_exceptions=False)
    assert web.get("/api/status?model=1").status_code == 400
    assert web.get("/api/debug/memory/status?model=0").status_code == 400
    assert seen == [verbs.Status(no_model=False), verbs.Status(no_model=True)]
    refused = web.get("/api/status?modle=0")
    assert refused.status_code == 400 and refused.json()["error"] == "unknown parameter 'modle'"
    assert len(seen) == 2
