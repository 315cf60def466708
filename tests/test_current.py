"""The current fact above the one it updates when both lines stay on a page (search/current.py),
with the real model: what `remember` keeps and a person writes."""

from gitmem.search import current
from gitmem.search.facts import Fact
from tests.conftest import Mem

COFFEE = "# Preferences\n\n- I prefer dark roast coffee, no sugar\n- I no longer drink coffee; I switched to green tea\n"


def _fact(line: int, text: str, headings: list[str]) -> Fact:
    return Fact(text, {"start": line, "end": line}, headings)


def test_a_later_line_that_says_no_longer_updates_part_of_a_line() -> None:
    found = current.successor(COFFEE, _fact(3, "- I prefer dark roast coffee, no sugar", ["Preferences"]))
    assert found is not None
    later, how = found
    assert (later.start, later.text, how) == (4, "- I no longer drink coffee; I switched to green tea", "part")


def test_an_aside_in_a_parenthesis_is_no_part_of_the_new_value() -> None:
    """A newcomer's hand-written update (2026-11-27) said why in a parenthesis, and was not linked."""
    page = ("# Theo\n\n- Theo's nursery key worker is Jess\n"
            "- Theo's nursery key worker is now Sam (Jess moved to the baby room)\n")
    found = current.successor(page, _fact(3, "- Theo's nursery key worker is Jess", ["Theo"]))
    assert found is not None and (found[0].start, found[1]) == (4, "whole")


def test_an_earlier_line_is_no_successor() -> None:
    page = "# Preferences\n\n- I no longer drink coffee\n- I prefer dark roast coffee\n"
    assert current.successor(page, _fact(4, "- I prefer dark roast coffee", ["Preferences"])) is None


def test_the_same_attribute_given_again_below_updates_without_a_marker_word() -> None:
    page = "# Contacts\n\n- Sarah Chen's phone is 555-1234\n- Bob's phone is 555-0000\n- Sarah Chen's phone is 555-9999\n"
    found = current.successor(page, _fact(3, "- Sarah Chen's phone is 555-1234", ["Contacts"]))
    assert found is not None and (found[0].start, found[1]) == (5, "whole")
    # Bob's line names another person: no line below updates it
    assert current.successor(page, _fact(4, "- Bob's phone is 555-0000", ["Contacts"])) is None


def test_a_line_in_another_section_is_another_subject() -> None:
    page = "# Projects\n\n## Apollo\n\n- Status: in progress\n\n## Zeus\n\n- Status: done\n"
    assert current.successor(page, _fact(5, "- Status: in progress", ["Projects", "Apollo"])) is None
    same = "# Projects\n\n## Apollo\n\n- Status: in progress\n- Status: done\n"
    assert current.successor(same, _fact(5, "- Status: in progress", ["Projects", "Apollo"])) is not None


def test_a_near_neighbour_below_is_no_update() -> None:
    page = "# Drinks\n\n- I prefer coffee\n- I no longer drink soda\n- Sarah now drinks green tea\n"
    assert current.successor(page, _fact(3, "- I prefer coffee", ["Drinks"])) is None


def test_recall_ranks_the_update_first_and_the_old_line_names_it(mem: Mem) -> None:
    mem("remember", "I prefer dark roast coffee, no sugar")
    mem("remember", "I no longer drink coffee; I switched to green tea")
    # both lines stay: the old one says more ("no sugar") than the update touches
    page = (mem.path / "reference/preferences.md").read_text()
    assert "- I prefer dark roast coffee, no sugar\n- I no longer drink coffee; I switched to green tea\n" in page
    results = mem.compact("recall", "do I like coffee")["results"]
    assert [r["text"] for r in results[:2]] == ["- I no longer drink coffee; I switched to green tea",
                                                "- I prefer dark roast coffee, no sugar"]
    old, new = results[1], results[0]
    head = mem.git("rev-parse", "--short=7", "HEAD").strip()
    assert old["successor"] == {"text": new["text"], "where": new["where"]}
    assert old["superseded"] == {"until": new["date"], "how": "later line, in part", "commit": head}
    assert "superseded" not in new and new["score"] >= old["score"]
    text = mem("recall", "do I like coffee").stdout
    assert f"    partly updated by a later line ({head} {new['date']})\n" \
           f"    now: {new['where']}  - I no longer drink coffee; I switched to green tea" in text


def test_recall_adds_the_update_when_only_the_old_line_was_found(mem: Mem) -> None:
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen's phone is 555-1234\n"
              "- Sarah Chen's phone is now 555-9999\n")
    mem.commit("contacts by hand")
    results = mem.compact("recall", "-n", "2", "--mode", "keyword", "555-1234")["results"]
    assert [r["where"] for r in results] == ["reference/contacts.md:4", "reference/contacts.md:3"]
    assert results[1]["successor"]["where"] == "reference/contacts.md:4"


