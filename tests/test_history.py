"""--history: current and superseded text with from/until and the commit that
changed it; deleted and renamed pages; merges; date filters. On a scripted
week of memory (fixed commit dates) and as a property over generated histories."""

from __future__ import annotations

import json
import re
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.search import views
from gitmem.index.indexer import Index
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem
from tests.histories import Generated, assert_at_lines, git, show, week
from tests.test_views import query

TOKEN = re.compile(r"tok\d{4}x")


@pytest.fixture
def wk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Mem, dict[str, str]]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    ids = week(tmp_path / "week")
    return Mem(tmp_path / "week", monkeypatch), ids


def by_text(results: list[dict], needle: str) -> list[dict]:
    return [r for r in results if needle in r["text"]]


def test_a_changed_fact_shows_current_and_superseded(wk) -> None:
    m, ids = wk
    out = m.json("recall", "--history", "Sarah's phone")
    assert out["view"] == {"kind": "history"}
    # one result per fact: Bob's phone on the same page is a result of its own
    [now] = [r for r in out["results"] if r["current"] and r["path"] == "reference/contacts.md"
             and "Sarah" in r["fact"]["text"]]
    assert "555-4321" in now["text"] and now["until"] is None and now["changed_by"] is None
    old = [r for r in out["results"] if not r["current"] and "555-1234" in r["text"]]
    assert len(old) == 1, "one result per change, not one per intermediate edit of the section"
    [old] = old
    # true from the commit that wrote the number (not the later edit that added Bob) ...
    assert (old["commit"], old["date"]) == (ids["contacts"], "2026-02-02T09:00:00+00:00")
    # ... until the commit that changed it
    assert old["until"] == "2026-02-04T10:00:00+00:00"
    assert old["changed_by"] == {"commit": ids["sarah"], "date": "2026-02-04T10:00:00+00:00",
                                 "author": "Ada Lovelace", "subject": "Sarah has a new phone number",
                                 "how": "edited", "path": "reference/contacts.md",
                                 "lines": ["- Sarah Chen's phone is 555-1234"]}
    assert_at_lines(show(m.path, old["revision"], old["path"]), old["text"], old["lines"]["start"], old["lines"]["end"])
    text = m("recall", "--history", "--mode", "keyword", "555-1234").stdout
    assert f'no longer true: edited in {ids["sarah"][:7]} 2026-02-04 "Sarah has a new phone number"' in text
    assert f"({ids['contacts'][:7]} 2026-02-02, until 2026-02-04)" in text


def test_without_history_only_the_current_text(wk) -> None:
    m, _ = wk
    assert m.json("recall", "--mode", "keyword", "1234")["results"] == []
    # the old number, with the fact that stands in its place now above it (no hit of its own)
    now, old = m.json("recall", "--history", "--mode", "keyword", "1234")["results"]
    assert now["current"] and "555-4321" in now["fact"]["text"] and now["changed_by"] is None
    assert not old["current"] and "555-1234" in old["text"]
    assert all(r["current"] for r in m.json("recall", "Sarah's phone")["results"])


def test_a_deleted_page_is_reachable_with_history_and_at(wk) -> None:
    m, ids = wk
    assert m.json("recall", "--mode", "keyword", "passport")["results"] == []
    [hit] = m.json("recall", "--history", "--mode", "keyword", "passport")["results"]
    assert hit["path"] == "lists/todos.md" and hit["current"] is False
    assert hit["changed_by"]["how"] == "deleted" and hit["changed_by"]["commit"] == ids["drop"]
    assert hit["commit"] == ids["todos"]
    at = m.json("recall", "--at", ids["todos"], "--mode", "keyword", "passport")["results"]
    assert [r["path"] for r in at] == ["lists/todos.md"]
    assert m.json("get", "lists/todos.md", "--at", "2026-02-05")["text"].startswith("# Todos\n\n- [ ] Renew")
    assert m("get", "lists/todos.md", code=1).stderr.startswith("error: no page lists/todos.md in the notebook")


