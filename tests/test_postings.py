"""BM25 from kept postings is FTS5's bm25() to the bit (gitmem/index/postings.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.gitops.repo import open_notebook
from gitmem.index import fts, memo, postings
from gitmem.index.indexer import Index
from gitmem.search import engine as search
from gitmem.search import rankers
from tests.conftest import Mem
from tests.histories import WORDS

VOCABULARY = list(WORDS)
# "snake_case" is two FTS5 tokens: a quoted phrase of two, matched in order
EXTRA = ["snake_case", "case", "Zoë", "naïve", "x"]


@pytest.fixture
def notebook(mem: Mem) -> Iterator[Index]:
    """Pages of drawn words (texts of every length, words repeated within a text), indexed."""
    rng = random.Random(7)
    words = VOCABULARY + EXTRA
    for page in range(12):
        items = "".join(f"- {' '.join(rng.choices(words, k=rng.randint(1, 25)))}\n" for _ in range(rng.randint(1, 9)))
        mem.write(f"knowledge/p{page}.md", f"# Page {page}\n\n{items}")
    mem.commit("pages")
    index = Index(open_notebook(mem.path))
    index.sync()
    yield index
    index.close()


def _ranker(index: Index, kept: dict[Any, Any], match: str) -> postings.Ranker:
    postings.Ranker(index.conn, kept, match)  # asked once: noted
    ranker = postings.Ranker(index.conn, kept, match)
    assert ranker.ready
    return ranker


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(VOCABULARY + EXTRA + ["absent"]), min_size=1, max_size=6), st.integers(1, 300))
def test_the_ranking_is_fts5_s_to_the_bit(notebook: Index, words: list[str], n: int) -> None:
    match = rankers.fts_query(" ".join(words))
    assert match is not None
    kept: dict[Any, Any] = {}
    ranker = _ranker(notebook, kept, match)
    assert ranker.top(n) == [(int(t), float(s)) for t, s in fts.ranked(notebook.conn, match, n, False)]
    some = list(range(0, 400, 3))
    assert ranker.of(some) == fts.scores(notebook.conn, match, some)
    notebook.conn.execute("DROP TABLE IF EXISTS temp.cand")  # the candidates of a filtered query (cand.fill)
    notebook.conn.execute("CREATE TEMP TABLE cand(text INTEGER)")
    notebook.conn.executemany("INSERT INTO cand VALUES(?)", [(t,) for t in some])
    assert ranker.top(n, some) == [(int(t), float(s)) for t, s in fts.ranked(notebook.conn, match, n, True)]


def test_a_phrase_is_read_the_second_time_it_is_asked(notebook: Index) -> None:
    kept: dict[Any, Any] = {}
    assert not postings.Ranker(notebook.conn, kept, '"apple" OR "river"').ready  # a cold process asks once
    assert '"apple"' not in kept
    assert not postings.Ranker(notebook.conn, kept, '"apple" OR "stone"').ready  # "stone" is new
    assert postings.Ranker(notebook.conn, kept, '"apple" OR "river"').ready
    assert set(kept) >= {'"apple"', '"river"', postings.TOTALS}
    assert not postings.Ranker(notebook.conn, {}, '"apple"').ready  # an untrusted generation keeps nothing


def test_past_the_budget_fts5_answers(notebook: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings, "BUDGET", 3)
    kept: dict[Any, Any] = {}
    postings.Ranker(notebook.conn, kept, '"apple"')
    assert not postings.Ranker(notebook.conn, kept, '"apple"').ready
    assert kept.get(postings.HELD, 0) <= 3


def test_a_warm_process_ranks_from_postings_with_the_same_results(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm process asks FTS5 to rank a query's words once per index generation (the first
    query after the write that closed the index moved it), then ranks from postings, the same."""
    monkeypatch.setattr(memo, "RACY_SECONDS", 0.0)
    memo.forget()
    mem.write("knowledge/boat.md", "# Boat\n\n- The kayak paddle lives in the blue shed.\n- The canoe is red.\n")
    mem.write("knowledge/shed.md", "# Shed\n\n- The shed key is under the pot.\n")
    mem.commit("boat")
    nb = open_notebook(mem.path)
    query = search.Query("where is the kayak paddle shed", mode="keyword", min_score=0.0)
    search.run(nb, query)  # catches up: closing the index after the write moves the generation
    first = search.run(nb, query).record()
    calls: list[str] = []
    ranked = fts.ranked
    monkeypatch.setattr(fts, "ranked", lambda *args: calls.append("ranked") or ranked(*args))
    second = search.run(nb, query).record()
    assert calls == []
    assert second["results"] == first["results"] and len(first["results"]) == 2
    assert second["results"][0]["text"] == "- The kayak paddle lives in the blue shed."
