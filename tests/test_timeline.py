"""`git mem log`: the memory timeline on a scripted week (fixed commit dates)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gitmem.index.db import CACHE_MIGRATIONS, connect
from gitmem.index.forgotten import WITHHELD
from gitmem.index.blobs import text_hash
from gitmem.index.diffs import SectionChange, diff_sections
from tests.conftest import Mem
from tests.histories import git, week


@pytest.fixture(scope="module")
def week_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("timeline") / "week"
    return repo, week(repo)


@pytest.fixture
def wk(week_repo, monkeypatch: pytest.MonkeyPatch) -> tuple[Mem, dict[str, str]]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    repo, ids = week_repo
    return Mem(repo, monkeypatch), ids


def subjects(out: dict) -> list[str]:
    return [e["subject"] for e in out["entries"]]


def entry(out: dict, commit: str) -> dict:
    return next(e for e in out["entries"] if e["commit"] == commit)


def test_every_commit_that_changed_the_notebook_newest_first(wk) -> None:
    m, ids = wk
    out = m.json("log")
    chain = git(m.path, "rev-list", "--first-parent", "HEAD").split()
    assert [e["commit"] for e in out["entries"]] == [c for c in chain if c != ids["config"]]
    first = out["entries"][-1]
    assert (first["date"], first["author"], first["email"]) == ("2026-02-02T09:00:00+00:00", "Ada Lovelace",
                                                                "ada@example.com")
    assert set(out) == {"entries", "filters", "semantic", "notes"}
    assert set(first) == {"commit", "date", "author", "email", "subject", "message", "pages", "merged", "score"}


def test_changes_are_named_by_page_and_section(wk) -> None:
    m, ids = wk
    out = m.json("log")
    assert entry(out, ids["sarah"])["pages"] == [{
        "path": "reference/contacts.md", "change": "changed", "renamed_from": None, "note": None,
        "sections": [{"heading": "Contacts", "change": "changed", "added": ["- Sarah Chen's phone is 555-4321"],
                      "removed": ["- Sarah Chen's phone is 555-1234"]}]}]
    [daily] = entry(out, ids["d2b"])["pages"]
    assert daily["sections"] == [{"heading": "16:00 — Spec review with the design team", "change": "added",
                                  "added": ["## 16:00 — Spec review with the design team",
                                            "Agreed to drop the offline mode."], "removed": []}]
    [dropped] = entry(out, ids["drop"])["pages"]
    assert dropped["change"] == "removed" and dropped["sections"][0]["removed"][-1] == "- [ ] Book the dentist"
    assert entry(out, ids["contacts"])["pages"][0]["change"] == "added"


def test_path_shows_how_a_plan_evolved_and_why(wk) -> None:
    m, ids = wk
    out = m.json("log", "--path", "reference/plan.md")
    assert subjects(out) == ["Plan: recruit testers for the beta", "Plan: the spec is written",
                             "Plan: the beta slips to April because the sensor vendor is late",
                             "Plan: add the prototype step", "Plan: first draft of the beta plan"]
    assert out["filters"]["path"] == "reference/plan.md"
    text = m("log", "--path", "reference/plan", "-n", "2").stdout
    assert text == (
        f"{ids['plan4'][:7]} 2026-02-07 10:00 Ada Lovelace\n"
        "    Plan: recruit testers for the beta\n"
        "  reference/plan.md (changed)\n"
        "    ~ Steps\n"
        "        + - Recruit ten beta testers\n"
        f"{ids['done'][:7]} 2026-02-06 09:00 Ada Lovelace\n"
        "    Plan: the spec is written\n"
        "  reference/plan.md (changed)\n"
        "    ~ Steps\n"
        "        + - [x] Write the spec\n"
        "        - - Write the spec\n")


def test_path_follows_a_page_back_through_a_rename(wk) -> None:
    m, ids = wk
    out = m.json("log", "--path", "knowledge/general.md")
    assert [e["commit"] for e in out["entries"]] == [ids["wifi"], ids["rename"], ids["facts"]]
    renamed = entry(out, ids["rename"])["pages"]
    assert renamed == [{"path": "knowledge/general.md", "change": "renamed", "renamed_from": "knowledge/facts.md",
                        "sections": [], "note": None}]
    assert entry(out, ids["facts"])["pages"][0]["path"] == "knowledge/facts.md"


def test_a_merge_is_one_entry_listing_what_it_brought_in(wk) -> None:
    m, ids = wk
    merge = entry(m.json("log"), ids["merge"])
    assert [p["path"] for p in merge["pages"]] == ["daily/2026-02-04-laptop.md", "knowledge/design.md"]
    assert [c["commit"] for c in merge["merged"]] == [ids["laptop2"], ids["laptop1"]]
    assert ids["laptop1"] not in [e["commit"] for e in m.json("log")["entries"]]
    text = m("log", "--since", "2026-02-05T09:00", "--until", "2026-02-05T09:00").stdout
    assert f"    merged: {ids['laptop2'][:7]} mem: remember the logo is a pelican holding a key; " in text


def test_since_until_and_count(wk) -> None:
    m, ids = wk
    day6 = m.json("log", "--since", "2026-02-06", "--until", "2026-02-06")
    assert [e["commit"] for e in day6["entries"]] == [ids["d6"], ids["session"], ids["drop"], ids["done"]]
    assert day6["filters"]["from"] == "2026-02-06T00:00:00+00:00" and day6["filters"]["to"] == "2026-02-06T23:59:59+00:00"
    assert [e["commit"] for e in m.json("log", "-n", "2")["entries"]] == [ids["plan4"], ids["wifi"]]
    hours = int((time.time() - 1770379200) // 3600)  # now minus 2026-02-06 12:00 UTC
    assert subjects(m.json("log", "--since", f"{hours}h")) == [
        "Plan: recruit testers for the beta", "The wifi password now rotates weekly",
        "mem: daily 2026-02-06 Demo moved", "mem: session 2026-02-06 14:30"]
    assert m.json("log", "--since", "2027-01-01")["entries"] == []
    assert m("log", "--since", "2027-01-01").stdout == "no commits changed the notebook with these filters\n"
    assert m("log", "--since", "yesteryear", code=2).stderr.startswith("error: cannot read 'yesteryear'")


def test_grep_by_keyword(wk, no_model) -> None:
    m, ids = wk
    out = m.json("log", "--grep", "passport")
    assert [e["commit"] for e in out["entries"]] == [ids["drop"], ids["todos"]]  # removed, added
    assert out["semantic"] is False and out["notes"][0].startswith("semantic search is off")
    assert [e["commit"] for e in m.json("log", "--grep", "1234")["entries"]] == [ids["sarah"], ids["contacts"]]
    assert m("log", "--grep", " ", code=1).stderr.startswith("error: empty --grep query")


def test_grep_by_meaning(wk) -> None:
    m, ids = wk
    # no word in common: "dentist" is not "dental", "appointment" is nowhere
    out = m.json("log", "--grep", "dental appointment")
    assert out["semantic"] is True
    assert [e["commit"] for e in out["entries"]] == [ids["drop"], ids["todos"]]
    assert all(0 < e["score"] <= 1 for e in out["entries"])
    both = m.json("log", "--grep", "Sarah's phone number")["entries"]
    assert [e["commit"] for e in both][-1] == ids["contacts"] and ids["sarah"] in [e["commit"] for e in both]


def test_diff_sections_by_heading() -> None:
    before = "---\ntags: [a]\n---\n# Page\n\nintro\n\n## One\n\nx\n\n## Two\n\ny\n"
    after = "---\ntags: [a, b]\n---\n# Page\n\nintro\n\n## One\n\nx\nz\n\n## Three\n\nw\n"
    changes = [(c.heading, c.change, c.added, c.removed) for c in diff_sections(before, after)]
    assert changes == [("frontmatter", "changed", ["tags: [a, b]"], ["tags: [a]"]),
                       ("One", "changed", ["z"], []),
                       ("Three", "added", ["## Three", "w"], []),
                       ("Two", "removed", [], ["## Two", "y"])]
    assert diff_sections("", "no heading\n") == [SectionChange("", "added", ["no heading"], [])]
    assert diff_sections("a\n\n\nb\n", "a\nb\n") == []  # only blank lines moved


def test_help_has_an_example_of_each_option(blank: Mem) -> None:
    examples = blank("log", "--help").stdout.split("Examples:")[1]
    for option in ("--since", "--until", "--path", "--grep", "-n", "--json"):
        assert f" {option} " in examples or examples.rstrip().endswith(option), option


def test_log_keeps_forgotten_text_out(mem: Mem) -> None:
    mem("remember", "The vault code is tango foxtrot nine")
    vault_commit = mem.git("rev-parse", "HEAD").strip()
    mem("remember", "The gate code is in the drawer")
    mem.git("checkout", "-q", "-b", "side", "HEAD~2")
    mem.write("side.md", "# Side\n\n- The side door is blue\n")
    mem.commit("side: tango foxtrot nine")
    mem.git("checkout", "-q", "main")
    mem.git("merge", "-q", "--no-ff", "-m", "Merge side", "side")
    mem.write("misc.md", "# Misc\n\n- harmless\n")
    misc = mem.commit("misc\n\nwhy: Tango foxtrot nine came up\nthe end")
    mem("forget", "tango foxtrot nine")
    out = mem.json("log")
    assert "foxtrot" not in json.dumps(out) and "foxtrot" not in mem("log").stdout
    vault = entry(out, vault_commit)
    assert (vault["subject"], vault["message"]) == (WITHHELD, WITHHELD + "\n\nGitmem-Verb: remember")  # the trailer quotes nothing
    assert vault["pages"][0]["sections"][0]["added"] == ["# Facts"]
    assert entry(out, misc)["message"] == "misc\n\n(line withheld: it held forgotten text)\nthe end"
    [merge] = [e for e in out["entries"] if e["merged"]]
    assert [m["subject"] for m in merge["merged"]] == [WITHHELD]
    assert merge["pages"][0]["sections"][0]["added"] == ["# Side", "- The side door is blue"]
    gate = next(e for e in out["entries"] if "gate code" in e["subject"])
    assert gate["pages"][0]["sections"][0]["added"] == ["- The gate code is in the drawer"]
    found = mem.json("log", "--grep", "tango foxtrot nine")
    assert "foxtrot" not in json.dumps(found["entries"]) and vault["commit"] not in [e["commit"] for e in found["entries"]]
    mem("rebuild")  # merged-branch commits are attributed afresh: their subjects are withheld again
    hit = mem.json("recall", "--mode", "keyword", "side door")["results"][0]
    assert (hit["path"], hit["subject"]) == ("side.md", WITHHELD)


def test_log_never_shows_or_embeds_a_private_page(mem: Mem) -> None:
    secret = "---\nprivate: true\n---\n# Hunt\n\nI am job hunting at Initech\n"
    mem.write("knowledge/hunt.md", secret)
    mem.commit("hunt")
    mem.write("knowledge/hunt.md", secret.replace("Initech", "Initrode"))
    mem.commit("hunt 2")
    mem.write("knowledge/hunt.md", "# Hunt\n\nPublic now: found a job\n")
    public = mem.commit("public")
    out = mem.json("log", "--path", "knowledge/hunt.md")
    pages = [e["pages"][0] for e in out["entries"]]
    assert [(p["change"], p["note"], p["sections"] != []) for p in pages] == [
        ("changed", "private until this commit: its earlier text is not shown", True),
        ("changed", "private page: its text is not shown", False),
        ("added", "private page: its text is not shown", False)]
    assert pages[0]["sections"] == [{"heading": "Hunt", "change": "added",
                                     "added": ["# Hunt", "Public now: found a job"], "removed": []}]
    text = mem("log").stdout
    assert "Initech" not in json.dumps(out) + text and "Initrode" not in text
    assert "    (private page: its text is not shown)" in text.splitlines()
    found = mem.json("log", "--grep", "job hunting at Initech")
    assert "Initech" not in json.dumps(found["entries"]) and {e["commit"] for e in found["entries"]} <= {public}
    # what --grep used to embed for that commit (its added lines) is not in the shared cache
    doc = "\n".join(line for sec in diff_sections("", secret) for line in sec.added)
    cache = connect(mem.path / ".git" / "gitmem" / "embeddings.db", CACHE_MIGRATIONS, vec=False)
    assert cache.execute("SELECT count(*) FROM embeddings").fetchone()[0] > 0
    assert cache.execute("SELECT count(*) FROM embeddings WHERE hash = ?", (text_hash(doc),)).fetchone()[0] == 0
    cache.close()


def test_forget_drops_what_log_grep_embedded(mem: Mem) -> None:
    mem("remember", "The vault code is tango foxtrot nine")
    page = mem.git("show", "HEAD:knowledge/facts.md")
    mem("remember", "The gate code is in the drawer")
    mem.json("log", "--grep", "vault")  # embeds every commit's changed lines in the shared cache
    doc = "\n".join(line for sec in diff_sections("", page) for line in sec.added)
    assert "foxtrot" in doc

    def cached() -> int:
        cache = connect(mem.path / ".git" / "gitmem" / "embeddings.db", CACHE_MIGRATIONS, vec=False)
        try:
            return cache.execute("SELECT count(*) FROM embeddings WHERE hash = ?", (text_hash(doc),)).fetchone()[0]
        finally:
            cache.close()

    assert cached() == 1
    mem("forget", "tango foxtrot nine")
    assert cached() == 0


def test_log_shows_a_documents_text_never_its_bytes(mem: Mem) -> None:
    from tests import docfiles

    (mem.path / "manuals").mkdir()
    (mem.path / "manuals/boiler.pdf").write_bytes(docfiles.pdf(["Boiler manual", "Pressure\nRead 1.5 bar when cold"]))
    (mem.path / "manuals/letter.docx").write_bytes(docfiles.docx([("h1", "Letter"), ("p", "The keys are with Ann")]))
    added = mem.commit("manuals")
    mem("index")  # extracts the documents
    (mem.path / "manuals/boiler.pdf").write_bytes(docfiles.pdf(["Boiler manual", "Pressure\nRead 2 bar when cold"]))
    changed = mem.commit("new manual")
    mem("index")
    out = mem.json("log")
    pages = {p["path"]: p for p in entry(out, added)["pages"]}
    assert [line for s in pages["manuals/boiler.pdf"]["sections"] for line in s["added"]] == \
        ["Boiler manual", "Pressure", "Read 1.5 bar when cold"]
    assert [line for s in pages["manuals/letter.docx"]["sections"] for line in s["added"]] == \
        ["# Letter", "The keys are with Ann"]
    [pdf] = entry(out, changed)["pages"]
    assert [(s["added"], s["removed"]) for s in pdf["sections"]] == [(["Read 2 bar when cold"], ["Read 1.5 bar when cold"])]
    text = mem("log").stdout
    assert "%PDF" not in text and "PK" not in text and "Read 2 bar when cold" in text
    followed = mem.json("log", "--path", "manuals/boiler.pdf")  # a document's own history, not boiler.pdf.md's
    assert followed["filters"]["path"] == "manuals/boiler.pdf"
    assert [e["commit"] for e in followed["entries"]] == [changed, added]
