"""git mem forget: off the page in one commit, out of every part of the index, not back from history."""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest
from hypothesis import given, settings, strategies as st

from gitmem.index import forgotten
from gitmem.notes import forget as forgetting, pages
from gitmem.index.db import connect
from gitmem.index.forgotten import Matcher, Record, words
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem, git

SECRET = "The zanzibarquux vault code is 9911"
WORD = b"zanzibarquux"


def raw(mem: Mem) -> bytes:
    """Every byte gitmem keeps in the git dir (index, its WAL, the embedding cache, the record)."""
    state = mem.path / ".git" / "gitmem"
    return b"".join(p.read_bytes() for p in sorted(state.iterdir()) if p.is_file())


def index_db(mem: Mem) -> apsw.Connection:
    return connect(mem.path / ".git" / "gitmem" / "index.db")


def seeded(mem: Mem) -> None:
    mem("remember", "Cats like warm windowsills")
    mem("remember", SECRET)
    mem.write("knowledge/trip.md", "# Trip\n\n- Flight LH 401 at 10:25\n- " + SECRET + " (the old one)\n")
    mem.commit("trip")
    mem("index")
    assert WORD in raw(mem)


def test_forget_by_text_takes_it_off_the_page_in_one_commit(mem: Mem) -> None:
    seeded(mem)
    before = mem.git("rev-parse", "HEAD").strip()
    result = mem("forget", "--all", "--yes", "zanzibarquux VAULT   code")
    out = result.stdout.splitlines()
    assert out[0].startswith("forgot 2 lines: knowledge/facts.md:3, knowledge/trip.md:4 (commit ")
    assert out[-1].startswith("note: git history still holds it")
    assert mem.git("rev-list", "--count", f"{before}..HEAD").strip() == "1"
    message = mem.git("log", "-1", "--format=%B")
    assert message.strip() == "mem: forget 2 lines from 2 pages\n\nGitmem-Verb: forget" and "zanzibar" not in message
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n"
    assert (mem.path / "knowledge/trip.md").read_text() == "# Trip\n\n- Flight LH 401 at 10:25\n"
    assert SECRET in mem.git("show", f"{before}:knowledge/facts.md")  # history still holds it, as it says


def test_the_index_holds_no_trace_of_it(mem: Mem) -> None:
    seeded(mem)
    conn = index_db(mem)
    assert conn.execute("SELECT count(*) FROM texts_fts WHERE texts_fts MATCH 'zanzibarquux'").fetchone()[0] > 0
    conn.close()
    data = mem.json("forget", "--all", "--yes", "zanzibarquux")
    assert data["index"]["texts"] >= 2 and data["index"]["vectors"] >= 2 and data["index"]["cached_embeddings"] >= 2
    assert data["index"]["subjects"] == 1 and data["index"]["wal_busy"] == 0
    assert data["history"].startswith("git history still holds it")
    assert WORD not in raw(mem)  # index.db (secure_delete, FTS optimized), no WAL left, cache, record
    assert not (mem.path / ".git/gitmem/index.db-wal").exists() or \
        (mem.path / ".git/gitmem/index.db-wal").stat().st_size == 0
    conn = index_db(mem)
    assert conn.execute("SELECT count(*) FROM texts_fts WHERE texts_fts MATCH 'zanzibarquux'").fetchone()[0] == 0
    conn.execute("INSERT INTO texts_fts(texts_fts) VALUES('integrity-check')")
    # every vector belongs to a text that is still there
    assert conn.execute("SELECT count(*) FROM vectors WHERE rowid NOT IN (SELECT id FROM texts)").fetchone()[0] == 0
    subjects = [r[0] for r in conn.execute("SELECT subject FROM commits")]
    assert not any("zanzibarquux" in s for s in subjects) and "(subject withheld: it held forgotten text)" in subjects
    conn.close()
    for mode, view in (("keyword", []), ("hybrid", []), ("keyword", ["--history"]), ("hybrid", ["--history"])):
        hits = mem.json("recall", "--mode", mode, *view, "zanzibarquux vault code")["results"]
        assert "zanzibarquux" not in json.dumps(hits)  # text, subject, changed_by
    assert mem.json("recall", "--mode", "keyword", "windowsills")["results"][0]["path"] == "reference/preferences.md"


def test_it_does_not_come_back_on_rebuild_sync_or_reset(mem: Mem) -> None:
    seeded(mem)
    mem("forget", "--all", "--yes", "zanzibarquux")
    mem("rebuild")  # the record lives outside index.db and survives it
    assert WORD not in raw(mem)
    mem.git("reset", "-q", "--hard", "HEAD~1")  # the fact is back on the page...
    assert "zanzibarquux" in (mem.path / "knowledge/facts.md").read_text()
    assert mem.json("recall", "--mode", "keyword", "zanzibarquux")["results"] == []  # ...but not in the index
    mem("index")
    assert WORD not in raw(mem)
    record = (mem.path / ".git/gitmem/forgotten").read_text()
    assert "zanzibar" not in record and record.startswith("# gitmem: salted hashes")


