"""The browser's faces (issue 27): a paginated timeline grouped by day, messages without
gitmem's machine trailers, status badges that say what they mean."""

from __future__ import annotations

import re

from tests.conftest import Mem
from tests.test_web import client


def _commits(mem: Mem, count: int) -> None:
    for n in range(count):
        mem.write("knowledge/log.md", "".join(f"- fact {i}\n" for i in range(n + 1)))
        mem.commit(f"fact {n}")


def test_timeline_pages_thirty_entries_grouped_by_day_with_an_older_link(mem: Mem) -> None:
    _commits(mem, 33)
    c = client(mem)
    first = c.get("/log").text
    assert first.count('<li class="entry">') == 30
    assert re.search(r'<h2 class="day"><time datetime="\d{4}-\d\d-\d\d">', first)
    assert '<a href="?page=2" rel="next">Older</a>' in first and 'rel="prev"' not in first
    second = c.get("/log?page=2").text
    assert second.count('<li class="entry">') == 3  # init's commit changed no note
    assert '<a href="?page=1" rel="prev">Newer</a>' in second and 'rel="next"' not in second
    assert "fact 0" in second and "fact 32" not in second


def test_timeline_filters_survive_paging_and_a_bad_page_is_refused(mem: Mem) -> None:
    _commits(mem, 31)
    c = client(mem)
    assert '<a href="?grep=fact&amp;page=2" rel="next">Older</a>' in c.get("/log?grep=fact").text
    bad = c.get("/log?page=0")
    assert bad.status_code == 400 and "is not a page number" in bad.text
    assert '<a href="?page=2" rel="next">Older</a>' in c.get("/history/knowledge/log.md").text


def test_people_see_no_gitmem_trailers_in_the_timeline(mem: Mem) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    page = client(mem).get("/log").text
    assert "mem: remember Sarah&#39;s phone is 555-1234" in page and "Gitmem-Verb" not in page
    out = mem("log").stdout
    assert "    mem: remember Sarah's phone is 555-1234" in out.splitlines() and "Gitmem-Verb" not in out
    assert "Gitmem-Verb: remember" in mem.json("log")["entries"][0]["message"]  # machines still get them


def test_semantic_search_not_checked_is_a_neutral_badge_that_says_why(mem: Mem) -> None:
    page = client(mem).get("/status").text
    assert '<span class="badge unknown">not checked yet</span>' in page
    assert 'class="badge off">not checked' not in page
    assert '<a href="/status?model=1">check now</a>' in page


def _tagged(mem: Mem) -> Mem:
    mem.write("projects/apollo.md", "---\ntags: [apollo, Work]\n---\n# Apollo\n\n- risk: #auth bug in C# code, see "
                                    "[[x#y]] `#notatag` and &#39;\n")
    mem.write("daily/2026-11-25.md", "# 2026-11-25\n\n- fixed the #auth bug\n```\n#fenced\n```\n")
    mem.write("knowledge/secret.md", "---\nprivate: true\ntags: [hidden]\n---\n- #hidden too\n")
    mem.commit("tags")
    return mem


def test_tags_lists_frontmatter_tags_and_hashtags_and_leaves_private_pages_out(mem: Mem) -> None:
    out = _tagged(mem)("tags").stdout
    assert out.splitlines() == ["#auth    2 pages", "#apollo  1 page", "#work    1 page"]
    one = mem("tags", "#AUTH").stdout.splitlines()
    assert one == ["#auth  2 pages", "  daily/2026-11-25.md:3  - fixed the #auth bug",
                   "  projects/apollo.md:6  - risk: #auth bug in C# code, see [[x#y]] `#notatag` and &#39;"]
    assert mem("tags", "nothing").stdout == "no pages tagged 'nothing'\n"


