"""A person asked by a short name the notebook says in full, or the other way (search/nicknames.py)."""

from tests.conftest import Mem


def _contacts(mem: Mem, *lines: str) -> None:
    mem.write("reference/contacts.md", "# Contacts\n\n" + "".join(f"- {line}\n" for line in lines))
    mem.commit("contacts")


def test_a_short_name_is_asked_as_the_name_the_notebook_says(mem: Mem) -> None:
    """It answered with weak matches and "the notebook never mentions Bob" (carried since session 15)."""
    _contacts(mem, "Robert Chen's phone is 555-1234", "Sarah's phone is 555-9876")
    out = mem.compact("recall", "what is Bob's phone number")
    assert out["asked_as"] == "what is Robert's phone number"
    top = out["results"][0]
    assert (top["text"], top["weak"]) == ("- Robert Chen's phone is 555-1234", False)
    assert not any("never mentions" in note for note in out["notes"])
    assert mem("recall", "what is Bob's phone number").stdout.startswith("asked as: what is Robert's phone number\n")


def test_a_full_name_is_asked_as_the_short_name_the_notebook_says(mem: Mem) -> None:
    _contacts(mem, "Mike is our landlord; his phone is 555-2222")
    out = mem.compact("recall", "--mode", "keyword", "what is Michael's phone")
    assert out["asked_as"] == "what is Mike's phone"
    assert out["results"][0]["text"] == "- Mike is our landlord; his phone is 555-2222"


def test_a_name_the_notebook_says_is_asked_as_said(mem: Mem) -> None:
    """Bob may be another person than Robert."""
    _contacts(mem, "Robert Chen's phone is 555-1234", "Bob from the gym: 555-7777")
    assert "asked_as" not in mem.compact("recall", "--mode", "keyword", "what is Bob's phone")


def test_two_people_the_name_may_be_are_not_guessed_between(mem: Mem) -> None:
    _contacts(mem, "Christopher Lee's phone is 555-1111", "Christine Ward's phone is 555-3333")
    assert "asked_as" not in mem.compact("recall", "--mode", "keyword", "what is Chris's phone")


def test_a_first_word_is_no_name_unless_said_as_whose(mem: Mem) -> None:
    _contacts(mem, "William Hart's phone is 555-4444")
    assert "asked_as" not in mem.compact("recall", "--mode", "keyword", "Will the phone bill go up")
    assert mem.compact("recall", "--mode", "keyword", "Will's phone")["asked_as"] == "William's phone"


def test_a_word_said_in_lower_case_is_no_name(mem: Mem) -> None:
    _contacts(mem, "Somebody tried to rob the shed in May")
    assert "asked_as" not in mem.compact("recall", "--mode", "keyword", "what is Robert's phone")


def test_remember_does_not_guess_whose_fact_a_short_name_is(mem: Mem) -> None:
    """A first fact about a Bob must not replace Robert's line (a review): remember reads no short name."""
    _contacts(mem, "Robert Chen's phone is 555-1234")
    out = mem.json("remember", "Bob's phone is 555-7777")
    assert out["replaced"] is None
    assert (mem.path / "reference/contacts.md").read_text() == \
        "# Contacts\n\n- Robert Chen's phone is 555-1234\n- Bob's phone is 555-7777\n"


def test_two_short_forms_of_one_name_are_two_people(mem: Mem) -> None:
    """Fran and Frank, Nat and Nate (a review): only a full name and its short forms are one name."""
    _contacts(mem, "Frank Miller's phone is 555-1111")
    assert "asked_as" not in mem.compact("recall", "--mode", "keyword", "what is Fran's phone")
