"""The names a notebook gives to the roles a question uses (gitmem/search/aliases.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.gitops.repo import open_notebook
from gitmem.index import aliases as stored
from gitmem.index import db
from gitmem.index.indexer import Index
from gitmem.search import aliases, candidates, views
from gitmem.search import engine as search
from tests.conftest import Mem

FAMILY = """# Family

## Emma

- My daughter Emma is allergic to peanuts.
- Emma was born on 2 June 2017.
- Emma goes to Oakfield Primary, class 3B, teacher Mr Patel.
- Emma has swimming lessons on Saturday at 10:00 at the leisure centre.
- Emma got a gold star for her reading.
- Emma is scared of dogs after being bitten in 2024.

## Tom

- My husband Tom works night shifts at the hospital.
- Tom hates coriander.
"""
OTHER = {
    "reference/contacts.md": "# Contacts\n\n## Sarah Chen\n\n- Sarah is my running partner and works at the bank.\n"
                             "- Sarah's son Leo goes to Oakfield Primary too.\n",
    "knowledge/school.md": "# School\n\n- The school run rota: Mondays and Thursdays are mine.\n"
                           "- Parents' evening is on 4 December at 18:00.\n- Homework club meets on Wednesdays.\n",
    "knowledge/project.md": "# Project\n\n- Product owner is Dana Reyes.\n- Marcus wants demos recorded for the "
                            "investors.\n- Dana wants a weekly summary by email.\n",
}


def test_a_kinship_word_is_judged_as_the_notebook_says_it(family: Mem) -> None:
    """"My partner" is asked as Tom and judged as "my husband" (the notebook's word, no name: a
    name brings its facts near, not an answer)."""
    index = Index(open_notebook(family.path))
    try:
        index.sync()
        question = "what does my partner do for work"
        cand = candidates.Candidates(index.conn, search.Query(question), views.live(), index.kept)
        asked = aliases.expand(index.conn, question, cand.among)
        assert (asked.ranked, asked.judged) == ("what does Tom do for work", "what does my husband do for work")
    finally:
        index.close()
    top = family.json("recall", "what does my partner do for work")["results"][0]
    assert top["fact"]["text"] == "- My husband Tom works night shifts at the hospital." and top["weak"] is False


def test_roles_follow_a_determiner_with_their_kin() -> None:
    assert aliases.roles("how is my daughter doing at school") == ["daughter doing", "daughter"]  # longest first
    assert aliases.roles("what did the product owner ask for") == ["product owner", "product"]
    assert aliases.roles("which herb should I leave out when cooking for my partner") == \
        ["partner", "husband", "wife", "spouse"]
    assert aliases.roles("what did classmates call me as a kid") == []  # "a kid" is nobody's
    assert aliases.roles("Sarah phone number") == []
    # a kinship word before a thing names the thing: only the two words together may be a role
    assert aliases.roles("where is our sister company based") == ["sister company"]
    assert aliases.roles("what is in the parent directory") == ["parent directory"]
    assert aliases.roles("when does my sister finish work") == ["sister finish", "sister"]


def test_a_short_text_names_a_role_in_three_ways() -> None:
    assert stored.found("# Family\n\n## Emma\n\n- My daughter Emma is allergic to peanuts.") == [("daughter", "Emma")]
    assert stored.found("- my daughter Emma's school is Oakfield.") == [("daughter", "Emma")]  # possessive dropped
    assert stored.found("- Lucy is my sister and lives in Bristol.") == [("sister", "Lucy")]
    assert stored.found("- Product owner is Marcus Bell.") == [("product owner", "Marcus Bell")]
    assert stored.found("- GP: Dr Sarah Linden, Castle Street Surgery.") == [("gp", "Dr Sarah Linden")]
    assert stored.found("- Sarah is my running partner.") == [("running partner", "Sarah")]  # not "my partner"
    assert stored.found("- My daughter is in year 3.") == []  # no name
    assert stored.found("- Dr Okafor is my GP.") == [("gp", "Dr Okafor")]  # an initialism is a role
    assert stored.found("- Kate is my PA, she books my travel.") == [("pa", "Kate")]
    assert stored.found("- Prof. Lin is my supervisor.") == [("supervisor", "Prof. Lin")]
    assert stored.found("- The dentist is The Smile Bar.") == []  # "The ..." is not a name
    assert stored.found("- My daughter Emma likes maps. " + "x" * stored.SHORT) == []  # a chunk, not a fact
    # a contact is a person by what they are to us (a newcomer's "when is Gareth's birthday" got their mum's, strong)
    assert stored.found("- Gareth Evans is the account contact at Bluewater Ferries") == [
        ("account contact", "Gareth Evans")]
    assert stored.found("- Kwame is our neighbour") == [("neighbour", "Kwame")]


def test_the_people_a_text_s_facts_are_written_under() -> None:
    """A contact page that names no role: its entries' names are written over their facts."""
    assert stored.owners("Team / Priya Natarajan\n  - phone: +1 415 555 0134") == ["Priya Natarajan"]
    assert stored.owners("Dr Okafor\n  - clinic on Tuesdays") == ["Dr Okafor"]
    assert stored.owners("Team / Vendors / | Name | Phone |\n| Aiko Sato | 555-0142 |") == ["Aiko Sato"]
    chunk = ("## Vendors\n\n| Name | Phone |\n| --- | --- |\n| Aiko Sato | 555-0142 |\n| Tom Reyes | 1 |\n\n"
             "| Service | Port |\n|---|---|\n| Redis | 6379 |\n\n- Priya Natarajan\n  - phone: 1\n- Lena Vogel\n"
             "  - Notes:\n    - prefers Signal\n")
    assert stored.owners(chunk) == ["Priya Natarajan", "Lena Vogel", "Aiko Sato", "Tom Reyes"]
    assert stored.owners("Team / Lena Vogel / Notes:\n    - prefers Signal") == []  # under a label, not a name
    assert stored.owners("Infra / | Service | Port |\n| Redis | 6379 |") == []  # a first column of things
    assert stored.owners("Contacts\n- Tom Park's phone is 555-0100") == []  # not nested: its words say whose
    assert stored.owners("Shopping / the usual\n  - Milk") == []
    assert stored.owners("# Notes\n\nSome Text\n  - item") == []  # a line of a text is no path
    assert stored.owners("- **Priya Natarajan**\n  - phone: 1\n- Marcus Obi:\n  - phone: 2\n") == [
        "Priya Natarajan", "Marcus Obi"]  # bold, or a closing colon
    # a loose list: a blank line between the name and the items under it (a review, 2026-11-27)
    assert stored.owners("- Tom Park\n\n  - phone: 1\n\n- Sofia Diaz\n\n  - phone: 2\n\n- Raj\n") == [
        "Tom Park", "Sofia Diaz"]