def test_forget_by_path_and_lines(mem: Mem) -> None:
    mem.write("reference/people.md", "# People\n\n- Ann: 555-0101\n- Bob: 555-0102\n- Cy: 555-0103\n")
    mem.commit("people")
    out = mem.json("forget", "reference/people.md:4-5")
    assert out["removed"] == [{"path": "reference/people.md", "lines": {"start": 4, "end": 5}}]
    assert (mem.path / "reference/people.md").read_text() == "# People\n\n- Ann: 555-0101\n"
    assert mem("forget", "reference/people.md:9", code=1).stderr == (
        "error: line 9 is outside reference/people.md, which has 3 lines (ask for lines between 1 and 3, "
        "e.g. reference/people.md:1-3)\n")
    assert mem("forget", "../outside.md:1", code=1).stderr.startswith("error: '../outside.md' leaves the notebook")


def test_ambiguous_text_is_refused_without_all(mem: Mem) -> None:
    mem.write("a.md", "- call Sarah\n- Sarah likes tea\n")
    mem.write("b.md", "- Sarah moved\n")
    mem.commit("pages")
    head = mem.git("rev-parse", "HEAD")
    result = mem("forget", "sarah", code=1)
    assert result.stderr == ("error: 'sarah' is on 3 lines: a.md:1, a.md:2, b.md:1 (pass --all to forget every one,"
                             " or name one as PATH:LINE)\n")
    assert mem.git("rev-parse", "HEAD") == head and not (mem.path / ".git/gitmem/forgotten").exists()
    result = mem("forget", "nobody here", code=1)
    assert result.stderr.startswith("error: nothing in the notebook matches 'nobody here'")
    assert mem("forget", code=1).stderr.startswith("error: empty fact")


def test_a_list_item_goes_with_its_continuation_lines(mem: Mem) -> None:
    mem("remember", "Alarm code for the shed\nis 4711 now")
    mem("remember", "The shed key is blue")
    mem("forget", "alarm code for the shed")
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n\n- The shed key is blue\n"
    assert mem.json("recall", "--mode", "keyword", "4711")["results"] == []


def test_forget_in_a_subfolder_notebook_with_other_uncommitted_work(blank: Mem) -> None:
    blank("init", "--no-index", "--dir", "memory")
    blank("remember", "Old locker number is 221")
    blank.write("src/app.py", "print('unrelated work in progress')\n")
    blank.write("memory/knowledge/draft.md", "draft, not committed\n")
    blank("forget", "locker number")
    assert "locker" not in (blank.path / "memory/knowledge/facts.md").read_text()
    status = blank.git("status", "--porcelain")
    assert "?? src/" in status and "?? memory/knowledge/draft.md" in status  # left alone
    assert blank.git("show", "--stat", "--format=", "HEAD").strip().startswith("memory/knowledge/facts.md")


def test_refused_mid_merge_with_nothing_changed(mem: Mem) -> None:
    mem("remember", "The locker code is 1234")
    (mem.path / ".git" / "MERGE_HEAD").write_text(mem.git("rev-parse", "HEAD"))
    result = mem("forget", "locker code", code=1)
    assert result.stderr.startswith("error: a merge is in progress in this repository, so gitmem cannot commit; "
                                    "nothing was written")
    assert "1234" in (mem.path / "knowledge/facts.md").read_text()
    assert not (mem.path / ".git/gitmem/forgotten").exists()


def test_another_worktree_purges_on_its_next_read(mem: Mem, tmp_path: Path) -> None:
    mem("remember", SECRET)
    other = tmp_path / "other"
    mem.git("worktree", "add", "-q", str(other), "-b", "side")
    side = Mem(other, mem._mp)
    assert side.json("recall", "--mode", "keyword", "zanzibarquux")["results"]
    mem("forget", "zanzibarquux")
    assert side.json("recall", "--mode", "keyword", "zanzibarquux")["results"] == []  # side still has it on its page
    assert "zanzibarquux" in (other / "knowledge/facts.md").read_text()
    side_db = mem.path / ".git" / "worktrees" / "other" / "gitmem" / "index.db"
    assert WORD not in side_db.read_bytes()


@pytest.mark.parametrize("target", ["lists/shopping.md:3", "Groceries"])
def test_a_forgotten_line_hides_only_lines_identical_to_it(mem: Mem, target: str) -> None:
    mem.write("lists/shopping.md", "# Shopping\n\n- Groceries\n- Batteries\n")
    mem.commit("shopping")
    mem("forget", target)
    mem.write("knowledge/plans.md", "# Plans\n\nSaturday: drive to the market for groceries and fuel\n")
    mem.write("lists/errands.md", "# Errands\n\n* GROCERIES\n- post office\n")
    mem.commit("plans")
    hits = mem.json("recall", "--mode", "keyword", "Saturday drive")["results"]
    assert [h["path"] for h in hits] == ["knowledge/plans.md"] and "groceries and fuel" in hits[0]["text"]
    hits = mem.json("recall", "--mode", "keyword", "groceries")["results"]
    assert [h["path"] for h in hits] == ["knowledge/plans.md"]  # the identical line on errands.md is kept out
    assert "post office" in mem.json("recall", "--mode", "keyword", "post office")["results"][0]["text"]


def test_a_forgotten_phrase_stays_out_of_every_line_that_holds_it(mem: Mem) -> None:
    mem("remember", "The vault code is tango foxtrot nine")
    mem("forget", "tango foxtrot nine")
    mem.write("knowledge/card.md", "# Card\n\n- a copy: TANGO foxtrot, nine!\n- A tango is a dance\n"
                                   "- foxtrot nine is a call sign\n")
    mem.commit("card")
    texts = [h["text"] for h in mem.json("recall", "--mode", "keyword", "tango OR foxtrot")["results"]]
    assert texts and not any("copy" in t or "vault" in t for t in texts)
    assert any("A tango is a dance" in t for t in texts) and any("call sign" in t for t in texts)


