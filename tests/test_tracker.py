"""The session tracker: what a session wrote, from the Gitmem-Session trailers of its commits."""

from __future__ import annotations

import os

from gitmem.agent import server, tracker
from gitmem.gitops.repo import open_notebook
from gitmem.notes import trailers
from tests.conftest import Mem


def test_session_changes_lists_created_updated_removed(mem: Mem, monkeypatch) -> None:
    mem("remember", "Bob likes tea")  # no session: not counted
    monkeypatch.setenv("GITMEM_SESSION", "chat-42")
    mem("remember", "Sarah's phone is 555-1234", "--category", "contact")
    mem("remember", "Sarah's phone is 555-9999", "--category", "contact")  # replaces: an update
    mem("daily", "Called Sarah")
    mem("forget", "Bob likes tea")
    monkeypatch.setenv("GITMEM_SESSION", "other")
    mem("remember", "Ann likes coffee")
    monkeypatch.delenv("GITMEM_SESSION")
    mem.write("knowledge/quoted.md", "# Quoted\n\nGitmem-Session: chat-42\n")
    mem.commit("a person quotes the trailer in a page, not in a commit's trailers")

    data = mem.json("session", "changes", "chat-42")
    assert data["summary"] == "this session: 2 remembered, 1 updated, 1 forgotten"
    assert [(c["verb"], c["paths"]) for c in data["created"]] == [
        ("remember", ["reference/contacts.md"]), ("daily", [data["created"][1]["paths"][0]])]
    assert data["created"][1]["paths"][0].startswith("daily/")
    assert [c["subject"] for c in data["updated"]] == [
        "mem: remember Sarah's phone is 555-9999 (replaces: - Sarah's phone is 555-1234)"]
    assert [c["verb"] for c in data["removed"]] == ["forget"]
    text = mem("session", "changes", "chat-42").stdout.splitlines()
    assert text[0] == "this session: 2 remembered, 1 updated, 1 forgotten"
    assert text[1].startswith("created  ") and text[1].endswith("  mem: remember Sarah's phone is 555-1234  "
                                                                 "(reference/contacts.md)")
    assert mem.json("session", "changes", "nobody")["summary"] == "this session: nothing written yet"
    monkeypatch.setenv("GITMEM_SESSION", "other")
    assert mem.json("session", "changes")["summary"] == "this session: 1 remembered"  # ID from the environment


def test_a_commit_mentioning_the_trailer_in_its_body_is_not_the_sessions(mem: Mem) -> None:
    mem.write("x.md", "# X\n")
    mem.git("add", "x.md")
    mem.git("commit", "-q", "-m", "x\n\nGitmem-Session: s1 was mentioned here\n\nSigned-off-by: A <a@b>")
    assert tracker.changes(open_notebook(mem.path), "s1").summary == "this session: nothing written yet"


def test_action_of() -> None:
    assert tracker.action_of("memory", "", (("a.md", "added"), ("b.md", "deleted"))) == "updated"  # a rename
    assert tracker.action_of("memory", "", (("a.md", "deleted"),)) == "removed"
    assert tracker.action_of("write", "", (("a.md", "added"),)) == "created"
    assert tracker.action_of("write", "", (("a.md", "modified"),)) == "updated"
    assert tracker.action_of("plan", "", (("PLAN.md", "added"),)) == "updated"


def test_mcp_writes_carry_the_servers_session_and_append_the_summary(mem: Mem, monkeypatch) -> None:
    monkeypatch.delenv("GITMEM_SESSION", raising=False)
    os.chdir(mem.path)
    h = server.Handler(open_notebook(mem.path))
    assert h.session.startswith("mcp-")
    ok, out = h.call("remember", {"text": "Sarah's phone is 555-1234", "category": "contact"})
    assert ok and out["session"] == "this session: 1 remembered"
    ok, out = h.call("remember", {"text": "Sarah's phone is 555-9999", "category": "contact"})
    assert out["session"] == "this session: 1 remembered, 1 updated"
    ok, out = h.call("forget", {"target": "Sarah's phone is 555-9999"})
    assert ok and out["session"] == "this session: 1 remembered, 1 updated, 1 forgotten"
    assert mem.git("log", "-1", "--format=%(trailers:key=Gitmem-Session,valueonly)").strip() == h.session
    ok, out = h.call("session_changes", {})
    assert ok and out["session"] == h.session and len(out["removed"]) == 1
    ok, out = h.call("goals", {})
    assert ok and "session" not in out  # reads are not enriched
    assert trailers.session() is None  # the server's session does not leak out of its calls


def test_structured_memory_hints_name_tools(mem: Mem) -> None:
    os.chdir(mem.path)
    h = server.Handler(open_notebook(mem.path))
    assert h.call("goal_update", {"id": "nope", "progress": 3}) == (
        False, "error: no goal nope (goals/nope.md is missing) (see the goals: the goals tool with every=true)")
    assert h.call("unwatch", {"name": "Sarah"}) == (False, "error: Sarah is not watched (see what is: the watch_list "
                                                           "tool)")
    assert h.call("plan", {}) == (True, {"path": "PLAN.md", "exists": False, "text": "", "commit": None,
                                         "date": None, "reason": None,
                                         "hint": "no plan yet; write one with: git mem plan update TEXT --reason WHY"})
    assert server.compact({"hint": "no plan yet; write one with: git mem plan update TEXT --reason WHY"}) == {
        "hint": "no plan yet; write one with: the plan_update tool"}
