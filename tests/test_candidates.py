"""Checking candidates after ranking gives exactly the rankings that listing them first gives."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.search import candidates, engine as search, views
from gitmem.index import embed
from gitmem.index.indexer import Index
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem
from tests.histories import WORDS, Builder, day

GROUPS = (("notebook", "daily"), ("notebook", "daily", "sessions"))
QUERIES = ("apple river", "Sarah phone number", "what did we decide about the lantern", "copper", "zzz")


@pytest.fixture
def edited(mem: Mem) -> Mem:
    """A page rewritten many times (its history crowds the top of every ranking), a daily log, sessions."""
    for i in range(12):
        bullets = "".join(f"- Sarah's phone was 555-{j:04d}, apple river {WORDS[j % len(WORDS)]}\n" for j in range(i + 1))
        mem.write("reference/contacts.md", f"# Contacts\n\n{bullets}")
        mem.write(f"daily/2026-02-{10 + i:02d}.md", f"# Daily Log\n\n## 09:00 — copper lantern {i}\n")
        mem.write(f"sessions/2026-02-{10 + i:02d}-0900.md", f"# Session\n\nuser: what did we decide about the "
                  f"lantern {i}?\n\nassistant: apple river, copper {WORDS[i]}\n")
        mem.commit(f"edit {i}")
    mem("index")
    return mem


def rankings(path: Path, mode: str, groups: tuple[str, ...], embedder: embed.Embedder | None,
             view: views.View | None = None) -> list[tuple[str, int, int, float]]:
    index = Index(open_notebook(path))
    try:
        out = []
        for text in QUERIES:
            q = search.Query(text, mode=mode, groups=groups, limit=1000, min_score=0.0)
            out.extend((h.path, h.lines["start"], h.lines["end"], h.score)
                       for h in search.rank(index, q, embedder, view))
        return out
    finally:
        index.close()


@pytest.mark.parametrize("depth", [2, 100])
def test_checked_and_listed_rank_alike(edited: Mem, monkeypatch: pytest.MonkeyPatch, depth: int) -> None:
    embedder = embed.load(embed.resolve(open_notebook(edited.path).git))
    monkeypatch.setattr(candidates, "DEPTH", depth)
    checks: list[int] = []
    among = candidates.Candidates._among
    monkeypatch.setattr(candidates.Candidates, "_among", lambda self, t: checks.append(len(t)) or among(self, t))
    for mode in ("keyword", "semantic", "hybrid"):
        for groups in GROUPS:
            checked = rankings(edited.path, mode, groups, embedder)
            with monkeypatch.context() as m:
                m.setattr(candidates, "_broad", lambda *a: False)
                listed = rankings(edited.path, mode, groups, embedder)
            assert checked == listed and checked, (mode, groups)
    assert checks, "the checked way never ran"
    if depth == 2:
        assert max(checks) > 2 * depth, "no ranking went deeper than its first fetch"


def test_filters_and_history_list_their_candidates(edited: Mem) -> None:
    index = Index(open_notebook(edited.path))
    try:
        broad = candidates.Candidates(index.conn, search.Query("x"), views.live())
        sessions = candidates.Candidates(index.conn, search.Query("x", groups=("sessions",)), views.live())
        tagged = candidates.Candidates(index.conn, search.Query("x", tags=("a",)), views.live())
        dated = candidates.Candidates(index.conn, search.Query("x", since="7d"), views.live())
        past = candidates.Candidates(index.conn, search.Query("x", history=True), views.history())
    finally:
        index.close()
    assert broad.checked and not sessions.checked and not tagged.checked
    assert not dated.checked and not past.checked


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_checked_equals_listed_over_generated_notebooks(data: st.DataObject) -> None:
    """Keyword rankings of random notebooks, with pages rewritten and deleted, at a depth of 1-3."""
    b = Builder()
    pages = ["a.md", "b.md", "daily/2026-01-05.md", "sessions/2026-01-05-0900.md"]
    for i in range(data.draw(st.integers(1, 8))):
        page = data.draw(st.sampled_from(pages))
        words = data.draw(st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=6))
        text = None if data.draw(st.integers(0, 6)) == 0 else f"# T\n\n{' '.join(words)}\n"
        b.commit(f"c{i}", day(f"2026-01-{i + 1:02d} 10:00"), {page: text})
    depth = data.draw(st.integers(1, 3))
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "r"
        b.write(repo)
        old = candidates.DEPTH
        candidates.DEPTH = depth
        try:
            for groups in GROUPS:
                checked = rankings(repo, "keyword", groups, None)
                broad, candidates._broad = candidates._broad, lambda *a: False
                try:
                    listed = rankings(repo, "keyword", groups, None)
                finally:
                    candidates._broad = broad
                assert checked == listed
        finally:
            candidates.DEPTH = old


def test_checked_and_listed_rank_alike_with_tied_vectors(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages alike in their first 256 tokens get equal vectors (the model reads no further)."""
    head = " ".join(["cat", "dog", "sun", "hat", "box", "pen"] * 50)  # 300 one-token words
    for i in range(30):
        mem.write(f"knowledge/p{i:02d}.md", f"{head} tail {WORDS[i % len(WORDS)]} {i}\n")
    mem.commit("alike")
    mem("index")
    embedder = embed.load(embed.resolve(open_notebook(mem.path).git))
    monkeypatch.setattr(candidates, "DEPTH", 5)
    checked = rankings(mem.path, "semantic", GROUPS[0], embedder)
    with monkeypatch.context() as m:
        m.setattr(candidates, "_broad", lambda *a: False)
        listed = rankings(mem.path, "semantic", GROUPS[0], embedder)
    assert checked == listed and len({score for *_, score in checked}) < len(checked)


def test_candidates_are_checked_in_slices(edited: Mem) -> None:
    """A deep ranking can check more texts than SQLite takes parameters (32,766)."""
    index = Index(open_notebook(edited.path))
    try:
        query = search.Query("x")
        cand = candidates.Candidates(index.conn, query, views.live())
        live = {int(r[0]) for r in index.conn.execute(
            f"""SELECT c.text FROM ({views.live().sql}) v JOIN chunks c ON c.blob = v.blob
                 WHERE v.grp IN ({','.join('?' * len(query.groups))})""", query.groups)}
        assert cand.checked and len(live) > 10
        assert cand._among(list(range(1, 40_001))) == live
    finally:
        index.close()


def test_a_shallow_fusion_scores_each_text_as_a_deep_one(edited: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ranker brings its best DEPTH texts; a text one of them placed past DEPTH still gets
    that ranker's score (engine._complete), so the fused score of every text the shallow fusion
    holds is the score it has when both rankers list everything."""
    nb = open_notebook(edited.path)
    embedder = embed.load(embed.resolve(nb.git))

    def fused(depth: int, text: str) -> dict[int, float]:
        monkeypatch.setattr(candidates, "DEPTH", depth)
        index = Index(nb)
        try:
            q = search.Query(text, mode="hybrid", groups=GROUPS[1], limit=1000, min_score=0.0)
            return search._weigh(index, q, embedder, candidates.Candidates(index.conn, q, views.live()))[1]
        finally:
            index.close()

    completed = 0
    for text in QUERIES[:4]:
        shallow, deep = fused(2, text), fused(10_000, text)
        assert len(deep) > len(shallow)
        assert {t: round(v, 6) for t, v in shallow.items()} == {t: round(deep[t], 6) for t in shallow}
        completed += len(shallow) - 2
    assert completed
