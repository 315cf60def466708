"""`git mem why PATH:LINE`: blame, line history and gitmem's commit trailers (gitmem/search/why.py)."""

from __future__ import annotations

import pytest

from gitmem.agent import server
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem


def test_why_names_last_change_introduction_and_what_wrote_it(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_AGENT", "claude-code")
    mem("remember", "Sarah Chen phone number: 555-1234")
    first = mem.git("rev-parse", "HEAD").strip()
    monkeypatch.delenv("GITMEM_AGENT")
    mem("remember", "Bob lives in Paris")
    page = mem.path / "reference/contacts.md"
    page.write_text(page.read_text().replace("555-1234", "555-9999"))
    fixed = mem.commit("fix Sarah's phone")
    data = mem.json("why", "reference/contacts.md:3")
    assert data["fact"] == {"text": "- Sarah Chen phone number: 555-9999", "lines": {"start": 3, "end": 3},
                            "headings": ["Contacts"], "context": ""}
    assert data["last_changed"]["commit"] == fixed and data["last_changed"]["wrote"] == {}
    assert data["introduced"]["commit"] == first
    assert data["introduced"]["wrote"] == {"verb": "remember", "agent": "claude-code"}
    assert [c["commit"] for c in data["changes"]] == [fixed, first]
    blame = mem.git("blame", "--porcelain", "-L", "3,3", "--", "reference/contacts.md").split()[0]
    assert blame == fixed
    text = mem("why", "reference/contacts.md:3").stdout.splitlines()
    assert text[:3] == ["reference/contacts.md:3", "    Contacts", "      - Sarah Chen phone number: 555-9999"]
    assert text[3].startswith(f"last changed by  {fixed[:7]} ") and text[3].endswith('"fix Sarah\'s phone"')
    assert text[4].startswith(f"introduced by    {first[:7]} ")
    assert text[4].endswith("(git mem remember, agent claude-code)")
    message = mem.git("log", "-1", "--format=%B", first)
    assert message == ("mem: remember Sarah Chen phone number: 555-1234\n\n"
                       "Gitmem-Verb: remember\nGitmem-Agent: claude-code\n\n")


def test_why_of_an_uncommitted_line(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- New thing\n")
    data = mem.json("why", "knowledge/facts.md:3")
    assert data["last_changed"] is None and data["notes"][0].startswith("not committed yet")


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("spec, code, start", [
    ("reference/contacts.md", 2, "error: cannot read 'reference/contacts.md' as PATH:LINE"),
    ("reference/contacts.md:2", 1, "error: line 2 of reference/contacts.md holds no fact"),
    ("reference/contacts.md:40", 1, "error: line 40 is outside reference/contacts.md, which has 3 lines"),
    ("nowhere.md:1", 1, "error: "),
])
def test_why_bad_input(mem: Mem, spec: str, code: int, start: str) -> None:
    mem("remember", "Sarah Chen phone number: 555-1234")
    assert mem("why", spec, code=code).stderr.startswith(start)


def test_mcp_why_and_client_trailer(mem: Mem) -> None:
    h = server.Handler(open_notebook(mem.path))
    h.client = "test-client 1.2"
    ok, written = h.call("remember", {"text": "Prefers tea over coffee"})
    assert ok, written
    ok, data = h.call("why", {"path": f"{written['path']}:{written['lines']['start']}"})
    assert ok, data
    wrote = data["last_changed"]["wrote"]
    assert (wrote["verb"], wrote["client"]) == ("remember", "test-client 1.2")
    assert wrote["session"].startswith("mcp-")  # the MCP server's own session (agent/tracker.py)
    ok, found = h.call("recall", {"query": "tea or coffee", "mode": "keyword", "full": True})
    assert ok and found["results"][0]["fact"]["text"] == "- Prefers tea over coffee"
    assert found["results"][0]["fact"]["wrote"]["client"] == "test-client 1.2"


def test_client_name_from_the_initialize_request() -> None:
    from types import SimpleNamespace

    ctx = SimpleNamespace(session=SimpleNamespace(client_params=SimpleNamespace(
        client_info=SimpleNamespace(name="claude-code", version="2.1.0"))))
    assert server.client_name(ctx) == "claude-code 2.1.0"
    assert server.client_name(SimpleNamespace(session=SimpleNamespace(client_params=None))) is None


def test_trailer_values_are_one_clean_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from gitmem.notes import trailers

    monkeypatch.setenv("GITMEM_AGENT", "evil\nGitmem-Verb: forget\x1b[31m")
    monkeypatch.delenv("GITMEM_SESSION", raising=False)
    with trailers.client("x" * 200):
        found = dict(trailers.for_verb("remember"))
    assert found == {"Gitmem-Verb": "remember", "Gitmem-Agent": "evil Gitmem-Verb: forget [31m",
                     "Gitmem-Client": "x" * trailers.MAX_VALUE}
