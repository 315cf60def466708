"""The vector matrix: read from vec0's storage, ranked like sqlite-vec, re-read when vectors change."""

from __future__ import annotations

import pytest

from gitmem.index import db, embed
from gitmem.index import vectors as storage
from gitmem.search import vectors
from gitmem.index.indexer import Index
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem

TOPICS = ["the cat sleeps on the sofa", "tomatoes need water in summer", "book the garage for new tyres",
          "Sarah's phone is 555-1234", "the flight to Lyon leaves at 8", "buy oat milk and bread",
          "the boiler makes a knocking noise", "quarterly taxes are due in April"]


@pytest.fixture
def notes(mem: Mem) -> Mem:
    for i, topic in enumerate(TOPICS * 3):
        mem.write(f"knowledge/n{i:02d}.md", f"# Note {i}\n\n{topic} (note {i})\n")
    mem.commit("notes")
    mem("index")
    return mem


def test_storage_read_equals_selecting_every_row(notes: Mem) -> None:
    index = Index(open_notebook(notes.path))
    try:
        before = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        index.conn.execute("DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors LIMIT 3)")
        stored = vectors._read(index.conn)
        rows = index.conn.execute("SELECT rowid, embedding FROM vectors ORDER BY rowid").fetchall()
        assert storage.from_storage(index.conn, 384) is not None  # read from storage, not row by row
    finally:
        index.close()
    assert sorted(stored.ids.tolist()) == [r[0] for r in rows] and len(rows) == before - 3 >= len(TOPICS) * 3 - 3
    by_id = dict(zip(stored.ids.tolist(), stored.unit))
    for rowid, blob in rows:
        import numpy as np

        assert np.allclose(by_id[rowid], np.frombuffer(blob, dtype=np.float32), atol=1e-6)


def test_sqlite_vec_is_pinned_to_the_storage_layout_read(notes: Mem) -> None:
    """index/vectors.py reads vec0's private shadow tables: the version installed is the one
    pinned, and the tables and columns it reads are there, each chunk's blobs the sizes it
    expects (a new sqlite-vec that moves them fails here, not by falling back unnoticed)."""
    import tomllib
    from importlib.metadata import version
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    pinned = [d for d in project["project"]["dependencies"] if d.startswith("sqlite-vec")]
    assert pinned == [f"sqlite-vec=={version('sqlite-vec')}"]
    index = Index(open_notebook(notes.path))
    try:
        conn = index.conn
        for table, columns in storage.SHADOW.items():
            have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            assert set(columns) - {"rowid"} <= have, (table, have)
        count = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        sizes = conn.execute("""SELECT c.size, length(c.validity), length(c.rowids), length(v.vectors)
                                  FROM vectors_chunks c JOIN vectors_vector_chunks00 v ON v.rowid = c.chunk_id""").fetchall()
        assert sizes and all(rows * 8 == r and vecs == 4 * 384 * size and valid * 8 >= size
                             for size, valid, r, vecs in sizes for rows in [size])
        parts = storage.from_storage(conn, 384)
        assert parts is not None and sum(len(ids) for ids, _ in parts) == count == len(TOPICS) * 3
    finally:
        index.close()


def test_nearest_matches_sqlite_vec(notes: Mem) -> None:
    nb = open_notebook(notes.path)
    embedder = embed.load(embed.resolve(nb.git))
    index = Index(nb)
    try:
        stored = vectors.matrix(index.conn, index.path)
        for query in ("where is my cat", "car maintenance", "groceries", "phone number"):
            q = embedder.embed_query(query)
            theirs = index.conn.execute("SELECT rowid, distance FROM vectors WHERE embedding MATCH ? AND k = 10",
                                        (q,)).fetchall()
            ours = stored.nearest(q, 10)
            assert [r[0] for r in ours] == [r[0] for r in theirs]
            assert all(abs(a[1] - b[1]) < 1e-5 for a, b in zip(ours, theirs))
            among = {r[0] for r in theirs[3:8]}
            assert [r[0] for r in stored.nearest(q, 10, among)] == [r[0] for r in theirs[3:8]]
    finally:
        index.close()


def test_the_matrix_is_kept_until_a_vector_changes(notes: Mem) -> None:
    def held() -> vectors.Matrix:
        index = Index(open_notebook(notes.path))
        try:
            return vectors.matrix(index.conn, index.path)
        finally:
            index.close()

    def token() -> str | None:
        index = Index(open_notebook(notes.path))
        try:
            return db.get_meta(index.conn, "vectors")
        finally:
            index.close()

    first, t1 = held(), token()
    assert held() is first and t1
    notes.write("knowledge/new.md", "# New\n\nthe lighthouse keeper logged a gale\n")
    notes.commit("new")
    notes("index")
    t2 = token()
    second = held()
    assert t2 != t1 and second is not first and len(second.ids) == len(first.ids) + 1
    notes("forget", "the lighthouse keeper logged a gale")
    t3 = token()
    third = held()
    assert t3 != t2 and len(third.ids) == len(first.ids)
    index = Index(open_notebook(notes.path))
    try:
        assert not ({int(i) for i in third.ids} - {r[0] for r in index.conn.execute("SELECT rowid FROM vectors")})
    finally:
        index.close()


def test_ties_go_to_the_lower_id_and_a_deeper_call_extends_a_shallower_one() -> None:
    """Equal vectors are common (inputs are cut at the model's length): the cut must not be arbitrary."""
    import numpy as np

    ids = np.arange(1000, 1300, dtype=np.int64)[::-1].copy()  # stored in no particular order
    unit = np.tile(np.array([[0.6, 0.8]], dtype=np.float32), (300, 1))
    unit[7] = [1.0, 0.0]  # one row closer to the query than all the tied ones
    matrix = vectors.Matrix(ids, unit)
    query = np.array([1.0, 0.0], dtype=np.float32).tobytes()
    five = [i for i, _ in matrix.nearest(query, 5)]
    twenty = [i for i, _ in matrix.nearest(query, 20)]
    assert five == [int(ids[7]), 1000, 1001, 1002, 1003]
    assert twenty[:5] == five and twenty == [int(ids[7])] + list(range(1000, 1019))
    among = [i for i, _ in matrix.nearest(query, 3, among={1299, 1250, 1100, 1101})]
    assert among == [1100, 1101, 1250]


def test_semantic_search_with_nothing_embedded_yet_answers_by_keyword(mem: Mem, monkeypatch) -> None:
    """A past view whose texts are not embedded (a fresh clone before 'git mem index') has no vectors."""
    from gitmem.search import engine as search

    monkeypatch.setattr(search, "EMBED_ON_READ", 0)
    mem.write("knowledge/a.md", "# A\n\nthe lantern is in the shed\n")
    mem.commit("a")
    mem.write("knowledge/a.md", "# A\n\nthe lantern is in the attic\n")
    mem.commit("b")
    out = mem.json("recall", "--history", "lantern")
    assert sorted(h["text"].split("\n")[-1] for h in out["results"]) == ["the lantern is in the attic",
                                                                         "the lantern is in the shed"]
    assert any("no embedding yet" in n for n in out["notes"])
