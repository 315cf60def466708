"""Facts inside chunks: which block of a page a hit names, its heading path and lines,
and that `git mem get PATH:START-END` prints exactly it (gitmem/search/facts.py)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gitmem.blocks import LIST_ITEM, STATEMENT_WORDS
from gitmem import blocks
from gitmem.index import chunker
from gitmem.markdown import body_offset
from gitmem.search import facts
from tests.conftest import Mem

PAGE = """---
tags: [people]
---
# Contacts

## Sarah Chen
- phone: 555-1234
- email: sarah@example.org
  (work address)

Met at the 2025 conference,
introduced by Bob.

```
not a heading:
## inside a fence
```
## 10:00 — Called Bob
## Table
| who | city |
|---|---|
| Bob | Paris |
"""


def test_blocks_of_a_page_with_their_heading_paths() -> None:
    found = [(b.start, b.end, b.headings, b.heading) for b in facts.blocks(PAGE)]
    assert found == [
        (4, 4, (), True),
        (6, 6, ("Contacts",), True),
        (7, 7, ("Contacts", "Sarah Chen"), False),
        (8, 9, ("Contacts", "Sarah Chen"), False),
        (11, 12, ("Contacts", "Sarah Chen"), False),
        (14, 17, ("Contacts", "Sarah Chen"), False),
        (18, 18, ("Contacts",), False),  # a heading with nothing under it is itself a fact
        (19, 19, ("Contacts",), True),
        (20, 20, ("Contacts", "Table"), True),  # a table's header row: every row's context
        (22, 22, ("Contacts", "Table"), False),
    ]


NESTED = """# Contacts

- Tom Park
  - Phone: 555-0134
  - [ ] Email: tom@park.example
    - work address only
- Sarah Chen moved to Lisbon in May and runs the office there
  - Phone: 555-9999

Text under the list.

## Vendors
  - Acme Plumbing: 555-7777
