"""The index heals itself after git operations that fire no hook, and two
clones of one remote sync memory (and daily logs) with plain pull/push."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from gitmem.notes import memory
from gitmem.gitops.merge import split
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem, git
from tests.indexstate import assert_exact, keyword, wait_current

PEOPLE = "reference/people.md"


@pytest.fixture
def history(mem: Mem) -> Mem:
    """Three commits, a side branch that conflicts with main, and an index at HEAD."""
    mem.write(PEOPLE, "# People\n\n- Ada likes lighthouses\n")
    mem.commit("ada")
    mem.write("knowledge/boats.md", "# Boats\n\n- The ketch is moored at Pier 9\n")
    mem.commit("boats")
    mem.git("branch", "side", "HEAD~1")
    # both sides change the same fact, so merging them conflicts (added facts would merge fact by fact)
    mem.write(PEOPLE, "# People\n\n- Ada likes lighthouses; Brian collects barometers\n")
    mem.commit("brian")
    mem.git("checkout", "-q", "side")
    mem.write(PEOPLE, "# People\n\n- Ada likes lighthouses; Chloe restores gramophones\n")
    mem.commit("chloe")
    mem.git("checkout", "-q", "main")
    assert keyword(mem, "barometers") == [PEOPLE]
    assert_exact(mem)
    return mem


def _stale(m: Mem) -> None:
    assert m.json("status", "--no-model")["index"]["state"] == "stale"


def test_reset_hard_back_and_forward(history: Mem) -> None:
    history.git("reset", "-q", "--hard", "HEAD~1")
    _stale(history)
    assert keyword(history, "barometers") == []
    assert_exact(history)
    history.git("reset", "-q", "--hard", "ORIG_HEAD")
    assert keyword(history, "barometers") == [PEOPLE]
    assert_exact(history)


@pytest.mark.parametrize("mode", ["--soft", "--mixed"])
def test_reset_keeping_the_work_tree(history: Mem, mode: str) -> None:
    history.git("reset", "-q", mode, "HEAD~1")
    _stale(history)
    hits = history.json("recall", "--mode", "keyword", "barometers")["results"]
    assert [(h["path"], h["commit"]) for h in hits] == [(PEOPLE, None)]  # now an uncommitted change
    assert_exact(history)


def test_stash_and_pop(history: Mem) -> None:
    history.write("knowledge/boats.md", "# Boats\n\n- The yawl needs new sails\n")
    assert keyword(history, "yawl") == ["knowledge/boats.md"]
    history.git("stash", "-q")
    assert keyword(history, "yawl") == [] and keyword(history, "ketch") == ["knowledge/boats.md"]
    assert_exact(history)
    history.git("stash", "pop", "-q")
    assert keyword(history, "yawl") == ["knowledge/boats.md"] and keyword(history, "ketch") == []
    assert_exact(history)


def test_rebase_abort(history: Mem) -> None:
    history.git("checkout", "-q", "side")
    assert keyword(history, "gramophones") == [PEOPLE]
    rebase = subprocess.run(["git", "rebase", "main"], cwd=history.path, capture_output=True, text=True)
    assert rebase.returncode != 0 and "CONFLICT" in rebase.stdout
    # mid-rebase: neither side of the conflicting fact is indexed, and status names the page
    assert keyword(history, "gramophones") == [] and keyword(history, "barometers") == []
    assert history.json("status", "--no-model")["conflicts"] == {"pages": [{"path": PEOPLE, "facts": 1}],
                                                                  "in_progress": "rebase"}
    assert f"conflict:   {PEOPLE}: 1 fact(s) changed differently" in history("status", "--no-model").stdout
    history.git("rebase", "--abort")
    _stale(history)
    assert keyword(history, "barometers") == [] and keyword(history, "gramophones") == [PEOPLE]
    assert_exact(history)


def test_merge_abort(history: Mem) -> None:
    merge = subprocess.run(["git", "merge", "side"], cwd=history.path, capture_output=True, text=True)
    assert merge.returncode != 0
    # not read by the index yet, but git has it unmerged: status counts it, as its "conflict:" line names it
    # (it said "0 with conflict markers" above that line, a newcomer found)
    assert history.json("status", "--no-model")["counts"]["conflicted_files"] == 1
    keyword(history, "gramophones")
    assert history.json("status", "--no-model")["counts"]["conflicted_files"] == 1
    history.git("merge", "--abort")
    assert keyword(history, "gramophones") == [] and keyword(history, "barometers") == [PEOPLE]
    assert history.json("status", "--no-model")["counts"]["conflicted_files"] == 0
    assert_exact(history)


def test_edits_without_a_commit(history: Mem) -> None:
    history.write("knowledge/new.md", "- Untracked: the kettle whistles\n")
    (history.path / "knowledge/boats.md").unlink()
    history.write(PEOPLE, "# People\n\n- Dora paints murals\n")
    assert keyword(history, "kettle") == ["knowledge/new.md"]
    assert keyword(history, "ketch") == [] and keyword(history, "barometers") == []
    assert keyword(history, "murals") == [PEOPLE]
    assert_exact(history)
    history.git("checkout", "-q", "--", ".")
    assert keyword(history, "ketch") == ["knowledge/boats.md"] and keyword(history, "murals") == []
    assert_exact(history)


def test_an_edit_in_the_same_timestamp_tick_as_the_last_read_is_seen(history: Mem) -> None:
    """A note rewritten right after a read indexed it, so fast that its modification time does not
    change (same size, same filesystem timestamp tick): the next read must still see the new text."""
    page = history.write("knowledge/boats.md", "# Boats\n\n- The sloop is red\n")
    assert keyword(history, "sloop") == ["knowledge/boats.md"]
    tick = page.stat().st_mtime_ns
    page.write_text("# Boats\n\n- The dory is red\n")
    os.utime(page, ns=(tick, tick))  # what a write within the same timestamp tick looks like
    assert keyword(history, "dory") == ["knowledge/boats.md"] and keyword(history, "sloop") == []
    assert_exact(history)


def test_a_fresh_clone(history: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(tmp_path, "clone", "-q", str(history.path), "copy")
    clone = Mem(tmp_path / "copy", monkeypatch)
    assert not (tmp_path / "copy/.git/gitmem").exists()
    assert keyword(clone, "barometers") == [PEOPLE]
    assert_exact(clone)


def test_a_libgit2_commit_and_checkout_fire_no_hook(history: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    pygit2 = pytest.importorskip("pygit2")
    monkeypatch.delenv("GITMEM_HOOKS")
    history("hooks", "install")
    repo = pygit2.Repository(str(history.path))
    history.write("knowledge/libgit2.md", "- Written by a libgit2 client: the anchor chain is rusty\n")
    repo.index.read()
    repo.index.add("knowledge/libgit2.md")
    repo.index.write()
    sig = pygit2.Signature("Lib Git", "lib@example.com")
    repo.create_commit("HEAD", sig, sig, "libgit2 commit", repo.index.write_tree(), [repo.head.target])
    assert history.json("status", "--no-model")["index"]["state"] == "stale"  # no hook ran
    assert keyword(history, "anchor") == ["knowledge/libgit2.md"]
    assert_exact(history)
    repo.checkout(repo.lookup_branch("side"))
    _stale(history)
    assert keyword(history, "gramophones") == [PEOPLE] and keyword(history, "anchor") == []
    assert_exact(history)


def test_amend_cherry_pick_and_revert_without_hooks(history: Mem) -> None:
    history.write(PEOPLE, "# People\n\n- Ada likes lighthouses\n- Brian collects thermometers\n")
    history.git("commit", "-qam", "fix", "--amend")
    assert keyword(history, "thermometers") == [PEOPLE] and keyword(history, "barometers") == []
    history.git("revert", "--no-edit", "HEAD")
    assert keyword(history, "thermometers") == []
    history.git("checkout", "-q", "-b", "pick", "side~1")
    history.git("cherry-pick", "main~1", "main")
    assert keyword(history, "thermometers") == []
    assert_exact(history)


def test_history_is_rederived_without_embedding_again(mem: Mem) -> None:
    mem.write("knowledge/a.md", "- The lighthouse keeper's name is Morwenna\n")
    mem.commit("a")
    mem.write("knowledge/b.md", "- Boat engines need fresh impellers every spring\n")
    mem.commit("b")
    first = mem.json("index")
    computed = mem.json("status", "--no-model")["counts"]["embeddings_computed"]
    assert first["embedded"] == computed == 2
    mem.git("reset", "-q", "--hard", "HEAD~1")
    found = mem.json("recall", "--mode", "semantic", "maintenance of a marine motor")["results"]
    assert "knowledge/b.md" not in {h["path"] for h in found}
    mem.git("reset", "-q", "--hard", "ORIG_HEAD")
    found = mem.json("recall", "--mode", "semantic", "maintenance of a marine motor")["results"]
    assert found[0]["path"] == "knowledge/b.md"
    assert mem.json("status", "--no-model")["counts"]["embeddings_computed"] == computed
    assert_exact(mem)


# -- two clones of one remote -----------------------------------------------------
@pytest.fixture
def clones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Mem, Mem]:
    """Clone A made the notebook and pushed it; clone B cloned it and ran init (the one-time setup)."""
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    git(tmp_path, "clone", "-q", "remote.git", "a")
    a = Mem(tmp_path / "a", monkeypatch)
    a("init", "--no-index")
    a.git("push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", "remote.git", "b")
    b = Mem(tmp_path / "b", monkeypatch)
    b("init", "--no-index")
    for m in (a, b):
        m.git("config", "pull.rebase", "false")
    return a, b


def test_a_fact_remembered_on_one_machine_is_recalled_on_the_other(clones: tuple[Mem, Mem],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = clones
    monkeypatch.delenv("GITMEM_HOOKS")
    b("hooks", "install")
    b.json("index")
    a("remember", "The boiler service is booked with Hendricks & Sons")
    a.git("push", "-q")
    b.git("pull", "-q")
    wait_current(b)  # post-merge caught B's index up in the background
    found = b.json("recall", "who services the heating")["results"]
    assert found[0]["path"] == "knowledge/facts.md" and "Hendricks" in found[0]["text"]
    assert_exact(b)


def _daily(m: Mem, hhmm: str, text: str) -> None:
    when = datetime.fromisoformat(f"2026-11-22T{hhmm}:00").astimezone()
    memory.daily(open_notebook(m.path), text, when=when)


def _entries(m: Mem) -> list[str]:
    return split((m.path / "daily/2026-11-22.md").read_text())


@pytest.mark.parametrize("how", ["--no-rebase", "--rebase"])
@pytest.mark.parametrize("existing", [True, False], ids=["log-existed", "log-new-on-both"])
def test_both_machines_append_to_the_same_daily_log(clones: tuple[Mem, Mem], how: str, existing: bool) -> None:
    a, b = clones
    if existing:
        _daily(a, "08:00", "Morning\nNotes:\n- coffee")
        a.git("push", "-q")
        b.git("pull", "-q")
    _daily(a, "10:00", "Standup\nNotes:\n- shipped it")
    _daily(b, "10:05", "Review\nNotes:\n- shipped it")
    _daily(a, "11:00", "Lunch with Sam")
    _daily(b, "11:30", "Call with Kim\n\nNotes:\n- done")
    a.git("push", "-q")
    pull = subprocess.run(["git", "pull", how], cwd=b.path, capture_output=True, text=True)
    assert pull.returncode == 0 and "CONFLICT" not in pull.stdout, pull.stdout + pull.stderr
    b.git("push", "-q")
    a.git("pull", "-q")
    assert (a.path / "daily/2026-11-22.md").read_text() == (b.path / "daily/2026-11-22.md").read_text()
    expected = ["# Daily Log — 2026-11-22",
                *(["## 08:00 — Morning\n\nNotes:\n- coffee"] if existing else []),
                "## 10:00 — Standup\n\nNotes:\n- shipped it", "## 10:05 — Review\n\nNotes:\n- shipped it",
                "## 11:00 — Lunch with Sam", "## 11:30 — Call with Kim\n\nNotes:\n- done"]
    assert _entries(a) == expected
    assert keyword(b, "gramophones") == [] and keyword(a, "Kim") == ["daily/2026-11-22.md"]
    assert_exact(a)
    assert_exact(b)


def test_a_clone_without_the_driver_conflicts_but_loses_nothing(clones: tuple[Mem, Mem]) -> None:
    a, b = clones
    b.git("config", "--remove-section", "merge.gitmem-daily")  # as in a clone that never ran init
    assert "merge drivers are not set up" in " ".join(b.json("hooks", "status")["notes"])
    _daily(a, "10:00", "Standup\nNotes:\n- shipped it")
    _daily(b, "10:05", "Review\nNotes:\n- shipped it")
    a.git("push", "-q")
    pull = subprocess.run(["git", "pull"], cwd=b.path, capture_output=True, text=True)
    assert pull.returncode != 0 and "CONFLICT" in pull.stdout
    # git's line merge stopped with a conflict; both whole versions are kept in git's index
    assert b.git("status", "--porcelain", "daily") == "AA daily/2026-11-22.md\n"  # both added it
    assert "## 10:05 — Review\n\nNotes:\n- shipped it\n" in b.git("show", ":2:daily/2026-11-22.md")
    assert "## 10:00 — Standup\n\nNotes:\n- shipped it\n" in b.git("show", ":3:daily/2026-11-22.md")
    b("hooks", "install")  # the hint: set up the driver, then redo the merge of that file
    b.git("checkout", "-m", "--", "daily/2026-11-22.md")
    assert _entries(b)[1:] == ["## 10:00 — Standup\n\nNotes:\n- shipped it", "## 10:05 — Review\n\nNotes:\n- shipped it"]
    b.git("add", "daily/2026-11-22.md")
    b.git("commit", "-q", "--no-edit")
    assert keyword(b, "Standup") == keyword(b, "Review") == ["daily/2026-11-22.md"]
    assert_exact(b)


def test_init_writes_the_attributes_and_configures_the_driver(clones: tuple[Mem, Mem]) -> None:
    a, _ = clones
    assert "daily/*.md merge=gitmem-daily" in (a.path / ".gitattributes").read_text().splitlines()
    assert a.git("check-attr", "merge", "daily/2026-11-22.md").strip().endswith("gitmem-daily")
    assert a.git("check-attr", "merge", "memory/2026-11-22.md").strip().endswith("gitmem-daily")
    # every other page merges fact by fact
    assert a.git("check-attr", "merge", "memory/2026-11-22-1015.md").strip().endswith("gitmem-facts")
    assert a.git("check-attr", "merge", "knowledge/facts.md").strip().endswith("gitmem-facts")
    driver = a.git("config", "merge.gitmem-daily.driver").strip()
    assert " -I -c " in driver and driver.endswith(" gitmem merge-driver -- %O %A %B %P")
    assert os.path.exists(driver.split()[0])
    facts = a.git("config", "merge.gitmem-facts.driver").strip()
    assert " -I -c " in facts and facts.endswith(" gitmem merge-driver --facts -- %O %A %B %P")


def test_init_puts_an_old_notebooks_lines_in_order(clones: tuple[Mem, Mem]) -> None:
    """A notebook made before the fact driver has only the daily lines: the page line must come
    before them (the last matching line wins), with a person's own lines kept."""
    a, _ = clones
    (a.path / ".gitattributes").write_text("*.png binary\n# gitmem: daily logs merge entry by entry\n"
                                           "daily/*.md merge=gitmem-daily\nmemory/????-??-??.md merge=gitmem-daily\n")
    a.commit("old attributes")
    a("init", "--no-index")
    lines = (a.path / ".gitattributes").read_text().splitlines()
    assert lines[0] == "*.png binary" and lines[2:] == ["*.md merge=gitmem-facts", "*.markdown merge=gitmem-facts",
                                                        "daily/*.md merge=gitmem-daily",
                                                        "memory/????-??-??.md merge=gitmem-daily"]
    assert a.git("check-attr", "merge", "daily/2026-11-22.md").strip().endswith("gitmem-daily")
    assert a.git("status", "--porcelain") == ""  # init committed it
