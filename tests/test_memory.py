import re

import pytest

from tests.conftest import Mem


def commits(m: Mem) -> int:
    return int(m.git("rev-list", "--count", "HEAD"))


@pytest.mark.parametrize("text, page", [
    ("Sarah Chen's phone is 555-1234", "reference/contacts.md"),
    ("User prefers tea over coffee", "reference/preferences.md"),
    ("Buy oat milk", "lists/shopping.md"),
    ("Remember to renew the passport", "lists/todos.md"),
    ("The office wifi password rotates monthly", "knowledge/facts.md"),
    ("The staging database lives on db-staging-2.internal, port 5433", "knowledge/infrastructure.md"),
    ("Jamal Rivera from legal must review any contract over $50k", "reference/rules.md"),
    ("We agreed to drop support for Python 3.9", "knowledge/decisions.md"),
    ("Apollo release 2.0 ships on March 15", "knowledge/events.md"),
    ("I no longer drink coffee", "reference/preferences.md"),
])
def test_remember_routes_by_category_folders(mem: Mem, text: str, page: str) -> None:
    before = commits(mem)
    out = mem.json("remember", text)
    assert out["path"] == page and out["action"] == "remember"
    assert commits(mem) == before + 1
    content = (mem.path / page).read_text()
    assert content.splitlines()[out["lines"]["start"] - 1].endswith(text)
    assert mem.git("log", "-1", "--format=%s").startswith("mem: remember ")
    assert mem.git("status", "--porcelain") == ""


def test_remember_flat_layout_uses_memory_sections(flat: Mem) -> None:
    flat("remember", "Prefers window seats")
    flat("remember", "Dana's email is dana@example.com")
    text = (flat.path / "MEMORY.md").read_text()
    assert "## Preferences\n\n- Prefers window seats\n" in text
    assert "## Contacts\n\n- Dana's email is dana@example.com\n" in text


def test_remember_hints(mem: Mem) -> None:
    out = mem.json("remember", "--to", "projects/apollo", "--section", "Decisions", "Ship on Friday")
    assert out["path"] == "projects/apollo.md"
    assert (mem.path / "projects/apollo.md").read_text() == "# Apollo\n\n## Decisions\n\n- Ship on Friday\n"
    out = mem.json("remember", "--category", "todo", "Call mum")
    assert out["path"] == "lists/todos.md"
    assert "- [ ] Call mum" in (mem.path / "lists/todos.md").read_text()


def test_near_duplicates_are_not_stored_twice(mem: Mem) -> None:
    mem("remember", "Sarah Chen's phone is 555-1234")
    before = commits(mem)
    out = mem.json("remember", "sarah chen's phone is 555-1234.")
    assert out["action"] == "duplicate" and out["commit"] is None
    assert out["duplicate"]["path"] == "reference/contacts.md"
    assert commits(mem) == before
    assert mem("remember", "sarah chen's phone is 555-1234.").stdout == (  # "already remembered" said once
        "already remembered at reference/contacts.md:3: - Sarah Chen's phone is 555-1234\n"
        "hint: pass --force to store it again\n")
    out = mem.json("remember", "--force", "sarah chen's phone is 555-1234.")
    assert out["action"] == "remember" and commits(mem) == before + 1



def test_another_address_on_the_same_domain_is_no_duplicate(mem: Mem) -> None:
    """A newcomer (2026-11-27): "rosa.new@example.pt" read as "rosa new example pt", a near copy of
    "rosa example pt", and the new address was never stored. Said as an update, it replaces the old."""
    mem("remember", "Rosa's email is rosa@example.pt")
    assert mem.json("remember", "Rosa's email is rosa.new@example.pt")["action"] == "remember"
    assert "rosa.new@example.pt" in (mem.path / "reference/contacts.md").read_text()
    mem("remember", "Maria's email is maria@example.pt")
    out = mem.json("remember", "Maria's email is now maria.new@example.pt")
    assert out["replaced"]["text"] == "- Maria's email is maria@example.pt", out
    assert mem.json("remember", "the host is db2.internal")["action"] == "remember"
    assert mem.json("remember", "the host is db1.internal")["action"] == "remember"

    from gitmem.markdown import exact_names  # read once, however hostile the line ("a" * 20,000 took 2 s)

    assert exact_names("a" * 20_000 + " x@y.z") == {"x@y.z"} and exact_names("a-" * 10_000) == set()


