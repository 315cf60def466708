"""One score scale in every mode, the relevance floor and the sessions hint (gitmem/search/scale.py)."""

from __future__ import annotations

import pytest

from gitmem.search import scale
from tests.conftest import Mem


@pytest.fixture
def notes(mem: Mem) -> Mem:
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen phone number: 555-1234\n- Bob lives in Paris\n")
    mem.write("reference/preferences.md", "# Preferences\n\n- Prefers tea over coffee in the morning\n")
    mem.write("knowledge/car.md", "# Car\n\nThe tyres are 205/55 R16, changed in March.\n")
    mem.write("sessions/2026-11-20-1000.md", "# Session 2026-11-20\n\nUser: I booked the train to Lyon for "
                                            "Friday at 9am.\n\nAssistant: Noted, the train to Lyon leaves Friday.\n")
    mem.commit("notes")
    return mem


def test_confidence_maps_each_evidence_onto_one_line() -> None:
    assert scale.confidence(None, None) == 0.0
    assert scale.confidence(scale.KEYWORD_FULL, None) == 1.0
    assert scale.confidence(None, scale.COSINE_NONE) == 0.0
    assert scale.confidence(0.0, (scale.COSINE_NONE + scale.COSINE_FULL) / 2) == 0.5
    assert scale.confidence(1.0, 0.0) == 1.0


def test_the_best_hit_scores_the_same_in_hybrid_and_semantic_mode(notes: Mem) -> None:
    hybrid = notes.json("recall", "--mode", "hybrid", "Sarah Chen phone number")
    semantic = notes.json("recall", "--mode", "semantic", "Sarah Chen phone number")
    assert hybrid["results"][0]["path"] == semantic["results"][0]["path"] == "reference/contacts.md"
    assert hybrid["results"][0]["score"] == semantic["results"][0]["score"] == hybrid["evidence"]["confidence"]
    assert hybrid["evidence"] == semantic["evidence"]
    assert all(r["score"] <= hybrid["evidence"]["confidence"] for r in hybrid["results"])


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_nothing_relevant_is_no_good_match(notes: Mem, mode: str) -> None:
    data = notes.json("recall", "--mode", mode, "xyzzy-nothing")
    assert data["results"] == [] and data["evidence"]["confidence"] < scale.FLOOR
    assert notes.compact("recall", "--mode", mode, "xyzzy-nothing")["evidence"]["weak"] is True  # nothing answers
    if mode == "keyword":  # keyword evidence alone never refuses: a weak match still answers
        assert notes.json("recall", "--mode", mode, "tyres of the submarine fleet")["results"]
    if mode != "keyword":  # keyword mode has no candidates at all: nothing to call a bad match
        assert data["notes"][0].startswith(f"no good match for 'xyzzy-nothing' (confidence 0.00 < {scale.FLOOR}")
    closest = notes.json("recall", "--mode", mode, "--min-score", "0", "xyzzy-nothing")
    assert (closest["results"] != []) == (mode != "keyword")


def test_recall_says_when_sessions_would_answer(notes: Mem) -> None:
    data = notes.json("recall", "train to Lyon")
    assert data["results"] == []
    assert data["notes"][-1] == "1 match in sessions: git mem search --in sessions 'train to Lyon'"
    assert notes.json("search", "--in", "sessions", "train to Lyon")["results"][0]["path"] == \
        "sessions/2026-11-20-1000.md"
    text = notes("recall", "Sarah's phone").stdout
    assert "in sessions" not in text
    # weak matches only: a session may still answer (a newcomer, 2026-11-27: no word of the saved session)
    weak = notes.json("recall", "when is Bob's train to Lyon")
    assert weak["results"] and all(r["weak"] for r in weak["results"])
    assert weak["notes"][-1] == "1 match in sessions: git mem search --in sessions 'when is Bob'\"'\"'s train to Lyon'"


@pytest.mark.parametrize("query", ["my", "the the the"])
def test_a_query_of_stopwords_only_is_never_a_strong_match(notes: Mem, query: str) -> None:
    """A newcomer's trial (2026-11-26): "my" and "the the the" came back as strong matches
    (keyword evidence 1.0: every text holds the words, none answers them)."""
    notes.write("knowledge/me.md", "# Me\n\n- My bike is the blue one in the shed\n")
    notes.commit("me")
    data = notes.json("recall", query)
    assert data["evidence"]["keyword"] == 0.0
    assert all(r["weak"] for r in data["results"])  # weak matches at most, or none
    assert data["results"] or data["notes"][0].startswith(f"no good match for {query!r}")