"""


def test_a_nested_item_carries_the_items_it_is_nested_under() -> None:
    """A nested item is keyed and embedded with its parent items ("whose phone?"); a parent that
    is a short name titles its items as a heading does, a parent that says something stays a fact;
    a heading or text after the list ends the nesting."""
    found = [(b.start, b.context, b.heading) for b in facts.blocks(NESTED) if not b.title]
    assert found == [
        (3, "", True),  # "Tom Park": a title over its items
        (4, "Tom Park", False),
        (5, "Tom Park", False),
        (6, "Tom Park / Email: tom@park.example", False),  # bullet and checkbox left out
        (7, "", False),  # a parent that says something stays a fact of its own
        (8, "Sarah Chen moved to Lisbon in May and runs the office there", False),
        (10, "", False),
        (13, "", False),  # under another heading: no parent
    ]
    [phone] = [f for f in facts.within(NESTED, 1, 14) if f.lines["start"] == 4]
    assert blocks.described(phone.headings, phone.context, phone.text) == "Contacts / Tom Park\n  - Phone: 555-0134"


def test_recall_says_whose_number_a_nested_item_is(mem: Mem) -> None:
    mem.write("reference/contacts.md", NESTED)
    mem.commit("contacts")
    top = mem.compact("recall", "--mode", "keyword", "Tom Park phone")["results"][0]
    assert (top["text"], top["where"], top["context"]) == ("  - Phone: 555-0134", "reference/contacts.md:4", "Tom Park")
    text = mem("recall", "--mode", "keyword", "Tom Park phone").stdout
    assert "    Contacts › Tom Park\n        - Phone: 555-0134\n" in text
    # an agent is told whose it is too: the budgeted context (the page not always-on, which would
    # quote it whole instead) and the prompt hook
    mem.write(".gitmem.toml", '[context]\nalways_on = ["SOUL.md"]\n')
    budgeted = mem.json("context", "--query", "Tom Park phone", "--budget", "600", "--mode", "keyword")["text"]
    assert ": Tom Park › Phone: 555-0134\n" in budgeted
    from tests.test_daemon import gm

    hook = gm(mem.path, "hooks", "prompt", input='{"prompt": "Tom Park phone"}',
              env={"GITMEM_PROMPT_BUDGET": "600", "GITMEM_DAEMON": "0"})  # no daemon started and left running
    assert "\n- Tom Park › Phone: 555-0134 (reference/contacts.md:4" in json.loads(hook.stdout)[
        "hookSpecificOutput"]["additionalContext"]
    vendors = mem("recall", "--mode", "keyword", "Acme plumbing").stdout
    assert "    Contacts › Vendors\n        - Acme Plumbing: 555-7777\n" in vendors
    mem.write("reference/cities.md", "# Cities\n\n| who | city |\n|---|---|\n| Bob | Paris |\n")
    mem.commit("cities")
    row = mem("recall", "--mode", "keyword", "Bob Paris").stdout  # a row under its table's header row
    assert "    Cities\n      | who | city |\n      | Bob | Paris |\n" in row
    assert mem.compact("recall", "--mode", "keyword", "Bob Paris")["results"][0]["context"] == "| who | city |"


ITEMS = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["alpha", "beta gamma", "one two three four"])),
                 min_size=1, max_size=12)


@given(ITEMS)
def test_a_nested_items_context_is_the_chain_of_items_above_it(items: list[tuple[int, str]]) -> None:
    """Over generated lists: each item's context is the text of each nearest item above it at a
    smaller indent, outermost first."""
    lines, expected, stack = [], [], []  # stack: (indent, text) of the items above
    for depth, words in items:
        indent = min(depth, (stack[-1][0] // 2 + 1) if stack else 0) * 2  # never deeper than one past its parent
        while stack and stack[-1][0] >= indent:
            stack.pop()
        expected.append(" / ".join(t for _, t in stack))
        text = f"{words} {len(lines)}"
        stack.append((indent, text))
        lines.append(" " * indent + f"- {text}")
    page = "# List\n\n" + "\n".join(lines) + "\n"
    assert [b.context for b in facts.blocks(page) if not b.title] == expected


@pytest.mark.parametrize("query, lines", [
    ("Sarah's phone", (7, 7)),
    ("how do I email Sarah", (8, 9)),
    ("who introduced us", (11, 12)),
    ("call with Bob", (18, 18)),
    ("Bob's city", (22, 22)),
])
def test_the_best_fact_answers_the_query(query: str, lines: tuple[int, int]) -> None:
    fact = facts.best(facts.within(PAGE, 4, 22), query)
    assert fact is not None and (fact.lines["start"], fact.lines["end"]) == lines


@pytest.mark.parametrize("empty", ["## ", "###", "### ###", "#\t"])
def test_a_heading_without_a_title_is_never_the_answer(empty: str) -> None:
    """A hand-edited page with `## ` on a line of its own (a newcomer's, 2026-11-26): recall named
    that line as the fact for "kafka", above the Kafka line under it."""
    page = f"# Kafka notes\n{empty}\n- The Kafka cluster moved to kafka-2.internal:9093\n"
    found = facts.within(page, 1, 3)
    assert [f.statement for f in found if f.text == empty] == [False]
    fact = facts.best(found, "kafka")
    assert fact is not None and fact.text == "- The Kafka cluster moved to kafka-2.internal:9093"


def test_a_fact_is_cut_to_its_chunk() -> None:
    found = facts.within(PAGE, 9, 11)
    assert [(f.text, f.lines) for f in found] == [
        ("  (work address)", {"start": 9, "end": 9}), ("Met at the 2025 conference,", {"start": 11, "end": 11})]
    assert facts.at_line(PAGE, 9).lines == {"start": 8, "end": 9}
    assert facts.at_line(PAGE, 10) is None


LINES = st.one_of(
    st.sampled_from(["", "", "# Title", "## Section", "### Sub", "```", "| a | b |", "|---|---|"]),
    st.builds(lambda indent, marker, words: f"{' ' * indent}{marker} {words}",
              st.sampled_from([0, 0, 2, 4]), st.sampled_from(["-", "*", "1.", "+"]),
              st.text("abc xyz", min_size=1, max_size=30)),
    st.text("abcdefgh ijk.,!?", min_size=1, max_size=120),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(["a", "", "|---|---|", "|---|---|"], "abc", 60)  # a one-word title over a table: no fact, not a bug
@given(st.lists(LINES, min_size=1, max_size=40), st.sampled_from(["abc", "xyz", "ijk", "title"]),
       st.sampled_from([60, 200, 1600]))
def test_a_fact_lies_within_its_chunk_and_is_whole_lines(lines: list[str], query: str, size: int) -> None:
    """For every chunk of any page: the chosen fact's lines are inside the chunk's, and the
    page's lines START-END (what `git mem get PATH:START-END` prints) are the fact's text."""
    text = "\n".join(lines) + "\n"
    page_lines = text.split("\n")
    for piece in chunker.chunk(text, size, size // 5, body_offset(text)):
        fact = facts.best(facts.within(text, piece.start_line, piece.end_line), query)
        if fact is None:  # headings, a table's header and rule lines, lines without a word, and short
            # titles (a line of a word or two over a table: blocks.statement) are no fact
            found = facts.within(text, piece.start_line, piece.end_line)
            assert not any(f.statement for f in found)
            titles = {n for f in found for n in range(f.lines["start"], f.lines["end"] + 1)}
            assert all(not ln.strip() or ln.lstrip().startswith(("#", "|")) or not re.search(r"\w", ln)
                       or (n < len(page_lines) and facts.TABLE_RULE.match(page_lines[n]))  # a header row
                       or (n in titles and len(LIST_ITEM.sub("", ln).split()) < STATEMENT_WORDS)
                       for n, ln in enumerate(page_lines[piece.start_line - 1:piece.end_line], start=piece.start_line))
            continue
        assert fact.statement
        assert piece.start_line <= fact.lines["start"] <= fact.lines["end"] <= piece.end_line
        assert "\n".join(page_lines[fact.lines["start"] - 1:fact.lines["end"]]) == fact.text


def test_recall_names_the_fact_and_get_prints_it(mem: Mem) -> None:
    mem.write("reference/contacts.md", PAGE)
    mem.commit("contacts")
    mem.write("knowledge/facts.md", "# Facts\n\n- The office wifi is called Larch\n- Parking is on level 2\n")
    added = mem.commit("facts")
    data = mem.json("recall", "where do I park")
    top = data["results"][0]
    assert top["path"] == "knowledge/facts.md"
    fact = top["fact"]
    assert fact["text"] == "- Parking is on level 2" and fact["lines"] == {"start": 4, "end": 4}
    assert fact["headings"] == ["Facts"] and fact["commit"] == added
    assert top["lines"]["start"] <= fact["lines"]["start"] <= fact["lines"]["end"] <= top["lines"]["end"]
    got = mem("get", f"{top['path']}:{fact['lines']['start']}-{fact['lines']['end']}").stdout
    assert got == fact["text"] + "\n"
    text = mem("recall", "--mode", "keyword", "Sarah phone").stdout.splitlines()
    at = text.index("    Contacts › Sarah Chen")
    assert text[at - 1].startswith("  reference/contacts.md:7 ") and text[at + 1] == "      - phone: 555-1234"


def test_uncommitted_facts_say_so(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- The office wifi is called Larch\n")
    mem.commit("facts")
    mem.write("knowledge/facts.md", "# Facts\n\n- The office wifi is called Larch\n- Parking is on level 2\n")
    fact = mem.json("recall", "--mode", "keyword", "parking")["results"][0]["fact"]
    assert fact["lines"] == {"start": 4, "end": 4} and fact["commit"] is None and fact["subject"] == "uncommitted"


def test_blames_side_by_side_share_a_full_cache(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """cite blames 4 pages at once, and each thread keeps its blame in provenance's process cache:
    with the cache full, a thread evicted what another had just put there and was about to
    return (KeyError), or two evicted the same oldest entry. The cache here yields to the other
    threads right after each store, where a thread switch made it fail now and then."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    from gitmem.gitops.repo import open_notebook
    from gitmem.index import provenance

    class Yielding(dict):
        def __setitem__(self, key: object, value: object) -> None:
            super().__setitem__(key, value)
            time.sleep(0.01)

    for n in range(4):
        mem.write(f"knowledge/p{n}.md", f"# P{n}\n\n- fact {n}\n")
    mem.commit("pages")
    nb = open_notebook(mem.path)
    monkeypatch.setattr(provenance, "BLAMES_KEPT", 1)
    monkeypatch.setattr(provenance, "_BLAMES", Yielding())
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda n: provenance._blamed(nb, None, f"knowledge/p{n % 4}.md", [(3, 3)]), range(8)))
    assert [[b.line for b in blamed if b.line == 3] for blamed in found] == [[3]] * 8
    assert len(provenance._BLAMES) == 1