def test_a_short_form_is_its_word(mem: Mem) -> None:
    """A newcomer's trial (2026-11-26): "prod" beside "production" was stored twice."""
    first = mem.json("remember", "The production database runs on pg-prod-1.internal, port 5432")
    out = mem.json("remember", "the prod db runs on pg-prod-1.internal, port 5432")
    assert out["action"] == "duplicate" and out["duplicate"]["path"] == first["path"]
    out = mem.json("remember", "the prod db runs on pg-prod-1.internal, port 5433")  # another port: no duplicate
    assert out["action"] == "remember"


def test_duplicate_found_on_another_page(mem: Mem) -> None:
    result = mem("write", "knowledge/people.md", "- The cat is called Miso", code=2)
    assert "text that starts with '-' goes after '--'" in result.stderr
    mem("write", "knowledge/people.md", "--", "- The cat is called Miso")
    out = mem.json("remember", "The cat is called Miso")
    assert out["action"] == "duplicate" and out["duplicate"]["path"] == "knowledge/people.md"


def test_daily_appends_well_formed_entries(mem: Mem) -> None:
    first = mem.json("daily", "Called Sarah about the timeline")
    second = mem.json("daily", "Lunch with Bob\nHe moved to Berlin")
    assert first["path"] == second["path"] and re.fullmatch(r"daily/\d{4}-\d{2}-\d{2}\.md", first["path"])
    text = (mem.path / first["path"]).read_text()
    assert re.fullmatch(
        r"# Daily Log — \d{4}-\d{2}-\d{2}\n\n## \d\d:\d\d — Called Sarah about the timeline\n\n"
        r"## \d\d:\d\d — Lunch with Bob\n\nHe moved to Berlin\n", text)
    assert second["lines"] == {"start": 5, "end": 7}


def test_daily_flat_layout(flat: Mem) -> None:
    out = flat.json("daily", "note")
    assert re.fullmatch(r"memory/\d{4}-\d{2}-\d{2}\.md", out["path"])


def test_write_sections_and_stdin(mem: Mem) -> None:
    mem("write", "projects/apollo.md", "--section", "Status", "On track")
    mem("write", "projects/apollo.md", "--section", "Risks", input="Vendor delay\n")
    mem("write", "projects/apollo.md", "--section", "Status", "--replace", "Slipped to Monday")
    assert (mem.path / "projects/apollo.md").read_text() == \
        "# Apollo\n\n## Status\n\nSlipped to Monday\n\n## Risks\n\nVendor delay\n"
    mem("write", "projects/apollo.md", "--replace", "# Apollo\n\nDone.")
    assert (mem.path / "projects/apollo.md").read_text() == "# Apollo\n\nDone.\n"
    assert commits(mem) == 5  # init + four writes


def test_get_pages_and_ranges(mem: Mem) -> None:
    mem("write", "a.md", "# A\n\none\ntwo\nthree")
    assert mem("get", "a.md").stdout == "# A\n\none\ntwo\nthree\n"
    assert mem("get", "a.md:3-4").stdout == "one\ntwo\n"
    out = mem.json("get", "a:5")
    assert out == {"path": "a.md", "lines": {"start": 5, "end": 5}, "total_lines": 5, "text": "three\n",
                   "revision": None, "page": None, "pages": None}


@pytest.mark.parametrize("args, message", [
    (("get", "a.md:9"), "error: line 9 is outside a.md, which has 3 lines"),
    (("get", "a.md:3-2"), "error: the range 3-2 of a.md is reversed (it ends before it starts) "
                          "(put the first line first: a.md:2-3)"),
    (("get", "missing.md"), "error: no page missing.md in the notebook"),
    (("get", "a.md:abc"), "error: 'abc' is not a line range of a.md (give PATH:START or PATH:START-END, e.g. a.md:3-5)"),
    (("get", "../../etc/passwd"), "error: '../../etc/passwd' leaves the notebook"),
    (("get", "/etc/passwd"), "error: '/etc/passwd' is outside the notebook"),
    (("remember", ""), "error: empty fact"),
    (("daily", "   "), "error: empty entry"),
    (("write", "b.md", ""), "error: empty content"),
    (("write", "b.md", "\x08\x1b"), "error: empty content"),  # controls only: nothing left once cleaned
    (("write", ".git/config", "x"), "error: '.git/config' names a hidden file"),
])
def test_bad_input_is_one_line(mem: Mem, args, message: str) -> None:
    mem("write", "a.md", "# A\n\nx")
    result = mem(*args, code=1)
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_no_identity_falls_back_with_a_hint(mem: Mem, monkeypatch, tmp_path) -> None:
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    result = mem("remember", "A fact with no author")
    assert "hint: no git identity is configured, so gitmem signed its commit 'gitmem <gitmem@localhost>'" in result.stdout
    assert mem.git("log", "-1", "--format=%an <%ae>") == "gitmem <gitmem@localhost>\n"