def test_record_lines_phrases_and_quotes() -> None:
    record = Record(Path("unused"))
    assert record.add(["- [ ] Sarah's phone is 555-1234", "---", "# T"], phrase="vault code") == 3
    assert record.add([], phrase="zanzibarquux") == 0  # one word is never a phrase
    match = record.matcher()
    # a line: its words exactly (marker, checkbox, case, punctuation, a daily entry's time ignored)
    assert match.holds("* sarah's PHONE is 555-1234") and match.holds("## 10:30 — Sarah's phone is 555-1234")
    assert not match.holds("Sarah's phone is 555-1234 (mobile)") and not match.holds("Sarah's phone is 555-9999")
    assert match.holds("## T") and not match.holds("T-shirts")
    # a phrase: anywhere in a line, as whole words in a row
    assert match.holds("- The Vault code is 4711") and not match.holds("vault, then code") \
        and not match.holds("vaults code")
    assert match.redact("a\nSarah's phone is 555-1234\nb") == "a\n\nb"
    assert Matcher("", ()).redact("anything") == "anything"
    assert words("- [x] Hello, World!") == ["hello", "world"]


def test_subjects_and_messages_that_quote_forgotten_text_are_withheld() -> None:
    long_fact = "The alarm code for the back door of the shed is 4711 and the key is under the mat"
    record = Record(Path("unused"))
    item = ["- Sarah's phone is 555-1234", "- " + long_fact, "- hunter2"]
    record.add(item, facts=[*item, "\n".join(item)])
    match = record.matcher()
    withheld = "(subject withheld: it held forgotten text)"
    assert match.subject("mem: remember Sarah's phone is 555-1234") == withheld
    assert match.subject("Add: sarah's phone is 555-1234 (mobile)") == withheld  # contains the line
    assert match.subject(f"mem: remember {long_fact[:59].rstrip()}…") == withheld  # gitmem's cut quote
    assert match.subject("mem: daily 2026-03-01 hunter2") == withheld  # one word: only as gitmem's quote
    for kept in ("hunter2 was a bad idea", "mem: remember Sarah's phone is new", "mem: remember The alarm code…"):
        assert match.subject(kept) == kept
    assert match.message("mem: remember hunter2\n\nwhy: Sarah's phone is 555-1234\nok") == \
        f"{withheld}\n\n(line withheld: it held forgotten text)\nok"


