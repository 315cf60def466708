"""The index follows git: counts that prove unchanged text is never redone."""

import os
from pathlib import Path

from gitmem.index.indexer import Index
from gitmem.index.maintenance import catch_up, status
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem


def counts(m: Mem) -> dict:
    return m.json("status")["counts"]


def test_unchanged_text_is_never_rechunked_or_reembedded(mem: Mem) -> None:
    mem.write("reference/a.md", "# A\n\n" + "\n\n".join(f"Paragraph {i} about topic {i}. " * 30 for i in range(6)))
    mem.commit("add a")
    mem("index")
    first = counts(mem)
    assert first["chunks"] > 3 and first["embeddings_computed"] == first["distinct_chunks"]
    # an edit at the end of the page: only the last chunk's text is new
    with open(mem.path / "reference/a.md", "a") as f:
        f.write("\n\nOne more line at the end.\n")
    mem.commit("append")
    mem("index")
    second = counts(mem)
    assert second["distinct_chunks"] == first["distinct_chunks"] + 1
    assert second["embeddings_computed"] == first["embeddings_computed"] + 1
    # the same file copied elsewhere: new blob paths, no new texts at all
    (mem.path / "reference/copy.md").write_text((mem.path / "reference/a.md").read_text())
    mem.commit("copy")
    mem("index")
    third = counts(mem)
    assert third["distinct_chunks"] == second["distinct_chunks"]
    assert third["embeddings_computed"] == second["embeddings_computed"]
    assert third["files"] == second["files"] + 1


def test_rebuild_reuses_cached_embeddings(mem: Mem) -> None:
    mem("remember", "The spare key is under the blue pot")
    mem("index")
    before = counts(mem)
    out = mem.json("rebuild")
    assert out["embedded"] == 0 and out["reused"] == before["distinct_chunks"]
    after = counts(mem)
    assert after["distinct_chunks"] == before["distinct_chunks"] and after["pending_embeddings"] == 0


def test_read_catches_up_with_uncommitted_and_deleted_files(mem: Mem) -> None:
    mem.write("knowledge/x.md", "The zeppelin hangar is in Friedrichshafen\n")
    out = mem.json("recall", "--mode", "keyword", "zeppelin")
    assert [(r["path"], r["commit"], r["subject"]) for r in out["results"]] == [("knowledge/x.md", None, "uncommitted")]
    mem.commit("add x")
    out = mem.json("recall", "--mode", "keyword", "zeppelin")
    assert out["results"][0]["commit"] == mem.git("rev-parse", "HEAD").strip()
    os.unlink(mem.path / "knowledge/x.md")
    assert mem.json("recall", "--mode", "keyword", "zeppelin")["results"] == []
    mem.git("checkout", "--", "knowledge/x.md")
    assert len(mem.json("recall", "--mode", "keyword", "zeppelin")["results"]) == 1


def test_status_counts_and_staleness(mem: Mem) -> None:
    mem("index")
    mem.write("a.md", "alpha\n")
    mem.commit("one")
    mem.write("b.md", "beta\n")
    mem.commit("two")
    st = mem.json("status")
    assert st["index"]["state"] == "stale" and st["index"]["commits_behind"] == 2
    mem("recall", "--mode", "keyword", "alpha")
    st = mem.json("status")
    assert st["index"]["state"] == "current" and st["counts"]["files"] == 2 and st["counts"]["revisions"] == 3
    assert st["model"]["semantic"] is True


def test_frontmatter_fields_and_private_pages(mem: Mem) -> None:
    mem.write("a.md", "---\ntags: [Work, travel]\ntype: plan\n---\n# Trip\n\nFly to Lisbon\n")
    mem.write("secret.md", "---\nprivate: true\n---\nThe lisbon safe code\n")
    mem.commit("pages")
    nb = open_notebook(mem.path)
    index = Index(nb)
    index.sync()
    rows = index.conn.execute("SELECT b.tags, b.type, b.private, count(c.id) FROM blobs b "
                              "LEFT JOIN chunks c ON c.blob = b.id GROUP BY b.id ORDER BY b.private").fetchall()
    index.close()
    assert (",work,travel,", "plan", 0, 1) in rows and ("", None, 1, 0) in rows
    hits = mem.json("recall", "--mode", "keyword", "lisbon")["results"]
    assert [h["path"] for h in hits] == ["a.md"]