def test_a_renamed_page_keeps_its_history(wk) -> None:
    m, ids = wk
    out = m.json("recall", "--history", "--mode", "keyword", "wifi password")["results"]
    [current] = [r for r in out if r["current"]]
    assert current["path"] == "knowledge/general.md" and "weekly" in current["text"]
    [old] = [r for r in out if not r["current"]]
    # the monthly line was written on facts.md, renamed to general.md, then edited there
    assert old["path"] == "knowledge/facts.md" and "monthly" in old["text"]
    assert old["commit"] == ids["facts"]
    assert old["changed_by"]["commit"] == ids["wifi"] and old["changed_by"]["path"] == "knowledge/general.md"
    assert "renamed to knowledge/general.md by then" in m("recall", "--history", "--mode", "keyword", "monthly").stdout
    # between the rename and the edit, the text on the new page still comes from its first commit
    [at] = m.json("recall", "--at", ids["rename"], "--mode", "keyword", "wifi password")["results"]
    assert (at["path"], at["commit"]) == ("knowledge/general.md", ids["facts"])


def test_an_index_from_before_history_is_rederived(wk) -> None:
    m, ids = wk
    m("index")
    index = Index(open_notebook(m.path))
    for sql in ("DROP TABLE origins", "DROP TABLE merged", "DROP INDEX versions_start", "DROP INDEX versions_end",
                "DELETE FROM migrations WHERE version = 2"):
        index.conn.execute(sql)
    index.close()
    hit = m.json("recall", "--mode", "keyword", "pelican holding")["results"][0]
    assert hit["commit"] == ids["laptop2"]
    assert m.json("status")["counts"]["embeddings_computed"] == m.json("status")["counts"]["distinct_chunks"]


def test_text_from_a_merged_branch_belongs_to_its_own_commit(wk) -> None:
    m, ids = wk
    [hit] = m.json("recall", "--mode", "keyword", "pelican holding")["results"][:1]
    assert hit["path"] == "knowledge/design.md"
    assert (hit["commit"], hit["subject"]) == (ids["laptop2"], "mem: remember the logo is a pelican holding a key")
    assert hit["date"] == "2026-02-04T21:00:00+00:00"  # not the merge, 2026-02-05 09:00
    # text the merge did not bring from the branch is the first parent's
    [coffee] = m.json("recall", "--mode", "keyword", "coffee black")["results"]
    assert coffee["commit"] == ids["coffee"]


def test_uncommitted_changes_supersede_too(wk) -> None:
    m, _ = wk
    page = m.path / "reference/preferences.md"
    page.write_text(page.read_text().replace("green tea", "mint tea"))
    out = m.json("recall", "--history", "--mode", "keyword", "tea afternoon")["results"]
    [old] = [r for r in out if not r["current"]]
    assert "green tea" in old["text"] and old["changed_by"]["how"] == "uncommitted"
    assert old["changed_by"]["commit"] is None and old["until"] is not None
    [new] = [r for r in out if r["current"]]
    assert "mint tea" in new["text"] and new["commit"] is None and new["subject"] == "uncommitted"


def test_history_filters_apply_before_ranking(wk) -> None:
    m, _ = wk
    out = m.json("recall", "--history", "--mode", "keyword", "--type", "plan", "phone")
    assert out["results"] == []
    out = m.json("search", "--history", "--in", "sessions", "--mode", "keyword", "Thursday")["results"]
    assert [r["path"] for r in out] == ["sessions/2026-02-06-1430.md"]


@pytest.mark.parametrize("args, expected", [
    # auto: daily logs by the date in their name, other pages by the commit date of the text (per chunk:
    # the commit that gave the chunk its current words; per fact: the one that wrote the fact, so Bob's
    # phone, added to contacts.md on 02-03, is of 02-03 though the page changed since)
    (["--date", "2026-02-03"], {"daily/2026-02-03.md", "reference/contacts.md", "reference/plan.md"}),
    (["--date", "2026-02-03", "--by", "file"], {"daily/2026-02-03.md"}),
    (["--date", "2026-02-03", "--history"], {"daily/2026-02-03.md", "reference/contacts.md", "reference/plan.md",
                                             "reference/preferences.md", "lists/todos.md"}),
    (["--date", "2026-02-05", "--by", "commit"], {"daily/2026-02-03.md", "reference/preferences.md"}),
    (["--from", "2026-02-06", "--to", "2026-02-06"], {"daily/2026-02-06.md", "reference/plan.md"}),
    (["--since", "2026-02-07"], {"knowledge/general.md", "reference/plan.md"}),
])
def test_date_filters(wk, args: list[str], expected: set[str]) -> None:
    m, _ = wk
    words = "Sarah Bob tea coffee vendor courier sensor wifi demo plan beta testers standup passport prototype"
    out = m.json("recall", "--mode", "keyword", "-n", "100", "--min-score", "0", *args, words)
    assert {r["path"] for r in out["results"]} == expected


