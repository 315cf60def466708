"""Nested facts for supersession (gitmem/nesting.py): an item under a person's name is theirs."""

from __future__ import annotations

import pytest

from gitmem import nesting, replacing
from tests.conftest import Mem

PAGE = """# Contacts

## People

- Tom Park
  - Phone: 971-555-0188
  - Email: tom@park.example
- Sofia Diaz
  - Phone: 971-555-0111

## Vendors

| Name | Company | Phone |
| --- | --- | --- |
| Raj Mehta | Twilio | 555-0142 |
"""


def test_a_nested_item_is_read_with_the_items_it_is_under() -> None:
    assert nesting.owners(PAGE) == {6: "Tom Park", 7: "Tom Park", 9: "Sofia Diaz"}
    assert nesting.find(PAGE, "Tom Park's phone is now 971-555-0300") == (6, "  - Phone: 971-555-0188")
    assert nesting.find(PAGE, "Sofia's phone is 971-555-0999") == (9, "  - Phone: 971-555-0111")
    assert nesting.find(PAGE, "Priya's phone is 971-555-0999") is None  # nobody's line here
    assert nesting.find(PAGE, "Tom Park's work phone is 555-0000") is None  # another phone of his


def test_only_the_value_changes_in_place() -> None:
    new = "Tom Park's phone is now 971-555-0300"
    assert nesting.rewrite(PAGE, 6, "  - Phone: 971-555-0188", new, f"- {new}") == "  - Phone: 971-555-0300"
    plain = "# C\n\n- Tom Park's phone is 971-555-0188\n"
    assert nesting.rewrite(plain, 3, "- Tom Park's phone is 971-555-0188", new, f"- {new}") == \
        replacing.rewrite("- Tom Park's phone is 971-555-0188", new, f"- {new}")  # a line that says whose


def test_remember_replaces_a_persons_nested_phone(mem: Mem) -> None:
    """A newcomer's contacts page per person (2026-11-26): the update was added under Vendors, at the
    page's end, and recall kept the old number first."""
    mem.write("reference/contacts.md", PAGE)
    mem.commit("contacts")
    out = mem.json("remember", "Tom Park's phone is now 971-555-0300")
    assert (out["path"], out["lines"]["start"]) == ("reference/contacts.md", 6)
    assert (mem.path / "reference/contacts.md").read_text() == PAGE.replace("0188", "0300")
    assert "Gitmem-Supersedes:" in mem.git("log", "-1", "--format=%B")


def test_a_new_fact_about_a_person_goes_under_their_entry() -> None:
    assert nesting.under(PAGE, "Sofia's email is sofia@diaz.example") == (9, "  - ")  # after her last item
    assert nesting.under(PAGE, "Tom Park moved to Lyon") == (7, "  - ")
    assert nesting.under(PAGE, "Raj is on holiday") is None  # a table row is no entry to nest under
    assert nesting.under(PAGE, "the wifi is down") is None  # no name
    assert nesting.under("- Tom Park\n  - a\n- Tom Baker\n  - b\n", "Tom's phone is 1") is None  # which Tom?
    assert nesting.under("- Dr Okafor\n  - Tuesdays\n", "Dr Okafor moved to Leeds") == (2, "  - ")
    assert nesting.under("- Sofia Diaz\n\n- Tom\n", "Sofia's email is x") is None  # nothing nested: a list


def test_remember_puts_a_persons_new_fact_under_their_entry(mem: Mem) -> None:
    """A newcomer's later contacts (Sofia's email) were added under Vendors, the page's last section."""
    mem.write("reference/contacts.md", PAGE)
    mem.commit("contacts")
    out = mem.json("remember", "Sofia's email is sofia@diaz.example")
    assert (out["path"], out["lines"]["start"]) == ("reference/contacts.md", 10)
    assert (mem.path / "reference/contacts.md").read_text() == PAGE.replace(
        "  - Phone: 971-555-0111\n", "  - Phone: 971-555-0111\n  - Sofia's email is sofia@diaz.example\n")
    mem("remember", "--to", "reference/contacts.md", "--section", "Vendors", "Sofia Diaz handles the SMS contract")
    assert (mem.path / "reference/contacts.md").read_text().endswith("- Sofia Diaz handles the SMS contract\n")