def test_symlinks_are_never_indexed(mem: Mem, tmp_path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("outside the notebook: quokka\n")
    os.symlink(secret, mem.path / "link.md")
    mem.commit("a link")
    assert mem.json("recall", "--mode", "keyword", "quokka")["results"] == []


def test_model_change_reembeds_lazily(mem: Mem, monkeypatch) -> None:
    nb = open_notebook(mem.path)
    mem("remember", "Pelicans nest near the lake")
    catch_up(nb)
    assert status(nb, check_model=False)["counts"]["embedded"] > 0
    index = Index(nb)
    index.conn.execute("UPDATE meta SET value = 'dir:/another/model' WHERE key = 'model'")
    index.close()
    summary = catch_up(nb)
    assert summary.embedded == 0 and summary.reused > 0  # back to the first model: all from the cache
    assert status(nb, check_model=False)["counts"]["pending_embeddings"] == 0


def test_corrupt_index_is_rebuilt(mem: Mem) -> None:
    mem("remember", "The boiler was serviced in March")
    mem("recall", "--mode", "keyword", "boiler")
    db = mem.path / ".git" / "gitmem" / "index.db"
    db.write_bytes(b"garbage" * 100)
    out = mem.json("recall", "--mode", "keyword", "boiler")
    assert out["results"][0]["path"] == "knowledge/facts.md"


def test_changed_group_patterns_and_chunking_apply_without_rebuild(mem: Mem) -> None:
    mem.write("journal/2026-01-01.md", "# Journal\n\nWalked along the quayside at dawn\n")
    mem.commit("journal")
    mem.write("knowledge/draft.md", "An uncommitted note about quinces\n")
    assert mem.json("recall", "--mode", "keyword", "quayside")["results"][0]["group"] == "notebook"
    toml = mem.path / ".gitmem.toml"
    text = toml.read_text().replace('daily = ["daily/*.md"', 'daily = ["journal/*.md", "daily/*.md"')
    toml.write_text(text.replace("max_chars = 1600", "max_chars = 1200"))
    assert mem.json("recall", "--mode", "keyword", "quayside")["results"][0]["group"] == "daily"
    assert [r["path"] for r in mem.json("recall", "--mode", "keyword", "quinces")["results"]] == ["knowledge/draft.md"]


def test_a_fresh_uncommitted_note_has_its_real_date(mem: Mem) -> None:
    mem.write("knowledge/fresh.md", "A note about zucchini written just now\n")
    hits = mem.json("recall", "--mode", "keyword", "--since", "1h", "zucchini")["results"]
    assert [h["path"] for h in hits] == ["knowledge/fresh.md"]
    assert mem.json("recall", "--mode", "keyword", "--to", "1970-01-02", "zucchini")["results"] == []


def test_pending_texts_are_embedded_shortest_first(mem: Mem, monkeypatch) -> None:
    """A batch is padded to its longest text: batches of similar length embed fastest."""
    from gitmem.index import embed, embeddings

    for i, n in enumerate([40, 3, 25, 9, 1, 30, 14, 6, 20, 2]):
        mem.write(f"knowledge/p{i}.md", f"# P{i}\n\n" + " ".join(["word"] * n * 5) + "\n")
    mem.commit("pages of many lengths")
    embedder = embed.load(embed.resolve(None))
    seen: list[list[int]] = []
    real = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts, *a, **k: seen.append([len(t) for t in texts]) or real(texts))
    monkeypatch.setattr(embeddings, "EMBED_BATCH", 3)
    index = Index(open_notebook(mem.path))
    try:
        index.sync()
        embeddings.embed(index, embedder, live_only=False)
    finally:
        index.close()
    assert sum(len(b) for b in seen) >= 10 and len(seen) >= 4
    assert all(max(a) <= min(b) for a, b in zip(seen, seen[1:]))