def test_the_record_keeps_no_text_and_reads_old_records(tmp_path: Path) -> None:
    record = Record(tmp_path / "forgotten")
    record.add(["- The zanzibarquux vault code is 9911"], phrase="vault code")
    record.save()
    text = record.path.read_text()
    assert "zanzibar" not in text and "vault" not in text
    assert [line.split()[:2] for line in text.splitlines()[2:]] == [["line", "6"], ["phrase", "2"]]
    # before lines and phrases were told apart every entry was a phrase ("K HASH"); one word is a line now
    record.path.write_text(f"# old\nsalt {record.salt}\n1 {'a' * 64}\n3 {'b' * 64}\n")
    assert Record.load(type("NB", (), {"shared_dir": tmp_path})()).entries == {(-1, "a" * 64), (3, "b" * 64)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab \t-#", max_size=6), min_size=1, max_size=12), st.data())
def test_remove_lines_keeps_every_other_line_in_order(lines: list[str], data: st.DataObject) -> None:
    text = "\n".join(lines)
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    out = pages.remove_lines(text, [(start, end)]).split("\n")
    kept = lines[:start - 1] + lines[end:] or [""]
    # only blank lines that would double up at the cut may go, and nothing else changes order
    it = iter(kept)
    assert all(any(line == k for k in it) for line in out)
    assert [ln for ln in out if ln.strip()] == [ln for ln in kept if ln.strip()]


def test_forget_json_schema(mem: Mem) -> None:
    mem("remember", "Wifi is on channel 11")
    data = mem.json("forget", "channel 11")
    assert set(data) == {"action", "commit", "removed", "index", "history", "identity", "notes"}
    assert data["action"] == "forget" and len(data["commit"]) == 40 and data["notes"] == []
    assert set(data["index"]) == {"texts", "vectors", "subjects", "cached_embeddings", "wal_busy"}
    json.dumps(data)
    assert open_notebook(mem.path).git.head() == data["commit"]


@pytest.mark.parametrize("args", [["Meeting at 10:30"], ["knowledge/facts.md:3"]])
def test_text_that_looks_like_a_range(mem: Mem, args: list[str]) -> None:
    mem("remember", "--category", "fact", "Meeting at 10:30 with the dentist")  # routed: an event
    mem("remember", "Dentist is Dr Molar")
    mem("forget", *args)
    text = (mem.path / "knowledge/facts.md").read_text()
    assert "10:30" not in text and "Dr Molar" in text
    assert git(mem.path, "log", "-1", "--format=%s").startswith("mem: forget 1 line from knowledge/facts.md")


def test_a_daily_entry_goes_with_its_body(mem: Mem) -> None:
    from datetime import datetime

    nb = open_notebook(mem.path)
    from gitmem.notes import memory

    memory.daily(nb, "Met the locksmith\nnew code for the back door is 8842", when=datetime(2026, 3, 1, 9, 30))
    memory.daily(nb, "Lunch with Bob", when=datetime(2026, 3, 1, 12, 0))
    mem("forget", "met the locksmith")
    text = (mem.path / "daily/2026-03-01.md").read_text()
    assert text == "# Daily Log — 2026-03-01\n\n## 12:00 — Lunch with Bob\n"


def test_an_uncommitted_draft_is_edited_not_committed(mem: Mem) -> None:
    mem("remember", "The zanzibarquux vault code is 9911")
    mem.write("knowledge/draft.md", "# Draft\n\n- zanzibarquux again, in a draft\n- keep this line\n")
    mem("index")
    out = mem.json("forget", "--all", "--yes", "zanzibarquux")
    assert [r["path"] for r in out["removed"]] == ["knowledge/draft.md", "knowledge/facts.md"]
    assert mem.git("show", "--stat", "--format=", "HEAD").split()[0] == "knowledge/facts.md"
    assert mem.git("status", "--porcelain").strip() == "?? knowledge/draft.md"  # still a draft, minus the line
    assert (mem.path / "knowledge/draft.md").read_text() == "# Draft\n\n- keep this line\n"
    assert WORD not in raw(mem)
    assert mem.json("recall", "--mode", "keyword", "keep this line")["results"][0]["path"] == "knowledge/draft.md"
    mem("remember", "the ZANZIBARQUUX vault code is 9911!")  # a forgotten line written again is stored...
    assert mem.json("recall", "--mode", "keyword", "zanzibarquux")["results"] == []  # ...but never indexed
    mem("remember", "Only here: zanzibarquux")  # one word searched for is not a phrase that blanks other lines
    assert "Only here" in mem.json("recall", "--mode", "keyword", "zanzibarquux")["results"][0]["text"]
    mem.write("knowledge/only-draft.md", "a zanzibarquux draft\n")
    out = mem.json("forget", "--all", "--yes", "zanzibarquux")
    assert out["commit"] is not None and not (mem.path / "knowledge/only-draft.md").read_text().strip()


@pytest.mark.tally("bad-input/fault matrix")
def test_a_line_edited_and_not_committed_is_forgotten_in_head_too(mem: Mem) -> None:
    """A git user's run (2026-11-27): the work tree's edited line went, HEAD's "- Budget: 10k" stayed in no
    commit of gitmem's ("commit -"), and sync would have pushed it."""
    mem("remember", "Budget: 10k")
    page = mem.path / "knowledge/facts.md"
    page.write_text(page.read_text().replace("Budget: 10k", "Budget: 10k, approved by Dana on Monday"))
    out = mem.json("forget", "Budget: 10k")
    assert out["commit"] is not None
    assert "Budget" not in mem.git("show", "HEAD:knowledge/facts.md") and "Budget" not in page.read_text()
    assert mem.git("status", "--porcelain") == ""


def test_a_revision_off_the_first_parent_chain_is_blanked_too(mem: Mem) -> None:
    mem.git("checkout", "-q", "-b", "side")
    mem("remember", "Side note: the vault code is tango foxtrot nine")
    mem("remember", "The gate code is in the drawer")
    mem.git("checkout", "-q", "main")
    mem("remember", "The vault code is tango foxtrot nine")
    mem("forget", "tango foxtrot nine")
    mem("index")  # the index is current: the next read does not sync, it only chunks side's blobs
    for mode in ("keyword", "hybrid"):
        out = mem.json("recall", "--mode", mode, "--min-score", "0", "--at", "side", "vault code")  # closest, floor off
        assert out["view"]["first_parent"] is False and "gate code" in out["view"]["subject"]
        assert "gate code" in out["results"][0]["text"] and not any("foxtrot" in h["text"] or "foxtrot" in (h["subject"] or "")
                                          for h in out["results"])
    assert b"foxtrot" not in raw(mem)
    view = mem.json("recall", "--mode", "keyword", "--at", "side~1", "vault code")["view"]
    assert view["subject"] == forgotten.WITHHELD  # the commit that wrote it, named as the revision


def test_pages_whose_text_was_purged_keep_their_commits(mem: Mem) -> None:
    mem.write("a.md", "# A\n\n- The vault code is 4711\n- The shed is red\n")
    mem.write("b.md", "# B\n\n- The vault code is 4711\n- The gate is green\n")
    wrote = mem.commit("a and b")
    mem.write("a.md", "# A\n\n- The vault code is 4711\n- The shed is blue\n")
    mem.write("c.md", "# C\n\n- a later page, so that purged texts cannot get their row ids back\n")
    edited = mem.commit("a: shed")
    mem("index")
    mem("forget", "a.md:3")  # b.md keeps its copy of the line on the page, blanked in the index
    hit = mem.json("recall", "--mode", "keyword", "gate green")["results"][0]
    assert (hit["path"], hit["commit"], hit["subject"]) == ("b.md", wrote, "a and b") and hit["date"]
    assert "4711" not in hit["text"]
    recent = mem.json("recall", "--mode", "keyword", "--since", "1d", "gate green")["results"]
    assert [h["path"] for h in recent] == ["b.md"]
    old = mem.json("recall", "--mode", "keyword", "--history", "shed red")["results"]
    assert [(h["commit"], h["current"], h["changed_by"]["commit"]) for h in old if "red" in h["text"]] == [
        (wrote, False, edited)]


def test_another_clone_forgets_what_only_its_history_holds(mem: Mem, tmp_path: Path) -> None:
    mem("remember", "The vault code is tango foxtrot nine")
    mem("remember", "The gate is green")
    mem("remember", "The alarm is 4711 always")
    git(tmp_path, "clone", "-q", str(mem.path), str(tmp_path / "other"))
    clone = Mem(tmp_path / "other", mem._mp)

    def history() -> list[str]:
        return [h["text"] for h in clone.json("recall", "--mode", "keyword", "--history", "vault code")["results"]]

    assert any("foxtrot" in t for t in history())
    mem("forget", "tango foxtrot nine")
    mem("forget", "alarm is 4711")
    clone.git("pull", "-q")  # the fact leaves the clone's pages, not its index (the record is per clone)
    assert "foxtrot" not in (clone.path / "knowledge/facts.md").read_text() and any("foxtrot" in t for t in history())
    head = clone.git("rev-parse", "HEAD")
    out = clone.json("forget", "TANGO foxtrot nine")
    assert (out["commit"], out["removed"], out["index"]["texts"] > 0) == (None, [], True)
    assert out["notes"] == ["no page holds it now; 1 line of the notebook's history did, and the index no longer does"]
    assert not any("foxtrot" in t for t in history()) and b"foxtrot" not in raw(clone)
    assert clone.git("rev-parse", "HEAD") == head and clone.git("status", "--porcelain") == ""
    text = clone("forget", "alarm is 4711").stdout.splitlines()
    assert text[0] == "forgot 0 lines: no page holds it (no commit)"
    assert clone.json("recall", "--mode", "keyword", "--history", "alarm")["results"] == []
    assert clone("forget", "foxtrot", code=1).stderr.startswith("error: nothing in the notebook matches 'foxtrot'")


def test_get_at_a_revision_blanks_forgotten_lines(mem: Mem) -> None:
    mem("remember", "The vault code is tango foxtrot nine")
    mem("remember", "The gate code is kept by Dana")
    before = mem.git("rev-parse", "HEAD").strip()
    mem("forget", "vault code is tango foxtrot nine")
    page = mem.json("get", "knowledge/facts.md", "--at", before)
    assert "tango" not in page["text"] and "gate code is kept by Dana" in page["text"]
    assert page["text"].count("\n") == mem.git("show", f"{before}:knowledge/facts.md").count("\n")


def test_forget_reports_in_the_users_terms(mem: Mem) -> None:
    """Paper cut 10: the report said "FTS optimized, WAL checkpointed"."""
    seeded(mem)
    lines = mem("forget", "--all", "--yes", "zanzibarquux").stdout.splitlines()
    assert lines[1].startswith("search: recall and search no longer find it (removed ")
    assert lines[1].endswith(" from the index; its files on disk keep no copy)")
    assert not any(word in line for line in lines for word in ("FTS", "WAL", "checkpoint", "vectors", "chunk"))


def scattered(mem: Mem) -> None:
    """The issue's case: a one-letter target that many lines on many pages hold."""
    for page, facts in {"knowledge/a.md": ["x marks the spot", "the box is red"],
                        "knowledge/b.md": ["the cat is grey", "tea at four"],
                        "knowledge/c.md": ["the car is blue"], "knowledge/d.md": ["the dog is old"]}.items():
        mem.write(page, "# Page\n\n" + "".join(f"- {f}\n" for f in facts))
    mem.commit("pages")


@pytest.mark.tally("bad-input/fault matrix")
def test_an_agent_cannot_forget_broadly_in_one_call(mem: Mem) -> None:
    from gitmem.agent import server

    scattered(mem)
    head, h = mem.git("rev-parse", "HEAD"), server.Handler(open_notebook(mem.path))
    ok, error = h.call("forget", {"target": "t", "every": True})
    assert not ok and error.startswith("error: forget would remove 6 lines from 4 pages at once; an agent may "
                                       "forget at most 3 lines on one page in a call (name a narrower target")
    assert mem.git("rev-parse", "HEAD") == head and mem.git("status", "--porcelain") == ""
    ok, error = h.call("forget", {"target": "knowledge/a.md:1-4"})  # a range counts its lines too
    assert not ok and "forget would remove 4 lines at once" in error
    ok, forgot = h.call("forget", {"target": "the box is red"})  # a narrow target still works
    assert ok and [r["path"] for r in forgot["removed"]] == ["knowledge/a.md"]


@pytest.mark.tally("bad-input/fault matrix")
def test_a_person_sees_what_would_go_and_confirms_with_yes(mem: Mem) -> None:
    scattered(mem)
    head = mem.git("rev-parse", "HEAD")
    result = mem("forget", "--all", "t", code=1)
    assert result.stderr.splitlines() == [
        "would forget:", "  knowledge/a.md:3", "    - x marks the spot", "  knowledge/a.md:4", "    - the box is red",
        "  knowledge/b.md:3", "    - the cat is grey", "  knowledge/b.md:4", "    - tea at four",
        "  knowledge/c.md:3", "    - the car is blue", "  knowledge/d.md:3", "    - the dog is old",
        "error: forget would remove 6 lines from 4 pages; nothing was changed (check the list above, then run the "
        "same command with --yes, or name a narrower target)"]
    assert mem.git("rev-parse", "HEAD") == head and mem.git("status", "--porcelain") == ""
    assert [p["path"] for p in json.loads(mem("forget", "--json", "--all", "t", code=1).stdout)] == [
        "knowledge/a.md", "knowledge/a.md", "knowledge/b.md", "knowledge/b.md", "knowledge/c.md", "knowledge/d.md"]
    out = mem.json("forget", "--all", "--yes", "t")
    assert len(out["removed"]) == 6
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: forget 6 lines from 4 pages"
    assert "the dog is old" not in (mem.path / "knowledge/d.md").read_text()


@pytest.mark.tally("bad-input/fault matrix")
def test_a_forget_whose_page_write_fails_hides_nothing(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record of forgotten text and the page change succeed or fail together: a page that
    cannot be written (disk full) leaves the record as it was, so the fact is not hidden."""
    import errno
    import os

    seeded(mem)
    record = mem.path / ".git" / "gitmem" / "forgotten"
    before = record.read_bytes() if record.exists() else None
    real_replace = os.replace

    def replace(src: str, dst: str | Path) -> None:
        if str(dst).endswith(".md"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    head = mem.git("rev-parse", "HEAD")
    result = mem("forget", "zanzibarquux", "--all", "--yes", code=1)
    assert result.stderr.startswith("error: could not write knowledge/facts.md, knowledge/trip.md: No space left on "
                                    "device; nothing was changed (")
    monkeypatch.setattr(os, "replace", real_replace)
    assert (record.read_bytes() if record.exists() else None) == before
    assert mem.git("rev-parse", "HEAD") == head and SECRET in (mem.path / "knowledge/facts.md").read_text()
    found = mem.json("recall", "--mode", "keyword", "zanzibarquux")["results"]
    assert {r["path"] for r in found} == {"knowledge/facts.md", "knowledge/trip.md"}  # not hidden
    assert not list((mem.path / "knowledge").glob(".*.tmp")) and not list(record.parent.glob(".*.tmp"))
    mem("forget", "zanzibarquux", "--all", "--yes")  # and once the disk has room, it is forgotten
    assert mem.json("recall", "--mode", "keyword", "zanzibarquux")["results"] == []


def _split_shapes() -> tuple[str, str, str]:
    """A page with a list longer than a chunk whose secret bullet straddles a chunk border, and a
    single line longer than a chunk; returns (page, the bullet, the long line)."""
    filler = [f"- item {i} of the packing list for the long trip north" for i in range(40)]
    bullet = "- the lockerquux combination is " + " ".join(["lockerquux"] * 12) + " then turn twice"
    filler.insert(27, bullet)
    long_line = "- diaryquux " + " ".join(f"entry{i} diaryquux" for i in range(160)) + " diaryquux end"
    return "# Trip\n\n" + "\n".join(filler) + "\n\n" + long_line + "\n", bullet, long_line


@pytest.mark.tally("bad-input/fault matrix")
def test_forget_purges_text_that_chunk_borders_split(mem: Mem) -> None:
    """A list item cut by a chunk border and a line longer than a chunk: no chunk holds the whole
    line, yet forgetting it (by PATH:LINE, no phrase to match) purges every part, history included."""
    from gitmem.index.chunker import chunk

    page, bullet, long_line = _split_shapes()
    chunks = chunk(page, 1600, 320)
    assert not any(bullet in c.text for c in chunks) and not any(long_line in c.text for c in chunks)
    assert sum("lockerquux" in c.text for c in chunks) >= 2 and sum("diaryquux" in c.text for c in chunks) >= 2
    mem.write("knowledge/trip.md", page)
    mem.commit("trip")
    mem.write("knowledge/trip.md", page + "\n- one more thing\n")
    mem.commit("one more")
    mem("index")
    lines = page.split("\n")
    for text in (bullet, long_line):
        assert mem.json("recall", "--mode", "keyword", "--history", text.split()[1])["results"]
        mem("forget", f"knowledge/trip.md:{lines.index(text) + 1}")
        lines.remove(text)
    for word in ("lockerquux", "diaryquux", "entry80"):
        for view in (["--history"], ["--at", "HEAD~2"], ["--at", "HEAD~3"], []):
            assert mem.json("recall", "--mode", "keyword", *view, word)["results"] == [], (word, view)
        assert word.encode() not in raw(mem)
    old = mem.json("get", "knowledge/trip.md", "--at", "HEAD~2")["text"]
    assert "lockerquux" not in old and "diaryquux" not in old and "item 39 of the packing list" in old
    assert mem.json("recall", "--mode", "keyword", "--history", "packing list")["results"]


# -- forget everything ---------------------------------------------------------------------------
def everything_seeded(mem: Mem) -> None:
    mem("remember", "Cats like warm windowsills")
    mem("remember", SECRET)
    mem("daily", "Met Bob about the roof")
    mem.write("knowledge/plan.md", "---\ntitle: Plan\n---\n# Plan\n\nShip on Friday.\nThen rest.\n\n"
                                   "## Risks\n\n- rain\n  and wind\n\n```\n# not a heading\n```\n")
    mem.commit("plan")
    mem.write("knowledge/plan.md", (mem.path / "knowledge/plan.md").read_text().replace("Friday", "Monday"))
    mem.commit("moved the ship date")  # "Ship on Friday." is now only in history
    mem.write("code.py", "x = 1  # not a note\n")
    mem.commit("code")


@pytest.mark.tally("bad-input/fault matrix")
def test_forget_everything_without_yes_says_how_much_and_changes_nothing(mem: Mem) -> None:
    everything_seeded(mem)
    head = mem.git("rev-parse", "HEAD")
    result = mem("forget", "--everything", code=1)
    assert result.stderr == ("error: forget everything would remove 10 lines from 4 pages and 1 more from the "
                             "index's history; nothing was changed (in a terminal run: git mem forget --everything "
                             "--yes; in the browser, type 'forget everything')\n")
    assert mem.git("rev-parse", "HEAD") == head and mem.git("status", "--porcelain") == ""
    assert mem("forget", "--everything", "--all", code=2).stderr.startswith("error: --everything takes no TEXT")


def test_forget_everything_keeps_the_layout_and_takes_every_memory_in_one_commit(mem: Mem) -> None:
    everything_seeded(mem)
    head = mem.git("rev-parse", "HEAD")
    out = mem.json("forget", "--everything", "--yes")
    assert out["action"] == "forget-everything" and out["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert mem.git("rev-parse", "HEAD~1") == head
    assert mem.git("log", "-1", "--format=%s").strip() == "mem: forget everything: 10 lines from 4 pages"
    assert sorted(mem.git("show", "--name-only", "--format=", "HEAD").split()) == [
        f"daily/{today()}.md", "knowledge/facts.md", "knowledge/plan.md", "reference/preferences.md"]
    assert (mem.path / "knowledge/plan.md").read_text() == "---\ntitle: Plan\n---\n# Plan\n\n## Risks\n"
    assert (mem.path / "knowledge/facts.md").read_text() == "# Facts\n"
    assert "Bob" not in (mem.path / f"daily/{today()}.md").read_text()  # a daily entry's heading is a memory
    assert (mem.path / "code.py").read_text() == "x = 1  # not a note\n" and mem.git("status", "--porcelain") == ""
    for words_ in ("windowsills", "zanzibarquux", "roof", "Monday", "wind"):
        assert mem.json("recall", "--mode", "keyword", words_)["results"] == [], words_
        assert mem.json("recall", "--history", "--mode", "keyword", words_)["results"] == [], words_
    assert mem.json("recall", "--history", "--mode", "keyword", "Ship on Friday")["results"] == []
    assert WORD not in raw(mem)
    assert mem("forget", "--everything", "--yes", code=1).stderr == (
        "error: the notebook holds no memories to forget (git mem remember TEXT adds one)\n")


@pytest.mark.tally("bad-input/fault matrix")
def test_forget_everything_refuses_lines_no_commit_holds(mem: Mem) -> None:
    """A person's uncommitted line, or a page git does not track, would be gone for good: refused, named."""
    everything_seeded(mem)
    plan = mem.path / "knowledge/plan.md"
    plan.write_text(plan.read_text() + "- a draft nobody committed\n")
    mem.write("knowledge/new.md", "# New\n\n- not tracked yet\n")
    head = mem.git("rev-parse", "HEAD")
    nb = open_notebook(mem.path)
    assert forgetting.survey(nb).uncommitted == ["knowledge/new.md", "knowledge/plan.md"]
    result = mem("forget", "--everything", "--yes", code=1)
    assert result.stderr == (
        "error: lines on knowledge/new.md, knowledge/plan.md are in no commit, so forgetting everything would lose "
        "them for good; nothing was changed (commit them (git add -- knowledge/new.md knowledge/plan.md && git commit)"
        " or drop them (git restore -- knowledge/new.md knowledge/plan.md; delete a page git does not track), then "
        "run it again)\n")
    assert mem.git("rev-parse", "HEAD") == head and "a draft nobody committed" in plan.read_text()
    mem.commit("the drafts")
    assert mem.json("forget", "--everything", "--yes")["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert (mem.path / "knowledge/new.md").read_text() == "# New\n"


def today() -> str:
    import datetime

    return datetime.date.today().isoformat()


@given(st.lists(st.sampled_from(["", "# H", "## 10:30 — entry", "## Sub", "- item", "  more", "text", "---",
                                 "```", "# in a fence?"]), max_size=14), st.booleans())
def test_memory_runs_take_every_line_but_blanks_frontmatter_and_headings(lines: list[str], front: bool) -> None:
    text = ("---\ntitle: x\n---\n" if front else "") + "\n".join(lines)
    runs = forgetting.memory_runs(text)
    taken = {n for a, b in runs for n in range(a, b + 1)}
    assert all(b < a2 - 1 for (_, b), (a2, _) in zip(runs, runs[1:]))  # sorted, apart, each run maximal
    assert all(a <= b for a, b in runs)
    from gitmem.markdown import body_offset, headings_of

    skipped = len(text[:body_offset(text)].split("\n")) - 1 if body_offset(text) < len(text) else len(lines) + 3
    heading_lines = {text[:o].count("\n") + 1 for o, _, _ in headings_of(text, body_offset(text))}
    assert not front or skipped >= 3
    for number, line in enumerate(text.split("\n"), 1):
        memory = number > skipped and line.strip() != "" and (
            number not in heading_lines or line.startswith("## 10:30 — "))
        assert (number in taken) == memory, (number, line, text)


def test_forget_everything_keeps_the_frontmatter_when_the_body_has_a_rule(mem: Mem) -> None:
    """A `---` rule in the body is a memory line that also opens the frontmatter: matched by its
    text, the first `---` (the frontmatter's) went and the page's tags became body text."""
    mem.write("knowledge/rule.md", "---\ntags: [x]\n---\n# Rule\n\nabove\n\n---\n\nbelow\n")
    mem.commit("a rule")
    mem.json("forget", "--everything", "--yes")
    assert (mem.path / "knowledge/rule.md").read_text() == "---\ntags: [x]\n---\n# Rule\n"
    assert mem.git("show", "HEAD:knowledge/rule.md") == "---\ntags: [x]\n---\n# Rule\n"


def test_forget_everything_takes_a_line_repeated_after_a_run_that_holds_it(mem: Mem) -> None:
    """`y` under ## S repeats the last line of the run above; matched by text it was found inside
    that run, so the second `y` stayed on the page."""
    mem.write("knowledge/twice.md", "# Twice\n\nx\ny\n\n## S\n\ny\n")
    mem.commit("twice")
    out = mem.json("forget", "--everything", "--yes")
    assert [r["lines"] for r in out["removed"] if r["path"] == "knowledge/twice.md"] == [
        {"start": 3, "end": 4}, {"start": 8, "end": 8}]
    assert (mem.path / "knowledge/twice.md").read_text() == "# Twice\n\n## S\n"


def test_forget_everything_keeps_a_crlf_page_crlf_to_its_last_line(mem: Mem) -> None:
    """A page's last memory taken off left it ending in a bare CR (the blank CRLF line kept, the
    final empty line dropped)."""
    page = mem.path / "knowledge/crlf.md"
    page.parent.mkdir(exist_ok=True)
    page.write_bytes(b"---\r\ntitle: c\r\n---\r\n# C\r\n\r\nfact one\r\n\r\n## S\r\n\r\n- two\r\n")
    mem.commit("crlf")
    mem.json("forget", "--everything", "--yes")
    assert page.read_bytes() == b"---\r\ntitle: c\r\n---\r\n# C\r\n\r\n## S\r\n"


def test_forget_a_rule_by_its_line_leaves_the_frontmatter(mem: Mem) -> None:
    """Forgetting PATH:LINE of a `---` rule took the frontmatter's opening `---` (the first match)."""
    mem.write("knowledge/rule.md", "---\ntags: [x]\n---\n# Rule\n\nabove\n\n---\n\nbelow\n")
    mem.commit("a rule")
    mem.json("forget", "knowledge/rule.md:8")
    assert (mem.path / "knowledge/rule.md").read_text() == "---\ntags: [x]\n---\n# Rule\n\nabove\n\nbelow\n"


def test_forget_commits_under_core_autocrlf(mem: Mem) -> None:
    """With core.autocrlf (Git for Windows' default) the page has CRLF and HEAD's version LF: the
    lines to take, read off the page with their CR, matched nothing in HEAD's version, so the
    line left the page but no commit was made (HEAD still held it, git status showed the page)."""
    mem.git("config", "core.autocrlf", "true")
    page = mem.path / "knowledge/win.md"
    page.parent.mkdir(exist_ok=True)
    page.write_bytes(b"# Win\r\n\r\n- keep this\r\n- drop zebrafact\r\n")
    mem.commit("win")
    out = mem.json("forget", "zebrafact")
    assert out["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert page.read_bytes() == b"# Win\r\n\r\n- keep this\r\n"
    assert mem.git("show", "HEAD:knowledge/win.md") == "# Win\n\n- keep this\n"
    assert mem.git("status", "--porcelain") == ""
    assert mem.json("forget", "--everything", "--yes")["commit"] == mem.git("rev-parse", "HEAD").strip()
    assert page.read_bytes() == b"# Win\r\n"
    assert mem.git("status", "--porcelain") == ""


@pytest.mark.tally("bad-input/fault matrix")
def test_forget_everything_refuses_a_tracked_note_the_work_tree_lacks(mem: Mem) -> None:
    """A note deleted but not committed was read as no note at all: the commit took the other
    pages' lines and left its memories in HEAD, where `git restore` brings them back."""
    everything_seeded(mem)
    (mem.path / "knowledge/plan.md").unlink()
    head = mem.git("rev-parse", "HEAD")
    assert forgetting.survey(open_notebook(mem.path)).uncommitted == ["knowledge/plan.md"]
    result = mem("forget", "--everything", "--yes", code=1)
    assert result.stderr.startswith("error: knowledge/plan.md is deleted in the work tree but git still tracks it")
    assert mem.git("rev-parse", "HEAD") == head
    mem.git("sparse-checkout", "set", "--no-cone", "/*", "!/knowledge/facts.md")  # left out: the same
    mem.git("restore", "--", "knowledge/plan.md")
    assert not (mem.path / "knowledge/facts.md").exists()
    result = mem("forget", "--everything", "--yes", code=1)
    assert result.stderr.startswith("error: knowledge/facts.md is tracked but left out of this sparse checkout")
    assert mem.git("rev-parse", "HEAD") == head
    mem.git("sparse-checkout", "disable")
    (mem.path / "knowledge/plan.md").unlink()
    mem.git("rm", "-q", "--", "knowledge/plan.md")
    mem.commit("plan is gone")
    assert mem.json("forget", "--everything", "--yes")["commit"] == mem.git("rev-parse", "HEAD").strip()