def test_date_filter_details(wk) -> None:
    m, ids = wk
    # the late note was committed on 02-05 into the 02-03 log: by commit date it is 02-05's
    late = m.json("recall", "--mode", "keyword", "--date", "2026-02-05", "--by", "commit", "courier")["results"]
    assert [r["path"] for r in late] == ["daily/2026-02-03.md"] and late[0]["commit"] == ids["late"]
    assert m.json("recall", "--mode", "keyword", "--date", "2026-02-03", "--by", "commit", "courier")["results"] == []
    hours = int((time.time() - 1770379200) // 3600)  # now minus 2026-02-06 12:00 UTC, in whole hours
    recent = m.json("search", "--mode", "keyword", "--since", f"{hours}h", "Thursday demo")["results"]
    assert {r["path"] for r in recent} == {"sessions/2026-02-06-1430.md", "daily/2026-02-06.md"}
    assert m("recall", "--since", "soon", "x", code=2).stderr.startswith("error: cannot read 'soon' as a date")
    assert m("recall", "--since", "7d", "--from", "2026-01-01", "x", code=2).stderr.startswith("error: --since and --from")
    assert m("recall", "--from", "2026-02-05", "--to", "2026-02-01", "x", code=2).stderr.startswith(
        "error: the range starts (2026-02-05) after it ends (2026-02-01)")


def holds(repo: Path, commit: str, lines: list[str]) -> bool:
    """Whether some note at `commit` holds all `lines` (attribution may cross a rename)."""
    names = git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    return any(all(line in show(repo, commit, n) for line in lines) for n in names if n.endswith(".md"))


def check_history(repo: Path, index: Index, token: str, at_head: bool, titled: bool = False) -> None:
    """`titled`: the token names a section (## Part TOKEN): a heading alone is never a result, so
    it is found only through the facts under it, while it has some."""
    hits = query(index, token, views.history())
    assert hits or titled, f"{token} not found in history"
    # what stands now in a superseded hit's place is a result too, though it may not hold the token
    standing = {(later.get("now") or later)["text"] for h in hits if not h.current and (later := h.successor)}
    found = [h for h in hits if not (h.current and token not in h.text and h.text in standing)]
    for hit in hits:
        if hit not in found:  # in the page as it is now, or in the words of the version it names
            page = show(repo, hit.revision, hit.path) if hit.revision else (repo / hit.path).read_text()
            assert_at_lines(page, hit.text, hit.lines["start"], hit.lines["end"])
            continue
        assert token in hit.text or (titled and hit.fact is not None and token in " ".join(hit.fact.headings))
        # the commit a result comes from is in HEAD's history and held its words
        git(repo, "merge-base", "--is-ancestor", hit.commit, "HEAD")
        lines = hit.changed_by["lines"] if hit.changed_by else [ln for ln in hit.text.split("\n") if ln.strip()]
        assert holds(repo, hit.commit, lines), f"{hit.commit[:7]} does not hold {lines}"
        if hit.current:
            page = show(repo, hit.revision, hit.path) if hit.revision else (repo / hit.path).read_text()
            assert_at_lines(page, hit.text, hit.lines["start"], hit.lines["end"])
            continue
        assert_at_lines(show(repo, hit.revision, hit.path), hit.text, hit.lines["start"], hit.lines["end"])
        change = hit.changed_by
        before = show(repo, change["commit"] + "^", change["path"])
        assert all(line in before for line in change["lines"]) and change["lines"]
        after = git(repo, "ls-tree", change["commit"], "--", change["path"]) and show(repo, change["commit"],
                                                                                       change["path"])
        assert (change["how"] == "deleted") == (after == "")
        assert any(line not in after for line in change["lines"])
    assert any(h.current for h in found) == at_head or titled


def chain_tokens(repo: Path) -> set[str]:
    """Tokens in the notebook at any commit of HEAD's first-parent chain."""
    found: set[str] = set()
    for rev in git(repo, "rev-list", "--first-parent", "HEAD").split():
        for path in git(repo, "ls-tree", "-r", "--name-only", rev).splitlines():
            if path.endswith(".md"):
                found.update(TOKEN.findall(show(repo, rev, path)))
    return found


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_history_is_sound_over_generated_histories(data: st.DataObject) -> None:
    """Every token the first-parent history ever held is found (a token that
    only lived inside a merged branch is reachable with --at, not --history);
    current results are where they say, superseded ones at their revision, and
    the commit said to have changed them did remove one of their lines."""
    with generated(data) as (repo, index, tokens):
        now = "\n".join(p.read_text() for p in repo.rglob("*.md"))
        on_chain = chain_tokens(repo)
        titled = set(re.findall(r"## Part (tok\d{4}x)", "\n".join(
            show(repo, rev, path) for rev in git(repo, "rev-list", "--first-parent", "HEAD").split()
            for path in git(repo, "ls-tree", "-r", "--name-only", rev).splitlines() if path.endswith(".md"))))
        for token in tokens:
            if token in on_chain:
                check_history(repo, index, token, token in now, token in titled)
            else:
                assert query(index, token, views.history()) == []


@contextmanager
def generated(data: st.DataObject) -> Iterator[tuple[Path, Index, list[str]]]:
    """A generated history, indexed: (repo, index, every token it ever used)."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        history = Generated(data.draw)
        history.build(repo)
        index = Index(open_notebook(repo))
        try:
            index.sync()
            yield repo, index, [f"tok{n:04d}x" for n in range(1, history.counter + 1)]
        finally:
            index.close()


def blamed_commit(repo: Path, rev: str | None, path: str, start: int, end: int) -> set[str]:
    """The commits `git blame` names for lines start..end of `path` at `rev` (None: the work tree)."""
    out = git(repo, "blame", "--porcelain", "-L", f"{start},{end}", *([rev] if rev else []), "--", path)
    return {line.split()[0] for line in out.splitlines() if re.match(r"^[0-9a-f]{40} \d+ \d+", line)}


def check_facts(repo: Path, index: Index, token: str) -> int:
    """Each hit's fact holds the token; a past fact is at its lines at SINCE (as blame saw it
    there) and at its revision, and CHANGED_BY's page no longer holds it; a current fact cites
    the commit git blame names. Returns how many past facts were checked."""
    past = 0
    hits = query(index, token, views.history())
    standing = {(later.get("now") or later)["text"] for h in hits if not h.current and (later := h.successor)}
    for hit in hits:
        fact = hit.fact
        # the fact holds the token, or its heading path does (a heading alone is never the fact), or
        # it stands now in the place of a past fact that held it
        assert fact is not None and (token in fact.text or token in " ".join(fact.headings)
                                     or (hit.current and fact.text in standing))
        lines = fact.lines["start"], fact.lines["end"]
        assert hit.lines["start"] <= lines[0] <= lines[1] <= hit.lines["end"]
        if hit.current:
            page = show(repo, hit.revision, hit.path) if hit.revision else (repo / hit.path).read_text()
            assert "\n".join(page.split("\n")[lines[0] - 1:lines[1]]) == fact.text
            assert blamed_commit(repo, hit.revision or "HEAD", hit.path, *lines) == {fact.commit}
            continue
        past += 1
        assert hit.since == fact.commit == hit.commit
        at_since = show(repo, hit.since, fact.blamed["path"]).split("\n")
        assert "\n".join(at_since[fact.blamed["lines"]["start"] - 1:fact.blamed["lines"]["end"]]) == fact.text
        at_rev = show(repo, hit.revision, hit.path).split("\n")
        assert "\n".join(at_rev[lines[0] - 1:lines[1]]) == fact.text
        assert blamed_commit(repo, hit.revision, hit.path, *lines) == {hit.since}
        change = hit.changed_by
        after = git(repo, "ls-tree", change["commit"], "--", change["path"]) and show(repo, change["commit"],
                                                                                       change["path"])
        assert fact.text not in after.split("\n"), f"{change['commit'][:7]} still holds {fact.text!r}"
        assert hit.until == change["date"]
    return past


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_history_facts_agree_with_git_blame_and_show(data: st.DataObject) -> None:
    """Over generated histories (edits, deletes, renames, merges): every token's facts, current
    and past, are where they say, with the commits git blame and git show agree on."""
    with generated(data) as (repo, index, tokens):
        on_chain = chain_tokens(repo)
        for token in tokens:
            if token in on_chain:
                check_facts(repo, index, token)


def test_a_changed_phone_is_one_past_fact_with_since_until_and_changed_by(mem: Mem) -> None:
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen phone: 555-1234\n")
    added = mem.commit("Sarah's number")
    mem.write("reference/contacts.md", "# Contacts\n\n- Bob: 555-0000\n- Sarah Chen phone: 555-1234\n- Hand note\n")
    mem.commit("Bob and a hand note")
    mem.write("reference/contacts.md", "# Contacts\n\n- Bob: 555-0000\n- Sarah Chen phone: 555-9999\n- Hand note\n")
    changed = mem.commit("Sarah's new number")
    results = mem.json("recall", "--mode", "keyword", "--history", "Sarah phone")["results"]
    past = [r for r in results if not r["current"]]
    assert len(past) == 1
    old = past[0]
    assert old["fact"]["text"] == "- Sarah Chen phone: 555-1234"
    assert old["since"] == added and old["changed_by"]["commit"] == changed
    assert mem.git("show", f"{old['revision']}:reference/contacts.md").split("\n")[old["fact"]["lines"]["start"] - 1] \
        == "- Sarah Chen phone: 555-1234"
    now = [r for r in results if r["current"]]
    assert now[0]["fact"]["text"] == "- Sarah Chen phone: 555-9999" and now[0]["fact"]["commit"] == changed


def test_history_embeds_nothing_but_the_query(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fact vectors are computed at index time and read from the embedding cache: a --history
    query (past facts included) embeds no fact, and names what replaced a superseded one."""
    from gitmem.index import embed
    from gitmem.search import engine

    mem.write("reference/contacts.md", "# Contacts\n\n- Bob likes jazz\n- Sarah Chen's phone is 555-1234\n"
                                       "- Dana works at the bakery\n")
    mem.commit("contacts")
    mem.write("reference/contacts.md", "# Contacts\n\n- Bob likes jazz\n- Sarah Chen's phone is 555-9999\n"
                                       "- Dana works at the bakery\n")
    mem.commit("Sarah's new number")
    mem("index")
    nb = open_notebook(mem.path)
    embedded: list[str] = []
    original = embed.Embedder.embed

    def counting(self: embed.Embedder, texts: list[str]) -> list[bytes]:
        embedded.extend(texts)
        return original(self, texts)

    monkeypatch.setattr(embed.Embedder, "embed", counting)
    found = engine.run(nb, engine.Query("how do I call Sarah", history=True, min_score=0))
    assert embedded == []
    [old] = [h for h in found.results if not h.current]
    assert old.fact is not None and old.fact.text == "- Sarah Chen's phone is 555-1234"
    assert old.successor is not None and old.successor["text"] == "- Sarah Chen's phone is 555-9999"
    assert old.record()["successor"] == {"text": "- Sarah Chen's phone is 555-9999", "where": "reference/contacts.md:4",
                                         "current": True}


