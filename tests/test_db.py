import apsw
import pytest

from gitmem.index import db


def test_a_full_database_reports_full_not_a_failed_rollback(tmp_path) -> None:
    conn = db.connect(tmp_path / "index.db")
    conn.execute("CREATE TABLE big(x BLOB)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(apsw.FullError):
        with db.transaction(conn):
            conn.execute("INSERT INTO big VALUES(zeroblob(1000000))")
    assert not conn.in_transaction
    conn.close()


def test_migrations_are_recorded_in_order(tmp_path) -> None:
    conn = db.connect(tmp_path / "index.db")
    versions = [r[0] for r in conn.execute("SELECT version FROM migrations ORDER BY version")]
    assert versions == [v for v, _ in db.MIGRATIONS]
    conn.close()
    again = db.connect(tmp_path / "index.db")  # reopening applies nothing twice
    assert [r[0] for r in again.execute("SELECT count(*) FROM migrations")] == [len(db.MIGRATIONS)]
    again.close()


def test_log_grep_tokenizes_like_the_index() -> None:
    from gitmem.index import db

    assert f"tokenize='{db.FTS_TOKENIZE}'" in dict(db.MIGRATIONS)[1]
