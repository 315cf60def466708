"""Confirm and prune: a fact stamped as confirmed decays afresh; faded facts and
old session summaries go in one commit that lists them."""

from __future__ import annotations

from datetime import date

import pytest

from gitmem.gitops.repo import open_notebook
from gitmem.index import confidence
from gitmem.notes import prune
from tests.conftest import Mem
from tests.test_confidence import LONG_AGO, LONG_AGO_TS, commit_at


def test_confirm_restarts_the_decay(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 -->\n- plain fact\n")
    commit_at(mem, LONG_AGO)
    out = mem.json("confirm", "knowledge/facts.md:3")
    assert out["action"] == "confirm" and out["commit"]
    today = date.today().isoformat()
    lines = (mem.path / "knowledge/facts.md").read_text().split("\n")
    assert lines[2] == f"- Bob likes jazz <!-- gitmem: inferred 0.70 confirmed {today} -->"
    nb = open_notebook(mem.path)
    assert confidence.facts(nb, "knowledge/facts.md")[0].effective == pytest.approx(0.7, abs=1e-3)
    mem("confirm", "knowledge/facts.md:4")
    assert (mem.path / "knowledge/facts.md").read_text().split("\n")[3] == \
        f"- plain fact <!-- gitmem: explicit 1.00 confirmed {today} -->"


@pytest.mark.tally("bad-input/fault matrix")
def test_confirm_bad_lines(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- one\n")
    mem.commit()
    assert "not a fact" in mem("confirm", "knowledge/facts.md:1", code=2).stderr
    assert "outside" in mem("confirm", "knowledge/facts.md:9", code=1).stderr
    assert "not PATH:LINE" in mem("confirm", "knowledge/facts.md", code=2).stderr


def test_prune_removes_faded_facts_and_old_summaries_in_one_commit(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 -->\n"
                                    "- Bob is tall <!-- gitmem: explicit 0.90 -->\n- a person's own line\n")
    mem.write("reference/preferences.md", "# Preferences\n\n- tea <!-- gitmem: inferred 0.30 -->\n")
    mem.write("daily/2026-01-01.md", "# Daily Log — 2026-01-01\n\n## 09:00 — Session summary (sessions/x.md)\n\n"
                                     "They talked.\n\nTopics: a\n\n## 10:00 — lunch with Bob\n")
    commit_at(mem, LONG_AGO)
    dry = mem.json("prune", "--dry-run")
    assert [(f["path"], f["line"]) for f in dry["facts"]] == [("knowledge/facts.md", 3)]
    assert [(s["path"], s["line"]) for s in dry["summaries"]] == [("daily/2026-01-01.md", 3)]
    assert dry["commit"] is None and mem.git("status", "--porcelain") == ""
    before = mem.git("rev-parse", "HEAD").strip()
    out = mem.json("prune")
    assert mem.git("rev-parse", "HEAD~1").strip() == before
    facts = (mem.path / "knowledge/facts.md").read_text()
    assert "jazz" not in facts and "Bob is tall" in facts and "a person's own line" in facts
    assert "tea" in (mem.path / "reference/preferences.md").read_text()  # always-on: never pruned
    assert (mem.path / "daily/2026-01-01.md").read_text() == "# Daily Log — 2026-01-01\n\n## 10:00 — lunch with Bob\n"
    message = mem.git("log", "-1", "--format=%B")
    assert "knowledge/facts.md:3 (inferred 0.70 ->" in message and "Bob likes jazz" in message
    assert out["commit"] == mem.git("rev-parse", "HEAD").strip()
    mem.git("revert", "--no-edit", "HEAD")
    assert "jazz" in (mem.path / "knowledge/facts.md").read_text()
    nb = open_notebook(mem.path)
    assert prune.run(nb, dry_run=True, now=LONG_AGO_TS).facts == []  # fresh: nothing faded yet


def test_prune_drops_the_record_of_a_pruned_fact_having_been_served(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes zanzibarquux jazz <!-- gitmem: inferred 0.70 -->\n"
                                    "- Bob is tall <!-- gitmem: explicit 0.90 -->\n")
    commit_at(mem, LONG_AGO)
    nb = open_notebook(mem.path)
    lines = (mem.path / "knowledge/facts.md").read_text().split("\n")[2:4]
    assert confidence.reinforce(nb, [("knowledge/facts.md", line) for line in lines]) == 2
    assert [f["line"] for f in mem.json("prune")["facts"]] == [3]
    db = mem.path / ".git/gitmem/confidence.db"
    wal = mem.path / ".git/gitmem/confidence.db-wal"
    assert b"zanzibarquux" not in db.read_bytes() and (not wal.exists() or wal.stat().st_size == 0)
    assert set(confidence._served(nb, "knowledge/facts.md")) == {"bob is tall"}