def test_a_superseded_fact_never_ranks_above_its_successor(mem: Mem) -> None:
    """A newcomer's `--history "when does the beta launch"` (2026-11-26) ranked the old date first."""
    mem("remember", "The beta launch is on March 3")
    mem("remember", "The beta launch moved to March 17")
    for mode in ("keyword", "hybrid"):
        found = mem.json("recall", "--history", "--mode", mode, "when does the beta launch")["results"]
        assert [(r["fact"]["text"], r["current"]) for r in found] == [
            ("- The beta launch moved to March 17", True), ("- The beta launch is on March 3", False)], mode
        assert found[1]["successor"]["text"] == "- The beta launch moved to March 17"
        assert found[0]["score"] >= found[1]["score"]


def test_a_chain_of_successors_ranks_newest_first(mem: Mem) -> None:
    """A -> B -> C: B ranked under A while B had a successor of its own (a review, 2026-11-26)."""
    mem("remember", "The beta launch is on March 3")
    mem("remember", "The beta launch moved to March 17")
    mem("remember", "The beta launch moved to April 2")
    found = mem.json("recall", "--history", "--mode", "keyword", "--min-score", "0",
                     "when is the beta launch on March 3")["results"]
    order = [r["fact"]["text"] for r in found]
    assert order.index("- The beta launch moved to April 2") < order.index("- The beta launch moved to March 17") \
        < order.index("- The beta launch is on March 3")


