"""Where remember routes a fact (gitmem/notes/routing.py), measured on hand-labelled memories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem import config
from gitmem.notes import routing
from gitmem.notes.memory import CATEGORIES
from tests.conftest import Mem

SET = json.loads((Path(__file__).resolve().parent.parent / "benchmarks" / "sets" / "routing.json").read_text())


def part(split: str) -> list[tuple[str, str]]:
    return [(item["category"], item["text"]) for item in SET["items"] if item["split"] == split]


def accuracy(rows: list[tuple[str, str]]) -> float:
    return sum(routing.classify(text) == category for category, text in rows) / len(rows)


def test_the_labelled_set_covers_every_category_with_a_third_held_out() -> None:
    tuned, held_out = part("tune"), part("heldout")
    assert len(tuned) + len(held_out) >= 120 and 0.28 <= len(held_out) / (len(tuned) + len(held_out)) <= 0.4
    assert {c for c, _ in tuned} == {c for c, _ in held_out} == set(config.CATEGORIES)
    assert SET["pages"] == {c: page for c, (page, _, _) in CATEGORIES.items()}


def test_routing_accuracy_on_the_labelled_memories() -> None:
    """Measured 2026-11-25 (benchmarks/routing.py): 197/197 tuned (the rules were written against
    them; the rules before: 130/197) and 89/92 held out (labelled before the rules, never used to
    tune them; before: 54/92). The floors leave room for a rule to trade a case, not for a regression."""
    assert accuracy(part("tune")) >= 0.97
    assert accuracy(part("heldout")) >= 0.92


@pytest.mark.parametrize("text, category", [
    # an agent developer's run, 2026-11-27: a thing that handles a load went to the contacts, not wanting a
    # meeting to the facts
    ("The load test showed the API handles about 1200 requests per second.", "infrastructure"),
    ("Dana handles billing questions.", "contact"),
    ("Jonas Weber looks after the billing service.", "contact"),
    ("I don't want meetings before 10am.", "preference"),
    ("I need to reset my password on Monday", "todo"),  # paper cut 9: went to facts ("need to" only counted first)
    # a newcomer, 2026-11-27: a marked task with "policy" in it went to the rules, a pre-approval was a
    # rule, and a dose taken was a taste
    ("TODO: write the data retention policy for EU customers", "todo"),
    ("Deploys to production are never allowed on Fridays", "rule"),  # a newcomer's went to infrastructure
    ("The Falcon team standup is at 9:30 every weekday", "event"),  # ... a named team's meeting to the facts
    ("Project Falcon is the route-optimization service I lead", "fact"),  # ... a service I lead to the contacts
    ("Out of dishwasher tablets", "shopping"),  # ... what ran out to the facts
    ("Book club meets the first Monday of the month", "fact"),  # ... a club to the todos
    ("The mortgage pre-approval from Nationwide expires in March", "fact"),
    ("I take 50mg of sertraline every morning", "fact"),
    # a newcomer, 2026-11-27 (session 17): a dose said after the drug, and a dentist's cleaning on a date
    ("I take atorvastatin 20mg every night", "fact"),
    ("Next dentist cleaning is Tuesday April 8 at 2:30pm", "event"),
    ("Annual physical May 21 at 9am", "event"),
    # ... and not (a review): a surgery's opening days, a fee as of a month, a drink's can size
    ("GP surgery is open Monday to Friday", "fact"),
    ("Consultation fee is $200 as of January", "fact"),
    ("I drink a 330 ml can of Coke Zero every afternoon", "preference"),
    ("I take my coffee black", "preference"),
    # ... and a rent "due on the 1st" (of every month) was a todo: a date that comes back is a fact
    ("Rent is due on the 1st", "fact"),
    ("Council tax is due monthly", "fact"),
    ("The report is due on Friday", "todo"),
    ("Sarah's birthday is 3 May", "contact"),
    ("Need to buy a birthday present for Jake", "shopping"),  # buying beats the birthday
    ("Reply to Tom's email about the budget", "todo"),  # a task verb first beats the e-mail
    ("Please reply in short bullet points", "preference"),  # how to treat the user, not a task
    ("The server never restarts on Sundays", "infrastructure"),  # a thing that never does something: no taste
    ("I always take the window seat on flights", "preference"),
    ("The invoice number for Acme was 2026-0042", "fact"),  # a year-serial is not a phone number
    ("It looks like the build breaks on Python 3.13", "fact"),  # "looks like" is not a like
    ("Water boils at 100 degrees at sea level", "fact"),  # "water" as a subject, not a task
    # issue 22: the misfiled examples
    ("The staging database lives on db-staging-2.internal, port 5433", "infrastructure"),  # not a contact
    ("Jamal Rivera from legal must review any contract over $50k", "rule"),  # not a todo
    ("I no longer drink coffee", "preference"),  # not a fact
    ("Sarah Chen — phone 555-1234, AWS account contact", "contact"),
    ("Priya is our AWS account contact", "contact"),  # a person's role beats the cloud's name
    ("Apollo release 2.0 ships on March 15", "event"),
    ("We decided to use Postgres instead of MongoDB for Apollo", "decision"),  # before the database
    ("Never deploy to production on Fridays", "rule"),  # an order about work
    ("Never schedule meetings before 10am", "preference"),  # a person's habit
    ("Renew the TLS certificate for api.acme.io before it expires", "todo"),  # a task on a server is a task
    ("The meeting at 10:30 was moved to room B", "event"),  # 10:30 is a time, not a host:port
    ("Our router's admin page is at 192.168.1.1", "infrastructure"),  # an IP address is not a phone number
    # a newcomer's (2026-11-26), filed under knowledge/facts.md
    ("Dana Okafor is the tech lead of the payments team", "contact"),  # a named person's job
    ("Marcus Bell is the product owner", "contact"),
    ("The team standup is at 9:30 every weekday", "event"),  # a meeting that comes back
    ("Weekly sync is Wednesday 10:30 in the Orion room", "event"),
    ("Apollo Release is the biggest launch of the year", "fact"),  # a name, but not a person with a job
    ("My 1:1 with Dana is on Tuesdays at 11", "event"),
    # ... and what a review found too wide (2026-11-26): no meeting, or no person with a job
    ("The sync job runs every day at 2am", "fact"),
    ("Data sync to S3 happens daily", "fact"),
    ("Retro notes are in docs/retro.md and updated weekly", "fact"),
    ("Budget planning for the year is done monthly in a spreadsheet", "fact"),
    ("Berlin Office is the head office", "fact"),
])
def test_routing_examples(text: str, category: str) -> None:
    assert routing.classify(text) == category, routing.explain(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gets_a_category_and_the_rule_that_chose_it(text: str) -> None:
    """Property: every text is routed to one of the categories, and explain() names the rule that
    matched (None only for the default, fact)."""
    category, rule = routing.explain(text)
    assert category in config.CATEGORIES
    assert (rule is None) == (category == "fact")
    if rule is not None:
        assert any(r.name == rule and r.category == category and r.pattern.search(text) for r in routing.RULES)


def test_remember_routes_through_the_rules(mem: Mem) -> None:
    out = mem.json("remember", "I need to reset my password on Monday")
    assert (out["path"], out["category"]) == ("lists/todos.md", "todo")
    assert (mem.path / "lists/todos.md").read_text().endswith("- [ ] I need to reset my password on Monday\n")
    # a task marked as one loses the mark: its checkbox says it (a newcomer's "- [ ] TODO: write ...")
    out = mem.json("remember", "TODO: write the data retention policy")
    assert (out["path"], out["category"]) == ("lists/todos.md", "todo")
    assert (mem.path / "lists/todos.md").read_text().endswith("- [ ] write the data retention policy\n")


@pytest.mark.parametrize("text, page, title", [
    ("The staging database lives on db-staging-2.internal, port 5433", "knowledge/infrastructure.md",
     "Infrastructure"),
    ("Jamal Rivera from legal must review any contract over $50k", "reference/rules.md", "Rules"),
    ("I no longer drink coffee", "reference/preferences.md", "Preferences"),
    ("We decided to use Postgres instead of MongoDB for Apollo", "knowledge/decisions.md", "Decisions"),
    ("The team offsite is June 3-5 in Lisbon", "knowledge/events.md", "Events"),
])
def test_issue_examples_land_where_a_person_would_file_them(mem: Mem, text: str, page: str, title: str) -> None:
    out = mem("remember", text)
    assert out.stdout.startswith(f"remember: {page}:3 (commit ")
    assert (mem.path / page).read_text() == f"# {title}\n\n- {text}\n"  # a rule is no `- [ ]` todo


def test_infrastructure_stays_out_of_context_and_rules_are_in_it(mem: Mem) -> None:
    mem("remember", "The staging database lives on db-staging-2.internal, port 5433")
    mem("remember", "Jamal Rivera from legal must review any contract over $50k")
    shown = mem("context").stdout
    assert "Jamal Rivera from legal must review any contract over $50k" in shown
    assert "db-staging-2" not in shown


def test_flat_layout_sections_for_the_new_categories(flat: Mem) -> None:
    flat("remember", "The staging database lives on db-staging-2.internal, port 5433")
    flat("remember", "Jamal Rivera from legal must review any contract over $50k")
    flat("remember", "We decided to use Postgres instead of MongoDB for Apollo")
    flat("remember", "The team offsite is June 3-5 in Lisbon")
    text = (flat.path / "MEMORY.md").read_text()
    for section, line in [("Infrastructure", "The staging database lives on db-staging-2.internal, port 5433"),
                          ("Rules", "Jamal Rivera from legal must review any contract over $50k"),
                          ("Decisions", "We decided to use Postgres instead of MongoDB for Apollo"),
                          ("Events", "The team offsite is June 3-5 in Lisbon")]:
        assert f"## {section}\n\n- {line}\n" in text


def test_category_option_takes_the_new_categories(mem: Mem) -> None:
    out = mem.json("remember", "--category", "rule", "Lunch is at noon")
    assert out["path"] == "reference/rules.md"
    assert mem("remember", "--category", "policy", "x", code=2).stderr == (
        "error: Invalid value for '--category': 'policy' is not one of 'fact', 'preference', 'contact', 'todo', "
        "'shopping', 'infrastructure', 'rule', 'decision', 'event'. (see 'git mem remember --help')\n")


def test_a_first_person_preference_naming_a_thing_of_infrastructure_is_a_preference() -> None:
    """'I prefer tabs over spaces in this repo' is how the person works, not a fact about the repo."""
    from gitmem.notes import routing

    assert routing.explain("I prefer tabs over spaces in this repo") == ("preference", "I or we prefer")
    assert routing.classify("We really like small pull requests on this branch") == "preference"
    assert routing.classify("The repo's default branch is main") == "infrastructure"


@pytest.mark.parametrize("word", ["The", "Our", "Team", "Weekly"])
def test_a_run_of_words_two_options_could_read_is_read_at_once(word: str) -> None:
    """A review (2026-11-27): the named team's meeting let a capital word be read two ways, so each
    more "Our " doubled the time; 26 of them held `remember` for 40 s. 250 (a routed text's most)
    now come back at once (a return that stalls this suite is the failure)."""
    assert routing.explain(f"{word} " * 250 + "standup x") == ("fact", None)
