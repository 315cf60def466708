"""`remember --replaces PATH:LINE` and the line an unrecognised update may update (notes/replaced.py)."""

import pytest

from gitmem.agent import server
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem

EVENTS = "# Events\n\n- The team standup is at 9:30 every weekday.\n- Sprint review on Thursdays.\n"


def _events(mem: Mem, table: bool = False) -> None:
    mem.write("knowledge/events.md", EVENTS)
    if table:
        mem.write("knowledge/table.md", "# Table\n\n| What | When |\n| --- | --- |\n| Standup | 9:30 |\n\n```\n"
                  "standup --at 9:30\n```\n")
    mem.commit("events by hand")


def test_the_fact_takes_the_named_lines_place_in_one_commit(mem: Mem) -> None:
    _events(mem)
    out = mem.json("remember", "--replaces", "knowledge/events.md:3", "Standup moved to 10:00 from Monday.")
    assert out["replaced"] == {"path": "knowledge/events.md", "lines": {"start": 3, "end": 3},
                               "text": "- The team standup is at 9:30 every weekday.", "named": True}
    assert (out["path"], out["lines"]) == ("knowledge/events.md", {"start": 3, "end": 3})
    assert (mem.path / "knowledge/events.md").read_text() == \
        "# Events\n\n- Standup moved to 10:00 from Monday.\n- Sprint review on Thursdays.\n"
    body = mem.git("log", "-1", "--format=%B")
    assert body.startswith("mem: remember Standup moved to 10:00 from Monday. (replaces: - The team standup is at "
                           "9:30 every weekday.)\n")
    assert "Gitmem-Supersedes: knowledge/events.md:3 " in body and mem.git("status", "--porcelain") == ""
    # history says which commit replaced it, as for an update the rules recognised
    old = next(r for r in mem.compact("recall", "--history", "--mode", "keyword", "standup 9:30")["results"]
               if "9:30" in r["text"])
    assert old["successor"]["text"] == "- Standup moved to 10:00 from Monday."
    assert old["superseded"]["commit"] == mem.git("rev-parse", "--short=7", "HEAD").strip()


def test_the_text_output_names_the_replaced_line() -> None:
    from gitmem.cli import output
    from gitmem.notes.written import Written

    w = Written("remember", "knowledge/events.md", {"start": 3, "end": 3}, "abcdef0123", "",
                replaced={"path": "knowledge/events.md", "lines": {"start": 3, "end": 3}, "text": "- Old",
                          "named": True})
    assert output.written(w) == "remember: knowledge/events.md:3 (commit abcdef0)\nreplaced: - Old"


def test_the_line_keeps_its_indentation_bullet_and_checkbox(mem: Mem) -> None:
    mem.write("lists/todos.md", "# Todos\n\n- Audit\n  * [ ] The security audit is due on February 14\n")
    mem.commit("todos")
    mem("remember", "--replaces", "lists/todos.md:4", "The security audit is due on February 28")
    assert (mem.path / "lists/todos.md").read_text() == \
        "# Todos\n\n- Audit\n  * [ ] The security audit is due on February 28\n"


def test_line_numbers_move_the_commit_holds_only_gitmems_change(mem: Mem) -> None:
    """The person added a line above, uncommitted: the line is found in HEAD's version by its text."""
    _events(mem)
    mem.write("knowledge/events.md", EVENTS.replace("# Events\n\n", "# Events\n\n- Draft: offsite in May?\n"))
    mem("remember", "--replaces", "knowledge/events.md:4", "Standup moved to 10:00.")
    assert mem.git("show", "HEAD:knowledge/events.md") == \
        "# Events\n\n- Standup moved to 10:00.\n- Sprint review on Thursdays.\n"
    assert (mem.path / "knowledge/events.md").read_text() == \
        "# Events\n\n- Draft: offsite in May?\n- Standup moved to 10:00.\n- Sprint review on Thursdays.\n"


