"""Where remember routes a fact (gitmem/notes/routing.py), measured on hand-labelled memories."""

from pathlib import Path

import pytest

from gitmem.notes import routing
from tests.conftest import Mem

DATA = Path(__file__).parent / "data"


def labelled(name: str) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in (DATA / name).read_text().splitlines() if line and not line.startswith("#")]
    return [(category, text) for category, text in rows]


def accuracy(rows: list[tuple[str, str]]) -> float:
    return sum(routing.classify(text) == category for category, text in rows) / len(rows)


def test_routing_accuracy_on_the_labelled_memories() -> None:
    """Measured 2026-11-23: 119/119 on routing.tsv (the rules were written against it; the rules
    before this change: 77/119, 64.7%) and 39/40 on routing-heldout.tsv (labelled after the rules
    were written and not used to tune them; before: 21/40). The floors leave room for one or two
    new rules to trade a case, not for a regression."""
    tuned, held_out = labelled("routing.tsv"), labelled("routing-heldout.tsv")
    assert len(tuned) + len(held_out) >= 100 and len(tuned) >= 100
    assert {c for c, _ in tuned} == {"fact", "preference", "contact", "todo", "shopping"}
    assert accuracy(tuned) >= 0.97
    assert accuracy(held_out) >= 0.92


@pytest.mark.parametrize("text, category", [
    ("I need to reset my password on Monday", "todo"),  # paper cut 9: went to facts ("need to" only counted first)
    ("Sarah's birthday is 3 May", "contact"),
    ("Need to buy a birthday present for Jake", "shopping"),  # buying beats the birthday
    ("Reply to Tom's email about the budget", "todo"),  # a task verb first beats the e-mail
    ("Please reply in short bullet points", "preference"),  # how to treat the user, not a task
    ("The server never restarts on Sundays", "fact"),  # a thing that never does something has no preference
    ("I always take the window seat on flights", "preference"),
    ("The invoice number for Acme was 2026-0042", "fact"),  # a year-serial is not a phone number
    ("It looks like the build breaks on Python 3.13", "fact"),  # "looks like" is not a like
    ("Water boils at 100 degrees at sea level", "fact"),  # "water" as a subject, not a task
])
def test_routing_examples(text: str, category: str) -> None:
    assert routing.classify(text) == category, routing.explain(text)


def test_remember_routes_through_the_rules(mem: Mem) -> None:
    out = mem.json("remember", "I need to reset my password on Monday")
    assert (out["path"], out["category"]) == ("lists/todos.md", "todo")
    assert (mem.path / "lists/todos.md").read_text().endswith("- [ ] I need to reset my password on Monday\n")