def test_what_stands_now_heads_a_history_cut_short(mem: Mem) -> None:
    """A fact replaced four times: with `-n 2` the two best versions are old ones, and the fact that
    stands now, which the query's words do not match, is still the first result; each old version
    names the line that replaced it and the one standing now (a newcomer's run, 2026-11-26: the
    current value was last, or missing, and `now:` named the next value)."""
    for number in ("555-0101", "555-0202", "555-0303"):
        mem("remember", f"Sarah's phone number is {number}")
    mem("remember", "Sarah's mobile changed to 555-0505")
    results = mem.json("recall", "--history", "-n", "2", "--mode", "keyword", "phone number is")["results"]
    assert [r["current"] for r in results] == [True, False]
    assert results[0]["fact"]["text"] == "- Sarah's mobile changed to 555-0505"
    head = mem.git("rev-parse", "HEAD").strip()
    assert results[0]["fact"]["commit"] == head and results[0]["lines"] == {"start": 3, "end": 3}
    compact = mem.compact("recall", "--history", "-n", "3", "--mode", "keyword", "phone number is")["results"]
    assert [r["text"] for r in compact] == ["- Sarah's mobile changed to 555-0505",
                                            "- Sarah's phone number is 555-0303",
                                            "- Sarah's phone number is 555-0202"]
    assert compact[2]["successor"] == {"text": "- Sarah's phone number is 555-0303",
                                       "where": "reference/contacts.md:3", "current": False}
    assert compact[2]["now"] == {"text": "- Sarah's mobile changed to 555-0505", "where": "reference/contacts.md:3"}
    assert compact[1]["successor"]["current"] is True and "now" not in compact[1]
    text = mem("recall", "--history", "-n", "3", "--mode", "keyword", "phone number is").stdout
    assert ("    replaced by: reference/contacts.md:3  - Sarah's phone number is 0303\n".replace("0303", "555-0303")
            + "    now: reference/contacts.md:3  - Sarah's mobile changed to 555-0505\n") in text
    from starlette.testclient import TestClient

    from gitmem.web.app import create_app

    page = TestClient(create_app(mem.path, {"testserver"})).get(
        "/search?q=phone+number+is&mode=keyword&history=1&n=3").text
    assert "; replaced by: - Sarah&#39;s phone number is 555-0303; now: - Sarah&#39;s mobile changed to 555-0505</p>" \
        in page