def test_tags_page_and_api(mem: Mem) -> None:
    from tests.test_web import API

    c = client(_tagged(mem))
    page = c.get("/tags").text
    assert '<a href="/tags?tag=auth">#auth</a> <span class="count">2</span>' in page and "hidden" not in page
    one = c.get("/tags?tag=apollo").text
    assert '<a href="/page/projects/apollo.md">projects/apollo.md</a> <span class="meta">frontmatter</span>' in one
    assert [t["name"] for t in c.get("/api/tags", headers=API).json()["tags"]] == ["auth", "apollo", "work"]


def test_a_page_has_the_file_tree_beside_it_with_its_folder_open(mem: Mem) -> None:
    _tagged(mem)
    page = client(mem).get("/page/projects/apollo.md").text
    tree = re.search(r'<aside class="tree" aria-label="Pages">(.*?)</aside>', page, re.S)
    assert tree
    folders = re.findall(r"<details( open)?><summary>([^<]+)</summary>", tree.group(1))
    assert folders == [("", "daily"), ("", "knowledge"), (" open", "projects")]
    assert '<a href="/page/projects/apollo.md" aria-current="page">apollo</a>' in tree.group(1)


def test_preferences_view_groups_the_preferences_by_section(mem: Mem) -> None:
    mem.write("reference/preferences.md", "# Preferences\n\n## Food\n\n- **no** shellfish\n\n## Work\n\n"
                                          "- calls after 10am <!-- gitmem: preference 0.80 from sessions/s.md -->\n")
    mem.write("knowledge/facts.md", "# Facts\n\n- the office is in Lisbon\n")
    mem.commit("prefs")
    page = client(mem).get("/facts/preferences").text
    sections = re.findall(r'<h2 id="pref-\d+">([^<]+)</h2>', page)
    assert sections == ["Food", "Work"]
    assert "<strong>no</strong> shellfish" in page and "Lisbon" not in page
    assert '<a href="/facts/preferences" aria-current="page">Preferences</a>' in page


def test_summaries_view_lists_session_summaries_newest_first(mem: Mem) -> None:
    mem.write("daily/2026-11-20.md", "# 2026-11-20\n\n## 09:30 — Session summary (sessions/a.md)\n\n"
                                     "We planned the Apollo launch.\n\nTopics: apollo, planning\n\n## 10:00 — coffee\n")
    mem.write("daily/2026-11-21.md", "# 2026-11-21\n\n## 16:05 — Session summary (sessions/b.md)\n\nWe fixed auth.\n")
    mem.commit("summaries")
    page = client(mem).get("/facts/summaries").text
    days = re.findall(r'<h2><time datetime="([\d-]+)">', page)
    assert days == ["2026-11-21", "2026-11-20"]
    assert "We planned the Apollo launch." in page and '<span class="badge">planning</span>' in page
    assert "coffee" not in page
    assert 'from <a href="/page/sessions/a.md">sessions/a.md</a>' in page


def _form(c, path: str, **fields: str):  # type: ignore[no-untyped-def]
    from tests.test_web import csrf

    return c.post(path, data={"csrf": csrf(c), **fields})


def test_settings_page_shows_the_notebook_model_and_hooks(mem: Mem) -> None:
    page = client(mem).get("/settings").text
    assert "<dt>layout</dt><dd><code>folders</code></dd>" in page
    assert "(set by GITMEM_MODEL_DIR)" in page
    assert 'href="/settings" aria-current="page"' in page


def test_settings_keeps_a_model_folder_in_git_config_and_refuses_one_without_a_model(mem: Mem, tmp_path) -> None:
    from tests.conftest import MODEL_DIR

    c = client(mem)
    bad = _form(c, "/settings/model", model_dir=str(tmp_path))
    assert bad.status_code == 400 and f"no embedding model in {tmp_path}" in bad.text
    assert "modelDir" not in mem.git("config", "--local", "--list")
    ok = _form(c, "/settings/model", model_dir=str(MODEL_DIR))
    assert ok.status_code == 200 and "kept in git config mem.modelDir" in ok.text
    assert mem.git("config", "--local", "mem.modelDir").strip() == str(MODEL_DIR.resolve())