def test_a_chain_of_updates_ranks_newest_first(mem: Mem) -> None:
    mem.write("projects/apollo.md", "# Apollo\n\n- The Apollo beta launches on March 3\n"
              "- The Apollo beta launch moved to March 10\n- The Apollo beta launch moved to March 17\n")
    mem.commit("apollo by hand")
    results = mem.compact("recall", "-n", "3", "--mode", "keyword", "March 3 beta")["results"]
    assert [r["where"] for r in results] == ["projects/apollo.md:5", "projects/apollo.md:4", "projects/apollo.md:3"]
    assert [r.get("successor", {}).get("where") for r in results] == \
        [None, "projects/apollo.md:5", "projects/apollo.md:4"]


def _replaced_and_partly(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- The beta launch is on March 3\n- The beta launch moved to March 17\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen — phone 555-1234, AWS account contact\n"
              "- Sarah Chen's phone is now 555-9999\n")
    mem.commit("by hand")


def test_an_agents_prompt_leaves_out_a_replaced_line_and_marks_a_partly_updated_one(mem: Mem) -> None:
    from gitmem.cli import prompt

    _replaced_and_partly(mem)
    launch = prompt.context(str(mem.path), "beta launch March", "keyword")
    assert "- The beta launch moved to March 17 (knowledge/facts.md:4" in launch
    assert "March 3" not in launch
    phone = prompt.context(str(mem.path), "Sarah Chen phone AWS", "keyword")
    assert "- Sarah Chen — phone 555-1234, AWS account contact (reference/contacts.md:3, " in phone
    assert "; partly updated by line 4)" in phone


def test_the_context_budget_leaves_out_a_replaced_line(mem: Mem) -> None:
    _replaced_and_partly(mem)
    out = mem("context", "--query", "beta launch March", "--budget", "2000", "--mode", "keyword").stdout
    facts = out.split("## [FACTS]")[1].split("## [ALWAYS-ON]")[0]
    assert "knowledge/facts.md:4 (" in facts and "moved to March 17" in facts
    assert "- knowledge/facts.md:3 " not in facts and "launch is on March 3" not in facts
    assert "(left out: 1: knowledge/facts.md:3 (replaced by line 4); read them with:" in facts


def test_the_web_search_names_the_later_line(mem: Mem) -> None:
    from starlette.testclient import TestClient

    from gitmem.web.app import create_app

    _replaced_and_partly(mem)
    page = TestClient(create_app(mem.path, {"testserver"})).get("/search?q=beta+launch+March&mode=keyword").text
    assert page.index("moved to March 17") < page.index("launch is on March 3")
    assert '<p class="superseded">no longer true: updated by a later line; now: - The beta launch moved to March 17</p>' \
        in page


def test_a_saved_session_is_no_page_of_facts(mem: Mem) -> None:
    mem.write("sessions/2026-02-20-1000.md", "# Session\n\nuser: Sarah's phone is 555-1234\n\n"
              "user: Sarah's phone is 555-9999\n")
    mem.commit("session")
    results = mem.compact("search", "--mode", "keyword", "Sarah phone 555-1234")["results"]
    assert results and not any("successor" in r for r in results)


def test_a_nested_item_of_another_person_is_no_update() -> None:
    page = "# Team\n\n- Sarah Chen\n  - Phone: 555-1234\n  - Role: designer\n- Bob Lee\n  - Phone: 555-9999\n"
    assert current.successor(page, _fact(4, "  - Phone: 555-1234", ["Team"])) is None
    same = "# Team\n\n- Sarah Chen\n  - Phone: 555-1234\n  - Role: designer\n  - Phone: 555-7777\n- Bob Lee\n"
    found = current.successor(same, _fact(4, "  - Phone: 555-1234", ["Team"]))
    assert found is not None and found[0].start == 6


def test_a_successor_ranked_first_stays_first_within_the_limit(mem: Mem) -> None:
    mem.write("knowledge/infra.md", "# Infra\n\n- The staging server runs Ubuntu 20.04 with a custom kernel built by "
              "the platform team in 2019 for the old storage drivers\n- Backups run nightly\n"
              "- The staging server now runs Ubuntu 24.04\n")
    mem.write("knowledge/hosts.md", "# Hosts\n\n- staging server Ubuntu mirror\n")
    mem.commit("infra")
    every = mem.compact("recall", "--mode", "keyword", "staging server runs Ubuntu")["results"]
    assert [r["where"] for r in every][:3] == ["knowledge/infra.md:5", "knowledge/hosts.md:3", "knowledge/infra.md:3"]
    results = mem.compact("recall", "-n", "1", "--mode", "keyword", "staging server runs Ubuntu")["results"]
    assert [r["where"] for r in results] == ["knowledge/infra.md:5"]