def test_a_persons_uncommitted_line_is_not_replaced(mem: Mem) -> None:
    _events(mem)
    mem.write("knowledge/events.md", EVENTS + "- Retro every other Friday.\n")
    head = mem.git("rev-parse", "HEAD")
    r = mem("remember", "--replaces", "knowledge/events.md:5", "Retro moved to Mondays.", code=1)
    assert "Retro every other Friday" in r.output and "nothing was written" in r.output
    assert mem.git("rev-parse", "HEAD") == head
    assert (mem.path / "knowledge/events.md").read_text() == EVENTS + "- Retro every other Friday.\n"


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("args, error", [
    (["--replaces", "knowledge/events.md:1", "X moved to Y"],
     "error: knowledge/events.md:1 holds no fact to replace (# Events) (find the fact's line with: "
     "git mem get knowledge/events.md)\n"),
    (["--replaces", "knowledge/events.md:40", "X moved to Y"],
     "error: knowledge/events.md:40 holds no fact to replace (a blank line or past the end) (find the fact's "
     "line with: git mem get knowledge/events.md)\n"),
    (["--replaces", "knowledge/table.md:5", "X moved to Y"],
     "error: knowledge/table.md:5 holds no fact to replace (| Standup | 9:30 |) (find the fact's line with: "
     "git mem get knowledge/table.md)\n"),
    (["--replaces", "knowledge/table.md:8", "X moved to Y"],
     "error: knowledge/table.md:8 holds no fact to replace (standup --at 9:30) (find the fact's line with: "
     "git mem get knowledge/table.md)\n"),
    (["--replaces", "knowledge/events.md:3-4", "X moved to Y"],
     "error: --replaces takes one line, PATH:LINE, not 'knowledge/events.md:3-4' (name the line a recall "
     "result gives, e.g. --replaces knowledge/events.md:4)\n"),
    (["--replaces", "knowledge/events.md:3", "--keep-both", "X moved to Y"],
     "error: --replaces names the line the fact takes the place of; --keep-both cannot be given with it "
     "(drop --keep-both)\n"),
    (["--replaces", "knowledge/events.md:3", "--to", "x.md", "X moved to Y"],
     "error: --replaces names the line the fact takes the place of; --to cannot be given with it (drop --to)\n"),
    (["--replaces", "knowledge/events.md:3", "X moved\nto Y"],
     "error: a fact that replaces a line is one line (say it in one line, or use git mem write)\n"),
])
def test_bad_lines_are_one_clear_line(mem: Mem, args: list[str], error: str) -> None:
    _events(mem, table=True)
    head = mem.git("rev-parse", "HEAD")
    assert mem("remember", *args, code=2).stderr == error
    assert mem.git("rev-parse", "HEAD") == head and mem.git("status", "--porcelain") == ""


def test_an_update_no_rule_recognised_names_the_line_it_may_update(mem: Mem) -> None:
    _events(mem)
    out = mem("remember", "Standup moved to 10:00 from Monday.").stdout
    assert out.endswith("maybe updates: knowledge/events.md:3: - The team standup is at 9:30 every weekday. "
                        "(kept: it reads as an update, but no rule found the line it updates; if it is this one: "
                        "git mem forget knowledge/events.md:3)\n"), out
    # a fact that does not say it is an update names none
    assert mem.json("remember", "The standup notes go in the team channel.")["maybe"] is None


def test_an_agent_replaces_the_line_a_recall_result_gives(mem: Mem) -> None:
    _events(mem)
    h = server.Handler(open_notebook(mem.path))
    ok, found = h.call("recall", {"query": "standup", "mode": "keyword"})
    where = found["results"][0]["where"]
    ok, out = h.call("remember", {"text": "Standup moved to 10:00.", "replaces": where})
    assert ok and out["replaced"]["lines"] == {"start": 3, "end": 3}, out
    ok, text = h.call("remember", {"text": "Standup moved to 10:30.", "replaces": where, "keep_both": True})
    assert not ok and text == ("error: replaces names the line the fact takes the place of; keep_both=true cannot "
                               "be given with it (drop keep_both=true)"), text


def test_a_name_alone_is_no_line_an_update_may_update(mem: Mem) -> None:
    mem("remember", "Emma is allergic to peanuts")
    assert mem.json("remember", "Emma now goes swimming on Tuesdays")["maybe"] is None


def test_another_name_in_the_subject_is_another_thing(mem: Mem) -> None:
    mem("remember", "Hermes launch is on March 15")
    assert mem.json("remember", "Apollo launch moved to March 29")["maybe"] is None


def test_a_shared_name_counts_less_than_the_thing_said(mem: Mem) -> None:
    """A newcomer's update: the on-call line, not another line about the new lead."""
    mem.write("knowledge/facts.md", "# Facts\n\n- Jonas Weber does backend work on billing.\n"
              "- Dmitri Volkov leads the on-call rotation.\n")
    mem.commit("facts")
    assert mem.json("remember", "The new on-call lead is Jonas Weber.")["maybe"] == {
        "path": "knowledge/facts.md", "lines": {"start": 4, "end": 4},
        "text": "- Dmitri Volkov leads the on-call rotation."}
