"""A personal notebook beside the project's (search/scopes.py, notes/scopes.py): recall reads both and
labels each result, `remember --scope personal` writes there, preferences go there by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Mem, git


@pytest.fixture
def personal(mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mem:
    path = tmp_path / "me"
    path.mkdir()
    mine = Mem(path, monkeypatch)
    mine("init", "--no-index")
    git(tmp_path, "config", "--global", "mem.personal", str(path))
    return mine


def _heads(*ms: Mem) -> list[str]:
    return [m.git("rev-parse", "HEAD").strip() for m in ms]


def test_remember_scope_personal_writes_one_commit_there_only(mem: Mem, personal: Mem) -> None:
    before = _heads(mem, personal)
    out = mem.json("remember", "--scope", "personal", "My dentist is Dr. Okafor")
    assert out["scope"] == "personal" and out["path"] == "knowledge/facts.md"
    after = _heads(mem, personal)
    assert after[0] == before[0] and after[1] != before[1]
    assert personal.git("rev-list", "--count", f"{before[1]}..HEAD").strip() == "1"
    assert "Okafor" in (personal.path / "knowledge/facts.md").read_text()
    assert not (mem.path / "knowledge/facts.md").exists()


def test_recall_reads_both_notebooks_and_labels_each_result(mem: Mem, personal: Mem) -> None:
    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    found = mem.json("recall", "--mode", "keyword", "dentist")["results"]
    assert [(h["path"], h["scope"]) for h in found] == [("knowledge/facts.md", "personal")]
    found = mem.json("recall", "--mode", "keyword", "deploy")["results"]
    assert [(h["path"], h["scope"]) for h in found] == [("knowledge/infrastructure.md", "project")]
    text = mem("recall", "--mode", "keyword", "dentist").stdout
    assert "personal notebook)" in text and f"read the personal notebook too ({personal.path})" in text
    search = mem.json("search", "--mode", "keyword", "dentist OR deploy")["results"]
    assert sorted(h["scope"] for h in search) == ["personal", "project"]


def test_one_notebooks_no_good_match_is_no_verdict_on_what_the_other_answered(mem: Mem, personal: Mem) -> None:
    """A newcomer (2026-11-26): "who is my dentist" showed the personal fact at 1.00 under a note
    that said "no good match" (the project's verdict), and nearly every answer from the project
    carried "personal notebook: no good match"."""
    mem("remember", "The staging database runs on port 5433")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    out = mem.json("recall", "who is my dentist")
    assert [h["scope"] for h in out["results"]][:1] == ["personal"]
    assert [n for n in out["notes"] if "no good match" in n] == []
    assert out["evidence"]["confidence"] == 1.0  # the evidence of the notebook that answered
    assert "no good match" not in mem("recall", "which port does staging use").stdout
    nothing = mem.json("recall", "what is the capital of Mongolia")
    assert nothing["results"] == []
    assert [n.split(" for ")[0] for n in nothing["notes"] if "no good match" in n] == [
        "no good match", "personal notebook: no good match"]


def test_with_a_personal_notebook_every_compact_result_names_its_scope(mem: Mem, personal: Mem) -> None:
    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    found = mem.compact("search", "--mode", "keyword", "dentist OR deploy")["results"]
    assert sorted((h["where"], h["scope"]) for h in found) == [("knowledge/facts.md:3", "personal"),
                                                               ("knowledge/infrastructure.md:3", "project")]
    text = mem("search", "--mode", "keyword", "dentist OR deploy").stdout
    mine = next(line for line in text.splitlines() if line.startswith("  knowledge/facts.md:3 "))
    assert ", personal notebook)" in mine
    ours = next(line for line in text.splitlines() if line.startswith("  knowledge/infrastructure.md:3 "))
    assert "personal" not in ours


def test_a_preference_goes_to_the_personal_notebook_and_says_so(mem: Mem, personal: Mem) -> None:
    out = mem.json("remember", "I prefer short answers without emoji")
    assert out["scope"] == "personal" and out["path"] == "reference/preferences.md"
    assert out["hint"] == (f"a preference of yours: written to your personal notebook ({personal.path}); "
                           "--scope project keeps it in this one")
    assert (personal.path / "reference/preferences.md").is_file() and not (mem.path / "reference/preferences.md").exists()
    kept = mem.json("remember", "--scope", "project", "I prefer tabs over spaces in this repo")
    assert kept["scope"] == "project" and (mem.path / "reference/preferences.md").is_file()
    assert mem.json("remember", "The build takes four minutes")["scope"] == "project"


@pytest.mark.tally("bad-input/fault matrix")
def test_without_a_personal_notebook_everything_stays_here(mem: Mem) -> None:
    assert mem.json("remember", "I prefer short answers")["scope"] == "project"
    failed = mem("remember", "--scope", "personal", "My dentist is Dr. Okafor", code=2)
    assert failed.stderr.startswith("error: no personal notebook is configured")
    assert mem.json("recall", "--mode", "keyword", "short answers")["results"][0]["scope"] == "project"
    compact = mem.compact("recall", "--mode", "keyword", "short answers")["results"]
    assert len(compact) == 1 and "scope" not in compact[0]  # no label noise without a personal notebook


def test_the_mcp_tools_read_and_write_both_scopes(mem: Mem, personal: Mem) -> None:
    from tests.test_server import handler

    h = handler(mem)
    ok, out = h.call("remember", {"text": "My dentist is Dr. Okafor", "scope": "personal"})
    assert ok and out["scope"] == "personal" and "Okafor" in (personal.path / "knowledge/facts.md").read_text()
    ok, found = h.call("recall", {"query": "dentist", "mode": "keyword"})
    assert ok and [(r["where"].split(":")[0], r["scope"]) for r in found["results"]] == \
        [("knowledge/facts.md", "personal")]  # MCP's compact results
    mem("remember", "The dentist appointments are booked through tools/book.sh")
    ok, found = h.call("search", {"query": "dentist", "mode": "keyword"})
    assert ok and sorted(r["scope"] for r in found["results"]) == ["personal", "project"]


def test_the_web_api_labels_every_result_with_its_scope(mem: Mem, personal: Mem) -> None:
    from tests.test_web import client

    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    answer = client(mem).get("/api/search", params={"query": "dentist OR deploy", "mode": "keyword"})
    assert answer.status_code == 200
    assert sorted((r["where"], r["scope"]) for r in answer.json()["results"]) == \
        [("knowledge/facts.md:3", "personal"), ("knowledge/infrastructure.md:3", "project")]


# -- context: the personal notebook's pages beside the project's --------------------------------------------

DAY = "2026-02-20"


def test_context_quotes_the_personal_pages_last_labelled_and_private_ones_never(mem: Mem, personal: Mem) -> None:
    mem.write("USER.md", "# User\n\nAda.\n")
    mem.write(f"daily/{DAY}.md", "# Daily Log\n\n## 09:00 — project entry\n")
    personal("remember", "I prefer short answers without emoji")
    personal.write("reference/diary.md", "---\nprivate: true\n---\n# Diary\n\nsecret diary entry\n")
    personal.write("knowledge/facts.md", "# Facts\n\n- not always-on\n")
    out = mem.json("context", "--date", DAY)
    assert [(p["path"], p["kind"]) for p in out["parts"]] == [
        ("USER.md", "always_on"), (f"daily/{DAY}.md", "daily"), ("reference/preferences.md", "personal")]
    assert {"path": "reference/diary.md (personal)", "chars": 50,
            "reason": "private: true in its frontmatter"} in out["omitted"]
    assert f"quoted the personal notebook's always-on pages too ({personal.path}), as kind personal" in out["notes"]
    text = mem("context", "--date", DAY).stdout
    assert f"Sections marked [PERSONAL] quote the user's own notebook ({personal.path})" in text
    assert "## [PERSONAL] reference/preferences.md (your personal notebook)\n\n# Preferences" in text
    assert "short answers without emoji" in text
    assert "secret diary entry" not in text and "not always-on" not in text
    assert text.index(f"## daily/{DAY}.md") < text.index("## [PERSONAL]")


def test_context_gives_the_personal_pages_only_what_the_project_left(mem: Mem, personal: Mem) -> None:
    from tests.test_context import configure

    configure(mem, file_budget=1000, total_budget=1000)
    mem.write("MEMORY.md", "m" * 990 + "\n")
    personal("remember", "I prefer short answers without emoji")
    out = mem.json("context", "--date", DAY)
    assert [(p["path"], p["kind"], p["truncated"]) for p in out["parts"]] == [("MEMORY.md", "always_on", False)]
    assert out["omitted"][0]["path"] == "reference/preferences.md (personal)"
    assert out["omitted"][0]["reason"] == "the total budget is spent"


def test_budgeted_context_ranks_personal_facts_and_adds_the_personal_pages(mem: Mem, personal: Mem) -> None:
    mem("remember", "The dentist invoices go to accounts@example.com")
    mem.write("USER.md", "# User\n\nAda.\n")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    personal("remember", "I prefer short answers without emoji")
    out = mem.json("context", "--query", "dentist", "--budget", "2000", "--mode", "keyword")
    blocks = {b["kind"]: b for b in out["blocks"]}
    assert list(blocks) == ["plan", "goals", "facts", "always_on", "personal"]
    assert [i["name"] for i in blocks["facts"]["items"]] == ["[personal] knowledge/facts.md:3"]
    assert blocks["facts"]["left_out"] == [{"name": "reference/contacts.md:3",  # its always-on page says it
                                            "reason": "quoted whole in [ALWAYS-ON] below"}]
    assert [i["name"] for i in blocks["personal"]["items"]] == ["reference/preferences.md"]
    assert out["tokens"] <= 2000 and out["notes"] == []
    assert "- [personal] knowledge/facts.md:3 (" in out["text"] and "Dr. Okafor" in out["text"]
    assert f"## [PERSONAL] pages of your personal notebook ({personal.path})" in out["text"]
    assert out["text"].index("## [ALWAYS-ON] pages") < out["text"].index("## [PERSONAL]")


def test_a_personal_notebook_never_pushes_out_the_projects_budgeted_context(
        mem: Mem, personal: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.write("USER.md", "# User\n\n" + "Ada likes tea. " * 40 + "\n")
    personal.write("reference/preferences.md", "# Preferences\n\n" + "- I prefer short answers\n" * 30)

    def project_part(budget: int) -> list[tuple[str, list[str]]]:
        out = mem.json("context", "--budget", str(budget), "--mode", "keyword")
        assert out["tokens"] <= budget
        return [(b["kind"], [i["name"] for i in b["items"]], b["tokens"]) for b in out["blocks"]
                if b["kind"] != "personal"]

    budgets = (90, 120, 200, 400)
    both = [project_part(b) for b in budgets]
    tight, ample = (mem.json("context", "--budget", str(b), "--mode", "keyword") for b in (budgets[0], 2000))
    assert "personal" in tight["dropped"]
    assert [(b["kind"], b["items"][0]["truncated"]) for b in ample["blocks"][-1:]] == [("personal", False)]
    monkeypatch.setenv("GITMEM_PERSONAL", "")
    assert both == [project_part(b) for b in budgets]


@pytest.mark.tally("bad-input/fault matrix")
def test_a_personal_notebook_gone_missing_is_a_note_not_a_failed_context(
        mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.write("USER.md", "# User\n\nAda.\n")
    monkeypatch.setenv("GITMEM_PERSONAL", str(tmp_path / "gone"))
    out = mem.json("context", "--date", DAY)
    assert [p["path"] for p in out["parts"]] == ["USER.md"]
    assert out["notes"] == [f"personal notebook left out: the personal notebook {tmp_path / 'gone'} "
                            "(GITMEM_PERSONAL / git config mem.personal) does not exist"]
    assert mem.json("context", "--query", "Ada", "--mode", "keyword")["notes"] == out["notes"]


def test_the_mcp_context_tool_quotes_the_personal_notebook_too(mem: Mem, personal: Mem) -> None:
    from tests.test_server import handler

    personal("remember", "I prefer short answers without emoji")
    ok, out = handler(mem).call("context", {})
    assert ok and ("reference/preferences.md", "personal") in [(p["path"], p["kind"]) for p in out["parts"]]
    assert "## [PERSONAL] reference/preferences.md" in out["text"]
    ok, out = handler(mem).call("context", {"query": "emoji", "mode": "keyword", "budget": 1000})
    assert ok and [i["name"] for i in out["blocks"][-1]["items"]] == ["reference/preferences.md"]


# -- the browser: personal results and preferences, read-only --------------------------------------------

def _hit_of(page: str, words: str) -> str:
    """The search page's <li> of the result that says `words`."""
    return next(item.split("</li>", 1)[0] for item in page.split('<li class="hit')[1:] if words in item)


def test_the_search_page_shows_personal_results_badged_and_never_linked(mem: Mem, personal: Mem) -> None:
    from tests.test_web import client

    mem("remember", "--to", "knowledge/facts.md", "The office dentist chair is broken")
    mem("remember", "--to", "knowledge/people.md", "Dr. Okafor is on Elm Street")
    personal("remember", "--to", "knowledge/facts.md", "My dentist is [[people|Dr. Okafor]]")
    page = client(mem).get("/search", params={"q": "dentist", "mode": "keyword"}).text
    ours, mine = _hit_of(page, "office dentist chair"), _hit_of(page, "My dentist is")
    assert 'href="/page/knowledge/facts.md?lines=3-3"' in ours and "badge personal" not in ours
    assert '<span class="badge personal"' in mine and '<span class="path">knowledge/facts.md:3</span>' in mine
    assert "<a " not in mine  # neither the page (this server's knowledge/facts.md is the project's) nor a wikilink
    assert page.count('href="/page/knowledge/facts.md') == 1


def test_without_a_personal_notebook_pages_carry_no_personal_badge(mem: Mem) -> None:
    from tests.test_web import client

    mem("remember", "I prefer short answers")
    c = client(mem)
    for url in ("/", "/facts/preferences", "/search?q=short+answers&mode=keyword"):
        page = c.get(url).text
        assert "short answers" in page or url == "/"
        assert "badge personal" not in page and "pref-personal" not in page, url


def test_the_preferences_tab_shows_personal_preferences_read_only(mem: Mem, personal: Mem) -> None:
    from tests.test_web import client

    mem("remember", "--scope", "project", "I prefer tabs over spaces in this repo")
    personal("remember", "I prefer short answers without emoji")
    c = client(mem)
    page = c.get("/facts/preferences").text
    ours, mine = page.split('id="pref-personal"', 1)
    assert "tabs over spaces" in ours and "short answers" not in ours
    assert "short answers without emoji" in mine and "tabs over spaces" not in mine
    assert "<a " not in mine.split("</section>", 1)[0]  # read-only: no link to this server's pages or edits
    assert f"<code>{personal.path}</code> is a repository of its own" in mine
    home = c.get("/").text
    assert 'id="personal-h"' in home and f"<code>{personal.path}</code>, a repository of its own" in home
    text = (personal.path / "reference/preferences.md").read_text()
    personal.write("reference/preferences.md", "---\nprivate: true\n---\n" + text)
    assert "short answers" not in c.get("/facts/preferences").text  # private pages stay private


@pytest.mark.tally("bad-input/fault matrix")
def test_a_personal_notebook_gone_missing_is_one_line_on_the_web_pages(
        mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_web import client

    mem("remember", "--scope", "project", "I prefer tabs over spaces in this repo")
    monkeypatch.setenv("GITMEM_PERSONAL", str(tmp_path / "gone"))
    c = client(mem)
    for url in ("/", "/facts/preferences"):
        answer = c.get(url)
        assert answer.status_code == 200
        assert f"the personal notebook {tmp_path / 'gone'} (GITMEM_PERSONAL / git config mem.personal) " \
               "does not exist" in answer.text.replace("&#39;", "'"), url
    assert "tabs over spaces" in c.get("/facts/preferences").text


# -- the prompt hook: personal facts by keyword, never at the project's expense -----------------------------

@pytest.fixture
def hooked(tmp_path: Path) -> tuple[Path, Path]:
    """A project notebook (tests/test_daemon.py's pages) and a personal one, both committed and indexed."""
    from tests.test_daemon import gm, make_notebook

    project = make_notebook(tmp_path / "project")
    mine = tmp_path / "mine"
    mine.mkdir()
    git(mine, "init", "-q")
    assert gm(mine, "init", "--no-index").returncode == 0
    (mine / "people").mkdir()
    (mine / "people/me.md").write_text("# Me\n\n- Sarah's home phone is 555-9876\n")
    git(mine, "add", "-A")
    git(mine, "commit", "-qm", "me")
    return project, mine


def test_the_prompt_hook_adds_personal_facts_marked(hooked: tuple[Path, Path]) -> None:
    import json

    from tests.test_daemon import gm

    project, mine = hooked
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "what is Sarah's phone number?"})
    env = {"GITMEM_DAEMON": "0", "GITMEM_PROMPT_BUDGET": "600", "GITMEM_PERSONAL": str(mine)}
    out = gm(project, "hooks", "prompt", input=payload, env=env)
    day = gm(project, "log", "-n", "1", "--json").stdout.split('"date": "')[1][:10]
    mine_day = gm(mine, "log", "-n", "1", "--json").stdout.split('"date": "')[1][:10]
    lines = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"].split("\n")
    assert out.returncode == 0 and lines[0].startswith("Memories from the notebook (git mem)")
    # each notebook's facts near its own best (prompt.NEAR): Sarah's email hours score under half of her phone
    assert sorted(lines[1:]) == sorted([f"- Sarah's phone is 555-1234 (people/sarah.md:3, {day})",
                                        f"- Sarah's home phone is 555-9876 (personal: people/me.md:3, {mine_day})"])