def test_two_old_lines_with_one_successor_both_rank_under_it(mem: Mem) -> None:
    mem.write("reference/drinks.md", "# Preferences\n\n- I prefer dark roast coffee\n- I love iced coffee in summer\n"
              "- I no longer drink coffee\n")
    mem.commit("drinks")
    results = mem.compact("recall", "--mode", "keyword", "dark roast iced coffee")["results"]
    assert results[0]["where"] == "reference/drinks.md:5"
    assert {r["where"] for r in results[1:3]} == {"reference/drinks.md:3", "reference/drinks.md:4"}


def test_full_results_show_a_chunk_once(mem: Mem) -> None:
    mem.write("knowledge/infra.md", "# Infra\n\n- The staging server runs Ubuntu 20.04 with a custom kernel\n"
              "- Backups run nightly\n- The staging server now runs Ubuntu 24.04\n")
    mem.commit("infra")
    results = mem.json("recall", "--mode", "keyword", "Ubuntu 20.04 custom kernel")["results"]
    chunks = [(r["path"], r["lines"]["start"], r["lines"]["end"]) for r in results]
    assert len(chunks) == len(set(chunks))
    assert results[0]["successor"]["text"] == "- The staging server now runs Ubuntu 24.04"


def test_a_long_section_judges_a_bounded_number_of_lines() -> None:
    lines = "".join(f"- The build of module {i} is now {i} minutes\n" for i in range(2000))
    page = f"# Journal\n\n- Lunch is at noon\n{lines}"
    calls: list[int] = []
    real = current.supersede.outdates
    current._outdates.cache_clear()
    try:
        current.supersede.outdates = lambda new, old: calls.append(1) or real(new, old)  # type: ignore[assignment]
        assert current.successor(page, _fact(3, "- Lunch is at noon", ["Journal"])) is None
    finally:
        current.supersede.outdates = real  # type: ignore[assignment]
    assert len(calls) == current.JUDGED


def test_the_line_an_update_kept_beside_is_found_from_the_update() -> None:
    """remember names the line its fact updates and keeps (current.predecessor), as recall links them;
    a line in another section, or of another attribute unmarked, is none."""
    found = current.predecessor(COFFEE, 4)
    assert found is not None and (found[0].start, found[1]) == (3, "part")
    assert current.predecessor(COFFEE, 3) is None  # nothing above it
    other = "# A\n\n- I prefer dark roast coffee\n\n## B\n\n- I no longer drink coffee\n"
    assert current.predecessor(other, 7) is None
    nested = "# People\n\n- Sarah\n  - Phone: 555-1234\n- Bob\n  - Phone: 555-9999\n"
    assert current.predecessor(nested, 6) is None  # Bob's phone is no update of Sarah's


def test_recall_over_history_ranks_the_update_first_and_names_it(mem: Mem) -> None:
    """`recall --history` ranked a line kept beside its update first, unmarked (session 16)."""
    mem("remember", "I prefer dark roast coffee, no sugar")
    mem("remember", "I no longer drink coffee; I switched to green tea")
    results = mem.compact("recall", "--history", "do I like coffee")["results"]
    assert [r["where"] for r in results[:2]] == ["reference/preferences.md:4", "reference/preferences.md:3"]
    head = mem.git("rev-parse", "--short=7", "HEAD").strip()
    assert results[1]["successor"] == {"text": "- I no longer drink coffee; I switched to green tea",
                                       "where": "reference/preferences.md:4"}
    assert results[1]["superseded"] == {"until": results[0]["date"], "how": "later line, in part", "commit": head}
    # with one result, the line standing now; an uncommitted line below updates it in turn
    assert [r["where"] for r in mem.compact("recall", "--history", "-n", "1", "dark roast")["results"]] == \
        ["reference/preferences.md:4"]
    with (mem.path / "reference/preferences.md").open("a") as page:
        page.write("- I switched from green tea to rooibos\n")
    chain = mem.compact("recall", "--history", "--mode", "keyword", "dark roast coffee")["results"]
    assert [(r["where"], r.get("successor", {}).get("where")) for r in chain[:3]] == [
        ("reference/preferences.md:5", None), ("reference/preferences.md:4", "reference/preferences.md:5"),
        ("reference/preferences.md:3", "reference/preferences.md:4")]
