"""git mem serve end to end in a real browser: Playwright driving Debian's chromium.

CI needs: apt-get install -y chromium (the browser at /usr/bin/chromium) and the
test extra (pip install -e '.[test]', which brings playwright). No
`playwright install`: the tests use the system chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import Mem

CHROMIUM = os.environ.get("GITMEM_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no browser at {CHROMIUM}: "
                                "apt-get install -y chromium")


class Served:
    def __init__(self, mem: Mem, url: str) -> None:
        self.mem, self.url = mem, url


def serve(mem: Mem) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", "--port", "0"], cwd=mem.path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
    assert found, line + (proc.stderr.read() if proc.stderr and proc.poll() is not None else "")
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(found.group(1) + "static/style.css", timeout=5).close()
            return proc, found.group(1)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def served(mem: Mem) -> Iterator[Served]:
    mem("remember", "Sarah's phone is 555-1234")
    mem("daily", "Called Sarah about the launch")
    mem.write("knowledge/plan.md", "# Plan\n\nShip on Friday\n")
    mem.commit("plan")
    proc, url = serve(mem)
    try:
        yield Served(mem, url)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def page(served: Served) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        tab = context.new_page()
        dialogs: list[str] = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
        tab.dialogs = dialogs  # type: ignore[attr-defined]
        try:
            yield tab
        finally:
            browser.close()


def test_open_and_browse(served: Served, page) -> None:
    page.goto(served.url)
    assert page.get_by_role("heading", name="Notebook").is_visible()
    page.get_by_role("link", name="Pages", exact=True).click()
    page.get_by_role("link", name="knowledge/plan.md").click()
    assert page.locator("article h1").inner_text() == "Plan"
    assert "Ship on Friday" in page.locator("article").inner_text()


def test_search(served: Served, page) -> None:
    page.goto(served.url + "search")
    page.get_by_label("Query").fill("Sarah phone")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"/search\?q=Sarah"))
    hits = page.locator(".hit a").all_inner_texts()
    assert any(h.startswith("reference/contacts.md:") for h in hits), hits
    assert page.get_by_role("heading", name=re.compile(r"^NOTEBOOK \(\d+\)$")).is_visible()


def test_edit_preview_and_save_makes_the_commit(served: Served, page) -> None:
    mem = served.mem
    before = mem.git("rev-parse", "HEAD").strip()
    page.goto(served.url + "edit/knowledge/plan.md")
    box = page.get_by_label("Markdown")
    box.fill("# Plan\n\nShip on **Monday**\n")
    page.locator("#preview strong").wait_for()  # htmx live preview
    assert page.locator("#preview strong").inner_text() == "Monday"
    page.get_by_role("button", name="Save (one commit)").click()
    page.wait_for_url(re.compile(r"/page/knowledge/plan\.md"))
    assert "saved in" in page.locator(".flash").inner_text()
    assert (mem.path / "knowledge/plan.md").read_text() == "# Plan\n\nShip on **Monday**\n"
    assert mem.git("rev-parse", "HEAD~1").strip() == before
    assert "+Ship on **Monday**" in mem.git("show", "HEAD", "--", "knowledge/plan.md")


def test_history_and_the_page_as_of_a_commit(served: Served, page) -> None:
    mem = served.mem
    old = mem.git("rev-parse", "HEAD").strip()
    mem("write", "knowledge/plan.md", "--replace", "# Plan\n\nCancelled")
    page.goto(served.url + "page/knowledge/plan.md")
    page.get_by_role("link", name="History").click()
    assert "Cancelled" in page.locator(".timeline").inner_text()
    page.locator(f'a[href="/page/knowledge/plan.md?at={old}"]').first.click()
    assert "Ship on Friday" in page.locator("article").inner_text()
    assert old[:7] in page.locator(".meta").inner_text()


def test_forget_with_confirmation(served: Served, page) -> None:
    mem = served.mem
    page.goto(served.url + "forget")
    page.get_by_label("Text to forget, or PATH:LINES").fill("555-1234")
    page.get_by_role("button", name="Show what would be forgotten").click()
    assert "reference/contacts.md:3" in page.locator(".spots").inner_text()
    assert "555-1234" in (mem.path / "reference/contacts.md").read_text()  # nothing yet
    page.get_by_role("button", name="Yes, forget it").click()
    assert "Forgot 1 span" in page.locator(".flash").inner_text()
    assert "555-1234" not in (mem.path / "reference/contacts.md").read_text()
    assert mem.git("log", "-1", "--format=%s").strip().startswith("mem: forget")


def test_forget_from_the_facts_page_never_takes_the_line_that_moved_into_place(served: Served, page) -> None:
    """The Forget… button carries the fact it was shown beside: a line removed above it before the
    click (another window, a pull) makes the click refused, not another fact forgotten."""
    mem = served.mem
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz\n- Alice lives in Lisbon\n- Carol bikes\n")
    mem.commit("facts")
    page.goto(served.url + "facts")
    mem.write("knowledge/facts.md", "# Facts\n\n- Alice lives in Lisbon\n- Carol bikes\n")
    mem.commit("Bob's line goes, elsewhere")
    page.locator(".fact", has_text="Alice lives").locator("summary").click()  # the fact's small menu
    page.get_by_role("button", name="Forget knowledge/facts.md:4").click()  # Alice's, as the page showed
    assert "no longer holds the fact you chose" in page.get_by_role("alert").inner_text()
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n\n- Alice lives in Lisbon\n- Carol bikes\n"
    page.goto(served.url + "facts")
    page.locator(".fact", has_text="Alice lives").locator("summary").click()
    page.get_by_role("button", name="Forget knowledge/facts.md:3").click()
    page.get_by_role("button", name="Yes, forget it").click()
    assert "Forgot 1 span" in page.locator(".flash").inner_text()
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n\n- Carol bikes\n"


def test_forget_everything_from_the_facts_page_after_typing_the_words(served: Served, page) -> None:
    mem = served.mem
    before = mem.git("rev-parse", "HEAD").strip()
    page.goto(served.url + "facts")
    page.get_by_role("link", name="Forget everything…").click()
    box = page.get_by_label("To confirm, type forget everything")
    box.fill("forget")
    page.get_by_role("button", name="Forget everything").click()
    assert "nothing was forgotten" in page.get_by_role("alert").inner_text()
    assert mem.git("rev-parse", "HEAD").strip() == before
    page.get_by_label("To confirm, type forget everything").fill("forget everything")
    page.get_by_role("button", name="Forget everything").click()
    assert page.locator(".flash").inner_text().startswith("Forgot 3 lines from 3 pages in commit")
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: forget everything: 3 lines from 3 pages"
    assert "555-1234" not in (mem.path / "reference/contacts.md").read_text()


def test_a_session_is_deleted_after_the_dialog_with_javascript_and_after_a_page_without(served: Served,
                                                                                      page) -> None:
    mem = served.mem
    for chat in ("7", "8"):
        mem("session", "save", "--chat", chat, "-", input=f"user: hello {chat}\nassistant: hi\n")
    page.goto(served.url + "sessions")
    page.locator("form:has(input[name=chat][value='7']) button").click()  # the fixture accepts the dialog
    page.wait_for_url(re.compile(r"/sessions\?flash="))
    assert page.dialogs and page.dialogs[-1].startswith("Delete the session")  # type: ignore[attr-defined]
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: session rm 7"
    context = page.context.browser.new_context(java_script_enabled=False)  # no dialog: the server asks
    try:
        plain = context.new_page()
        plain.goto(served.url + "sessions")
        plain.locator("form:has(input[name=chat][value='8']) button").click()
        assert "Delete the session of chat 8?" in plain.locator("h1").inner_text()
        assert mem.git("log", "-1", "--format=%s").strip() == "mem: session rm 7"
        plain.get_by_role("button", name="Delete the session").click()
        plain.wait_for_url(re.compile(r"/sessions\?flash="))
        assert mem.git("log", "-1", "--format=%s").strip() == "mem: session rm 8"
    finally:
        context.close()


def test_a_script_payload_in_a_note_never_runs(served: Served, page) -> None:
    mem = served.mem
    mem.write("evil.md", "# Evil\n\n<script>window.pwned = 1; alert('script')</script>\n\n"
                         "<img src=x onerror=\"window.pwned = 2; alert('img')\">\n\n"
                         "<a href=\"javascript:window.pwned=3;alert('link')\">click me</a>\n\n"
                         "[or me](javascript:window.pwned=4)\n\n"
                         "<svg onload=\"alert('svg')\"></svg> <iframe src=\"javascript:alert('frame')\"></iframe>\n")
    mem.commit("evil")
    hostile = "article script, article [onerror], article [onload], article iframe, article svg, a[href^='javascript']"
    page.goto(served.url + "page/evil.md")
    assert page.locator(hostile).count() == 0
    assert "window.pwned = 1" not in page.locator("article").inner_text()  # the script and its text are gone
    page.get_by_text("click me").click()
    assert page.evaluate("window.pwned") is None
    page.goto(served.url + "edit/evil.md")  # the live preview renders it too
    page.get_by_label("Markdown").press("End")
    page.get_by_label("Markdown").type(" ")
    page.wait_for_timeout(1200)
    assert page.locator("#preview script, #preview [onerror], #preview a[href^='javascript']").count() == 0
    assert page.evaluate("window.pwned") is None
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_keyboard_focus_and_phone_width(served: Served, page) -> None:
    page.goto(served.url)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # visible focus
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    unlabelled = page.evaluate("""[...document.querySelectorAll('input:not([type=hidden]), textarea, select')]
        .filter(e => !e.labels.length && !e.getAttribute('aria-label')).length""")
    assert unlabelled == 0
    page.set_viewport_size({"width": 360, "height": 740})
    for path in ("", "browse", "page/knowledge/plan.md", "search?q=Sarah&mode=keyword", "log", "status", "facts",
                 "review", "forget", "forget/everything"):
        page.goto(served.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (path, width)


def test_reading_searching_and_saving_work_with_javascript_off(served: Served) -> None:
    from playwright.sync_api import sync_playwright

    mem = served.mem
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_context(java_script_enabled=False).new_page()
            page.goto(served.url + "search?q=Sarah+phone&mode=keyword")
            assert page.locator(".hit a").first.inner_text().startswith("reference/contacts.md")
            page.goto(served.url + "edit/knowledge/plan.md")
            page.get_by_label("Markdown").fill("# Plan\n\nShip *soon*\n")
            page.get_by_role("button", name="Preview").click()  # a plain form post without htmx
            assert page.locator("#preview em").inner_text() == "soon"
            assert "Ship on Friday" in (mem.path / "knowledge/plan.md").read_text()  # preview saves nothing
            page.get_by_role("button", name="Save (one commit)").click()
            assert page.locator("article em").inner_text() == "soon"
            assert (mem.path / "knowledge/plan.md").read_text() == "# Plan\n\nShip *soon*\n"
        finally:
            browser.close()


def test_rebuild_from_the_status_page_reports_progress_until_done(served: Served, page) -> None:
    page.goto(served.url + "status")
    page.get_by_role("button", name="Rebuild").click()
    status = page.locator("#rebuild")
    status.get_by_text("Rebuilt at").wait_for(timeout=120_000)  # htmx polls /rebuild every second
    assert re.search(r"\d+ commits, \d+ chunks", status.inner_text())
    assert page.url.endswith("/status")  # updated in place, no page load


def test_facts_confirm_and_forget_from_the_facts_page(served: Served, page) -> None:
    mem = served.mem
    mem.write("knowledge/people.md", "# People\n\n- Bob plays bass <!-- gitmem: inferred 0.70 from sessions/s.md -->\n"
                                     "- Carol moved to Lisbon\n")
    mem.commit("people")
    page.goto(served.url + "facts")
    bob = page.locator(".fact", has_text="Bob plays bass")
    assert bob.locator(".label").inner_text() == "medium 0.70 · inferred"
    assert bob.locator(".dot.medium").count() == 1
    bob.get_by_role("button", name="Confirm knowledge/people.md:3").click()
    assert "saved in" in page.locator(".flash").inner_text()
    assert "confirmed " in (mem.path / "knowledge/people.md").read_text().split("\n")[2]
    carol = page.locator(".fact", has_text="Carol moved")
    carol.locator("summary").click()  # forget sits behind the fact's small menu
    carol.get_by_role("button", name="Forget knowledge/people.md:4").click()
    assert "knowledge/people.md:4" in page.locator(".spots").inner_text()
    assert "Carol" in (mem.path / "knowledge/people.md").read_text()  # asked first
    page.get_by_role("button", name="Yes, forget it").click()
    assert "Carol" not in (mem.path / "knowledge/people.md").read_text()


def test_diff_lines_are_single_spaced(served: Served, page) -> None:
    mem = served.mem
    mem("write", "knowledge/plan.md", "--replace", "# Plan\n\nShip on Monday\nTell Sarah\nBook the room")
    page.goto(served.url + "history/knowledge/plan.md")
    lines = page.locator(".diff").first.locator("span")
    boxes = [lines.nth(i).bounding_box() for i in range(lines.count())]
    assert len(boxes) >= 3, boxes
    gaps = [round(b["y"] - (a["y"] + a["height"])) for a, b in zip(boxes, boxes[1:])]
    assert gaps == [0] * len(gaps)  # no blank line between two lines of a diff
    assert page.locator(".diff").first.inner_text().count("\n\n") == 0


def test_a_commit_message_keeps_its_lines_in_the_history(served: Served, page) -> None:
    mem = served.mem
    mem.write("knowledge/plan.md", "# Plan\n\nShip on Monday\n")
    mem.commit("Plan moved\n\nSarah asked for Monday.\n\nReviewed-by: Bob")
    page.goto(served.url + "history/knowledge/plan.md")
    message = page.locator(".entry .subject").first.inner_text()
    assert message == "Plan moved\n\nSarah asked for Monday.\n\nReviewed-by: Bob"  # not one run-on line


HOSTILE = """---
title: "<script>window.pwned='frontmatter'</script>"
---
# Hostile <img src=x onerror="window.pwned='heading'">

