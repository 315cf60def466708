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