def test_settings_installs_and_removes_the_hooks(mem: Mem) -> None:
    hook = mem.path / ".git" / "hooks" / "post-commit"
    c = client(mem)
    if hook.exists():
        assert "hooks removed" in _form(c, "/settings/hooks", action="uninstall").text
    assert not hook.exists() or "gitmem" not in hook.read_text()
    assert "hooks installed" in _form(c, "/settings/hooks", action="install").text
    assert "gitmem" in hook.read_text()
    assert "Remove the hooks" in c.get("/settings").text


def test_the_json_api_refuses_unknown_fields_and_takes_keep_both(mem: Mem) -> None:
    """The API answers as the CLI and MCP do: a field they do not know is a 400, not silently dropped."""
    from tests.test_web import API

    c = client(mem)
    assert c.post("/api/remember", json={"text": "Sarah's phone is 555-1234"}, headers=API).status_code == 200
    typo = c.post("/api/remember", json={"text": "Sarah's phone is 555-9999", "keepboth": True}, headers=API)
    assert typo.status_code == 400 and typo.json()["error"] == "unknown field 'keepboth'"
    both = c.post("/api/remember", json={"text": "Sarah's phone is 555-9999", "keep_both": True}, headers=API)
    assert both.status_code == 200
    page = (mem.path / "reference" / "contacts.md").read_text()
    assert "555-1234" in page and "555-9999" in page  # keep_both kept the old line
    bad = c.get("/api/recall?q=phone&min_scor=0", headers=API)
    assert bad.status_code == 400 and bad.json()["error"] == "unknown parameter 'min_scor'"
    for path, data in (("/api/daily", {"text": "x", "when": "now"}), ("/api/write", {"path": "a.md", "body": "x"}),
                       ("/api/forget", {"target": "x", "everything": True}), ("/api/facts/confirm", {"spec": "a.md:1", "x": 1})):
        assert c.post(path, json=data, headers=API).status_code == 400, path


def test_a_search_in_the_browser_reinforces_the_facts_it_shows(mem: Mem) -> None:
    """Only the CLI and MCP marked a search as served; the web API and page now do too."""
    from gitmem.gitops.repo import open_notebook
    from gitmem.index import confidence
    from tests.test_web import API

    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 -->\n")
    mem.commit("facts")
    assert confidence._served(open_notebook(mem.path), "knowledge/facts.md") == {}
    assert client(mem).get("/api/recall?q=jazz&mode=keyword", headers=API).status_code == 200
    assert list(confidence._served(open_notebook(mem.path), "knowledge/facts.md")) == ["bob likes jazz"]


def test_a_bug_in_the_web_app_is_logged_with_the_id_the_person_sees(mem: Mem, monkeypatch) -> None:
    from starlette.testclient import TestClient

    from gitmem.web import files
    from gitmem.web.app import create_app
    from tests.test_web import API

    def broken(nb):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(files, "listing", broken)
    c = TestClient(create_app(mem.path, {"testserver"}), raise_server_exceptions=False)
    answer = c.get("/api/files", headers=API)
    assert answer.status_code == 500
    bug_id = answer.json()["id"]
    assert re.fullmatch(r"[0-9a-f]{8}", bug_id) and f"(id {bug_id})" in answer.json()["error"]
    log = (mem.path / ".git" / "gitmem" / "error.log").read_text()
    assert f"[{bug_id}] git mem serve: GET /api/files" in log and "ZeroDivisionError: a bug" in log
    page = c.get("/browse")
    assert page.status_code == 500 and "internal error in gitmem (id " in page.text


