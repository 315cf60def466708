"""Supersession on write: `remember` replaces the line a new fact updates (gitmem/notes/supersede.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.notes import supersede
from tests.conftest import Mem

PAIRS = [json.loads(line) for line in (Path(__file__).parent / "data" / "supersede.jsonl").open()]


def test_the_labelled_set_is_big_enough_and_mixed() -> None:
    assert len(PAIRS) >= 150
    assert 60 <= sum(p["update"] for p in PAIRS) <= len(PAIRS) - 60


def test_precision_and_recall_on_the_labelled_set() -> None:
    said = [supersede.updates(p["new"], p["old"]) for p in PAIRS]
    tp = sum(s and p["update"] for s, p in zip(said, PAIRS))
    fp = sum(s and not p["update"] for s, p in zip(said, PAIRS))
    assert tp / (tp + fp) >= 0.97
    assert tp / sum(p["update"] for p in PAIRS) >= 0.9


@pytest.mark.parametrize("new, old", [
    ("Sarah Chen's phone is 555-9999", "- Sarah Chen phone number: 555-1234"),
    ("Prefers coffee over tea", "- Prefers tea over coffee"),
    ("Hates sushi", "- Loves sushi"),
    ("Bob moved to Berlin", "- Bob lives in Paris"),
    ("Standup starts at 10:00", "- Standup starts at 9:30"),
])
def test_updates(new: str, old: str) -> None:
    assert supersede.updates(new, old)


@pytest.mark.parametrize("new, old", [
    ("Sarah Lee's phone is 555-9999", "- Sarah Chen phone number: 555-1234"),
    ("Sarah's work phone is 555-9999", "- Sarah's home phone is 555-1234"),
    ("Likes jazz", "- Likes sushi"),
    ("Allergic to shellfish", "- Allergic to peanuts"),
    ("Bob lives in Paris, France", "- Bob lives in Paris"),
    ("Budget for Q4: 55k", "- Budget for Q3: 40k"),
    ("The meeting moved to Friday", "- Bob lives in Paris"),
])
def test_near_neighbours_both_stay(new: str, old: str) -> None:
    assert not supersede.updates(new, old)


def test_two_candidate_lines_replace_neither() -> None:
    page = "# Contacts\n\n- Sarah's phone is 555-1111\n- Sarah Chen's phone is 555-2222\n"
    assert supersede.find(page, "Sarah's phone is 555-9999") is None
    assert supersede.find("# C\n\n- Sarah Chen's phone is 555-2222\n", "Sarah's phone is 555-9") == (
        3, "- Sarah Chen's phone is 555-2222")


def test_remember_replaces_in_the_same_commit_and_history_shows_the_old(mem: Mem) -> None:
    mem("remember", "Sarah Chen phone number: 555-1234")
    added = mem.git("rev-parse", "HEAD").strip()
    mem("remember", "Bob lives in Paris")
    out = mem.json("remember", "Sarah Chen's phone is 555-9999")
    assert out["replaced"] == {"path": "reference/contacts.md", "lines": {"start": 3, "end": 3},
                               "text": "- Sarah Chen phone number: 555-1234"}
    assert (mem.path / "reference/contacts.md").read_text() == (
        "# Contacts\n\n- Sarah Chen's phone is 555-9999\n- Bob lives in Paris\n")
    diff = mem.git("show", "--format=", "-U0", out["commit"]).splitlines()
    assert [ln for ln in diff if ln[:1] in "+-" and not ln.startswith(("+++", "---"))] == [
        "-- Sarah Chen phone number: 555-1234", "+- Sarah Chen's phone is 555-9999"]
    past = [r for r in mem.json("recall", "--mode", "keyword", "--history", "Sarah phone")["results"]
            if not r["current"]]
    assert len(past) == 1 and past[0]["fact"]["text"] == "- Sarah Chen phone number: 555-1234"
    assert past[0]["since"] == added and past[0]["changed_by"]["commit"] == out["commit"]
    text = mem("remember", "Bob lives in Berlin").stdout
    assert "replaced: - Bob lives in Paris (pass --keep-both to keep both)" in text


def test_keep_both(mem: Mem) -> None:
    mem("remember", "Sarah Chen phone number: 555-1234")
    out = mem.json("remember", "--keep-both", "Sarah Chen's phone is 555-9999")
    assert out["replaced"] is None
    assert (mem.path / "reference/contacts.md").read_text() == (
        "# Contacts\n\n- Sarah Chen phone number: 555-1234\n- Sarah Chen's phone is 555-9999\n")