def test_the_prompt_hook_keeps_the_projects_facts_when_time_runs_out_on_the_personal_ones(
        hooked: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline falls while the personal notebook is read (a join that returns as soon as that
    read begins stands for it): the hook prints the project's facts alone, and does not wait."""
    import threading
    from types import SimpleNamespace

    from gitmem.cli import prompt
    from gitmem.search import scopes

    project, mine = hooked
    reading, release = threading.Event(), threading.Event()

    def slow(*args: object, **kwargs: object) -> object:
        reading.set()
        release.wait(600)
        raise AssertionError("read after the deadline")

    class Late(threading.Thread):
        def join(self, timeout: float | None = None) -> None:
            while self.is_alive() and not reading.wait(0.05):  # the search ends, or the personal read begins
                pass

    monkeypatch.chdir(project)
    monkeypatch.setenv("GITMEM_PERSONAL", str(mine))
    monkeypatch.setattr(scopes, "widen", slow)
    monkeypatch.setattr(prompt, "threading", SimpleNamespace(Thread=Late))
    try:
        text, done = prompt._in_process("what is Sarah's phone number?", 0.0)
    finally:
        release.set()
    assert done is False and text is not None
    assert [line.split(" (")[0] for line in text.split("\n")[1:]] == ["- Sarah's phone is 555-1234"]