def test_a_warm_process_never_shows_a_forgotten_line_again(mem: Mem) -> None:
    """The page texts, blocks and blames a process keeps (a server's next query) are kept as git
    has them; what a later forget took must still be blanked in every answer."""
    mem.write("knowledge/pets.md", "# Pets\n\n- Rex the dog likes the vetzorbl clinic\n- Rex the dog sleeps a lot\n")
    mem.commit("pets")
    mem("index")
    warm = mem("recall", "--mode", "keyword", "--history", "Rex dog", "--json").stdout
    assert "vetzorbl" in warm  # the caches now hold the page with the line
    mem("forget", "vetzorbl")
    for args in (["--history"], ["--at", "HEAD~1"], []):
        out = mem("recall", "--mode", "keyword", *args, "Rex dog", "--json").stdout
        assert "Rex the dog sleeps" in out and "vetzorbl" not in out, args


def test_a_kept_blame_answers_as_git_blame_does_while_commits_leave_the_page_alone(mem: Mem) -> None:
    """A cold process reads the blames earlier processes kept (blames.db). Kept by the commit that
    made the page's version, a blame stays true while other pages change, and a page that changes
    is blamed again."""
    import apsw

    from gitmem.index import provenance

    def fresh_process_facts() -> list[tuple[str, str, str]]:
        provenance._BLAMES.clear()  # what a new process starts with
        out = mem.json("recall", "--mode", "keyword", "gate code")
        return [(h["fact"]["text"], h["fact"]["commit"], h["fact"]["subject"]) for h in out["results"]]

    def kept() -> int:
        conn = apsw.Connection(str(mem.path / ".git/gitmem/blames.db"))
        try:
            return conn.execute("SELECT count(*) FROM blames").fetchone()[0]
        finally:
            conn.close()

    def forget_kept() -> None:
        conn = apsw.Connection(str(mem.path / ".git/gitmem/blames.db"))
        conn.execute("DELETE FROM blames")
        conn.close()

    mem("remember", "The gate code is 4512")
    mem("remember", "The side gate code is 7788")
    first = fresh_process_facts()
    pages = kept()
    assert pages >= 1 and first[0][1] is not None
    mem("remember", "--to", "knowledge/other.md", "Bins go out on Tuesday")  # HEAD moves, the pages do not
    assert fresh_process_facts() == first and kept() == pages  # answered from the kept blames
    forget_kept()
    assert fresh_process_facts() == first  # and it is what git blame says now
    page = (mem.path / "knowledge/facts.md").read_text()
    assert "7788" in page
    mem.write("knowledge/facts.md", page.replace("7788", "7789"))
    mem.commit("new side gate code")
    changed = fresh_process_facts()
    assert changed[0][0] == "- The side gate code is 7789"
    assert changed[0][2] == "new side gate code"  # blamed again: the page changed