def test_failed_commit_keeps_the_note(mem: Mem) -> None:
    hook = mem.path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'rejected by policy' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = mem("remember", "Keep me even if the commit fails", code=1)
    assert "is written but the commit failed" in result.stderr and "rejected by policy" in result.stderr
    assert "Keep me even if the commit fails" in (mem.path / "knowledge/facts.md").read_text()


@pytest.mark.parametrize("old, new", [
    ("Bob is allergic to peanuts", "Bob is not allergic to peanuts"),
    ("Ship Apollo on 2026-03-14", "Ship Apollo on 2026-03-21"),
    ("Standup moved to 10:30", "Standup moved to 11:30"),
    ("Sarah Chen's phone is 555-1234", "Sarah Chen's phone is 555-1235"),
])
def test_a_corrected_fact_is_not_a_duplicate(mem: Mem, old: str, new: str) -> None:
    first = mem.json("remember", old)
    out = mem.json("remember", new)
    assert out["action"] == "remember", out
    page = (mem.path / out["path"]).read_text()
    # an update of the same attribute replaces the old line (supersede.py); anything else keeps both
    replaced = out["replaced"] is not None
    assert replaced == ("moved to" in old or "phone" in old)
    assert new in page and (old in (mem.path / first["path"]).read_text()) != replaced


@pytest.mark.parametrize("text, page", [("Ship Apollo on 2026-03-14", "knowledge/facts.md"),
                                        ("Meeting moved to 2026-03-14 at 10:00", "knowledge/events.md"),
                                        ("Budget is 120000 dollars", "knowledge/facts.md")])
def test_dates_and_amounts_are_not_contacts(mem: Mem, text: str, page: str) -> None:
    assert mem.json("remember", text)["path"] == page


def test_a_dotted_page_name_is_still_a_note(mem: Mem) -> None:
    out = mem.json("write", "people/j.smith", "Plays the bassoon on Sundays")
    assert out["path"] == "people/j.smith.md"
    hits = mem.json("recall", "--mode", "keyword", "bassoon")["results"]
    assert [h["path"] for h in hits] == ["people/j.smith.md"]


