"""Abbreviations said in full where the notebook says them the other way (search/abbreviations.py)."""

from __future__ import annotations

import pytest

from tests.conftest import Mem

INFRA = ("# Infrastructure\n\n- Continuous integration runs on GitHub Actions.\n- Every PR needs two approvals.\n"
         "- The staging database is on port 5433.\n- We use Sentry for error tracking.\n"
         "- Deploys go out on Tuesdays.\n")


@pytest.fixture
def infra(mem: Mem) -> Mem:
    mem.write("knowledge/infrastructure.md", INFRA)
    mem.commit("infra")
    return mem


def test_an_abbreviation_the_notebook_spells_out_finds_its_line(infra: Mem) -> None:
    """ "which CI do we use" got "no good match" (the model puts CI far from its long form)."""
    out = infra.compact("recall", "which CI do we use")
    assert out["asked_as"] == "which CI (continuous integration) do we use"
    first = out["results"][0]
    assert (first["where"], first["weak"]) == ("knowledge/infrastructure.md:3", False)


@pytest.mark.parametrize(("question", "asked_as", "where"), [
    ("who reviews pull requests", "who reviews pull requests (PR)", "knowledge/infrastructure.md:4"),
    ("where does ci run", "where does ci (continuous integration) run", "knowledge/infrastructure.md:3"),
    ("what port is the DB on", "what port is the DB (database) on", "knowledge/infrastructure.md:5"),
])
def test_either_form_is_asked_beside_the_one_the_notebook_says(infra: Mem, question: str, asked_as: str,
                                                               where: str) -> None:
    out = infra.compact("recall", question, "--mode", "keyword")
    assert out["asked_as"] == asked_as
    assert out["results"][0]["where"] == where


@pytest.mark.parametrize("question", [
    "what is our SLA",  # the notebook never says "service level agreement": nothing to add
    "the deploy takes an hr",  # "hr" in lower case is an hour
    "which ci do we use (continuous integration)",  # said both ways already
])
def test_nothing_is_added_where_the_notebook_says_no_other_form(infra: Mem, question: str) -> None:
    infra.write("knowledge/people.md", "# People\n\n- Human resources is on the second floor.\n")
    infra.commit("people")
    assert "asked_as" not in infra.compact("recall", question, "--mode", "keyword")
    out = infra.compact("recall", "where is HR", "--mode", "keyword")  # in capitals it is the department
    assert out["asked_as"] == "where is HR (human resources)"
    assert out["results"][0]["where"] == "knowledge/people.md:3"