def test_an_entry_is_the_persons_whole_name_and_its_continuation_lines_stay_with_it() -> None:
    """A review (2026-11-26): "Tom Baker's email" went under "- Tom Park", and a fact went between
    a phone item and its continuation line."""
    page = "- Tom Park\n  - Phone: 971-555-0188\n    (mobile, evenings only)\n- Sofia Diaz\n  - Phone: 1\n"
    assert nesting.under(page, "Tom Baker's email is tb@example.com") is None
    assert nesting.under(page, "Tom's birthday is March 3") == (3, "  - ")  # after "(mobile, ...)"
    assert nesting.under(page.replace("\n", "\r\n"), "Sofia's email is x") == (5, "  - ")
    assert nesting.under("- Émile Durand\n  - Phone: 1\n", "Émile's email is e@x") == (2, "  - ")
    assert nesting.under("- Dr Okafor\n  - Tuesdays\n", "Okafor's clinic is on Elm Street") == (2, "  - ")
    assert nesting.under("- Dr. Okafor\n  - Tuesdays\n", "Dr Okafor's email is x") == (2, "  - ")  # a title's dot
    assert nesting.under("- Sean O'Brien\n  - Phone: 1\n", "Sean O'Brien's email is x") == (2, "  - ")
    assert nesting.under("```\n- Tom Park\n  - Phone: 1\n```\n", "Tom's email is x") is None  # an example


def test_a_new_item_is_written_as_its_siblings_are() -> None:
    """A review (2026-11-26): inside a numbered list the new item was written with "- "."""
    assert nesting.under("1. Tom Park\n   1. Phone: 1\n   2. Email: t@x\n", "Tom's birthday is May 3") == \
        (3, "   3. ")
    assert nesting.under("- Tom Park\n  * Phone: 1\n", "Tom's birthday is May 3") == (2, "  * ")
    assert nesting.under("- Tom Park\n  9) Phone: 1\n", "Tom's birthday is May 3") == (2, "  10) ")
    # the marker of the children, not of a grandchild after them
    assert nesting.under("- Tom Park\n  1. Phone: 1\n     - mobile\n", "Tom's birthday is May 3") == (3, "  2. ")
    loose = "- Tom Park\n\n  - Phone: 1\n\n  - Email: t@x\n\n- Sofia Diaz\n\n  - Phone: 2\n\n- Raj\n"
    assert nesting.under(loose, "Tom's birthday is May 3") == (5, "  - ")  # a loose list: blank lines between
    assert nesting.under(loose, "Sofia's birthday is May 3") == (9, "  - ")
    assert nesting.under(loose, "Raj's birthday is May 3") is None  # nothing nested under him


def test_remember_numbers_a_persons_new_fact_in_a_numbered_list(mem: Mem) -> None:
    mem.write("reference/team.md", "# Team\n\n1. Sofia Diaz\n   1. Phone: 1\n2. Tom Park\n")
    mem.commit("team")
    mem("remember", "--to", "reference/team.md", "Sofia's email is sofia@diaz.example")
    assert (mem.path / "reference/team.md").read_text() == \
        "# Team\n\n1. Sofia Diaz\n   1. Phone: 1\n   2. Sofia's email is sofia@diaz.example\n2. Tom Park\n"


@pytest.mark.parametrize("value", ["971-555-0188 (mobile), 555-0199 (desk)", "971-555-0188 (mobile) · 555-0199 (desk)",
                                   "971-555-0188 / 555-0199", "971-555-0188 and 555-0199", "971-555-0188 or 555-0199"])
