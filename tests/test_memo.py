"""What a warm process keeps between queries is dropped as soon as the index changes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from gitmem.gitops.repo import open_notebook
from gitmem.index import memo
from gitmem.index.indexer import Index
from gitmem.search import engine as search
from gitmem.search import views
from tests.conftest import Mem


@pytest.fixture(autouse=True)
def fresh() -> None:
    memo.forget()


def _table(path: Path) -> None:
    conn = apsw.Connection(str(path))
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.close()


def _settle(path: Path) -> None:
    """Date the index's files back: as if the last write was a while ago."""
    for name in (path, Path(f"{path}-wal")):
        if name.exists():
            os.utime(name, (time.time() - 60,) * 2)


def _insert(path: Path) -> None:
    subprocess.run([sys.executable, "-I", "-c", "import apsw, sys; c = apsw.Connection(sys.argv[1]); "
                    "c.execute('PRAGMA journal_mode=WAL'); c.execute('INSERT INTO t VALUES(1)')", str(path)],
                   check=True)


def test_a_write_by_another_process_moves_the_generation(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    _table(db)
    _settle(db)
    first = memo.generation(db)
    assert first is not None and memo.generation(db) == first  # nothing written: the same
    _insert(db)
    assert memo.generation(db) is None  # just written: not to be trusted yet
    _settle(db)
    assert memo.generation(db) not in (None, first)


def test_what_was_kept_is_dropped_when_the_index_changes(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    _table(db)
    _settle(db)
    memo.of(memo.kept(db), "answers")["q"] = 1
    assert memo.of(memo.kept(db), "answers") == {"q": 1}
    conn = apsw.Connection(str(db))  # in this process, on a connection that stays open (its WAL too)
    conn.execute("INSERT INTO t VALUES(1)")
    assert Path(f"{db}-wal").stat().st_size > 0
    _settle(db)
    assert memo.of(memo.kept(db), "answers") == {}
    conn.close()


def test_a_replaced_file_is_a_new_generation(tmp_path: Path) -> None:
    """`git mem rebuild` drops index.db and builds a new one: never the old answers."""
    db = tmp_path / "index.db"
    _table(db)
    _settle(db)
    memo.of(memo.kept(db), "answers")["q"] = 1
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    _table(db)
    _settle(db)
    assert memo.of(memo.kept(db), "answers") == {}


def test_an_empty_wal_is_no_change(tmp_path: Path) -> None:
    """Every reader that opens the database makes an empty WAL, and the last to close removes it."""
    db = tmp_path / "index.db"
    _table(db)
    _settle(db)
    first = memo.generation(db)
    Path(f"{db}-wal").write_bytes(b"")
    assert first is not None and memo.generation(db) == first


def test_no_file_keeps_nothing(tmp_path: Path) -> None:
    assert memo.generation(tmp_path / "missing.db") is None
    kept = memo.kept(tmp_path / "missing.db")
    memo.of(kept, "answers")["q"] = 1
    assert memo.of(memo.kept(tmp_path / "missing.db"), "answers") == {}


def test_indexes_kept_are_bounded(tmp_path: Path) -> None:
    for i in range(memo.MAX_INDEXES + 3):
        _table(tmp_path / f"{i}.db")
        _settle(tmp_path / f"{i}.db")
        memo.of(memo.kept(tmp_path / f"{i}.db"), "answers")["q"] = i
    assert len(memo._kept) == memo.MAX_INDEXES
    assert memo.of(memo.kept(tmp_path / "0.db"), "answers") == {}  # the first asked was let go
    last = memo.MAX_INDEXES + 2
    assert memo.of(memo.kept(tmp_path / f"{last}.db"), "answers") == {"q": last}


def _found(mem: Mem, text: str) -> list[str]:
    results = search.run(open_notebook(mem.path), search.Query(text, mode="keyword", min_score=0.0))
    return [h.path for h in results.results]


def test_one_process_sees_a_page_moved_and_removed(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same texts, asked in one process before and after git moved them: where a text is,
    and whether it is still there, come from the index as it is now (trusted at once here: the
    writes grow the WAL, so its size tells them apart)."""
    monkeypatch.setattr(memo, "RACY_SECONDS", 0.0)
    mem.write("knowledge/boat.md", "# Boat\n\n- The kayak paddle lives in the blue shed.\n")
    mem.commit("boat")
    assert _found(mem, "kayak paddle shed") == ["knowledge/boat.md"]
    mem.git("mv", "knowledge/boat.md", "knowledge/water.md")
    mem.commit("move")
    assert _found(mem, "kayak paddle shed") == ["knowledge/water.md"]
    mem.git("rm", "-q", "knowledge/water.md")
    mem.commit("remove")
    assert _found(mem, "kayak paddle shed") == []


def test_an_index_just_written_keeps_nothing(mem: Mem) -> None:
    """Right after a write (within RACY_SECONDS) nothing is kept: a second Index asks afresh."""
    mem.write("knowledge/boat.md", "# Boat\n\n- The kayak paddle lives in the blue shed.\n")
    mem.commit("boat")
    nb = open_notebook(mem.path)
    first = Index(nb)
    try:
        first.sync()  # writes the index: its files are fresh
        first.kept("answers")["q"] = 1
    finally:
        first.close()
    second = Index(nb)
    try:
        assert second.kept("answers") == {}
    finally:
        second.close()
    _settle(nb.state_dir / "index.db")  # a while later, nothing written since
    third = Index(nb)
    try:
        third.kept("answers")["q"] = 3
    finally:
        third.close()
    fourth = Index(nb)
    try:
        assert fourth.kept("answers") == {"q": 3}
    finally:
        fourth.close()


def test_a_view_off_the_indexed_chain_keeps_nothing(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Off the indexed first-parent chain a view reads a connection's temp table (temp.atview):
    what one revision's query learned must not answer another's."""
    monkeypatch.setattr(memo, "RACY_SECONDS", 0.0)
    side = mem.side_edit("knowledge/boat.md", "# Boat\n\n- The kayak paddle lives in the blue shed.\n",
                         "# Boat\n\n- The kayak paddle lives in the red shed.\n")
    asked: list[object] = []
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        view = views.build(index, side, False)
        assert view.pages is not None and not view.lasting  # off the chain
        kept = index.kept

        def counted(kind: object, most: int = memo.MAX_ENTRIES) -> dict:
            asked.append(kind)
            return kept(kind, most)

        monkeypatch.setattr(index, "kept", counted)
        hits = search.rank(index, search.Query("kayak paddle shed", mode="keyword", min_score=0.0), None, view)
        assert [h.text for h in hits][:1] == ["# Boat\n\n- The kayak paddle lives in the red shed."]
        assert not [k for k in asked if isinstance(k, tuple) and k[0] in ("among", "occurrences")]
        assert "origins" not in asked
    finally:
        index.close()


def test_page_texts_kept_are_bounded_in_characters(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """A daemon keeps the pages its results come from, within KEPT_ALL characters in all: past
    them it starts again (2,000 long pages would otherwise stay in its memory)."""
    from gitmem.index import chunks, pagetext

    monkeypatch.setattr(memo, "RACY_SECONDS", 0.0)
    monkeypatch.setattr(pagetext, "KEPT_ALL", 250)
    pages = {f"knowledge/p{i}.md": f"# Page {i}\n\n- {'word ' * 20}number {i}.\n" for i in range(4)}
    for path, text in pages.items():
        mem.write(path, text)
    mem.commit("pages")
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        blobs = [int(r[0]) for r in index.conn.execute("SELECT DISTINCT blob FROM chunks")]
        assert len(blobs) == 4 and chunks.blob_oid(index.conn, blobs[0])
        reader = pagetext.Reader(index)
        for blob in blobs:
            assert reader.text(blob, None) in pages.values()  # every read answers in full
        kept = index.kept(("pages", index.forgotten.key), pagetext.KEPT_PAGES)
        assert 0 < sum(len(t) for t in kept.values()) <= 250 and len(kept) < 4
    finally:
        index.close()


def test_a_read_that_blames_a_page_leaves_the_index_as_it_was(mem: Mem) -> None:
    """A warm process kept nothing past a query that blamed a page it had not blamed before: the
    blame was kept in index.db, and the write moved its generation (a newcomer-style trial of the
    warm path, 2026-11-26). Kept blames live in blames.db."""
    from gitmem.index import provenance

    mem.write("knowledge/boat.md", "# Boat\n\n- The kayak paddle lives in the blue shed.\n")
    mem.write("knowledge/car.md", "# Car\n\n- The car keys hang by the door.\n")
    mem.commit("pages")
    nb = open_notebook(mem.path)
    search.run(nb, search.Query("kayak paddle", mode="keyword"))  # catches up (writes the index)
    path = nb.state_dir / "index.db"
    _settle(path)
    provenance._BLAMES.clear()
    before = memo.generation(path)
    results = search.run(nb, search.Query("car keys", mode="keyword", min_score=0.0))
    assert results.results[0].fact is not None and results.results[0].fact.commit is not None  # blamed
    assert before is not None and memo.generation(path) == before
    assert (nb.state_dir / "blames.db").exists()