def test_a_full_disk_in_the_web_app_is_one_line_not_a_bug(mem: Mem, monkeypatch) -> None:
    import errno

    from starlette.testclient import TestClient

    from gitmem.web import files
    from gitmem.web.app import create_app
    from tests.test_web import API

    def full(nb):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "listing", full)
    c = TestClient(create_app(mem.path, {"testserver"}), raise_server_exceptions=False)
    answer = c.get("/api/files", headers=API)
    assert answer.status_code == 503 and answer.json()["error"] == "the disk is full"
    assert not (mem.path / ".git" / "gitmem" / "error.log").exists()


def test_web_api_fields_are_the_mcp_tools_parameters_which_are_the_clis() -> None:
    """One set of names across the faces: each endpoint takes its MCP tool's parameters (which
    test_server compares with the CLI's options), plus only the named browser-only fields."""
    from gitmem.agent import server
    from gitmem.web.api import FIELDS, WEB_ONLY

    tools = {t.name: set(t.params) for t in server.TOOLS}
    for endpoint, fields in FIELDS.items():
        if endpoint in tools:  # links and tags have no tool
            assert set(fields) - WEB_ONLY.get(endpoint, set()) == tools[endpoint], endpoint


def test_old_api_names_still_work_but_not_twice(mem: Mem) -> None:
    from tests.test_web import API

    mem("remember", "Sarah's phone is 555-1234")
    c = client(mem)
    new = c.get("/api/recall?query=phone&mode=keyword", headers=API).json()
    old = c.get("/api/recall?q=phone&mode=keyword", headers=API).json()
    assert new["results"] and new["results"] == old["results"]
    both = c.get("/api/recall?q=phone&query=phone", headers=API)
    assert both.status_code == 400 and both.json()["error"].startswith("'query' given twice (as 'q' and as 'query')")
    assert c.post("/api/write", json={"page": "a.md", "content": "x"}, headers=API).status_code == 200
    assert c.post("/api/write", json={"path": "b.md", "content": "y"}, headers=API).status_code == 200
    assert (mem.path / "a.md").read_text() == "# A\n\nx\n" and (mem.path / "b.md").read_text() == "# B\n\ny\n"
    assert c.get("/api/log?limit=1", headers=API).status_code == 200 and c.get("/api/log?n=1", headers=API).status_code == 200


def test_browser_search_says_its_hints_as_links_not_cli_flags(mem: Mem) -> None:
    mem("session", "save", "--chat", "c1", "-", input="user: the zebra password hint is in the blue folder\n")
    mem("remember", "Sarah's phone is 555-1234")
    page = client(mem).get("/search?q=zebra+blue+folder&mode=keyword").text
    assert "--min-score" not in page and "git mem search" not in page
    assert re.search(r'\d+ match(es)? in saved sessions: <a href="/search\?q=zebra\+blue\+folder&amp;kind=search&amp;'
                     r'in=sessions">search them</a>', page), page[page.find("note"):][:400]


def test_search_in_the_browser_is_one_ranking_and_recall_keeps_its_groups(mem: Mem) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    mem("daily", "Called Sarah about her phone bill")
    c = client(mem)
    grouped = c.get("/search?q=Sarah+phone&mode=keyword").text
    assert "<h3>NOTEBOOK (1)</h3>" in grouped and "<h3>DAILY (1)</h3>" in grouped
    flat = c.get("/search?q=Sarah+phone&mode=keyword&kind=search").text
    assert "<h3>NOTEBOOK" not in flat and flat.count('<li class="hit') >= 2


def test_the_browser_writes_as_a_person_in_a_server_an_agent_started(mem: Mem, monkeypatch) -> None:
    """`git mem serve` started from Claude Code's Bash tool has CLAUDECODE=1; an edit of USER.md in the
    browser is the person's, never refused as an agent's (notes/change.not_the_agents)."""
    from tests.test_web import API

    monkeypatch.setenv("CLAUDECODE", "1")
    c = client(mem)
    response = c.post("/api/write", json={"page": "USER.md", "content": "- Prefers short answers."}, headers=API)
    assert response.status_code == 200, response.text
    assert "- Prefers short answers." in (mem.path / "USER.md").read_text()
