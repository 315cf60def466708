"""git mem serve: the facts page (confidence dot and label, confirm, forget, export) and the
review page (consolidation proposals accepted or dropped), in-process."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from gitmem.agent import review
from gitmem.gitops.repo import open_notebook
from gitmem.web.app import create_app
from tests.conftest import Mem

API = {"X-Gitmem": "1"}
FACTS = ("# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 from sessions/s.md -->\n"
         "- Alice lives in Lisbon\n- Carol moved <!-- gitmem: inferred 0.30 from sessions/t.md -->\n")


def client(mem: Mem) -> TestClient:
    return TestClient(create_app(mem.path, {"testserver"}), follow_redirects=False)


def csrf(c: TestClient) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', c.get("/forget").text)
    assert found
    return found.group(1)


def propose(m: Mem, changes: dict[str, str], session: str = "sessions/x.md") -> str:
    head = m.git("rev-parse", "HEAD").strip()
    message = f"mem: consolidate {session}\n\nGitmem-Session: {session}\nGitmem-Session-Blob: abc\nGitmem-Model: m\n"
    return review.propose(open_notebook(m.path), head, changes, message)


def test_facts_show_source_and_confidence_as_dot_and_label(mem: Mem) -> None:
    mem.write("knowledge/facts.md", FACTS)
    mem.commit("facts")
    c = client(mem)
    page = c.get("/facts").text
    assert re.search(r'<span class="dot medium" aria-hidden="true"></span>\s*<span class="label">medium 0.70 · inferred'
                     r'</span>\s*<p class="text">Bob likes jazz</p>', page)  # the list marker is not the fact
    assert re.search(r'<span class="dot high"[^>]*></span>\s*<span class="label">high 1.00 · explicit', page)
    assert re.search(r'<span class="dot low"[^>]*></span>\s*<span class="label">low 0.30 · inferred', page)
    assert 'learned from <a href="/page/sessions/s.md">sessions/s.md</a>' in page
    assert "gitmem: inferred" not in page  # the annotation is the source of the label, never shown raw
    low = c.get("/facts?level=low").text
    assert "Carol moved" in low and "Bob likes jazz" not in low
    data = c.get("/api/facts?download=1")
    assert data.headers["content-disposition"] == 'attachment; filename="facts.json"'
    assert data.json()["by_level"] == {"medium": 1, "high": 1, "low": 1}
    assert {(f["line"], f["source"], f["stated"]) for f in data.json()["facts"]} == \
        {(3, "inferred", 0.7), (4, "explicit", 1.0), (5, "inferred", 0.3)}


def test_facts_are_rendered_as_markdown_and_forget_sits_in_a_menu(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- **Sarah** prefers `calls` after [[contacts|10am]]\n"
                                    "- a <script>alert(1)</script> line\n")
    mem.commit("facts")
    page = client(mem).get("/facts").text
    assert '<p class="text"><strong>Sarah</strong> prefers <code>calls</code> after <a href="/new?path=contacts.md"' in page
    assert "<script>alert" not in page
    menu = re.search(r'<details class="menu">(.*?)</details>', page, re.S)
    assert menu and 'aria-label="Forget knowledge/facts.md:3"' in menu.group(1)
    assert 'class="danger" aria-label="Forget' not in page  # no big red button on every fact


def test_confirm_stamps_the_fact_in_one_commit(mem: Mem) -> None:
    mem.write("knowledge/facts.md", FACTS)
    mem.commit("facts")
    c = client(mem)
    response = c.post("/facts/confirm", data={"csrf": csrf(c), "spec": "knowledge/facts.md:3"})
    assert response.status_code == 303 and response.headers["location"].startswith("/facts?flash=saved%20in%20")
    line = (mem.path / "knowledge/facts.md").read_text().split("\n")[2]
    assert re.fullmatch(r"- Bob likes jazz <!-- gitmem: inferred 0.70 from sessions/s.md confirmed \d{4}-\d{2}-\d{2} -->",
                        line)
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: confirm knowledge/facts.md:3"
    bad = c.post("/api/facts/confirm", json={"spec": "knowledge/facts.md:1"}, headers=API)
    assert bad.status_code == 400 and "is not a fact" in bad.json()["error"]


def test_forget_from_the_facts_page_asks_first(mem: Mem) -> None:
    mem.write("knowledge/facts.md", FACTS)
    mem.commit("facts")
    c = client(mem)
    form = re.search(r'action="/forget" class="inline">\s*<input type="hidden" name="csrf" value="[^"]+">'
                     r'<input type="hidden" name="target" value="knowledge/facts.md:4">'
                     r'<input type="hidden" name="fact" value="- Alice lives in Lisbon">', c.get("/facts").text)
    assert form
    ask = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:4", "fact": "- Alice lives in Lisbon"})
    assert "Forget 1 line?" in ask.text and "Alice lives in Lisbon" in (mem.path / "knowledge/facts.md").read_text()


def seen_of(page: str) -> str:
    found = re.search(r'name="seen" value="([0-9a-f]+)"', page)
    assert found, page
    return found.group(1)


@pytest.mark.tally("bad-input/fault matrix")
def test_a_forget_names_the_line_it_saw_and_is_refused_when_it_moved(mem: Mem) -> None:
    """The Forget… button and the confirmation carry what the person saw: a line removed above
    PATH:LINE before the click, or before the confirmation, never makes another fact go."""
    mem.write("knowledge/facts.md", FACTS)
    mem.commit("facts")
    c = client(mem)
    before = mem.git("rev-parse", "HEAD")
    mem.write("knowledge/facts.md", FACTS.replace("- Bob likes jazz <!-- gitmem: inferred 0.70 from sessions/s.md -->\n",
                                                  ""))
    mem.commit("Bob's line goes, in another window")
    page = (mem.path / "knowledge/facts.md").read_text()
    moved = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:4", "fact": "- Alice lives in Lisbon"})
    assert moved.status_code == 409 and "no longer holds the fact you chose" in moved.text
    assert (mem.path / "knowledge/facts.md").read_text() == page
    ask = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:3", "fact": "- Alice lives in Lisbon"})
    assert ask.status_code == 200 and "Forget 1 line?" in ask.text
    seen = seen_of(ask.text)
    mem.write("knowledge/facts.md", "# Facts\n\n- Dan is new here\n" + page.split("\n", 2)[2])  # a line above, again
    mem.commit("Dan's line lands before the confirmation")
    page = (mem.path / "knowledge/facts.md").read_text()
    late = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:3", "confirm": "yes", "seen": seen})
    assert late.status_code == 409 and "changed since you looked" in late.text
    assert (mem.path / "knowledge/facts.md").read_text() == page and "Lisbon" in page and "Dan is new" in page
    assert mem.git("log", "-1", "--format=%s").strip() == "Dan's line lands before the confirmation"
    assert "Dan is new here" in late.text  # what the line holds now is shown, to confirm or not
    ask = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:4", "fact": "- Alice lives in Lisbon"})
    again = c.post("/forget", data={"csrf": csrf(c), "target": "knowledge/facts.md:4", "confirm": "yes",
                                    "seen": seen_of(ask.text)})
    assert "Forgot 1 span" in again.text and "Lisbon" not in (mem.path / "knowledge/facts.md").read_text()
    assert "Dan is new" in (mem.path / "knowledge/facts.md").read_text() and before != mem.git("rev-parse", "HEAD")


def test_review_lists_proposals_with_their_diff_and_accepts_one(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- one\n")
    mem.commit("facts")
    oid = propose(mem, {"knowledge/facts.md": "# Facts\n\n- one\n- learned from a chat\n"})
    c = client(mem)
    page = c.get("/review").text
    assert f"<code>{oid[:7]}</code> mem: consolidate sessions/x.md" in page
    assert '<span class="add">+- learned from a chat</span>' in page
    assert c.get("/api/review").json()["proposals"][0]["id"] == oid
    response = c.post("/review/accept", data={"csrf": csrf(c), "id": oid})
    assert response.status_code == 303
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n\n- one\n- learned from a chat\n"
    assert f"Gitmem-Proposal: {oid}" in mem.git("log", "-1", "--format=%B")
    assert "No pending proposals" in c.get("/review").text


def test_review_drops_a_proposal_without_touching_the_pages(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- one\n")
    mem.commit("facts")
    oid = propose(mem, {"knowledge/facts.md": "# Facts\n\n- one\n- wrong guess\n"})
    head = mem.git("rev-parse", "HEAD").strip()
    c = client(mem)
    dropped = c.post("/api/review/drop", json={"ids": [oid[:7]]}, headers=API).json()
    assert dropped["action"] == "dropped" and dropped["proposals"][0]["id"] == oid
    assert mem.git("rev-parse", "HEAD").strip() == head and "wrong guess" not in (mem.path / "knowledge/facts.md").read_text()
    assert c.get("/api/review").json()["proposals"] == []
    assert c.post("/review/drop", data={"csrf": csrf(c)}).status_code == 400  # nothing chosen


def test_search_shows_the_fact_and_its_confidence_not_the_raw_note(mem: Mem) -> None:
    mem.write("knowledge/facts.md", FACTS)
    mem.commit("facts")
    page = client(mem).get("/search?q=who+likes+jazz").text
    hit = page.split('<li class="hit', 1)[1].split("</li>", 1)[0]
    assert 'href="/page/knowledge/facts.md?lines=3-3"' in hit
    # the engine's hit confidence: the lowest of the learned facts in the hit's chunk (Carol's 0.30)
    assert '<span class="dot low" aria-hidden="true"></span> <span class="label">low confidence 0.30</span>' in hit
    # the answer first, rendered as markdown without its list marker; where and when under it
    assert '<div class="answer fact-text">Bob likes jazz</div>' in hit and "gitmem: inferred" not in hit
    assert hit.index("answer fact-text") < hit.index('class="where"') < hit.index('class="meta"')


def test_dropping_in_the_browser_says_dropped_not_saved(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- one\n")
    mem.commit("facts")
    oid = propose(mem, {"knowledge/facts.md": "# Facts\n\n- one\n- wrong guess\n"})
    c = client(mem)
    response = c.post("/review/drop", data={"csrf": csrf(c), "id": oid})
    assert response.status_code == 303 and response.headers["location"] == "/review?flash=dropped%201%20proposal"
    assert '<p class="flash" role="status">dropped 1 proposal</p>' in c.get(response.headers["location"]).text


def test_review_page_leaves_forgotten_lines_out_and_says_so(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- one\n")
    mem.commit("facts")
    propose(mem, {"knowledge/facts.md": "# Facts\n\n- one\n- Alice lives at 12 Elm Street\n- Alice plays chess\n"})
    mem("remember", "--to", "reference/contacts.md", "Alice lives at 12 Elm Street")
    mem("forget", "Alice lives at 12 Elm Street")
    page = client(mem).get("/review").text
    assert "Elm" not in page and '<span class="add">+- Alice plays chess</span>' in page
    assert ("note: 1 line it adds to knowledge/facts.md was forgotten (git mem forget) and is left out here and "
            "on accept") in page
