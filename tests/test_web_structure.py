"""The web's home page shows the plan and the active goals."""

from __future__ import annotations

import re

from tests.conftest import Mem
from tests.test_web import client


def test_home_shows_the_plan_and_active_goals(mem: Mem) -> None:
    mem("plan", "update", "1. Ship the **beta**\n2. Write the docs", "--reason", "launch moved")
    mem("goal", "add", "Learn Spanish", "--description", "Reach B1 by the summer")
    mem("goal", "update", "learn-spanish", "--progress", "40")
    mem("goal", "add", "Old goal")
    mem("goal", "update", "old-goal", "--status", "abandoned")
    html = client(mem).get("/").text
    plan = html.split('<h2 id="plan-h">Plan</h2>')[1].split("</section>")[0]
    assert "<li>Ship the <strong>beta</strong></li>" in plan
    assert re.search(r"Last changed \d{4}-\d\d-\d\d: launch moved", plan)
    assert '<a href="/history/PLAN.md">every version</a>' in plan
    assert '<a href="/page/goals/learn-spanish.md">Learn Spanish</a> <progress value="40" max="100"' in plan
    assert "<small>Reach B1 by the summer</small>" in plan and "Old goal" not in plan


def test_home_without_a_plan_says_how_to_write_one(mem: Mem) -> None:
    html = client(mem).get("/").text
    assert "No plan yet. Write one with <code>git mem plan update" in html
    assert "No active goals. Add one with <code>git mem goal add" in html


def test_goal_text_is_escaped(mem: Mem) -> None:
    mem("goal", "add", "<script>alert(1)</script> goal", "--description", "<img src=x onerror=alert(1)>")
    html = client(mem).get("/").text
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html


def test_the_plan_and_goals_in_a_real_browser(mem: Mem) -> None:
    """Chromium shows the card, the progress bar reads as the goal's progress, its link opens the goal page."""
    from pathlib import Path

    import pytest

    from tests.test_web_browser import CHROMIUM, serve

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no browser at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    mem("plan", "update", "Ship the beta on Friday", "--reason", "start")
    mem("goal", "add", "Learn Spanish", "--description", "Reach B1")
    mem("goal", "update", "learn-spanish", "--progress", "40")
    proc, url = serve(mem)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page()
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(url)
            assert page.get_by_role("heading", name="Plan", exact=True).is_visible()
            assert "Ship the beta on Friday" in page.locator("section[aria-labelledby=plan-h]").inner_text()
            bar = page.get_by_role("progressbar", name="Learn Spanish: 40%")
            assert bar.is_visible() and bar.get_attribute("value") == "40"
            page.get_by_role("link", name="Learn Spanish").click()
            page.wait_for_url(re.compile(r"/page/goals/learn-spanish\.md$"))
            assert "Reach B1" in page.locator("article").inner_text()
            assert errors == []
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