TEAM = """# Team contacts

- Priya Natarajan
  - phone: +1 415 555 0134
  - email: priya@acme.test
- Marcus Obi
  - phone: +44 20 7946 0958

## Vendors

| Name | Company | Phone |
| --- | --- | --- |
| Aiko Sato | Globex Payroll | 555-0142 |
"""


def test_another_entry_of_a_contact_page_is_someone_else(mem: Mem) -> None:
    """A newcomer's team page (2026-11-26): "what's Aiko's phone number" put Priya's phone first
    (0.64) over Aiko's row (0.54); the notebook knew none of them by a role."""
    mem.write("people/team.md", TEAM)
    mem.commit("team")
    found = mem.compact("recall", "what's Aiko's phone number")["results"]
    assert found[0]["where"] == "people/team.md:13" and not found[0]["weak"]
    assert all(r["weak"] for r in found[1:])  # Priya's and Marcus's phones: someone else's
    marcus = mem.compact("recall", "how do I call Marcus")["results"]
    assert marcus[0]["where"] == "people/team.md:7" and not marcus[0]["weak"]  # judged with his name
    assert all(r["weak"] for r in marcus if "Marcus" not in r["text"] and r["where"] != "people/team.md:7")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcEMT  :-'\nmy is")) | st.characters(), max_size=300))
def test_roles_and_names_are_short_runs_of_the_text(body: str) -> None:
    for role, name in stored.found(body):
        assert role == role.lower() and 1 <= len(role.split()) <= 2 and role.split()[0] not in stored.COMMON
        assert name in body and 1 <= len(name.split()) <= 4 and name[0].isupper()


def expanded(mem: Mem, question: str, **query: object) -> str:
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        cand = candidates.Candidates(index.conn, search.Query(question, **query), views.live(),  # type: ignore[arg-type]
                                     index.kept)
        return aliases.expand(index.conn, question, cand.among).ranked
    finally:
        index.close()


@pytest.fixture
def family(mem: Mem) -> Mem:
    mem.write("people/family.md", FAMILY)
    for path, text in OTHER.items():
        mem.write(path, text)
    mem.commit("notes")
    return mem


def test_a_question_about_my_daughter_finds_what_the_notebook_says_of_emma(family: Mem) -> None:
    data = family.json("recall", "how is my daughter doing at school")
    # without Emma, the school run rota came first
    assert data["results"][0]["fact"]["text"] == "- Emma goes to Oakfield Primary, class 3B, teacher Mr Patel."
    assert data["query"] == "how is my daughter doing at school"  # asked as it was said
    assert data["asked_as"] == "how is Emma doing at school"  # and the caller is told how it was read
    assert expanded(family, "how is my daughter doing at school") == "how is Emma doing at school"
    assert family.compact("recall", "how is my daughter doing at school")["asked_as"] == "how is Emma doing at school"
    text = family("recall", "how is my daughter doing at school").stdout.splitlines()
    assert text[0] == "asked as: how is Emma doing at school" and "Emma goes to Oakfield Primary" in text[4]
    assert "asked_as" not in family.compact("recall", "where does Emma go to school")  # only when a role was read


