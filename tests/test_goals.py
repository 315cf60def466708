"""Goals: pages under goals/ with frontmatter a person can edit, one commit per change."""

from __future__ import annotations

import pytest

from gitmem.gitops.repo import open_notebook
from gitmem.notes import goals
from tests.conftest import Mem


def test_add_prints_an_id_and_makes_one_commit(mem: Mem) -> None:
    before = mem.git("rev-list", "--count", "HEAD").strip()
    out = mem("goal", "add", "Learn Spanish", "--description", "Reach B1 by the summer")
    assert out.stdout == "learn-spanish\n"
    assert int(mem.git("rev-list", "--count", "HEAD")) == int(before) + 1
    assert mem.git("log", "-1", "--format=%s%n%(trailers:only)").startswith(
        "mem: goal add Learn Spanish\nGitmem-Verb: goal add\n")
    page = (mem.path / "goals/learn-spanish.md").read_text()
    assert page.startswith('---\ntype: "goal"\nid: "learn-spanish"\ntitle: "Learn Spanish"\nstatus: "active"\n'
                           'progress: 0\n')
    assert page.endswith("---\n# Learn Spanish\n\nReach B1 by the summer\n")
    assert mem.json("goal", "add", "Learn Spanish")["id"] == "learn-spanish-2"  # a taken id is never reused


def test_update_progress_status_and_note(mem: Mem) -> None:
    mem("goal", "add", "Ship the beta")
    out = mem("goal", "update", "ship-the-beta", "--progress", "40", "--note", "tests pass")
    assert out.stdout.startswith("updated: ship-the-beta (goals/ship-the-beta.md, active, 40%, commit ")
    data = mem.json("goal", "update", "ship-the-beta", "--status", "completed")
    assert data["goal"]["status"] == "completed" and data["goal"]["progress"] == 100
    notes = data["goal"]["notes"]
    assert notes[0].endswith(": progress 40% — tests pass") and notes[1].endswith(": status completed")
    assert mem("goal", "list").stdout == "no active goals (add one with: git mem goal add TITLE)\n"
    listed = mem.json("goal", "list", "--all")["goals"]
    assert [(g["id"], g["status"], g["progress"]) for g in listed] == [("ship-the-beta", "completed", 100)]


def test_goals_link_the_facts_they_concern(mem: Mem) -> None:
    mem("remember", "Maria teaches Spanish on Tuesdays", "--category", "contact")
    mem("goal", "add", "Learn Spanish", "--fact", "reference/contacts.md:3")
    got = mem.json("goal", "list")["goals"][0]["facts"]
    assert got == [{"path": "reference/contacts.md", "text": "- Maria teaches Spanish on Tuesdays"}]
    assert "    fact: reference/contacts.md: - Maria teaches Spanish on Tuesdays" in mem("goal", "list").stdout
    bad = mem("goal", "update", "learn-spanish", "--fact", "reference/contacts.md:99", code=2)
    assert "reference/contacts.md has no fact on line 99" in bad.stderr


def test_a_hand_edit_is_read_and_kept(mem: Mem) -> None:
    mem("goal", "add", "Run a marathon")
    page = mem.path / "goals/run-a-marathon.md"
    page.write_text(page.read_text().replace("progress: 0", "progress: 55\nowner: me"))
    mem.commit("by hand")
    data = mem.json("goal", "update", "run-a-marathon", "--note", "20 km done")
    assert data["goal"]["progress"] == 55
    text = page.read_text()
    assert "owner: \"me\"" in text and "- " in text.split("## Notes")[1]
    assert mem.git("status", "--porcelain") == ""


def test_bad_input_is_one_line(mem: Mem) -> None:
    assert "no goal nope" in mem("goal", "update", "nope", "--progress", "3", code=1).stderr
    assert "nothing to update" in mem("goal", "update", "nope", code=2).stderr
    assert "not a goal id" in mem("goal", "update", "../x", "--progress", "3", code=2).stderr
    mem("goal", "add", "Broken")
    (mem.path / "goals/broken.md").write_text("---\ntitle: [unclosed\n---\n# Broken\n")
    err = mem("goal", "update", "broken", "--progress", "3", code=1).stderr
    assert err.startswith("error: goals/broken.md: its frontmatter is not YAML gitmem can read; nothing was written")
    assert "cannot read it as a goal" in mem("goal", "list").stdout


def test_guard_applies_to_goal_text(mem: Mem) -> None:
    err = mem("goal", "add", "Rotate keys", "--description", "key AKIAIOSFODNN7EXAMPLE", code=1).stderr
    assert "refused" in err.lower() or "secret" in err.lower()
    assert not (mem.path / "goals").exists()


@pytest.mark.parametrize("title, expected", [("Learn Spanish!", "learn-spanish"), ("  A  b  ", "a-b"),
                                             ("日本語", "goal-")])
def test_slug(title: str, expected: str) -> None:
    assert goals.slug(title).startswith(expected) and goals.ID.match(goals.slug(title))


def test_listing_skips_symlinks(mem: Mem, tmp_path) -> None:
    mem("goal", "add", "Real")
    outside = tmp_path / "outside.md"
    outside.write_text('---\ntitle: "Leak"\n---\n')
    (mem.path / "goals/leak.md").symlink_to(outside)
    assert [g.id for g in goals.listing(open_notebook(mem.path)).goals] == ["real"]


def test_a_linked_fact_is_shown_as_its_page_says_it_now(mem: Mem) -> None:
    """An agent developer's run (2026-11-27): after remember replaced the linked line, the goal (goal list,
    the goals tool) still gave "Sarah's phone is 555-1234"."""
    mem("remember", "Sarah's phone is 555-1234")
    mem("goal", "add", "Call Sarah about the lease", "--fact", "reference/contacts.md:3")
    mem("remember", "Sarah's phone is now 555-9999")
    fact = mem.json("goal", "list")["goals"][0]["facts"][0]
    assert fact == {"path": "reference/contacts.md", "text": "- Sarah's phone is now 555-9999",
                    "was": "- Sarah's phone is 555-1234"}
    # a line still there is as linked; the goal's page keeps the text it was linked with
    assert "555-1234" in (mem.path / "goals/call-sarah-about-the-lease.md").read_text()