def test_an_item_of_two_values_is_not_replaced(value: str) -> None:
    """Two reviews (2026-11-26): updating one number took the other's place, or dropped it."""
    page = f"- Tom Park\n  - Phone: {value}\n"
    assert nesting.find(page, "Tom Park's phone is now 971-555-0300") is None
    assert nesting.find("- Tom Park\n  - Phone: 971-555-0188 (mobile)\n", "Tom Park's phone is now 971-555-0300") \
        == (2, "  - Phone: 971-555-0188 (mobile)")  # a word about the value is no second value


def test_remember_keeps_a_crlf_page_s_line_ends(mem: Mem) -> None:
    mem.write("reference/contacts.md", PAGE.replace("\n", "\r\n"))
    mem.commit("contacts, CRLF")
    mem("remember", "Sofia's email is sofia@diaz.example")
    text = (mem.path / "reference/contacts.md").read_bytes().decode()
    assert "  - Phone: 971-555-0111\r\n  - Sofia's email is sofia@diaz.example\r\n" in text


@pytest.mark.parametrize("entry", ["**Sofia Diaz**", "Sofia Diaz:", "**Sofia Diaz**:", "__Sofia Diaz__"])
def test_an_entry_written_bold_or_with_a_colon_is_the_persons(entry: str) -> None:
    """The second review (2026-11-26): "- **Sofia Diaz**" and "- Sofia Diaz:" were no entry."""
    page = f"- {entry}\n  - Phone: 971-555-0111\n"
    assert nesting.entry_name(entry) == "Sofia Diaz" and nesting.entry_name("Notes:") == "Notes:"  # a label
    assert nesting.under(page, "Sofia's email is x") == (2, "  - ")
    assert nesting.find(page, "Sofia Diaz's phone is now 971-555-0999") == (2, "  - Phone: 971-555-0111")


def test_a_client_s_nested_date_is_updated_in_place() -> None:
    """A newcomer (2026-11-27): "The Acme Foods contract now renews in September" was added to the facts
    page beside the hand-written "Acme Foods > Contract renews in June"."""
    page = "# Clients\n\n- Acme Foods\n  - Contract renews in June\n  - Contact: Jo Reyes\n- Beta Corp\n" \
           "  - Contract renews in May\n"
    new = "The Acme Foods contract now renews in September"
    assert nesting.find(page, new) == (4, "  - Contract renews in June")
    assert nesting.rewrite(page, 4, "  - Contract renews in June", new, f"- {new}") == "  - Contract renews in September"


def test_remember_updates_a_line_on_a_page_a_person_wrote(mem: Mem) -> None:
    """A newcomer (2026-11-27): the update was routed to the facts page and stood beside the line on
    the person's own clients page. The page is found among the keyword matches; the agent's
    instructions never are."""
    page = "# Clients\n\n- Acme Foods\n  - Contract renews in June\n  - Contact: Jo Reyes\n"
    mem.write("projects/clients.md", page)
    mem.write("reference/agent-instructions.md", "# Instructions\n\n- The Beta Corp contract renews in May\n")
    mem.commit("clients, by hand")
    out = mem.json("remember", "The Acme Foods contract now renews in September")
    assert (out["path"], out["lines"]["start"]) == ("projects/clients.md", 4)
    assert (mem.path / "projects/clients.md").read_text() == page.replace("June", "September")
    out = mem.json("remember", "The Beta Corp contract now renews in July")
    assert out["path"] != "reference/agent-instructions.md"
    assert "renews in May" in (mem.path / "reference/agent-instructions.md").read_text()
    # nor USER.md, whose line an agent may not change (its remember was refused, a review found), and a
    # committed symlink among the pages left out fails no remember
    mem.write("USER.md", "# User\n\n- Helen Brooks lives in Bristol\n")
    (mem.path / "PLAN.md").symlink_to("/etc/hostname")
    mem.commit("user, a link")
    out = mem.json("remember", "Helen Brooks moved to Bath")
    assert out["path"] != "USER.md" and "Bristol" in (mem.path / "USER.md").read_text()