def test_the_kept_blames_are_bounded(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    import apsw

    from gitmem.index import provenance

    monkeypatch.setattr(provenance, "BLAMES_STORED", 2)
    for i, animal in enumerate(("zebra", "zebra finch", "zebra fish")):
        mem.write(f"knowledge/p{i}.md", f"# P{i}\n\n- The {animal} lives in pen {i}\n")
    mem.commit("three pages")
    provenance._BLAMES.clear()
    assert len(mem.json("recall", "--mode", "keyword", "zebra")["results"]) == 3  # three pages: over the bound
    conn = apsw.Connection(str(mem.path / ".git/gitmem/blames.db"))
    try:
        assert conn.execute("SELECT count(*) FROM blames").fetchone()[0] == 3  # emptied, then this query's
        provenance._BLAMES.clear()
        mem.write("knowledge/p0.md", "# P0\n\n- The zebra lives in pen 7\n")
        mem.commit("moved")
        mem.json("recall", "--mode", "keyword", "zebra")
        assert conn.execute("SELECT count(*) FROM blames").fetchone()[0] == 1  # the changed page: over again
    finally:
        conn.close()


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=40), st.integers(1, 45), st.integers(0, 20))
def test_a_chunk_s_facts_are_the_blocks_it_overlaps(lines: list[str], start: int, span: int) -> None:
    """blocks.cut starts at the first block that ends in the chunk (a newcomer's page of 20k list items
    walked every block for each chunk: 3 s); the same as a walk of them all, over generated pages."""
    from gitmem import blocks

    page = "\n".join(lines) + "\n"
    rows = page.split("\n")
    end = start + span
    walked = []
    for b in blocks.kept(page):
        lo, hi = max(b.start, start), min(b.end, end)
        body = "\n".join(rows[lo - 1:hi])
        if lo <= hi and body.strip():
            walked.append((body, lo, hi, tuple(b.headings), b.heading, b.context, blocks.statement(b, rows[b.start - 1])))
    assert blocks.cut(page, start, end) == tuple(walked)