def test_the_fallback_identity_note_is_printed_once(mem: Mem, monkeypatch, tmp_path) -> None:
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    first = mem("remember", "A fact with no author")
    assert first.stdout.count("no git identity is configured") == 1
    second = mem.json("remember", "Another fact with no author")
    assert second["identity"] == "gitmem <gitmem@localhost>" and second["hint"] is None
    assert "no git identity" not in mem("daily", "An entry with no author").stdout
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ann")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ann@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Ann")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ann@example.com")
    assert mem.json("remember", "A fact by Ann")["identity"] is None
    assert mem.git("log", "-1", "--format=%an <%ae>") == "Ann <ann@example.com>\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_a_save_racing_a_pull_is_refused_under_the_lock(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `git pull` takes no lock of gitmem's: one landing after the save's first look at the page
    is caught by the look just before writing, and neither the pulled line nor HEAD is reverted."""
    from gitmem.gitops.repo import open_notebook
    from gitmem.notes import change
    from gitmem.notes.change import PageChanged
    from gitmem.notes.memory import write

    mem("write", "plan.md", "Ship Friday")
    seen = (mem.path / "plan.md").read_text()
    real = change.committable

    def pull_lands(nb: object) -> None:  # inside the save, after it compared the page with `expected`
        monkeypatch.setattr(change, "committable", real)
        (mem.path / "plan.md").write_text(seen + "Pulled: ship Monday\n")
        mem.commit("pulled")
        real(nb)  # type: ignore[arg-type]

    monkeypatch.setattr(change, "committable", pull_lands)
    pulled = (seen + "Pulled: ship Monday\n")
    with pytest.raises(PageChanged) as caught:
        write(open_notebook(mem.path), "plan.md", "# Plan\n\nMine\n", replace=True, expected=seen)
    assert caught.value.current == pulled and (mem.path / "plan.md").read_text() == pulled
    assert mem.git("show", "HEAD:plan.md") == pulled and mem.git("log", "-1", "--format=%s").strip() == "pulled"


def test_write_with_expected_refuses_a_page_changed_meanwhile(mem: Mem) -> None:
    from gitmem.gitops.repo import open_notebook
    from gitmem.notes.change import PageChanged
    from gitmem.notes.memory import write

    mem("write", "plan.md", "Ship Friday")
    seen = (mem.path / "plan.md").read_text()
    mem("write", "plan.md", "Agent: slipped")
    before = mem.git("rev-parse", "HEAD").strip()
    with pytest.raises(PageChanged) as caught:
        write(open_notebook(mem.path), "plan.md", "# Plan\n\nMine\n", replace=True, expected=seen)
    assert caught.value.current == (mem.path / "plan.md").read_text() and "Agent: slipped" in caught.value.current
    assert mem.git("rev-parse", "HEAD").strip() == before
    done = write(open_notebook(mem.path), "plan.md", "# Plan\n\nMine\n", replace=True,
                 expected=caught.value.current)
    assert done.commit and (mem.path / "plan.md").read_text() == "# Plan\n\nMine\n"
    with pytest.raises(PageChanged):  # '' : the page must not exist yet
        write(open_notebook(mem.path), "plan.md", "new", expected="")


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.tally("bad-input/fault matrix")
def test_a_fact_of_a_page_s_length_is_refused(mem: Mem) -> None:
    failed = mem("remember", "-", input="word " * 5000, code=2)
    assert failed.stderr == ("error: the fact is 25,000 characters; a fact holds at most 20,000 (write a longer text "
                             "as a page: git mem write PAGE - < FILE)\n")


@pytest.mark.tally("bad-input/fault matrix")
def test_a_write_that_would_take_away_uncommitted_text_is_refused(mem: Mem) -> None:
    """A git user's run (2026-11-27): `write --replace` of a section dropped the person's uncommitted line,
    which no commit or blob held."""
    mem("write", "projects/apollo.md", "--section", "Status", "On track")
    page = mem.path / "projects/apollo.md"
    page.write_text(page.read_text() + "- QA is short-staffed\n")
    before = mem.git("rev-parse", "HEAD")
    failed = mem("write", "projects/apollo.md", "--section", "Status", "--replace", "Slipped to Monday", code=1)
    assert failed.stderr == ("error: projects/apollo.md has uncommitted text this change would remove (- QA is "
                             "short-staffed); nothing was written (commit it first (git commit -m ... -- "
                             "projects/apollo.md) or set it aside (git stash), then run the command again)\n")
    assert "QA is short-staffed" in page.read_text() and mem.git("rev-parse", "HEAD") == before
    mem("write", "projects/apollo.md", "--section", "Notes", "Retro on Friday")  # what keeps it is written
    assert "QA is short-staffed" in page.read_text()
    # ... and so is a fact that updates a line the person has edited and not committed
    mem("remember", "Tom's phone is 555-1234")
    contacts = mem.path / "reference/contacts.md"
    contacts.write_text(contacts.read_text().replace("555-1234", "555-4321, call after 10am"))
    assert "uncommitted text this change would remove" in mem("remember", "Tom's phone is now 555-0000", code=1).stderr
    assert "555-4321, call after 10am" in contacts.read_text()


@pytest.mark.tally("bad-input/fault matrix")
def test_a_document_s_name_is_no_page_to_write(mem: Mem) -> None:
    """`write notes.txt` made notes.txt.md, titled "Notes.txt", without a word (an agent developer's run)."""
    assert mem("write", "notes.txt", "hi", code=2).stderr == (
        "error: notes.txt names a document, which gitmem reads but never writes (write a page: git mem write "
        "notes.md TEXT)\n")
    assert not (mem.path / "notes.txt.md").exists()
    mem("write", "j.smith", "hi")  # a dot in a name is no document
    assert (mem.path / "j.smith.md").is_file()


def test_a_folder_named_as_a_page_is_refused(mem: Mem) -> None:
    """A newcomer (2026-11-27): `write knowledge -- "- x"` made knowledge.md beside knowledge/ without a word."""
    mem.write("knowledge/car.md", "# Car\n\n- tyres\n")
    mem.commit("car")
    out = mem("write", "knowledge", "--", "- x", code=2)
    assert out.stderr == ("error: knowledge is a folder of the notebook, not a page (name a page in it, e.g. "
                          "git mem write knowledge/notes.md TEXT)\n")
    assert not (mem.path / "knowledge.md").exists()