def test_a_fact_about_someone_else_the_notebook_knows_is_no_strong_answer(family: Mem) -> None:
    """"my husband" is Tom; Emma's allergy is about someone else (a person the notebook knows as
    the daughter), so it scores half (test_a_fact_about_someone_else_scores_half) and may not
    answer. Where such a fact was the best match,
    nothing is strong: the evidence that the question is answered was hers."""
    family.write("knowledge/pets.md", "# Pets\n\n- My son Jake is allergic to cats.\n")
    family.commit("pets")
    out = family.compact("recall", "what is my husband allergic to")
    assert out["asked_as"] == "what is Tom allergic to" and out["results"][0]["text"] == "- Tom hates coriander."
    # before, Emma's and Jake's allergies came second and third as strong answers
    assert not [r for r in out["results"] if ("Emma" in r["text"] or "Jake" in r["text"]) and not r["weak"]]
    peanuts = family.compact("recall", "is my husband allergic to peanuts")  # best match: Emma's peanuts
    assert peanuts["results"] and all(r["weak"] for r in peanuts["results"])
    keyword = family.compact("recall", "--mode", "keyword", "what is my son allergic to")  # read as Jake
    assert [(r["text"], r["weak"]) for r in keyword["results"]][:1] == [("- My son Jake is allergic to cats.", False)]
    keyword = family.compact("recall", "--mode", "keyword", "what is my husband allergic to")
    assert all(r["weak"] for r in keyword["results"] if "Emma" in r["text"] or "Jake" in r["text"])
    assert any("Emma" in r["text"] for r in keyword["results"])  # shown, in keyword mode, but marked
    by_name = family.compact("recall", "what is Jake allergic to")["results"][0]  # asked by name
    assert by_name["text"] == "- My son Jake is allergic to cats." and by_name["weak"] is False
    family.write("reference/phones.md", "# Phones\n\n- Lucy is my sister.\n- Lucy's phone is 07700 900321.\n")
    family.commit("phones")
    phone = family.compact("recall", "what is Emma's phone number")["results"]  # a name said: the same rule
    assert phone and all(r["weak"] for r in phone)  # Lucy's phone was the best match: nothing answers for Emma
    # saying "me" too does not make it a question about the asker alone (it names Emma): when the
    # best match is someone else's, every result stays weak (_someone_else asks asker_only)
    index = Index(open_notebook(family.path))
    try:
        told = aliases.Asked("tell me what Emma's phone number is", "tell me what Emma's phone number is")
        mine = aliases.Asked("what am I allergic to", "what am I allergic to")
        assert not aliases.asker_only(index.conn, told) and aliases.asker_only(index.conn, mine)
    finally:
        index.close()
    assert family.compact("recall", "what is Lucy's phone number")["results"][0]["weak"] is False


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_a_fact_about_someone_else_scores_half(family: Mem, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Asked of Jake, Emma's allergy (she is known as the daughter) is shown at half its score,
    marked weak; Jake's own stays as it was."""
    family.write("knowledge/pets.md", "# Pets\n\n- My son Jake is allergic to cats.\n")
    family.commit("pets")

    def scores() -> dict[str, tuple[float, bool]]:
        out = family.compact("recall", "--mode", mode, "--min-score", "0", "-n", "15", "what is Jake allergic to")
        return {r["text"]: (r["score"], r["weak"]) for r in out["results"]}

    halved = scores()
    monkeypatch.setattr(search, "SOMEONE_ELSE", 1.0)
    whole = scores()
    emma, jake = "- My daughter Emma is allergic to peanuts.", "- My son Jake is allergic to cats."
    assert whole[emma][0] > 0 and halved[emma] == (pytest.approx(whole[emma][0] / 2, abs=2e-4), True)
    assert halved[jake] == whole[jake] and halved[jake][1] is False


def test_a_name_with_an_apostrophe_or_a_hyphen_is_a_name(mem: Mem) -> None:
    """"O'Brien" and "Mary-Kate" are names in a question as in the notebook (\\w+ cut them in two,
    and Lucy's phone was a strong answer for Mary-Kate's)."""
    mem.write("people.md", "# People\n\n- My GP is Dr O'Brien.\n- O'Brien works at the Mill Road surgery.\n"
                           "- Lucy is my sister.\n- Lucy's phone is 07700 900321.\n- My niece is Mary-Kate.\n"
                           "- Mary-Kate plays the violin.\n")
    mem.commit("people")
    phone = mem.compact("recall", "what is Mary-Kate's phone number")
    assert phone["results"] and all(r["weak"] for r in phone["results"]), phone
    assert mem.compact("recall", "what does Mary-Kate play")["results"][0]["text"] == "- Mary-Kate plays the violin."
    work = mem.compact("recall", "--min-score", "0", "what is O'Brien's phone number")["results"]
    lucy = [r["weak"] for r in work if "Lucy" in r["text"]]
    assert lucy and all(lucy)  # someone else's
    asked = aliases.Asked("when is O'Brien's surgery open", "when is O'Brien's surgery open")
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        assert aliases.unnamed(index.conn, asked) == ("when is someone's surgery open", {"o'brien"})
        assert aliases.someone_else(index.conn, asked, ["- Lucy's phone is 07700 900321.",
                                                        "- O'Brien's surgery opens at 8.", "- Mary-Kate's bow"]) \
            == [True, False, True]
    finally:
        index.close()


def test_a_question_about_the_one_who_asks_is_not_answered_by_someone_else_s_fact(family: Mem) -> None:
    """"what am I allergic to": Emma's peanut allergy came first, as a strong answer, over the
    user's own line (issue 22's first example). Emma's fact is someone else's: it scores half and
    is weak, and the user's own fact stays strong."""
    family.write("knowledge/me.md", "# Me\n\n- User is allergic to shellfish.\n")
    family.commit("me")
    out = family.compact("recall", "what am I allergic to")["results"]
    assert (out[0]["text"], out[0]["weak"]) == ("- User is allergic to shellfish.", False), out
    assert all(r["weak"] for r in out if "Emma" in r["text"])
    assert aliases.about_me("what am I allergic to") and aliases.about_me("how do I take my tea")
    assert not aliases.about_me("who do I call about the boiler")  # asks for someone
    assert not aliases.about_me("when did I last see my grandmother")  # asks about kin
    assert not aliases.about_me("when is my birthday")  # no I or me: who "my" means is not plain


def test_a_title_keeps_its_name_and_an_initialism_is_asked_as_a_role(mem: Mem) -> None:
    mem.write("people/work.md", "# Work\n\n- Prof Lin is my supervisor.\n- Lin wants chapter two by May.\n"
                                "- Dr Okafor is my GP.\n- Dr Okafor said to cut down on salt.\n")
    mem.commit("work")
    assert expanded(mem, "what does my supervisor want") == "what does Lin want"  # was "what does Prof want"
    assert expanded(mem, "what did my GP say") == "what did Okafor say"
    assert mem.compact("recall", "what does my supervisor want")["results"][0]["text"] == \
        "- Lin wants chapter two by May."


def test_a_fact_is_about_the_person_it_starts_with(family: Mem) -> None:
    """Only a fact whose subject is another person the notebook knows by a role is someone else's;
    a name further in, or a fact that also names the question's person, is not."""
    index = Index(open_notebook(family.path))
    try:
        index.sync()
        asked = aliases.Asked("what is Tom allergic to", "what is my husband allergic to", ("Tom",))
        facts = ["- Emma is allergic to peanuts.", "- My daughter Emma is 8.", "- Tom and Emma swim.",
                 "- Parents' evening with Dana on Monday.", "- Dana wants a weekly summary.", "1. [ ] Emma's recital"]
        assert aliases.someone_else(index.conn, asked, facts) == [True, True, False, False, True, True]
        assert aliases.someone_else(index.conn, aliases.Asked("q", "q"), facts) == [False] * 6  # no role read
    finally:
        index.close()


def test_only_the_current_holder_of_a_role_is_named(family: Mem) -> None:
    assert expanded(family, "what did the product owner ask for") == "what did Dana ask for"
    family.write("knowledge/project.md", OTHER["knowledge/project.md"].replace("Dana Reyes", "Marcus Bell"))
    family.commit("new product owner")
    assert expanded(family, "what did the product owner ask for") == "what did Marcus ask for"
    assert expanded(family, "what did the product owner say, Marcus?") == "what did the product owner say, Marcus?"


def test_a_kinship_word_means_everyone_it_covers_and_a_name_after_the_role_is_kept(family: Mem) -> None:
    family.write("people/jake.md", "# Jake\n\n- My son Jake is 5.\n- Jake goes to Little Acorns nursery.\n")
    family.commit("jake")
    assert expanded(family, "where do my kids go to school") == "where do Jake and Emma go to school"
    assert expanded(family, "what school does my kid go to") == "what school does Jake and Emma go to"
    assert expanded(family, "what does my daughter Lucy like") == "what does my daughter Lucy like"  # was "Emma Lucy"


def test_a_role_the_notebook_does_not_name_leaves_the_question_as_asked(family: Mem) -> None:
    assert expanded(family, "what is my sister's job") == "what is my sister's job"
    assert expanded(family, "what did the plumber charge") == "what did the plumber charge"


def test_a_name_the_question_gained_does_not_make_its_match_strong(family: Mem) -> None:
    """Evidence is the question's as asked: the plumber's line is near "the plumber" but says
    nothing of a charge, so it stays a weak match when Kev is added to the question."""
    family.write("reference/trades.md", "# Trades\n\n- Plumber: Kev at KP Plumbing, 07700 900456, good with boilers.\n"
                                        "- Electrician: Amir, for the fuse box.\n")
    family.commit("trades")
    assert expanded(family, "what did the plumber charge last time") == "what did Kev charge last time"
    data = family.json("recall", "what did the plumber charge last time")
    assert data["results"][0]["fact"]["text"].startswith("- Plumber: Kev")
    assert data["results"][0]["weak"] is True


def test_a_first_build_reads_each_text_s_roles_once(family: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty index stores each text's roles as it stores the text: nothing is left to read
    again afterwards (a first build read every text's roles twice)."""
    def again(index: Index) -> int:
        raise AssertionError("a fresh index read its roles a second time")

    monkeypatch.setattr(stored, "fill", again)
    index = Index(open_notebook(family.path))
    try:
        assert stored.pending(index)  # migration 14 leaves a new index 'pending'...
        index.sync()
        assert not stored.pending(index)  # ...which a first build settles without reading twice
        assert ("daughter", "Emma") in [(r, n) for _, r, n in stored.naming(index.conn, ["daughter"], 20)]
    finally:
        index.close()


@pytest.mark.parametrize("before", ["pending", ""])  # before migration 14; read under the first rules
def test_an_index_whose_roles_were_not_read_by_these_rules_reads_them_once(family: Mem, before: str) -> None:
    index = Index(open_notebook(family.path))
    try:
        index.sync()
        assert ("daughter", "Emma") in [(r, n) for _, r, n in stored.naming(index.conn, ["daughter"], 20)]
        index.conn.execute("DELETE FROM aliases")
        index.conn.execute("INSERT INTO aliases VALUES('daughter', 'Stale', 1)")
        db.set_meta(index.conn, "aliases", before)
    finally:
        index.close()
    assert expanded(family, "which animals frighten my daughter") == "which animals frighten Emma"


def test_a_forgotten_line_takes_its_role_with_it(family: Mem) -> None:
    family("forget", "My husband Tom")
    assert expanded(family, "what hours does my husband keep") == "what hours does my husband keep"
    index = Index(open_notebook(family.path))
    try:
        assert stored.naming(index.conn, ["husband"], 20) == []
    finally:
        index.close()


def test_listed_candidates_name_roles_as_checked_ones_do(family: Mem) -> None:
    """A date filter lists the candidates first (temp.cand); the role is named all the same, and
    not by a page the filter leaves out."""
    question = "which animals frighten my daughter"
    assert expanded(family, question, since="2000-01-01") == "which animals frighten Emma"
    assert expanded(family, question, groups=("sessions",)) == question


def test_a_role_given_now_is_named() -> None:
    """A newcomer's trial (2026-11-26): remember's update "Scrum master is now Raj Iyer" named no one."""
    assert stored.found("- Scrum master is now Raj Iyer") == [("scrum master", "Raj Iyer")]
    assert stored.found("- My cousin Étienne runs a bakery.") == [("cousin", "Étienne")]


def test_the_line_that_answers_comes_before_the_one_that_names_the_role(mem: Mem) -> None:
    """A newcomer's trial (2026-11-26): "Product owner is Priya Nair" came first for "what did the
    product owner ask for", and "Priya asked for CSV export" scored under half of it, hidden."""
    for fact in ("Product owner is Priya Nair", "Priya asked for CSV export in the reports page",
                 "Scrum master is Kim Lee", "Kim asked for shorter standups", "Scrum master is now Raj Iyer",
                 "Raj asked for a retro every Friday", "The deploy pipeline runs on GitHub Actions"):
        mem("remember", fact)
    def top(question: str) -> str:
        return str(mem.json("recall", question)["results"][0]["fact"]["text"])
    assert top("what did the product owner ask for") == "- Priya asked for CSV export in the reports page"
    assert top("who is the product owner") == "- Product owner is Priya Nair"
    assert "Kim" not in expanded(mem, "what did the scrum master ask for")  # remember's "is now" names Raj


def test_an_update_said_with_a_role_replaces_the_line_that_says_the_name(mem: Mem) -> None:
    """"My sister's phone is now ..." updates "Lucy's phone is ..." when Lucy is the sister, and the
    line keeps her name; a role the notebook does not name replaces nothing."""
    for fact in ("Lucy is my sister, she lives in Leeds", "Lucy's phone is 07700 900321"):
        mem("remember", fact)
    out = mem.json("remember", "My sister's phone is now 07700 900654")
    assert out["replaced"]["text"] == "- Lucy's phone is 07700 900321"
    page = (mem.path / "reference/contacts.md").read_text()
    assert "- Lucy's phone is now 07700 900654\n" in page and "900321" not in page and "My sister's" not in page
    assert "Gitmem-Supersedes: reference/contacts.md:4 " in mem.git("log", "-1", "--format=%B")
    other = mem.json("remember", "My brother's phone is now 07700 900111")  # no brother in the notebook
    assert other.get("replaced") is None and "900654" in (mem.path / "reference/contacts.md").read_text()


def test_what_a_question_asks_of_someone_is_judged_on_their_facts(family: Mem) -> None:
    """"When is Tom's birthday" in a notebook that says Tom's mother and Lucy's birthday but not
    his: both hold a part of the question (Tom, a birthday), neither answers it, so every match is
    weak; asked of Lucy, her birthday line is a strong answer. A question about someone the
    notebook knows, under the floor, shows the closest of their facts, weak, and no one else's."""
    family.write("reference/contacts.md", OTHER["reference/contacts.md"]
                 + "\n## Lucy Walsh\n\n- Lucy is my sister.\n- Lucy's birthday is 21 November.\n")
    family.commit("lucy")
    tom = family.compact("recall", "when is Tom's birthday")
    assert tom["results"] and tom["evidence"]["weak"] is True, tom
    lucy = family.compact("recall", "when is Lucy's birthday")
    assert lucy["results"][0]["text"] == "- Lucy's birthday is 21 November." and lucy["evidence"]["weak"] is False
    blood = family.compact("recall", "what is Tom's blood type")
    assert blood["results"] and all(r["weak"] for r in blood["results"]), blood
    assert all("Tom" in r["text"] for r in blood["results"]), blood  # his facts, none of the others
    # their scores are 0.00 (nothing answers): a note says why they are shown at all
    assert blood["notes"] == ["nothing answers \"what is Tom's blood type\" well: these are the closest of "
                              "what the notebook says about Tom"], blood["notes"]


def test_weak_matches_for_someone_the_notebook_knows_are_their_facts(mem: Mem) -> None:
    """A newcomer (2026-11-27): "when is Gareth's birthday", where the notebook knows Gareth as the
    account contact and says only the asker's mum's birthday, got the mum's birthday, strong. Now
    only Gareth's facts, weak, with the note that says why; a question it answers stays as it was."""
    mem.write("reference/contacts.md", "# Contacts\n\n- Gareth Evans is the account contact at Bluewater Ferries\n"
                                       "- My mum Carmen's birthday is 2 August\n- Priya's phone is 555-0101\n")
    mem.commit("contacts")
    out = mem.compact("recall", "when is Gareth's birthday")
    assert out["results"] and all(r["weak"] and "Gareth" in r["text"] for r in out["results"]), out["results"]
    assert out["notes"] == ["nothing answers \"when is Gareth's birthday\" well: these are the closest of what the "
                            "notebook says about Gareth"], out["notes"]
    mem.write("reference/contacts.md", (mem.path / "reference/contacts.md").read_text() + "- Gareth's phone is 07700 900123\n")
    mem.commit("his phone")
    phone = mem.compact("recall", "what is Gareth's phone")
    assert phone["results"][0]["text"] == "- Gareth's phone is 07700 900123" and not phone["results"][0]["weak"]


def test_a_common_word_or_a_crowded_role_is_no_one_s_name(family: Mem) -> None:
    """"Note: Can we move the demo" stores the role "note" for "Can", and a transcript's "user:"
    lines give "user" many names: neither is a person a question is judged about ("Can I ..."
    would be "someone I ...")."""
    family.write("knowledge/misc.md", "# Misc\n\n- Note: Can we move the demo to Friday?\n"
                 + "".join(f"- User: Zed{i} is fine.\n" for i in range(aliases.MANY + 1)))
    family.commit("misc")
    index = Index(open_notebook(family.path))
    try:
        index.sync()
        known = aliases.people(index.conn)
        assert "Tom" in known and "Emma" in known and "Can" not in known
        assert aliases.people(index.conn, {}).keys() == known.keys()
        assert stored.naming(index.conn, ["user"], aliases.MANY + 5)  # stored, but too many to be anyone
        assert not [n for n in known if n.startswith("Zed")]
        asked = aliases.Asked("Can Tom swim", "Can Tom swim")
        assert aliases.unnamed(index.conn, asked) == ("Can someone swim", {"tom"})
    finally:
        index.close()


def test_a_possessive_without_its_apostrophe_and_a_name_said_as_whose(mem: Mem) -> None:
    """A newcomer's "whats Toms phone number? I need to call him" got Marcus Ortiz's email first, not
    weak (2026-11-26): "Toms" is Tom, and a fact said as whose ("Marcus Ortiz's email") is someone
    else's when the question names a person."""
    mem.write("reference/contacts.md", "# Contacts\n\n- Tom Park\n  - Phone: 971-555-0188\n"
                                       "- Marcus Ortiz's email is marcus@ortiz.example\n")
    mem.commit("contacts")
    found = mem.compact("recall", "--min-score", "0", "whats Toms phone number? I need to call him")["results"]
    assert found[0]["where"] == "reference/contacts.md:4"
    assert [r["weak"] for r in found if "Marcus" in r["text"]] == [True]
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        asked = aliases.Asked("whats Toms phone", "whats Toms phone")
        assert aliases.someone_else(index.conn, asked, ["Marcus Ortiz's email is m@o.example", "Tom Park › Phone: 1",
                                                        "Marcus emails on Fridays", "Monday's standup moved"]) \
            == [True, False, False, False]  # a name said plainly is no one the notebook knows
        google = aliases.Asked("when does Tom rotate Google's API key", "when does Tom rotate Google's API key")
        assert aliases.someone_else(index.conn, google, ["Google's API key rotates every 90 days"]) == [False]
        plain = aliases.Asked("what is the phone number", "what is the phone number")
        assert aliases.someone_else(index.conn, plain, ["Marcus Ortiz's email is m@o.example"]) == [False]
    finally:
        index.close()


def test_a_role_said_in_other_words_is_asked_as_the_notebook_says_it(mem: Mem) -> None:
    """"what's my boss's name" left "My manager is Helen Brooks" at rank 5 (a newcomer, 2026-11-26)."""
    assert aliases.roles("what's my boss's name") == ["boss", "manager"]
    assert aliases.roles("when do I see my doctor") == ["doctor", "gp"]
    mem.write("knowledge/work.md", "# Work\n\n- My manager is Helen Brooks\n- The roadmap is due on Friday\n"
                                   "- Dana runs the payments team\n")
    mem.commit("work")
    found = mem.compact("recall", "what's my boss's name")
    assert found["asked_as"] == "what's Helen's name" and found["results"][0]["where"] == "knowledge/work.md:3"


def test_a_relative_the_notebook_never_mentions_gets_only_weak_matches(family: Mem) -> None:
    """"what is my sister's phone number" in a notebook with no sister: Sarah's phone came first,
    strong (the paraphrase set's unanswerable questions). Every match is weak, with a note that says why."""
    out = family.json("recall", "what is my sister's phone number")
    assert out["results"] and all(r["weak"] for r in out["results"]), out["results"]
    assert "the notebook never mentions your sister: these matches are about others" in out["notes"]
    text = family("recall", "what does my brother do for work").stdout
    assert text.startswith("WEAK MATCHES") and text.endswith(
        "note: the notebook never mentions your brother: these matches are about others\n")
    # a relative it mentions, by a kinship word that means the same ("mum" for "mother"), is no stranger
    family.write("knowledge/mum.md", "# Mum\n\n- Mum takes warfarin, so no grapefruit for her.\n")
    family.commit("mum")
    out = family.compact("recall", "which fruit must my mother avoid")
    assert out["results"][0]["text"] == "- Mum takes warfarin, so no grapefruit for her." and \
        not any("never mentions" in n for n in out["notes"])
    assert not any("never mentions" in n for n in family.json("recall", "what is my daughter allergic to")["notes"])
    # a father the notebook names only as someone else's ("Poppy's dad") is not the asker's (a newcomer, 2026-11-27)
    family.write("knowledge/poppy.md", "# Poppy\n\n- Poppy's dad is called Marcus.\n")
    family.commit("poppy")
    assert "the notebook never mentions your father: these matches are about others" in \
        family.json("recall", "when is my father's birthday")["notes"]
    family.write("knowledge/poppy.md", "# Poppy\n\n- Poppy's dad is called Marcus.\n- Dad's birthday is 3 May.\n")
    family.commit("dad")
    out = family.compact("recall", "when is my father's birthday")
    assert out["results"][0]["text"] == "- Dad's birthday is 3 May." and not any("never mentions" in n for n in out["notes"])
    # "my grandma" is the notebook's "Nana" (a review, 2026-11-27)
    family.write("knowledge/nana.md", "# Nana\n\n- Nana lives in Galway.\n")
    family.commit("nana")
    assert not any("never mentions" in n for n in family.json("recall", "where does my grandma live")["notes"])
    # kin said as family call them need no "my" ("when should I send mum a card", a newcomer's)
    assert aliases.roles("when should I send mum a card") == ["mum", "mother", "mom"]
    assert aliases.roles("when is my mum's birthday")[-3:] == ["mum", "mother", "mom"]
    # "sibling" is said by "brother" or "sister" (a newcomer: "the notebook never mentions your sibling", 2026-11-27)
    family.write("knowledge/tomas.md", "# Tomás\n\n- My brother Tomás lives in Denver.\n")
    family.commit("tomas")
    out = family.compact("recall", "which city is my sibling in")
    assert out["asked_as"] == "which city is Tomás in" and out["results"][0]["text"] == "- My brother Tomás lives in Denver."
    assert not any("never mentions" in n for n in out["notes"])


def test_a_job_said_shorter_finds_the_one_person_of_a_longer_role(mem: Mem) -> None:
    """A newcomer (2026-11-27): "who is my boss" missed "Linda Park is the engineering manager" (boss is
    manager, and no one was just the manager). Two people of such roles are no one's in particular."""
    mem.write("knowledge/work.md", "# Work\n\n- Linda Park is the engineering manager\n- Linda wants the roadmap "
                                   "by Friday\n- The payments team ships on Tuesdays\n")
    mem.commit("work")
    out = mem.compact("recall", "who is my boss")
    assert out["asked_as"] == "who is my manager" and out["results"][0]["text"] == \
        "- Linda Park is the engineering manager", out
    assert mem.compact("recall", "what does my manager want")["asked_as"] == "what does Linda want"
    mem.write("knowledge/work.md", (mem.path / "knowledge/work.md").read_text() + "- Omar Diaz is the product manager\n")
    mem.commit("another manager")
    assert mem.compact("recall", "what does my manager want").get("asked_as") is None


def test_a_name_the_notebook_never_mentions_gets_only_weak_matches(mem: Mem) -> None:
    """"what is Leo's favourite film" in a notebook without a Leo: Sam's film was a strong answer."""
    mem.write("reference/preferences.md", "# Preferences\n\n- Sam's favourite film is Alien.\n"
                                          "- I have an ESTA valid until 2027.\n- We run PostgreSQL 16.\n")
    mem.commit("prefs")
    for question in ("what is Leo's favourite film", "which film does Leo love most", "Leo's favourite film?"):
        out = mem.json("recall", question)
        assert out["results"] and all(r["weak"] for r in out["results"]), (question, out["results"])
        assert "the notebook never mentions Leo: these matches are about others" in out["notes"], question
    # a name it says, one it says in a longer word, and a name the question does not ask about, are no strangers
    for question in ("what is Sam's favourite film", "which Postgres version do we run"):
        out = mem.json("recall", question)
        assert not any("never mentions" in n for n in out["notes"]) and not out["results"][0]["weak"], question
    assert not any("never mentions" in n for n in mem.json("recall", "can I visit the United States")["notes"])
    # a question that asks of the one who asks too is answered in part
    assert not any("never mentions" in n for n in mem.json("recall", "what is Leo's favourite film, and mine?")["notes"])
    # ... and so is one that names someone the notebook knows beside ("Sam's film and Leo's", a review)
    out = mem.json("recall", "what are Sam's and Leo's favourite films")
    assert not any("never mentions" in n for n in out["notes"]) and not out["results"][0]["weak"]


def test_the_strong_results_come_first_in_the_json_as_in_the_text(family: Mem) -> None:
    """A newcomer (2026-11-27): the JSON listed a weak result (someone else's, its score halved) above
    strong ones the text showed it below, under WEAK MATCHES: an agent's top three were not a person's."""
    family.write("knowledge/me.md", "# Me\n\n- User is allergic to shellfish.\n- I get hay fever in May.\n")
    family.commit("me")
    out = family.compact("recall", "what am I allergic to")["results"]
    weak = [r["weak"] for r in out]
    assert True in weak and False in weak[1:] and weak == sorted(weak), out
    text = family("recall", "what am I allergic to").stdout
    assert text.index("- I get hay fever in May.") < text.index("WEAK MATCHES") < text.index("Emma is allergic")


def test_a_question_about_someone_by_the_role_the_is_not_about_the_asker(mem: Mem) -> None:
    """A newcomer (2026-11-27): "how do I email the designer" read as about the one who asks ("I"), so
    Greta's email, someone else's, was weak and below a Zendesk line."""
    mem.write("projects/team.md", "# Team\n\n| Name | Role |\n| --- | --- |\n| Greta Holm | Designer |\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Greta Holm's email is greta@holm.design\n"
                                       "- Customer support emails go to Zendesk\n")
    mem.commit("team")
    top = mem.compact("recall", "how do I email the designer")["results"][0]
    assert (top["text"], top["weak"]) == ("- Greta Holm's email is greta@holm.design", False)
    assert not aliases.about_me("how do I email the designer") and aliases.about_me("how do I take the bus")


def test_a_person_named_by_what_they_do_and_a_role_by_its_short_form(mem: Mem) -> None:
    """A newcomer (2026-11-27): "who is the PO for the project" got no good match over "Oliver Grant is
    now the product owner" (a role said after the name was not read, and "PO" was no role)."""
    assert stored.found("Oliver Grant is the product owner for Orchard") == [("product owner", "Oliver Grant")]
    assert stored.found("Raj is the lead on billing") == [("lead", "Raj")]
    assert stored.found("Postgres is the database we use") == []  # a thing, not a person by what they do
    mem("remember", "Oliver Grant is the product owner for Orchard")
    mem("remember", "Oliver Grant wants weekly demos on Fridays")
    # "who is the ROLE" asks for the name: the role's line answers, the question asked in the notebook's words
    out = mem.compact("recall", "who is the PO for the project")
    assert out["asked_as"] == "who is the product owner for the project"
    assert out["results"][0]["text"] == "- Oliver Grant is the product owner for Orchard"
    assert mem.compact("recall", "who is the product owner")["results"][0]["text"] == \
        "- Oliver Grant is the product owner for Orchard"
    # what the role's holder wants is asked by their name
    out = mem.compact("recall", "what does our PO want")
    assert out["asked_as"] == "what does Oliver want"
    assert out["results"][0]["text"] == "- Oliver Grant wants weekly demos on Fridays"


def test_the_asker_s_own_fact_is_not_the_one_a_question_about_someone_else_asks(family: Mem) -> None:
    """"when is Tom's birthday" answered by "My birthday is 14 March": the asker's fact is someone else's
    when the question names a person the notebook knows and says no I, me or we."""
    family.write("knowledge/me.md", "# Me\n\n- My birthday is 14 March.\n- Tom's birthday is 2 August.\n")
    family.commit("birthdays")
    out = family.compact("recall", "when is Tom's birthday")["results"]
    assert (out[0]["text"], out[0]["weak"]) == ("- Tom's birthday is 2 August.", False)
    assert all(r["weak"] for r in out if r["text"] == "- My birthday is 14 March.")
    # a question that says I or me is the asker's too: their facts stay as they are
    index = Index(open_notebook(family.path))
    try:
        for question, mine in (("when did Tom and I meet", False), ("when did Tom start nights", True)):
            asked = aliases.Asked(question, question)
            assert aliases.someone_else(index.conn, asked, ["- My birthday is 14 March."]) == [mine], question
        # a role read as a name keeps the question the asker's ("my daughter" as Emma: a review found "Our
        # daughter goes to ..." weak)
        asked = aliases.Asked("what school does Emma go to", "what school does my daughter go to", ("Emma",))
        assert aliases.someone_else(index.conn, asked, ["- Our daughter goes to Oakfield."]) == [False]
    finally:
        index.close()


def test_the_askers_own_fact_is_no_answer_about_a_person_no_role_names(mem: Mem) -> None:
    """A newcomer's "when is Maya's birthday": "My wife Priya's birthday is March 14th" was a strong answer."""
    mem.write("knowledge/facts.md", "# Facts\n\n- Maya starts kindergarten at Oakridge Elementary this September\n"
              "- Maya has swim lessons Saturdays at 10 at the Y\n- Maya's pediatrician is Dr. Chen\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- My wife Priya's birthday is March 14th\n")
    mem.commit("facts")
    results = mem.compact("recall", "when is Maya's birthday")["results"]
    priya = next(r for r in results if "Priya" in r["text"])
    assert priya["weak"] and results[0]["text"].startswith("- Maya"), results
    # asked of the one who asks, the same fact answers
    assert mem.compact("recall", "when is my wife's birthday")["results"][0]["text"] == \
        "- My wife Priya's birthday is March 14th"


def test_a_fact_that_says_a_persons_role_is_theirs(mem: Mem) -> None:
    """A newcomer's "when's Robert's birthday": "My brother's birthday is Nov 2" was left out of Robert's facts."""
    mem.write("reference/contacts.md", "# Contacts\n\n- My brother Robert lives in Denver with his partner Sam\n"
              "- My brother's birthday is Nov 2\n- My mum's birthday is May 1\n- Jake's birthday is June 3\n")
    mem.commit("contacts")
    texts = [r["text"] for r in mem.compact("recall", "when's Robert's birthday")["results"]]
    assert "- My brother's birthday is Nov 2" in texts[:2], texts
    assert not any("mum" in t or "Jake" in t for t in texts[:2]), texts


def test_a_role_said_as_anothers_is_no_fact_of_the_person(mem: Mem) -> None:
    """A review: "Priya's brother Sam" was taken for Robert, the asker's brother, and was a strong answer."""
    mem.write("reference/contacts.md", "# Contacts\n\n- My brother Robert lives in Denver\n- My wife Priya works at "
              "the hospital\n- Priya's brother Sam has his birthday on Nov 2\n")
    mem.commit("contacts")
    results = mem.compact("recall", "when's Robert's birthday")["results"]
    assert not any("Sam" in r["text"] for r in results), results


def test_a_capitalised_first_word_names_no_one(mem: Mem) -> None:
    """A review: "Dentist appointment when" took Dentist for a name, and the asker's answer for another's."""
    mem.write("knowledge/facts.md", "# Facts\n\n- Dentist office is at 12 Main Street\n"
              "- My dentist appointment is Tuesday May 6 at 3pm\n")
    mem.commit("facts")
    top = mem.compact("recall", "Dentist appointment when")["results"][0]
    assert (top["text"], top["weak"]) == ("- My dentist appointment is Tuesday May 6 at 3pm", False)