def test_a_commit_no_ref_reaches_leaves_no_text_in_the_index(mem: Mem) -> None:
    """reset + reflog expire + gc: the catch-up that sees HEAD moved back drops the texts only
    that commit held (texts, FTS, vectors) without a rebuild, and keeps those a branch still
    reaches."""
    from gitmem.index.db import CACHE_MIGRATIONS, connect

    mem("remember", "Cats like warm windowsills")
    mem.write("knowledge/trip.md", "# Trip\n\n- The zanzibarquux vault code is 9911\n")
    mem.commit("the vault")
    mem.git("branch", "keep")  # reached by a branch: stays
    mem.write("knowledge/trip.md", "# Trip\n\n- The quuxbarzanzi alarm code is 4242\n")
    mem.commit("the alarm")
    mem("index")
    db = mem.path / ".git/gitmem/index.db"
    cache = mem.path / ".git/gitmem/embeddings.db"
    def ondisk(path: Path) -> bytes:
        return b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists())

    assert b"quuxbarzanzi" in ondisk(db)
    conn = connect(db)
    hashes = [h for (h,) in conn.execute("SELECT hash FROM texts WHERE body LIKE '%quuxbarzanzi%'")]
    conn.close()
    cached = connect(cache, CACHE_MIGRATIONS, vec=False)
    assert hashes and all(cached.execute("SELECT 1 FROM embeddings WHERE hash = ?", (h,)).fetchone() for h in hashes)
    cached.close()
    mem.git("reset", "-q", "--hard", "HEAD~1")
    mem.git("reflog", "expire", "--expire=now", "--all")
    mem.git("gc", "-q", "--prune=now")
    hits = mem.json("recall", "--mode", "keyword", "--history", "quuxbarzanzi alarm")["results"]
    assert "quuxbarzanzi" not in str(hits)
    assert b"quuxbarzanzi" not in ondisk(db)
    cached = connect(cache, CACHE_MIGRATIONS, vec=False)  # a vector, no text: kept for a reset taken back
    assert all(cached.execute("SELECT 1 FROM embeddings WHERE hash = ?", (h,)).fetchone() for h in hashes)
    cached.close()
    conn = connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM texts WHERE body LIKE '%quuxbarzanzi%'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM texts_fts WHERE texts_fts MATCH 'quuxbarzanzi'").fetchone()[0] == 0
        conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('integrity-check')")
        assert conn.execute("SELECT count(*) FROM vectors WHERE rowid NOT IN (SELECT id FROM texts)").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM chunks WHERE text NOT IN (SELECT id FROM texts)").fetchone()[0] == 0
    finally:
        conn.close()
    assert mem.json("recall", "--mode", "keyword", "zanzibarquux vault")["results"][0]["path"] == "knowledge/trip.md"
    mem.git("checkout", "-q", "-b", "elsewhere", "HEAD~1")  # HEAD moves back; `keep` still reaches the vault
    assert mem.json("recall", "--mode", "keyword", "zanzibarquux vault")["results"] == []
    conn = connect(db)
    try:  # kept for when HEAD goes back there: not chunked again
        assert conn.execute("SELECT count(*) FROM texts WHERE body LIKE '%zanzibarquux%'").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_reader_of_a_never_built_index_waits_for_the_build(mem: Mem) -> None:
    """A rebuild holds the lock while the new index is empty: a reader waits for it past its
    usual few seconds, rather than answering from nothing (the race test_concurrency met)."""
    import threading

    from gitmem.gitops.lock import FileLock

    mem.write("knowledge/target.md", "The cormorant dries its wings on the pier\n")
    mem.commit("target")
    nb = open_notebook(mem.path)
    held, release = threading.Event(), threading.Event()

    def builder() -> None:
        with FileLock(nb.state_dir / "index.lock"):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=builder)
    thread.start()
    held.wait(30)
    index = Index(nb)
    try:
        threading.Timer(0.5, release.set).start()  # let go well after the reader's own wait of 0.05 s
        report = index.sync(wait=0.05)
        assert not report.stale and report.notes == []
        assert index.meta("commit") == mem.git("rev-parse", "HEAD").strip()
    finally:
        release.set()
        thread.join()
        index.close()
    # an index that was built answers as it stands when the lock stays busy past the wait
    mem.write("knowledge/more.md", "A heron stands in the shallows\n")
    mem.commit("more")
    with FileLock(nb.state_dir / "index.lock"):
        index = Index(nb)
        try:
            assert index.sync(wait=0.05).stale
        finally:
            index.close()


def test_a_page_edited_in_many_commits_is_indexed_by_its_current_version(mem: Mem) -> None:
    """Finding a page's current version never walks its past ones, so each commit costs the same
    however long the page's history (the planner took the (path, start_commit) index: a page
    edited in 20,000 commits took 31 s to index instead of 8). Every statement that looks up a
    current version by path, as sync, provenance and the views run it, is planned on versions_current."""
    from gitmem.index import provenance, views

    for i in range(3):
        mem.write("knowledge/log.md", f"# Log\n\n- entry {i}\n")
        mem.commit(f"entry {i}")
    index = Index(open_notebook(mem.path))
    ran: list[str] = []
    index.conn.set_profile(lambda sql, _ns: ran.append(sql))
    try:
        index.sync()
        provenance.of_text(index, "knowledge/log.md", None, 1)
        provenance.bases(index, index.meta("commit"), ["knowledge/log.md"])
        index.conn.set_profile(None)
        ran.append(f"SELECT {views.ORIGIN_TIME} FROM (SELECT 'knowledge/log.md' AS path, NULL AS version) v, "
                   "(SELECT 1 AS text) c")
        current = [sql for sql in ran if "end_commit IS NULL" in sql and "path" in sql.split("end_commit IS NULL")[0]
                   and "versions" in sql]
        assert len(current) >= 5
        for sql in current:
            plan = " ".join(str(row[3]) for row in index.conn.execute("EXPLAIN QUERY PLAN " + sql,
                                                                       (None,) * sql.count("?")))
            assert "versions_path" not in plan, (sql, plan)
    finally:
        index.close()
