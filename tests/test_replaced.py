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
        mem.write("knowledge/dups.md", "# Dups\n\n## A\n- Meeting is on Monday\n\n## B\n- Meeting is on Monday\n\n"
                  "Setext\n======\n\n<!-- a comment -->\n")
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
     "error: knowledge/events.md:3-4 is not one fact (the fact there is lines 3-3) (name the fact, as recall "
     "prints it: --replaces knowledge/events.md:3)\n"),
    (["--replaces", "", "X moved to Y"],
     "error: --replaces names no line (give PATH:LINE, as recall prints it, or the line's words)\n"),
    (["--replaces", "Meeting is on Monday", "X moved to Y"],
     "error: 'Meeting is on Monday' is on 2 lines: knowledge/dups.md:4, knowledge/dups.md:7 (name one as "
     "PATH:LINE (recall prints it))\n"),
    (["--replaces", "knowledge/dups.md:9", "X moved to Y"],
     "error: knowledge/dups.md:9 holds no fact to replace (Setext) (find the fact's line with: "
     "git mem get knowledge/dups.md)\n"),
    (["--replaces", "knowledge/dups.md:12", "X moved to Y"],
     "error: knowledge/dups.md:12 holds no fact to replace (<!-- a comment -->) (find the fact's line with: "
     "git mem get knowledge/dups.md)\n"),
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
                        "(kept: it reads as an update, but no rule found the line it updates)\nhint: if it updates "
                        "that line, put it in its place: git mem remember --replaces knowledge/events.md:3 "
                        "'Standup moved to 10:00 from Monday.'\n"), out
    # the hint's command: the fact in the old line's place, the copy just added taken out
    mem("remember", "--replaces", "knowledge/events.md:3", "Standup moved to 10:00 from Monday.")
    assert (mem.path / "knowledge/events.md").read_text() == \
        "# Events\n\n- Standup moved to 10:00 from Monday.\n- Sprint review on Thursdays.\n"
    # history says the old line was replaced by it, though the change added no line (the copy moved up)
    found = mem.compact("recall", "--history", "--mode", "keyword", "standup")["results"]
    assert [r["text"] for r in found[:2]] == ["- Standup moved to 10:00 from Monday.",
                                             "- The team standup is at 9:30 every weekday."]
    assert found[1]["superseded"]["how"] == "edited"
    assert found[1]["successor"]["text"] == "- Standup moved to 10:00 from Monday."
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


def test_a_line_said_twice_is_no_one_place(mem: Mem) -> None:
    """A review: the work tree's copy and HEAD's were different lines, so the commit changed another."""
    mem.write("knowledge/dups.md", "# Dups\n\n## A\n- Meeting is on Monday\n\n## B\n- Meeting is on Monday\n")
    mem.commit("dups")
    head = mem.git("rev-parse", "HEAD")
    r = mem("remember", "--replaces", "knowledge/dups.md:4", "Team A meeting moved to Tuesday", code=1)
    assert r.stderr.startswith("error: knowledge/dups.md:4: the page says it 2 times (changed, not committed, or "
                               "said twice); nothing was written"), r.stderr
    assert mem.git("rev-parse", "HEAD") == head and mem.git("status", "--porcelain") == ""


def test_an_item_of_several_lines_is_replaced_whole_and_a_done_box_opened(mem: Mem) -> None:
    mem.write("lists/todos.md", "# Todos\n\n- [x] Ship v1\n- A long item\n  that goes on\n  - its child\n")
    mem.commit("todos")
    mem("remember", "--replaces", "lists/todos.md:3", "Ship v2 by March")
    out = mem.json("remember", "--replaces", "lists/todos.md:4-5", "The item is short now")
    assert out["replaced"]["lines"] == {"start": 4, "end": 5}
    assert out["replaced"]["text"] == "- A long item that goes on"
    assert (mem.path / "lists/todos.md").read_text() == \
        "# Todos\n\n- [ ] Ship v2 by March\n- The item is short now\n  - its child\n"


def test_a_quoted_item_keeps_its_quote_and_a_crlf_work_tree_its_line_ends(mem: Mem) -> None:
    """core.autocrlf: HEAD says LF, the work tree CRLF (a review: every --replaces failed)."""
    mem.git("config", "core.autocrlf", "true")
    mem.write("knowledge/notes.md", "# Notes\n\n> - The boiler is serviced in May\n- Bins go out on Tuesday\n")
    mem.commit("notes")
    (mem.path / "knowledge/notes.md").write_bytes(b"# Notes\r\n\r\n> - The boiler is serviced in May\r\n"
                                                  b"- Bins go out on Tuesday\r\n")
    mem("remember", "--replaces", "knowledge/notes.md:4", "Bins go out on Wednesday now")
    mem("remember", "--replaces", "The boiler is serviced in May", "The boiler service moved to June")
    assert (mem.path / "knowledge/notes.md").read_bytes() == (b"# Notes\r\n\r\n> - The boiler service moved to June"
                                                          b"\r\n- Bins go out on Wednesday now\r\n")
    assert mem.git("status", "--porcelain") == ""


def test_an_old_line_with_control_characters_is_named_clean_in_the_commit(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- The gate code holder is Dana\x1b[2J\n")
    mem.commit("facts")
    mem("remember", "--replaces", "knowledge/facts.md:3", "The gate code holder is now Sam")
    assert "\x1b" not in mem.git("log", "-1", "--format=%B")


def test_a_copy_in_another_section_is_a_persons_own_line(mem: Mem) -> None:
    """A review: the copy removal took Sam's line out of his section."""
    mem.write("knowledge/kids.md", "# Kids\n\n## Sam\n\n- Swim on Mondays at 5pm\n\n## Lea\n\n- Chess on Mondays at 5pm\n")
    mem.commit("kids")
    mem("remember", "--replaces", "knowledge/kids.md:9", "Swim on Mondays at 5pm")
    assert (mem.path / "knowledge/kids.md").read_text() == \
        "# Kids\n\n## Sam\n\n- Swim on Mondays at 5pm\n\n## Lea\n\n- Swim on Mondays at 5pm\n"


def test_words_name_a_line_as_words_and_a_time_is_words(mem: Mem) -> None:
    mem.write("lists/shopping.md", "# Shopping\n\n- Buy tomatoes for the salad\n")
    mem.write("knowledge/events.md", "# Events\n\n- Standup is at 9:30\n")
    mem.commit("pages")
    assert mem("remember", "--replaces", "tom", "Standup moved to 10", code=2).stderr == \
        "error: no line of the notebook says 'tom' as words (name the line as PATH:LINE, as recall prints it)\n"
    out = mem.json("remember", "--replaces", "9:30", "Standup is at 10:00")  # "9:30" is no page 9.md
    assert out["replaced"]["text"] == "- Standup is at 9:30" and out["now"] is None


def test_an_address_in_a_long_fact_is_read_word_by_word() -> None:
    from gitmem.notes import replaced

    assert replaced._undotted("Staging moved to staging-02.harbor.internal, ask ops@example.com") == \
        "Staging moved to ask"
    assert replaced._undotted("x" * 50_000) == "x" * 50_000
