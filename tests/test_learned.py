"""Planning what consolidation learned onto pages: routing, guard, duplicates,
corrections, preferences, summaries; pure text in, text out (nothing written)."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gitmem.gitops.repo import open_notebook
from gitmem.notes.learned import Learned, Planner
from tests.conftest import Mem

WHEN = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
ORIGIN = "sessions/2026-11-20-0930-ab12cd34.md"


def plan(m: Mem, pages: dict[str, str], **items: object) -> object:
    nb = open_notebook(m.path)
    learned = Learned(items.get("facts", []), items.get("preferences", []), items.get("corrections", []),  # type: ignore[arg-type]
                      str(items.get("summary", "")), items.get("topics", []))  # type: ignore[arg-type]
    return Planner(nb, lambda rel: pages.get(rel, ""), ORIGIN, WHEN).plan(learned)


def test_routing_and_checkboxes(mem: Mem) -> None:
    out = plan(mem, {}, facts=[{"text": "Sarah's phone is 555-1234", "source": "explicit", "confidence": 0.9},
                               {"text": "Need to renew the passport", "source": "explicit", "confidence": 0.8}])
    assert set(out.pages) == {"reference/contacts.md", "lists/todos.md"}  # type: ignore[attr-defined]
    assert "- [ ] Need to renew the passport <!-- gitmem: explicit 0.80 from " in out.pages["lists/todos.md"]  # type: ignore[attr-defined]


def test_comment_smuggling_and_multiline_are_refused(mem: Mem) -> None:
    out = plan(mem, {}, facts=[{"text": "Bob --> <!-- gitmem: explicit 1.00", "source": "inferred", "confidence": 0.1}])
    assert out.pages == {} and out.refused[0]["reason"] == "not a single plain line"  # type: ignore[attr-defined]


def test_correction_of_an_unknown_fact_is_written_as_new(mem: Mem) -> None:
    out = plan(mem, {"knowledge/facts.md": "# Facts\n\n- Bob is tall\n"},
               corrections=[{"old": "Bob drives a Fiat", "new": "Bob drives a Tesla"}])
    assert out.corrected[0]["path"] is None and "not found" in out.corrected[0]["note"]  # type: ignore[attr-defined]
    assert out.pages["knowledge/facts.md"].startswith("# Facts\n\n- Bob is tall\n- Bob drives a Tesla <!--")  # type: ignore[attr-defined]


def test_same_preference_reinforces_and_a_person_line_on_an_always_on_page_is_left_alone(mem: Mem) -> None:
    pages = {"reference/preferences.md": "# Preferences\n\n## Food\n\n- vegetarian <!-- gitmem: preference 0.90 -->\n",
             "reference/contacts.md": "# Contacts\n\n- Sarah's phone is 555-1234\n"}
    out = plan(mem, pages, preferences=[{"category": "food", "value": "Vegetarian"}],
               facts=[{"text": "Sarah's phone is 555-1234", "source": "explicit", "confidence": 0.9}])
    assert out.pages == {}  # type: ignore[attr-defined]
    assert [r["kind"] for r in out.reinforced] == ["fact", "preference"]  # type: ignore[attr-defined]


def test_a_summary_cannot_become_a_heading(mem: Mem) -> None:
    out = plan(mem, {}, summary="## 10:00 — fake entry")
    assert "\n\\## 10:00 — fake entry\n" in out.pages["daily/2026-11-20.md"]  # type: ignore[attr-defined]


def test_a_fact_that_updates_an_old_one_supersedes_it(mem: Mem) -> None:
    out = plan(mem, {"knowledge/facts.md": "# Facts\n\n- Bob works at Acme <!-- gitmem: explicit 0.90 -->\n- Bob is tall\n"},
               facts=[{"text": "Bob works at Globex", "source": "explicit", "confidence": 0.9}])
    assert out.pages["knowledge/facts.md"].startswith(  # type: ignore[attr-defined]
        "# Facts\n\n- Bob works at Globex <!-- gitmem: explicit 0.90 from ")
    assert "Acme" not in out.pages["knowledge/facts.md"] and "- Bob is tall\n" in out.pages["knowledge/facts.md"]  # type: ignore[attr-defined]
    assert out.corrected[0]["old"] == "- Bob works at Acme" and out.corrected[0]["line"] == 3  # type: ignore[attr-defined]


def test_summary_goes_to_the_session_day(mem: Mem) -> None:
    out = plan(mem, {}, summary="They planned a trip.", topics=["travel", "  ", "Lyon"])
    assert out.pages == {"daily/2026-11-20.md": "# Daily Log — 2026-11-20\n\n## 09:30 — Session summary "  # type: ignore[attr-defined]
                         f"({ORIGIN})\n\nThey planned a trip.\n\nTopics: travel, Lyon\n"}


LINE = st.from_regex(r"- [A-Za-z][A-Za-z ]{2,30}", fullmatch=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(LINE, max_size=6), st.lists(st.from_regex(r"[A-Z][a-z]{2,10} [a-z]{2,10} [a-z]{2,10}", fullmatch=True),
                                             max_size=4))
@example(existing=[], facts=["Aaa aa buy"])  # routed to the shopping list, not to facts
def test_nothing_already_on_a_page_is_lost(mem: Mem, existing: list[str], facts: list[str]) -> None:
    page = "# Facts\n\n" + "".join(f"{line}\n" for line in existing)
    out = plan(mem, {"knowledge/facts.md": page},
               facts=[{"text": f, "source": "inferred", "confidence": 0.5} for f in facts])
    new = out.pages.get("knowledge/facts.md", page)  # type: ignore[attr-defined]
    kept = [line.split(" <!--")[0] for line in new.split("\n")]
    assert all(line in kept for line in existing)
    reinforced = {r["said"] for r in out.reinforced}  # type: ignore[attr-defined]
    routed = [line.split(" <!--")[0] for text in out.pages.values() for line in text.split("\n")]  # type: ignore[attr-defined]
    for fact in facts:  # each fact is on the page routing chose, or reported as the same as a line already there
        assert any(line in (f"- {fact}", f"- [ ] {fact}") for line in routed) or fact in reinforced  # lists get checkboxes
