"""Supersession on write: `remember` replaces the line a new fact updates (gitmem/supersede.py,
gitmem/switches.py), keeps what the update did not touch, and names what it replaced."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem import replacing, supersede
from gitmem.notes import trailers
from tests.conftest import Mem

SETS = Path(__file__).resolve().parent.parent / "benchmarks" / "sets"
TUNED = [json.loads(line) for line in (SETS / "supersede.jsonl").open()]
HELD_OUT = [json.loads(line) for line in (SETS / "supersede-heldout.jsonl").open()]


def judged(pairs: list[dict]) -> tuple[float, float]:
    """(precision, recall) of find() over a page that holds the old line among others (as remember sees it)."""
    said = []
    for p in pairs:
        found = supersede.find(f"# Notes\n\n- The office wifi is called Larch\n{p['old']}\n", p["new"])
        said.append(found is not None and found[1] == p["old"])
    tp = sum(s and p["update"] for s, p in zip(said, pairs))
    fp = sum(s and not p["update"] for s, p in zip(said, pairs))
    return tp / (tp + fp), tp / sum(p["update"] for p in pairs)


def test_the_labelled_sets_are_big_enough_mixed_and_a_third_held_out() -> None:
    assert len(TUNED) + len(HELD_OUT) >= 250
    assert 0.28 <= len(HELD_OUT) / (len(TUNED) + len(HELD_OUT)) <= 0.4
    for pairs in (TUNED, HELD_OUT):
        assert len(pairs) // 3 <= sum(p["update"] for p in pairs) <= len(pairs) - len(pairs) // 3
    kinds = {p["kind"] for p in TUNED + HELD_OUT}
    assert {"time-moved", "no-longer", "now", "instead-of", "changed-to", "from-now-on", "as-of",
            "switched-from", "now-other-person", "time-moved-other"} <= kinds


def test_precision_and_recall_on_both_parts() -> None:
    """Measured 2026-11-25: tuned P 1.000 R 0.983 (113/115); held out P 0.980 (49/50) R 0.960 (48/50),
    held out before the rules for updates said in time were written; the same on 2026-11-26 after a
    move said again ("slipped again, now May 5", a newcomer's). Floors: P 0.97 on both."""
    precision, recall = judged(TUNED)
    assert precision >= 0.97 and recall >= 0.95
    precision, recall = judged(HELD_OUT)
    assert precision >= 0.97 and recall >= 0.9


@pytest.mark.parametrize("new, old", [
    ("Sarah Chen's phone is 555-9999", "- Sarah Chen phone number: 555-1234"),
    ("Prefers coffee over tea", "- Prefers tea over coffee"),
    ("Hates sushi", "- Loves sushi"),
    ("Bob moved to Berlin", "- Bob lives in Paris"),
    ("Standup starts at 10:00", "- Standup starts at 9:30"),
    ("Apollo release 2.0 moved to March 29 because of the auth bug", "- Apollo release 2.0 ships on March 15"),
    ("I no longer drink coffee; switched to green tea", "- I prefer dark roast coffee"),
    ("Sarah's phone is now 555-9999", "- Sarah Chen — phone 555-1234, AWS account contact"),
    ("We switched from Jira to Linear", "- We track issues in Jira"),
    ("Our CI now runs on GitHub Actions instead of Jenkins", "- Our CI runs on Jenkins"),
    ("The default branch is now main", "- The default branch is master"),
    ("Sprint length changed to three weeks", "- Sprint length is two weeks"),
    ("From now on, standup is at 9:45", "- Standup is at 9:30"),
    ("As of May the rent is 1,450 a month", "- The rent is 1,300 a month"),
    ("Bob no longer works at Acme", "- Bob works at Acme"),
    ("Tom's number is now 07700 900123", "- Tom's phone is 07700 900456"),  # a phone, as people say it
    ("Tom's number is now 07700 900123", "- Tom Baker — mobile 07700 900456, plumber"),
    ("The budget for Apollo is 9000 EUR", "- The budget for Apollo is 7070 EUR"),  # the same owner's
    # a newcomer's slipping launch, 2026-11-26: a move said again, over a line that said a move
    ("Apollo launch slipped again, now May 5", "- Apollo launch slipped to April 28"),
    ("Apollo launch slipped again, now May 5", "- Apollo launch is planned for April 20"),
    ("The offsite was pushed back once more to June", "- The offsite moved to May"),
    # a kind word one line says and the other leaves out (a newcomer's "Project Atlas", 2026-11-26)
    ("Atlas launch slipped again, now April 2", "- Project Atlas launch is planned for March 14"),
    ("Project Atlas launch slipped to April 2", "- Atlas launch is planned for March 14"),
    ("I switched from tea to coffee", "- I prefer tea over coffee"),  # a preference turned round
    # a newcomer, 2026-11-27: an amount that went up, and a move with when it takes effect said last
    ("Our rent went up to 2550 dollars a month as of December", "- Rent is 2400 dollars a month, due on the 1st"),
    ("The rent rose to 1,450 a month", "- The rent is 1,300 a month"),
    ("Annual physical moved to June, starting 2027", "- Annual physical is every May with Dr. Farah Haddad"),
    # ... and a plural said first, capitalised as a sentence starts, is no name (a newcomer's team)
    ("Deploys now happen on Wednesdays after 10am", "- Deploys happen on Tuesdays and Thursdays after 2pm"),
    ("Rent is now 1520 pounds a month", "- Rent is 1450 pounds a month, paid on the 1st by standing order"),
    # an agent developer's run, 2026-11-27: "from now on" said last, a plural of the thing counted, a thing
    # done again, a thing someone moved
    ("Standup is at 10:00 from now on.", "- Standup is at 09:30."),
    ("PRs now need two approvals.", "- PRs need one approval."),
    ("The billing service was rewritten in Go.", "- The billing service is written in Ruby."),
    ("We moved the office to 22 Queen Street.", "- Our office is at 5 King Street."),
    ("We dropped Tailwind; the frontend uses CSS modules now.",
     "- We decided to use Tailwind for frontend styling since Aiko's design tokens map to it."),
    ("I gave up on vim keybindings, back to the default VS Code keys.", "- I use vim keybindings in VS Code."),
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
    ("Apollo release 2.1 moved to April 2", "- Apollo release 2.0 ships on March 15"),  # another release
    ("Hermes launch moved to March 29", "- Apollo launch is on March 15"),  # another project
    ("Apollo launch slipped again, now May 5", "- Apollo docs slipped to April 28"),  # another thing slipped
    ("Atlas launch slipped to April 2", "- Project Hermes launch is planned for March 14"),  # another project
    ("Launch slipped to April 2", "- Project launch is planned for March 14"),  # a kind word alone names none
    ("Client meeting room is now B2", "- Meeting room is A1"),  # another room (a review)
    ("Customer support hours are now 9-5", "- Support hours are 8-4"),
    ("Meeting room is now B2", "- Client meeting room is A1"),
    ("I switched from tea to coffee", "- I prefer coffee over tea"),  # already so
    ("I switched from tea to coffee", "- Tea bags are in the cupboard over the coffee maker"),  # a place (a review)
    ("I switched from tea to coffee", "- I like to keep tea bags on the shelf over the coffee maker"),
    ("We moved from Postgres to MySQL", "- We moved the Postgres dump over to the MySQL box"),
    ("We switched from Jira to Linear", "- Linear and Jira are both on trial"),  # no preference of one
    ("Bob's phone is now 555-9999", "- Sarah Chen — phone 555-1234, AWS account contact"),  # another person
    ("I no longer drink soda", "- I prefer dark roast coffee"),  # another thing
    ("I no longer drink coffee", "- Sarah prefers dark roast coffee"),  # another person's taste
    ("I no longer drink coffee", "- Coffee beans are in the top cupboard"),  # not a habit
    ("We switched from Jira to Linear", "- Sarah uses Jira for her tasks"),  # someone else's tool
    ("From now on, retro is at 4pm", "- Standup is at 9:30"),  # another meeting
    ("Sam is now a manager", "- Sam is vegetarian"),  # a person has many properties
    ("From now on, standup is at 9:45", "- Standup is daily at the office"),  # a time is not a place
    ("My NHS number is 485 777 3456", "- My phone is 07700 900456"),  # a number that is not a phone
    ("My account number is 48577734", "- My mobile is 07700 900456"),
    ("Tom's number is now 12", "- Tom's phone is 07700 900456"),  # too short for a phone
    ("Standup: payments webhook retries fixed by Priya", "- Standup: Dana is out on Thursday"),  # a log's entries
    ("Idea: paint the fence green", "- Idea: a shed for the bikes"),
    ("Sarah said: the new hire starts in May", "- Sarah said: the budget review is on Monday"),
    ("Goal: cut cloud spend by a fifth", "- Goal: ship the beta to ten customers"),  # a label before a sentence
    ("Sarah: the pricing page needs a rewrite", "- Sarah: I'll send the design deck by Friday"),
    ("The budget for Kestrel is 5260 EUR", "- The budget for Apollo is 7070 EUR"),  # whose budget: another's
    ("The deadline for the grant report is May 1", "- The deadline for the tax return is April 15"),
    ("Sarah moved to Leeds", "- We live in York"),  # someone else's move
    ("Sarah moved to Leeds", "- Tom Baker lives in York"),
    ("We moved the meeting to Friday", "- We live in York"),  # a meeting moved, not us
    ("The rent rose to 1,450 a month", "- The deposit is 2,000"),  # another amount
    # a review (2026-11-27): no place, someone else's home, a past home, a trip
    ("We moved to weekly sprints", "- We live at 88 Larkspur Lane, Oakland"),
    ("I moved to the data team", "- I live in Oakland"),
    ("Sarah moved to Leeds", "- Sarah's parents live in York"),
    ("I moved to London", "- I lived in Paris for 5 years"),
    ("The kids went down to Grandma's for the summer", "- The kids are at Oakwood Primary"),
    ("The team went up to the mountains for the offsite", "- The team is based in Berlin"),
    ("Sarah moved from Lisbon to Berlin", "- Omar Haddad, college roommate, now lives in Lisbon"),
    ("Retro is at 15:00 from now on.", "- Standup is at 09:30."),
    ("Hotfix PRs now need two approvals.", "- PRs need one approval."),
    ("The billing service was rewritten in Go.", "- The search service is written in Rust."),
    ("We moved the sofa to the lounge.", "- Our office is at 5 King Street."),
    ("The API was renamed to Atlas.", "- The billing service is written in Ruby."),
    ("Staging moved to staging-02.harbor.internal.", "- Nightly backups of the staging database run at 02:00"),
    ("Prod database got upgraded to Postgres 16.", "- Nightly backups of the prod database run at 02:00 UTC."),
    ("Redis was replaced by Valkey on cache-01.", "- Sarah's laptop runs Postgres"),
    ("Loki log retention is back to 30 days.", "- Log retention in Grafana is 14 days."),
    ("Coverage target lowered to 70 percent.", "- The test coverage target is 80 percent."),  # "test" qualifies it
    ("Sofia Marino takes over from Marcus as designer.", "- Marcus Lee is our product manager."),  # another role
    ("Sofia Marino takes over from Priya as product manager.", "- Marcus Lee is our product manager."),
    ("We dropped Tailwind.", "- Aiko likes Tailwind."),  # another one's thing
    ("I gave up on coffee.", "- I drink tea every morning."),
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


def test_remember_keeps_every_entry_of_a_log(mem: Mem) -> None:
    """`Key: value` holds one value (a wifi password), but a key that labels a log's entries
    ("Standup:", "Retro:", "Note:") holds many: a new entry replaced the last one."""
    mem("remember", "--to", "projects/meetings.md", "Standup: Dana is out on Thursday")
    out = mem.json("remember", "--to", "projects/meetings.md", "Standup: payments webhook retries fixed by Priya")
    assert out["replaced"] is None
    assert (mem.path / "projects/meetings.md").read_text().endswith(
        "- Standup: Dana is out on Thursday\n- Standup: payments webhook retries fixed by Priya\n")
    assert mem.json("remember", "--to", "projects/meetings.md", "Status: in review")["replaced"] is None
    assert mem.json("remember", "--to", "projects/meetings.md", "Status: shipped")["replaced"]["text"] == \
        "- Status: in review"


def test_keep_both(mem: Mem) -> None:
    mem("remember", "Sarah Chen phone number: 555-1234")
    out = mem.json("remember", "--keep-both", "Sarah Chen's phone is 555-9999")
    assert out["replaced"] is None
    assert (mem.path / "reference/contacts.md").read_text() == (
        "# Contacts\n\n- Sarah Chen phone number: 555-1234\n- Sarah Chen's phone is 555-9999\n")
    # the line it updates is named, as recall links them (a newcomer saw no sign of the link)
    assert out["updates"] == {"path": "reference/contacts.md", "lines": {"start": 3, "end": 3}, "how": "whole",
                              "text": "- Sarah Chen phone number: 555-1234"}


def test_a_line_that_says_more_is_kept_and_named(mem: Mem) -> None:
    mem("remember", "I prefer dark roast coffee, no sugar")
    out = mem("remember", "I no longer drink coffee").stdout
    assert out.endswith("\nupdates: reference/preferences.md:3: - I prefer dark roast coffee, no sugar (kept; recall "
                        "puts the new line first)\n"), out
    assert mem.json("remember", "Sarah prefers green tea")["updates"] is None  # another person's taste


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def test_issue_apollo_moved_replaces_the_old_date_and_recall_finds_the_new(mem: Mem) -> None:
    first = mem.json("remember", "Apollo release 2.0 ships on March 15")
    assert first["path"] == "knowledge/events.md"
    out = mem.json("remember", "Apollo release 2.0 moved to March 29 because of the auth bug")
    assert out["replaced"] == {"path": "knowledge/events.md", "lines": {"start": 3, "end": 3},
                               "text": "- Apollo release 2.0 ships on March 15"}
    assert (mem.path / "knowledge/events.md").read_text() == (
        "# Events\n\n- Apollo release 2.0 moved to March 29 because of the auth bug\n")
    assert mem.git("log", "-1", "--format=%(trailers:key=Gitmem-Supersedes,valueonly)").strip() == (
        f"knowledge/events.md:3 {sha('- Apollo release 2.0 ships on March 15')} "
        "- Apollo release 2.0 ships on March 15")
    found = mem.json("recall", "--mode", "keyword", "when is Apollo 2.0 shipping")["results"]
    assert [r["fact"]["text"] for r in found] == ["- Apollo release 2.0 moved to March 29 because of the auth bug"]


def test_issue_no_longer_drink_coffee_replaces_the_old_taste(mem: Mem) -> None:
    mem("remember", "I prefer dark roast coffee")
    out = mem.json("remember", "I no longer drink coffee; switched to green tea")
    assert out["path"] == "reference/preferences.md"
    assert out["replaced"]["text"] == "- I prefer dark roast coffee"
    assert (mem.path / "reference/preferences.md").read_text() == (
        "# Preferences\n\n- I no longer drink coffee; switched to green tea\n")
    found = mem.json("recall", "--mode", "keyword", "do I like coffee")["results"]
    assert [r["fact"]["text"] for r in found] == ["- I no longer drink coffee; switched to green tea"]


def test_issue_a_replaced_line_keeps_what_the_update_did_not_touch(mem: Mem) -> None:
    mem("remember", "Sarah Chen — phone 555-1234, AWS account contact")
    mem("remember", "Bob lives in Paris")
    out = mem("remember", "Sarah's phone is now 555-9999")
    assert out.stdout.splitlines()[1:] == [
        "replaced: - Sarah Chen — phone 555-1234, AWS account contact (pass --keep-both to keep both)",
        "now: - Sarah Chen — phone 555-9999, AWS account contact"]  # the line as it now stands
    assert (mem.path / "reference/contacts.md").read_text() == (
        "# Contacts\n\n- Sarah Chen — phone 555-9999, AWS account contact\n- Bob lives in Paris\n")
    body = mem.git("log", "-1", "--format=%B")
    assert f"Gitmem-Supersedes: reference/contacts.md:3 {sha('- Sarah Chen — phone 555-1234, AWS account contact')}" \
           " - Sarah Chen — phone 555-1234, AWS account contact\n" in body
    assert "Gitmem-Verb: remember\n" in body
    found = mem.json("recall", "--mode", "keyword", "who do I talk to about AWS")["results"]
    assert [r["fact"]["text"] for r in found] == ["- Sarah Chen — phone 555-9999, AWS account contact"]


def test_an_update_routed_elsewhere_replaces_the_line_on_its_page(mem: Mem) -> None:
    """A newcomer's "Helen moved to Bath" went to knowledge/facts.md while "Helen lives in Bristol"
    stayed in reference/contacts.md, and recall put Bristol first. The one line on another page
    of facts that an update replaces is replaced there; two such lines, or --to, leave it be."""
    mem("remember", "Helen lives in Bristol")
    out = mem("remember", "Helen moved to Bath")
    assert out.stdout == "remember: reference/contacts.md:3 (commit {})\nreplaced: - Helen lives in Bristol " \
                         "(pass --keep-both to keep both)\n".format(mem.git("rev-parse", "--short", "HEAD").strip())
    assert (mem.path / "reference/contacts.md").read_text() == "# Contacts\n\n- Helen moved to Bath\n"
    assert not (mem.path / "knowledge/facts.md").exists()
    mem("remember", "Ivo lives in Leeds")
    mem("remember", "--to", "knowledge/events.md", "Ivo lives in York")  # a second line that says where Ivo lives
    mem("remember", "Ivo moved to Hull")  # two candidates: neither is replaced
    assert "Leeds" in (mem.path / "reference/contacts.md").read_text()
    assert "York" in (mem.path / "knowledge/events.md").read_text()
    assert "Ivo moved to Hull" in (mem.path / "knowledge/facts.md").read_text()
    mem("remember", "Kit lives in Derby")
    mem("remember", "--to", "knowledge/events.md", "Kit moved to Ely")  # --to: that page, nothing elsewhere
    assert "Kit lives in Derby" in (mem.path / "reference/contacts.md").read_text()


def test_a_write_that_replaces_nothing_has_no_supersedes_trailer(mem: Mem) -> None:
    mem("remember", "Sarah Chen phone number: 555-1234")
    mem("remember", "--keep-both", "Sarah Chen's phone is 555-9999")
    assert "Gitmem-Supersedes" not in mem.git("log", "-2", "--format=%B")


def test_the_trailer_names_the_path_from_the_repository_root(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A notebook in a subfolder of a code repository: PATH is what git names (memory/...)."""
    m = Mem(tmp_path, monkeypatch)
    m.git("init", "-q")
    m("init", "--no-index", "--dir", "memory")
    m("remember", "The default branch is master")
    m("remember", "The default branch is now main")
    trailer = m.git("log", "-1", "--format=%(trailers:key=Gitmem-Supersedes,valueonly)").strip()
    assert trailer == f"memory/knowledge/infrastructure.md:3 {sha('- The default branch is master')} " \
                      "- The default branch is master"


NAMES = st.sampled_from(["Sarah Chen", "Tom Okafor", "Priya Patel", "Lena Fischer", "Diego Alvarez"])
EXTRAS = st.lists(st.sampled_from(["AWS account contact", "Berlin office", "product lead", "speaks Japanese",
                                   "on call in March"]), min_size=1, max_size=3, unique=True)
NUMBERS = st.integers(1000, 9999)


@settings(max_examples=60, deadline=None)
@given(NAMES, NAMES, EXTRAS, NUMBERS, NUMBERS, st.sampled_from([", ", " — ", "; "]))
def test_rewrite_changes_only_the_number_of_the_same_person(name: str, other: str, extras: list[str], old: int,
                                                            new: int, sep: str) -> None:
    """Property: a contact line of several clauses updated by "X's phone is now N" keeps every other
    clause as it was and holds the new number where the old one stood; another person's update
    never touches it."""
    line = f"- {name}{sep}phone 555-{old}, " + ", ".join(extras)
    update = f"{name.split()[0]}'s phone is now 555-{new}"
    if name != other:
        assert not supersede.updates(f"{other.split()[0]}'s phone is now 555-{new}", line)
    if old == new:
        return
    assert supersede.updates(update, line)
    assert replacing.rewrite(line, update, "- " + update) == line.replace(f"555-{old}", f"555-{new}")


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120))
def test_any_text_is_judged_without_error_and_rewrite_is_one_line(new: str, old: str) -> None:
    """Property: the parser takes any text; a rewrite of one line is that line changed or the entry."""
    line = "- " + " ".join(old.split())
    entry = "- " + " ".join(new.split())
    if supersede.updates(new, line):
        out = replacing.rewrite(line, new, entry)
        assert out == entry or "\n" not in out


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("size", [401, 20_000])
def test_a_very_long_fact_is_stored_not_judged(mem: Mem, size: int) -> None:
    """A long one-line fact ("now ... moved to ... instead of" repeated) is added, never taken for an
    update of a line (no single value that long), and the patterns never scan it (supersede.MAX_CHARS)."""
    mem("remember", "The default branch is master")
    text = ("The default branch is now main instead of master " * (size // 49 + 1))[:size].strip()
    out = mem.json("remember", "--force", "--category", "infrastructure", text)
    assert out["replaced"] is None and out["lines"] == {"start": 4, "end": 4}
    assert (mem.path / "knowledge/infrastructure.md").read_text() == (
        f"# Infrastructure\n\n- The default branch is master\n- {text}\n")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=":"), min_size=1,
               max_size=150).filter(lambda p: trailers.CONTROL.sub(" ", p).strip()),
       st.integers(1, 10**7), st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_the_supersedes_trailer_reads_back(path: str, line: int, text: str) -> None:
    """Property: whatever the path and the old line hold (spaces, control characters, newlines,
    other scripts), the trailer is one line and reads back as the path (spaces made single), the
    line number, the SHA-1 of the line and its cleaned text."""
    key, value = trailers.supersedes(path, line, text)
    assert key == "Gitmem-Supersedes" and "\n" not in value and "\r" not in value
    back = trailers.superseded(value)
    assert back is not None
    assert back.path == " ".join(trailers.CONTROL.sub(" ", path).split())
    assert back.line == line and back.hash == trailers.fact_hash(text)
    expected = trailers.clean(text).rstrip()
    assert expected.startswith(back.text)
    assert back.text == expected or len(value) == trailers.SUPERSEDES_MAX


@pytest.mark.parametrize("value", ["", "reference/contacts.md", "reference/contacts.md:3", "a.md:x 0123456789ab",
                                   "a.md:3 0123456789AB text", "a.md:3 0123456789a text"])
def test_a_supersedes_trailer_a_person_wrote_badly_is_no_reference(value: str) -> None:
    assert trailers.superseded(value) is None


def test_issue_examples_through_hybrid_recall_with_the_real_model(mem: Mem) -> None:
    """The three updates of issue 22 in one notebook, asked as the issue asks them, in the default
    (hybrid) mode with the real model: the best answer is the current fact and the old one is gone."""
    for old, new in [("Apollo release 2.0 ships on March 15",
                      "Apollo release 2.0 moved to March 29 because of the auth bug"),
                     ("I prefer dark roast coffee", "I no longer drink coffee; switched to green tea"),
                     ("Sarah Chen — phone 555-1234, AWS account contact", "Sarah's phone is now 555-9999")]:
        mem("remember", old)
        assert mem.json("remember", new)["replaced"]["text"] == f"- {old}"
    for query, best in [("when is Apollo 2.0 shipping",
                         "- Apollo release 2.0 moved to March 29 because of the auth bug"),
                        ("do I like coffee", "- I no longer drink coffee; switched to green tea"),
                        ("who do I talk to about AWS", "- Sarah Chen — phone 555-9999, AWS account contact")]:
        found = mem.json("recall", query)
        texts = [r["fact"]["text"] for r in found["results"]]
        assert found["mode"] == "hybrid" and found["semantic"] is True and texts[0] == best, (query, texts)
        assert not any("March 15" in t or "dark roast" in t or "555-1234" in t for t in texts)


@pytest.mark.parametrize(("old", "new", "after"), [
    # a value that goes on over the next clause replaces the old one's next clause of the same kind
    ("- The production database runs on pg-prod-1.internal, port 5432",
     "The production database moved to pg-prod-2.internal, port 5433",
     "- The production database runs on pg-prod-2.internal, port 5433"),
    ("- Leo Brandt lives at 12 Elm Street, Springfield", "Leo Brandt moved to 3 Harbour Road, Kingsport",
     "- Leo Brandt lives at 3 Harbour Road, Kingsport"),
    # ... and keeps a clause of another kind
    ("- Sarah Chen — phone 555-1234, AWS account contact", "Sarah's phone is now 555-9999, call after 10am",
     "- Sarah Chen — phone 555-9999, call after 10am, AWS account contact"),
    # a date or time moved inside a line that says more: only the date changes
    ("- The release party is on June 3 at the Blue Room", "The release party moved to June 10",
     "- The release party is on June 10 at the Blue Room"),
    ("- Our standup is at 9:30 in the Orion room", "Our standup moved to 10:00",
     "- Our standup is at 10:00 in the Orion room"),
    # "no longer" past a word of frequency, and before a comma and another clause
    ("- I always take the aisle seat", "I no longer take the aisle seat, I prefer the window seat now",
     "- I no longer take the aisle seat, I prefer the window seat now"),
    ("- I drink coffee every morning", "I no longer drink coffee, I switched to green tea",
     "- I no longer drink coffee, I switched to green tea"),
    # a new day and time keeps who (a newcomer's trial, session 9: the teacher was dropped)
    ("- Maya's piano lessons are on Thursdays at 4pm with Mrs. Lindqvist",
     "Maya's piano lessons are now on Wednesdays at 5pm",
     "- Maya's piano lessons are on Wednesdays at 5pm with Mrs. Lindqvist"),
    ("- The standup is at 9:30 for the whole team", "The standup is now at 10:00",
     "- The standup is at 10:00 for the whole team"),
    # "My brother Tom's email": a role before a name is no plural attribute (session 9: the update
    # was stored beside it)
    ("- My brother Tom's email is tom.walsh@example.org", "Tom's email is now tom@walshdesign.co.uk",
     "- My brother Tom's email is tom@walshdesign.co.uk"),
    # a new host keeps the port said after the old one, with no comma between (a newcomer, 2026-11-26)
    ("- The Atlas staging database runs on db-stage-03.lumen.internal port 5433",
     "The Atlas staging database moved to db-stage-07.lumen.internal",
     "- The Atlas staging database runs on db-stage-07.lumen.internal port 5433"),
    # a newcomer, 2026-11-27: a time with its zone moves alone (the line had lost "nightly" and its bucket)
    ("- Staging database backups run nightly at 02:00 UTC to the S3 bucket orchard-backups",
     "Staging database backups now run at 04:00 UTC",
     "- Staging database backups run nightly at 04:00 UTC to the S3 bucket orchard-backups"),
    # ... an old value that qualifies the next word is no value to put another in ("green tea coffee"), and
    # the new value ends at the comma before "no more"
    ("- I prefer dark roast coffee with oat milk, never sugar",
     "I switched from dark roast to green tea, no more coffee",
     "- I switched from dark roast to green tea, no more coffee"),
    # ... a date after a verb that goes on is a value ("now renews in September")
    ("- The Acme Foods contract renews in June", "The Acme Foods contract now renews in September",
     "- The Acme Foods contract now renews in September"),
    # ... and "Biscuit's vet" is "the vet for our dog Biscuit"
    ("- The vet for our dog Biscuit is Harbor Animal Clinic", "Biscuit's vet is now Greenway Veterinary",
     "- Biscuit's vet is now Greenway Veterinary"),
    # a newcomer, 2026-11-27: a move said of us, or of a person by first name alone, stood beside where they lived
    ("- We live at 88 Larkspur Lane, Oakland", "We moved to 14 Harbor Street, Alameda",
     "- We live at 14 Harbor Street, Alameda"),
    ("- Omar Haddad, college roommate, now lives in Lisbon", "Omar moved to Berlin",
     "- Omar Haddad, college roommate, now lives in Berlin"),
    ("- Omar Haddad, college roommate, now lives in Lisbon", "Omar moved from Lisbon to Berlin",
     "- Omar Haddad, college roommate, now lives in Berlin"),
    # ... and the article the old value starts with stays ("My car is 2024 Toyota ...")
    ("- My car is a 2018 Honda Civic, plate 7KDL392", "My car is now a 2024 Toyota RAV4 hybrid",
     "- My car is a 2024 Toyota RAV4 hybrid, plate 7KDL392"),
    # ... and a town with its postcode is one place: the old one goes too (it stayed after the new one)
    ("- We live at 8 Harbour Street, Falmouth TR11 3AB", "We moved to 41 Trelawney Road, Truro TR1 2HX",
     "- We live at 41 Trelawney Road, Truro TR1 2HX"),
    # ... and who lives there with him is no part of where he lives (the cats were dropped, a newcomer's)
    ("- Tom lives in York with his two cats", "Tom moved to Leeds", "- Tom lives in Leeds with his two cats"),
    ("- Tom lives in York and works at the hospital", "Tom now lives in Leeds",
     "- Tom lives in Leeds and works at the hospital"),
    # an agent developer's run, 2026-11-27: updates said with another subject's word order, a kind word left
    # out, a version upgraded, a thing replaced or renamed, a day it starts said first
    ("- The staging server is staging-01.harbor.internal on port 8080.", "Staging moved to staging-02.harbor.internal.",
     "- The staging server is staging-02.harbor.internal on port 8080."),
    ("- The production database is Postgres 14 on db-prod-2.harbor.internal, port 5432.",
     "Prod database got upgraded to Postgres 16.",
     "- The production database is Postgres 16 on db-prod-2.harbor.internal, port 5432."),
    ("- The Redis cache runs on cache-01, port 6379.", "Redis was replaced by Valkey on cache-01.",
     "- The Valkey cache runs on cache-01, port 6379."),
    ("- Errors go to the Sentry project harbor-api.", "The Sentry project harbor-api was renamed to harbor-backend.",
     "- Errors go to the Sentry project harbor-backend."),
    ("- Standup is at 9:30 every weekday.", "From Monday standup is at 10:00.", "- Standup is at 10:00 every weekday."),
    ("- Log retention in Loki is 14 days.", "Loki log retention is back to 30 days.",
     "- Loki log retention is back to 30 days."),
    ("- The beta launch for Northwind is on March 14.", "The Northwind beta launch got bumped to March 28.",
     "- The Northwind beta launch got bumped to March 28."),
    ("- Marcus Lee is our product manager; he decides what goes into each sprint.",
     "Sofia Marino takes over from Marcus as product manager.",
     "- Sofia Marino is our product manager; he decides what goes into each sprint."),
])
def test_an_update_keeps_the_rest_of_the_line_and_leaves_nothing_stale(old: str, new: str, after: str) -> None:
    """A newcomer's updates (2026-11-26): the old port, city or seat stayed beside the new one, and
    a moved date took the place of the whole line, dropping where the party is."""
    assert supersede.updates(new, old)
    assert replacing.rewrite(old, new, "- " + new) == after


@pytest.mark.parametrize(("old", "new", "after"), [
    ("- Sarah Chen's phone is 555-1234", "Sarah's phone is now 555-9999, call after 10am",
     "- Sarah Chen's phone is 555-9999, call after 10am"),
    ("- Leo Brandt lives at 12 Elm Street", "Leo moved to 3 Harbour Road", "- Leo Brandt lives at 3 Harbour Road"),
    # the same subject as written: the new fact as it was said
    ("- Sarah Chen's phone is 555-1234", "Sarah Chen's phone is now 555-9999", "- Sarah Chen's phone is now 555-9999"),
    # a short form is its word ("prod db": a newcomer's trial, 2026-11-26)
    ("- The production database runs on pg-prod-1.internal, port 5432",
     "The prod db moved to pg-prod-2.internal, port 5433",
     "- The production database runs on pg-prod-2.internal, port 5433"),
    # a bare "number" keeps the line's word for it, which recall asks by (a newcomer's trial, session 7)
    ("- Tom's phone is 07700 900456", "Tom's number is now 07700 900123", "- Tom's phone is 07700 900123"),
    ("- Tom's mobile: 07700 900456", "Tom's number is now 07700 900123", "- Tom's mobile: 07700 900123"),
])
def test_a_fact_naming_its_subject_shorter_keeps_the_line_s_full_name(old: str, new: str, after: str) -> None:
    """A newcomer's trial (2026-11-26): "Sarah's phone is now ..." took the place of "Sarah Chen's
    phone is ...", and "Chen" was no longer on the page."""
    assert supersede.updates(new, old)
    assert replacing.rewrite(old, new, "- " + new) == after


@pytest.mark.parametrize(("new", "old"), [
    ("My cousin Tom's email is now c@d.org", "- My brother Tom's email is a@b.org"),  # two Toms
    ("Tom's brothers are Sam and Ed", "- Tom's brothers are Sam"),  # many at once: never replaces
])
def test_a_role_before_a_name_is_no_licence_to_replace_another(new: str, old: str) -> None:
    assert not supersede.updates(new, old)


def test_remember_moves_a_host_and_its_port_together(mem: Mem) -> None:
    mem("remember", "The production database runs on pg-prod-1.internal, port 5432")
    out = mem.json("remember", "The production database moved to pg-prod-2.internal, port 5433")
    assert out["replaced"]["text"] == "- The production database runs on pg-prod-1.internal, port 5432"
    assert (mem.path / out["path"]).read_text().splitlines()[2:] == [
        "- The production database runs on pg-prod-2.internal, port 5433"]


@pytest.mark.parametrize(("old", "new", "after"), [
    # a clause that starts like the new value's next one but says something else stays
    ("- Bob lives in Leeds, and his sister Jane lives in York", "Bob now lives in Hull, and works from home",
     "- Bob lives in Hull, and works from home, and his sister Jane lives in York"),
    ("- The demo is on Friday, at the Blue Room, Alice presents", "The demo moved to Monday, at noon",
     "- The demo is on Monday, at noon, at the Blue Room, Alice presents"),
    # a date inside a clause of several, and a time beside a date: only that one changes
    ("- Wedding is on 12 June 2027 in Rome, Italy, Anna organises", "The wedding moved to 14 June 2027",
     "- Wedding is on 14 June 2027 in Rome, Italy, Anna organises"),
    ("- Dentist appointment is on May 5 at 2pm, bring X-rays", "Dentist appointment moved to 4pm",
     "- Dentist appointment is on May 5 at 4pm, bring X-rays"),
    # unclear which date moved, or a reason to keep: the new fact takes the line's place, as written
    ("- The offsite is on June 3 and June 4 at Lake Tahoe", "The offsite moved to June 10",
     "- The offsite moved to June 10"),
    ("- The party is on June 3 at the Blue Room", "The party moved to June 10 because of rain",
     "- The party moved to June 10 because of rain"),
    # a name the value's words leave a word of ("New" is a filler word on its own), a year after a comma
    ("- Sarah lives in Boston, with her two cats", "Sarah now lives in New York",
     "- Sarah lives in New York, with her two cats"),
    ("- The trip is on June 3, 2026 to Rome with Ann", "The trip moved to July 1, 2026",
     "- The trip is on July 1, 2026 to Rome with Ann"),
])
def test_an_update_never_swallows_a_clause_of_another_kind(old: str, new: str, after: str) -> None:
    """A review of this session's rewrite (2026-11-26): clauses starting with "and" or "at" were
    taken for the next part of the new value and dropped, and a date run was cut out of a span."""
    assert replacing.rewrite(old, new, "- " + new) == after


@pytest.mark.parametrize(("old", "new"), [
    ("- I usually take the aisle seat, and I like window seats on long flights", "I no longer take the aisle seat"),
    ("- We also use Jira for bugs, Linear for planning", "We no longer use Jira"),
    ("- I always drink coffee in the morning, tea in the evening", "I no longer drink coffee"),
    # a value that cannot be found as written would take the whole line's place too
    ("- Sarah Chen — phone 555-1234, the AWS account contact", "Sarah's phone is now 555-9999, the new one"),
])
def test_no_longer_keeps_a_line_that_says_more(old: str, new: str) -> None:
    """"No longer" has no value to put in: it would take the whole line's place, and the line's other
    clauses with it. A line of several clauses stays, and the new fact joins the page."""
    assert not supersede.updates(new, old)