def test_a_filter_keeps_out_the_fact_standing_now(mem: Mem) -> None:
    """--tag, --type and dates may leave the fact standing now out on purpose: it is named under
    the old one (`now`), not added as a result (a review, 2026-11-26: `--to` in the past gave it)."""
    mem.write("reference/phones.md", "---\ntags: [phones]\n---\n# Phones\n\n- Sarah's phone is 555-0101\n")
    mem.commit("phones, tagged")
    mem.write("reference/phones.md", "# Phones\n\n- Sarah's phone is 555-0202\n")
    mem.commit("a new number, the tag dropped")
    tagged = mem.compact("recall", "--history", "--tag", "phones", "--mode", "keyword", "Sarah's phone")["results"]
    assert [r["text"] for r in tagged] == ["- Sarah's phone is 555-0101"]
    assert tagged[0]["now"] if "now" in tagged[0] else tagged[0]["successor"]["current"]
    plain = mem.compact("recall", "--history", "--mode", "keyword", "555-0101")["results"]
    assert [r["text"] for r in plain] == ["- Sarah's phone is 555-0202", "- Sarah's phone is 555-0101"]


def test_a_fact_removed_since_its_replacement_names_no_current_fact(mem: Mem) -> None:
    """A -> B, then B deleted: A names B as what replaced it, and nothing as standing now."""
    mem("remember", "The staging server is at 10.0.0.7")
    rel = mem.json("remember", "The staging server moved to 10.0.0.9")["path"]
    page = mem.path / "notes" / rel if (mem.path / "notes" / rel).exists() else mem.path / rel
    page.write_text(page.read_text().replace("- The staging server moved to 10.0.0.9\n", ""))
    mem.commit("staging is gone")
    results = mem.compact("recall", "--history", "--mode", "keyword", "staging server")["results"]
    [old] = [r for r in results if "10.0.0.7" in r["text"]]
    assert old["successor"] == {"text": "- The staging server moved to 10.0.0.9", "where": f"{rel}:3",
                                "current": False}
    assert "now" not in old and all("superseded" in r for r in results)
    [gone] = [r for r in results if "10.0.0.9" in r["text"]]  # taken away by hand, nothing in its place
    assert gone["superseded"]["how"] == "removed" and old["superseded"]["how"] == "edited" and "successor" not in gone
    text = mem("recall", "--history", "--mode", "keyword", "staging server").stdout
    assert f"    replaced by: {rel}:3  - The staging server moved to 10.0.0.9\n" in text and "now:" not in text


