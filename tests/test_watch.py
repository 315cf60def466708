"""Watched entities: a write that disagrees with what the notebook holds is reported."""

from __future__ import annotations

import pytest

from gitmem.notes import watch
from tests.conftest import Mem


def test_watch_list_and_unwatch(mem: Mem) -> None:
    assert mem("watch", "list").stdout == "nothing watched (watch someone with: git mem watch NAME --priority high)\n"
    mem("watch", "Sarah", "--priority", "high", "--reason", "her details change often")
    mem("watch", "Apollo")
    assert (mem.path / "reference/watched.md").read_text() == \
        "# Watched\n\n- **Sarah** — priority: high — her details change often\n- **Apollo** — priority: medium\n"
    assert mem("watch", "list").stdout == "Sarah  [high]  her details change often\nApollo  [medium]\n"
    assert mem.json("watch", "sarah", "--priority", "low")["action"] == "updated"  # one line per entity
    assert [w["priority"] for w in mem.json("watch", "list")["watched"]] == ["low", "medium"]
    out = mem("unwatch", "Sarah")
    assert out.stdout.startswith("unwatched: Sarah (reference/watched.md, commit ")
    assert mem.git("log", "-1", "--format=%(trailers:key=Gitmem-Verb,valueonly)").strip() == "unwatch"
    assert "Sarah is not watched" in mem("unwatch", "Sarah", code=1).stderr


def test_the_watch_list_is_no_answer(mem: Mem, flat: Mem) -> None:
    """"what is Priya's role" put "**Priya** — priority: high" first (an agent developer's run): the list is
    bookkeeping, which `context` gives whole (the folders layout's, under reference/)."""
    for nb in (mem, flat):
        nb("watch", "Priya", "--priority", "high")
        nb("remember", "Priya Nair is the engineering manager")
    found = mem.json("recall", "--mode", "keyword", "Priya")["results"]
    assert found and not any(r["path"] == "reference/watched.md" for r in found), found
    assert "**Priya** — priority: high" in mem("context").stdout
    # the flat layout's context has no watch list: recall finds it there
    assert "WATCHED.md" in {r["path"] for r in flat.json("recall", "--mode", "keyword", "Priya")["results"]}


def test_flat_layout_keeps_the_list_at_the_top(flat: Mem) -> None:
    flat("watch", "Sarah")
    assert (flat.path / "WATCHED.md").is_file()


def test_a_disagreeing_write_is_reported_with_the_older_fact(mem: Mem) -> None:
    mem("remember", "Sarah's eyes are blue")
    mem("watch", "Sarah", "--priority", "high")
    out = mem("remember", "Sarah's eyes are green")
    assert out.stdout.splitlines()[-1] == \
        "watched: Sarah (high): the notebook said otherwise at knowledge/facts.md:3: - Sarah's eyes are blue"
    data = mem.json("remember", "Sarah has brown eyes")
    assert [(c["path"], c["lines"]["start"], c["text"]) for c in data["watched"]] == [
        ("knowledge/facts.md", 3, "- Sarah's eyes are blue"), ("knowledge/facts.md", 4, "- Sarah's eyes are green")]
    assert mem.json("remember", "Sarah likes tulips")["watched"] is None  # another attribute: no report
    assert mem.json("remember", "Tom's eyes are grey")["watched"] is None  # not watched


def test_each_line_is_reported_once_at_its_own_number(mem: Mem) -> None:
    """A newcomer (2026-11-27): Sam's line was reported twice, once at Bo Chan's line number (a hit's
    text was the chunk that holds its fact)."""
    for fact in ("Sam Lee's phone is 555-1111", "Ann Park's phone is 555-3333", "Bo Chan's phone is 555-4444"):
        mem("remember", fact)
    mem("watch", "Sam Lee")
    out = mem.json("remember", "--to", "knowledge/facts.md", "Sam Lee's phone is 555-2222")
    assert [(c["path"], c["lines"]["start"], c["text"]) for c in out["watched"]] == [
        ("reference/contacts.md", 3, "- Sam Lee's phone is 555-1111")]
    # a secret on a watched line is redacted, as the search's hits were (a review: the token went back whole)
    mem.write("knowledge/keys.md", "# Keys\n\n- Sam Lee token: ghp_" + "a1" * 18 + "\n")
    mem.commit("by hand")
    out = mem.json("remember", "--to", "knowledge/facts.md", "Sam Lee token: abc")
    texts = [c["text"] for c in out["watched"] or []]
    assert "- Sam Lee token: [redacted]" in texts and not any("ghp_" in t for t in texts), texts


def test_reported_even_when_the_new_fact_replaces_the_old(mem: Mem) -> None:
    mem("remember", "Sarah's phone is 555-1234", "--category", "contact")
    mem("watch", "Sarah")
    data = mem.json("remember", "Sarah's phone is 555-9999", "--category", "contact")
    assert data["replaced"]["text"] == "- Sarah's phone is 555-1234"  # superseded ...
    assert data["watched"][0]["text"] == "- Sarah's phone is 555-1234"  # ... and still reported, with where it was
    assert data["watched"][0]["path"] == "reference/contacts.md" and data["watched"][0]["lines"]["start"] == 3


@pytest.mark.parametrize("new, old, expected", [
    ("Sarah's eyes are green", "- Sarah's eyes are blue", True),
    ("Sarah has green eyes", "Sarah's eyes are blue", True),
    ("Sarah's eyes are blue", "Sarah's eyes are blue.", False),
    ("Sarah's eyes are blue", "Sarah's hair is blue", False),
    ("Sarah has two kids", "Sarah has three kids", True),
    ("Sarah has a cat", "Sarah has a dog", False),
    ("Sarah works at Acme", "Sarah works at Initech", True),
])
def test_disagree(new: str, old: str, expected: bool) -> None:
    assert watch.disagree(new, old, "Sarah") is expected


def test_a_hand_written_line_is_read(mem: Mem) -> None:
    mem.write("reference/watched.md", "# Watched\n\n- **Project Apollo** — priority: HIGH — launch\n- not an entry\n")
    assert mem.json("watch", "list")["watched"] == [
        {"name": "Project Apollo", "priority": "high", "reason": "launch", "line": 3}]
