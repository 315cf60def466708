"""`git mem mv` (notes/rename.py): a page renamed with the links to it, one commit holding only
gitmem's change; refusals for what git mv would refuse and what gitmem never does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Mem
from tests.test_badinput import STATES
from tests.test_confinement import BAD_PATHS, snapshot

TALLY = pytest.mark.tally("bad-input/fault matrix")


def _linked(mem: Mem) -> Mem:
    mem.write("projects/apollo.md", "# Apollo\n\n- owner: [[contacts|Sarah]]\n- notes: [c](../reference/contacts.md)\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen, 555-1234\n")
    mem.write("daily/2026-11-25.md", "# 25\n\n- talked to [[apollo]] team, see [[projects/apollo#Risks|risks]]\n"
                                     "- ![[apollo]] and [a](../projects/apollo.md)\n")
    mem.write("knowledge/notes.md", "# Notes\n\n- nothing links here\n")
    mem.write("knowledge/secret.md", "---\nprivate: true\n---\n- about [[apollo]]\n")
    mem.commit("pages")
    return mem


def test_mv_renames_the_page_and_its_links_in_one_commit(mem: Mem) -> None:
    _linked(mem)
    before = mem.git("rev-parse", "HEAD").strip()
    out = mem("mv", "projects/apollo.md", "archive/apollo-2026.md").stdout
    head = mem.git("rev-parse", "--short=7", "HEAD").strip()
    assert out.splitlines() == [
        f"renamed projects/apollo.md -> archive/apollo-2026.md (commit {head})",
        "updated 4 links in 1 page:",
        "  daily/2026-11-25.md (4)",
    ]
    assert mem.git("rev-list", "--count", f"{before}..HEAD").strip() == "1"
    changed = mem.git("show", "--no-renames", "--name-status", "--format=", "HEAD").split("\n")
    assert sorted(filter(None, changed)) == ["A\tarchive/apollo-2026.md", "D\tprojects/apollo.md",
                                             "M\tdaily/2026-11-25.md"]
    assert (mem.path / "daily/2026-11-25.md").read_text() == (
        "# 25\n\n- talked to [[apollo-2026]] team, see [[archive/apollo-2026#Risks|risks]]\n"
        "- ![[apollo-2026]] and [a](../archive/apollo-2026.md)\n")
    # the page's own relative link is rewritten from its new folder
    assert (mem.path / "archive/apollo-2026.md").read_text() == (
        "# Apollo\n\n- owner: [[contacts|Sarah]]\n- notes: [c](../reference/contacts.md)\n")
    assert not (mem.path / "projects/apollo.md").exists()
    assert (mem.path / "knowledge/secret.md").read_text() == "---\nprivate: true\n---\n- about [[apollo]]\n"
    assert mem.git("status", "--porcelain").strip() == ""
    assert "Gitmem-Verb: mv" in mem.git("log", "-1", "--format=%B")
    back = mem.json("links", "archive/apollo-2026.md")["backlinks"]
    assert {b["path"] for b in back} == {"daily/2026-11-25.md"}


def test_mv_rewrites_a_moved_pages_relative_links_and_json_lists_pages(mem: Mem) -> None:
    _linked(mem)
    data = mem.json("mv", "projects/apollo.md", "apollo.md")
    # [[apollo]] still names it: left as it is
    assert (data["old"], data["new"], data["links"]) == ("projects/apollo.md", "apollo.md", 2)
    assert data["pages"] == [{"path": "daily/2026-11-25.md", "links": 2}]
    assert (mem.path / "apollo.md").read_text().endswith("- notes: [c](reference/contacts.md)\n")
    assert "[a](../apollo.md)" in (mem.path / "daily/2026-11-25.md").read_text()


def test_mv_no_links_and_dry_run(mem: Mem) -> None:
    _linked(mem)
    dry = mem("mv", "projects/apollo.md", "archive/apollo.md", "--dry-run").stdout
    assert dry.splitlines() == ["would rename projects/apollo.md -> archive/apollo.md",
                                "would update 2 links in 1 page:", "  daily/2026-11-25.md (2)"]  # [[apollo]] holds
    assert (mem.path / "projects/apollo.md").exists() and mem.git("status", "--porcelain").strip() == ""
    out = mem("mv", "projects/apollo.md", "archive/apollo.md", "--no-links").stdout
    assert out.startswith("renamed projects/apollo.md -> archive/apollo.md (commit ") and "updated" not in out
    assert "[[projects/apollo#Risks|risks]]" in (mem.path / "daily/2026-11-25.md").read_text()
    names = mem.git("show", "--no-renames", "--name-only", "--format=", "HEAD").split()
    assert names == ["archive/apollo.md", "projects/apollo.md"]


def test_mv_keeps_a_persons_uncommitted_edits_out_of_its_commit(mem: Mem) -> None:
    _linked(mem)
    mem.write("daily/2026-11-25.md", (mem.path / "daily/2026-11-25.md").read_text() + "- my draft line\n")
    mem.write("projects/apollo.md", (mem.path / "projects/apollo.md").read_text() + "- unsaved idea\n")
    mem("mv", "projects/apollo.md", "archive/apollo.md")
    committed = mem.git("show", "HEAD:daily/2026-11-25.md") + mem.git("show", "HEAD:archive/apollo.md")
    assert "my draft line" not in committed and "unsaved idea" not in committed
    assert "[[archive/apollo#Risks|risks]]" in committed
    daily = (mem.path / "daily/2026-11-25.md").read_text()
    assert daily.endswith("- my draft line\n") and "[[projects/apollo#" not in daily
    assert (mem.path / "archive/apollo.md").read_text().endswith("- unsaved idea\n")
    assert sorted(mem.git("status", "--porcelain").splitlines()) == [" M archive/apollo.md", " M daily/2026-11-25.md"]


def test_mv_gives_a_persons_staged_version_of_a_linking_page_the_new_link(mem: Mem) -> None:
    """An attack run (2026-11-27): a linking page's edit was staged, and after the rename the index still
    held the old link, so the person's next commit undid gitmem's rewrite of it."""
    _linked(mem)
    mem.write("knowledge/notes.md", "# Notes\n\n- see [[reference/contacts]] for Sarah\n")
    mem.commit("a link")
    mem.write("knowledge/notes.md", "# Notes\n\n- see [[reference/contacts]] for Sarah\n- staged line\n")
    mem.git("add", "knowledge/notes.md")
    mem("mv", "reference/contacts.md", "people/contacts.md")
    assert mem.git("show", ":knowledge/notes.md") == "# Notes\n\n- see [[people/contacts]] for Sarah\n- staged line\n"
    assert mem.git("show", "HEAD:knowledge/notes.md") == "# Notes\n\n- see [[people/contacts]] for Sarah\n"
    mem.git("commit", "-q", "-m", "the person's commit")
    assert "[[people/contacts]]" in mem.git("show", "HEAD:knowledge/notes.md")


@TALLY
def test_mv_refuses_what_it_must_not_do(mem: Mem) -> None:
    _linked(mem)
    head = mem.git("rev-parse", "HEAD")
    over = mem("mv", "projects/apollo.md", "reference/contacts.md", code=1)
    assert over.stderr.startswith("error: reference/contacts.md exists already; nothing was renamed")
    assert mem("mv", "projects/apollo.md", "../outside.md", code=1).stderr.startswith("error: ")
    assert mem("mv", "projects/apollo.md", ".git/x.md", code=1).stderr.startswith("error: ")
    assert mem("mv", "nowhere.md", "x.md", code=1).stderr.startswith("error: no page nowhere.md")
    os.symlink("/etc", mem.path / "linked")
    assert "symlink" in mem("mv", "projects/apollo.md", "linked/x.md", code=1).stderr
    mem.write("drafts/new.md", "# New\n")
    assert "not committed yet" in mem("mv", "drafts/new.md", "drafts/b.md", code=1).stderr
    mem.git("add", "knowledge/notes.md")
    mem.write("knowledge/notes.md", "# Notes\n\n- staged\n")
    mem.git("add", "knowledge/notes.md")
    assert "staged" in mem("mv", "knowledge/notes.md", "knowledge/n.md", code=1).stderr
    assert mem.git("rev-parse", "HEAD") == head and (mem.path / "projects/apollo.md").exists()
    # a name with no note suffix is a page name (.md added), as for every verb
    assert mem.json("mv", "projects/apollo", "projects/apollo-2")["new"] == "projects/apollo-2.md"


def test_web_rename_form_counts_links_and_api_refuses_unknown_fields(mem: Mem) -> None:
    from tests.test_web import API, client, csrf

    _linked(mem)
    c = client(mem)
    page = c.get("/page/projects/apollo.md").text
    assert '<a href="/rename/projects/apollo.md">Rename…</a>' in page
    form = c.get("/rename/projects/apollo.md").text
    assert 'Update 4 links in 1 page</label>' in form and "<li>daily/2026-11-25.md</li>" in form
    assert "knowledge/secret.md" not in form  # a private page is never counted or named
    bad = c.post("/api/mv", json={"old": "projects/apollo.md", "new": "x.md", "links": True}, headers=API)
    assert bad.status_code == 400 and bad.json()["error"] == "unknown field 'links'"
    assert c.post("/api/mv", json={"old": "projects/apollo.md", "new": "x.md"}).status_code == 403  # no X-Gitmem
    taken = c.post("/api/mv", json={"old": "projects/apollo.md", "new": "reference/contacts.md"}, headers=API)
    assert taken.status_code == 422 and taken.json()["error"].startswith("reference/contacts.md exists already")
    done = c.post("/api/mv", json={"old": "projects/apollo.md", "new": "archive/apollo.md", "no_links": True},
                  headers=API).json()
    head = mem.git("rev-parse", "HEAD").strip()
    assert (done["new"], done["pages"], done["commit"]) == ("archive/apollo.md", [], head)
    assert "[[projects/apollo#Risks|risks]]" in (mem.path / "daily/2026-11-25.md").read_text()
    # without the app's script the form posts to /rename/PATH, which does the same and redirects
    moved = c.post("/rename/archive/apollo.md", data={"csrf": csrf(c), "new": "projects/apollo.md", "links": "1"})
    assert moved.status_code == 303
    assert moved.headers["location"] == "/page/projects/apollo.md?flash=renamed%20from%20archive/apollo.md"
    assert "renamed from archive/apollo.md" in c.get(moved.headers["location"]).text


@TALLY
@pytest.mark.parametrize("side", ["old", "new"])
@pytest.mark.parametrize("case", BAD_PATHS)
def test_mv_refuses_bad_paths_on_either_side_with_one_line(mem: Mem, tmp_path: Path, side: str, case: str) -> None:
    mem.write("knowledge/page.md", "# Page\n")
    mem.commit("page")
    before, head = snapshot(tmp_path), mem.git("rev-parse", "HEAD")
    bad = BAD_PATHS[case]
    args = ["mv", bad, "knowledge/new.md"] if side == "old" else ["mv", "knowledge/page.md", bad]
    result = mem(*args, code=None)
    assert result.exit_code in (1, 2) and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert snapshot(tmp_path) == before and mem.git("rev-parse", "HEAD") == head


@TALLY
@pytest.mark.parametrize("state", ["detached HEAD", "merge conflict in progress"])
def test_mv_in_a_state_gitmem_cannot_commit_in_is_refused_untouched(mem: Mem, state: str) -> None:
    mem("remember", "The spare key is under the blue pot")
    STATES[state](mem)
    head, status = mem.git("rev-parse", "HEAD"), mem.git("status", "--porcelain")
    result = mem("mv", "knowledge/facts.md", "knowledge/keys.md", code=1)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "nothing was written" in result.stderr
    assert (mem.git("rev-parse", "HEAD"), mem.git("status", "--porcelain")) == (head, status)
    assert (mem.path / "knowledge/facts.md").exists() and not (mem.path / "knowledge/keys.md").exists()


def test_mv_of_a_page_remember_writes_says_so(mem: Mem) -> None:
    """A newcomer's `mv reference/contacts.md people/contacts.md`, then `remember`, put the new
    phone number on a new reference/contacts.md, beside the old one, with no word of it."""
    mem("remember", "Sarah Chen's phone is 555-1234")
    out = mem("mv", "reference/contacts.md", "people/contacts.md").stdout.splitlines()
    assert out[1:] == ["note: remember still puts contact facts on reference/contacts.md (it starts that page "
                       "again); give --to people/contacts.md to put them here",
                       "note: people/contacts.md is no longer one of the pages 'git mem context' gives an agent "
                       "every time"]
    assert mem.json("mv", "people/contacts.md", "people/phones.md")["notes"] == []