<div hx-get="/api/export" hx-trigger="load" hx-swap="outerHTML">hx-get on load</div>
<div data-hx-post="/rebuild" data-hx-trigger="load">data-hx-post</div>
<button hx-post="/forget/everything" hx-vals='{"confirm": "forget everything"}' hx-trigger="load">hx-post</button>
<span hx-on::load="window.pwned='hx-on'">hx-on</span>
<meta http-equiv="refresh" content="0;url=https://evil.example/">
<base href="https://evil.example/">
<link rel="stylesheet" href="https://evil.example/x.css">
<style>body { background: url(https://evil.example/bg.png) }</style>
<p style="background: url(https://evil.example/p.png)">styled</p>
![remote](https://tracker.example/pixel.png) <img src="//tracker.example/pr.png"> <img srcset="https://tracker.example/s.png 1x">
<video poster="https://tracker.example/v.png"></video><iframe src="https://evil.example/"></iframe>
<template><img src=x onerror="window.pwned='template'"></template>
<noscript><img src=x onerror="window.pwned='noscript'"></noscript>
<a href="&#x6A;avascript:window.pwned='entity'">entity</a> <a href=" JaVa	ScRiPt:window.pwned='split'">split</a> [ref][r]
<details open ontoggle="window.pwned='toggle'"><summary>s</summary>d</details>

[r]: javascript:window.pwned='ref'
"""


def test_a_hostile_note_loads_nothing_remote_and_triggers_nothing(served: Served, page) -> None:
    """htmx processes attributes in what it swaps in, remote resources would tell a third party you
    read the note, <base>/<meta refresh> would move you elsewhere: none of it survives, and the
    Content-Security-Policy stops inline script even when it is put into the page."""
    served.mem.write("hostile.md", HOSTILE)
    served.mem.commit("hostile <img src=x onerror=\"window.pwned='subject'\">")
    requests: list[tuple[str, str]] = []
    page.on("request", lambda r: requests.append((r.method, r.url)))
    for path in ("page/hostile.md", "delete/hostile.md", "history/hostile.md", "log", "search?q=hostile&mode=keyword"):
        page.goto(served.url + path)
        page.wait_for_timeout(500)
        assert page.url == served.url + path and page.evaluate("window.pwned") is None, path
    page.goto(served.url + "edit/hostile.md")  # the live preview is swapped in by htmx
    page.get_by_label("Markdown").press("End")
    page.get_by_label("Markdown").type(" ")
    page.wait_for_timeout(1500)
    assert page.locator("#preview [hx-get], #preview [hx-post], #preview [data-hx-post], #preview [hx-trigger]").count() == 0
    page.evaluate("""() => {  // as if something got past the sanitiser
        document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.pwned=\\'inline\\'">');
        const s = document.createElement('script'); s.textContent = "window.pwned='script'"; document.body.appendChild(s);
        const a = document.createElement('a'); a.id = 'slip'; a.href = "javascript:window.pwned='href'"; a.textContent = 'x';
        document.body.appendChild(a); }""")
    page.click("#slip")
    page.wait_for_timeout(500)
    assert page.evaluate("window.pwned") is None and page.dialogs == []  # type: ignore[attr-defined]
    assert [u for _, u in requests if not u.startswith(served.url)] == []  # nothing remote was fetched
    assert [(m, u) for m, u in requests if m != "GET"] == [("POST", served.url + "preview")]
    assert "hostile.md" in served.mem.git("ls-files") and served.mem.git("status", "--short") == ""


def test_rename_from_the_pages_menu_updates_its_links_in_one_commit(served: Served, page) -> None:
    mem = served.mem
    mem.write("projects/apollo.md", "# Apollo\n\n- plan: [[plan]] and [the plan](../knowledge/plan.md)\n")
    mem.commit("apollo")
    before = mem.git("rev-parse", "HEAD").strip()
    page.goto(served.url + "page/knowledge/plan.md")
    page.get_by_label("More for knowledge/plan.md").click()
    page.get_by_role("link", name="Rename…").click()
    page.wait_for_url(re.compile(r"/rename/knowledge/plan\.md"))
    box = page.get_by_label("Update 2 links in 1 page")
    assert box.is_checked()
    page.get_by_label("New name").fill("archive/old-plan.md")
    with page.expect_request(re.compile(r"/api/mv$")) as sent:
        page.get_by_role("button", name="Rename").click()
    assert sent.value.post_data_json == {"old": "knowledge/plan.md", "new": "archive/old-plan.md", "no_links": False}
    page.wait_for_url(re.compile(r"/page/archive/old-plan\.md\?flash="))  # then to the page
    assert page.locator(".flash").inner_text() == "renamed from knowledge/plan.md"
    assert page.locator("article h1").inner_text() == "Plan"
    assert mem.git("rev-parse", "HEAD~1").strip() == before  # one commit
    assert (mem.path / "projects/apollo.md").read_text() == (
        "# Apollo\n\n- plan: [[old-plan]] and [the plan](../archive/old-plan.md)\n")
    assert page.locator(".backlinks a").all_inner_texts() == ["projects/apollo.md", "projects/apollo.md"]
    # a name that exists: the error is shown in the form, nothing changes
    page.goto(served.url + "rename/archive/old-plan.md")
    page.get_by_label("New name").fill("projects/apollo.md")
    page.get_by_role("button", name="Rename").click()
    page.locator(".rename .error").wait_for()
    assert page.locator(".rename .error").inner_text().startswith("error: projects/apollo.md exists already")
    assert mem.git("rev-parse", "HEAD~1").strip() == before