def test_versions_of_a_fact_come_newest_first_across_a_rename(mem: Mem) -> None:
    """Four numbers by remember, the page renamed, a fifth by hand: every version in order, newest
    first, and `-n 2` gives the number now and the one just before it (a newcomer's run,
    2026-11-26: `-n 2` gave 0004 and 0001, and after a rename the predecessor came last)."""
    mem("remember", "Dana's phone is 555-0001")
    for n in (2, 3, 4):
        mem("remember", f"Dana's phone is now 555-000{n}")
    mem.git("mv", "reference/contacts.md", "reference/dana.md")
    mem.commit("rename")
    page = mem.path / "reference/dana.md"
    page.write_text(page.read_text().replace("555-0004", "555-0005"))
    mem.commit("Dana's new phone, by hand")
    texts = [r["text"] for r in mem.compact("recall", "--history", "--mode", "keyword", "Dana's phone")["results"]]
    assert [t[-4:] for t in texts] == ["0005", "0004", "0003", "0002", "0001"]
    two = mem.compact("recall", "--history", "-n", "2", "--mode", "keyword", "Dana's phone")["results"]
    assert [r["text"][-4:] for r in two] == ["0005", "0004"] and "superseded" not in two[0]


def test_what_stands_now_on_a_private_page_or_forgotten_is_never_shown(mem: Mem) -> None:
    """The fact standing now is read as search reads pages: a page made private shows nothing of
    itself now, and a forgotten line is no successor (a review, 2026-11-26: both came back as
    results through `now`)."""
    mem("remember", "Sarah's phone is 555-0001")
    mem("remember", "Sarah's phone is now 555-0002")
    page = mem.path / "reference/contacts.md"
    page.write_text("---\nprivate: true\n---\n" + page.read_text())
    mem.commit("contacts are private now")
    out = mem.compact("recall", "--history", "--mode", "keyword", "Sarah's phone")["results"]
    assert out and all("superseded" in r and "now" not in r for r in out)
    mem("remember", "Bob's phone is 555-0101")
    mem("remember", "Bob's phone is now 555-0102")
    mem("forget", "Bob's phone is now 555-0102")
    bob = mem.compact("recall", "--history", "--mode", "keyword", "Bob's phone")["results"]
    assert "555-0102" not in json.dumps(bob)


def test_a_revert_and_disagreeing_clocks_keep_the_versions_in_commit_order(
        mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """Monday -> Friday -> Monday again: the old Monday is the oldest, not above Friday (its text is
    the current one's; a review, 2026-11-26). Versions whose commits' clocks disagree (January,
    March, February, April) come in the order of the commits, not of their dates."""
    for day in ("Monday", "Friday", "Monday"):
        mem.write("reference/standup.md", f"# Standup\n\n- The standup is on {day}\n")
        mem.commit(f"standup on {day}")
    order = [r["text"][-6:] + ("*" if "superseded" not in r else "")
             for r in mem.compact("recall", "--history", "--mode", "keyword", "standup")["results"]]
    assert order == ["Monday*", "Friday", "Monday"]
    for n, month in enumerate(("01", "03", "02", "04"), start=1):
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"2026-{month}-01T12:00:00+00:00")
        mem.write("reference/phones.md", f"# Phones\n\n- Dana's phone is 555-000{n}\n")
        mem.commit(f"phone {n}")
    texts = [r["text"][-4:] for r in mem.compact("recall", "--history", "--mode", "keyword", "Dana's phone")["results"]]
    assert texts == ["0004", "0003", "0002", "0001"]
