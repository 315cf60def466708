"""--at: the notebook exactly as it stood at a revision or date, checked
against `git show` over generated histories."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.index import chunker
from gitmem.search import engine as search, views
from gitmem.index.indexer import Index, parse
from gitmem.gitops.repo import open_notebook
from tests.conftest import Mem
from tests.histories import Builder, Generated, assert_at_lines, day, git, show

TOKEN = re.compile(r"tok\d{4}x")
ALL_GROUPS = ("notebook", "daily", "sessions")


def expected_chunks(repo: Path, rev: str, nb) -> list[tuple[str, chunker.Chunk]]:
    """Every chunk of every note at `rev`, straight from git and the chunker."""
    s = nb.settings
    out = []
    for line in git(repo, "ls-tree", "-r", "--name-only", rev).splitlines():
        if not s.is_note(line):
            continue
        parsed = parse(show(repo, rev, line).encode())
        out.extend((line, c) for c in chunker.chunk(parsed.text, s.max_chars, s.overlap_chars, parsed.body))
    return out


def query(index: Index, text: str, view: views.View) -> list[search.Hit]:
    q = search.Query(text, mode="keyword", groups=ALL_GROUPS, limit=1000, min_score=0.0)
    return search.rank(index, q, None, view)


def check_revision(repo: Path, index: Index, rev: str, asked: str) -> None:
    """Every result is in `git show REV:path` at its lines, and every chunk at
    REV is found by a token only it contains (or, failing one, by all its tokens)."""
    view = views.at_revision(index, asked)
    assert view.revision is not None and view.revision.commit == rev
    chunks = expected_chunks(repo, rev, index.nb)
    owners: dict[str, set[int]] = {}
    for i, (_, c) in enumerate(chunks):
        for token in set(TOKEN.findall(c.text)):
            owners.setdefault(token, set()).add(i)
    for i, (path, c) in enumerate(chunks):
        if all(ln.lstrip().startswith("#") for ln in c.text.split("\n") if ln.strip()):
            continue  # headings alone are never a result (search/facts.py): nothing to find
        tokens = sorted(set(TOKEN.findall(c.text)))
        unique = [t for t in tokens if owners[t] == {i}]
        hits = query(index, unique[0] if unique else " ".join(tokens) or c.text, view)
        for hit in hits:
            assert hit.revision == rev
            assert_at_lines(show(repo, rev, hit.path), hit.text, hit.lines["start"], hit.lines["end"])
        found = {(h.path, h.lines["start"], h.lines["end"], h.text) for h in hits}
        assert (path, c.start_line, c.end_line, c.text) in found, f"chunk of {path} at {rev[:7]} not found"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_at_is_exact_over_generated_histories(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        history = Generated(data.draw)
        commits = history.build(repo)
        nb = open_notebook(repo)
        index = Index(nb)
        try:
            index.sync()
            on_chain = set(git(repo, "rev-list", "--first-parent", "HEAD").split())
            for rev in commits:
                check_revision(repo, index, rev, rev)
            # a date between two first-parent commits names the earlier one
            chain = [c for c in commits if c in on_chain]
            i = data.draw(st.integers(0, len(chain) - 1))
            when = int(git(repo, "log", "-1", "--format=%ct", chain[i]).strip()) + 59 * 60
            from datetime import datetime

            stamp = datetime.fromtimestamp(when).astimezone().isoformat(timespec="minutes")
            check_revision(repo, index, chain[i], stamp)
        finally:
            index.close()


def test_at_on_the_command_line(mem: Mem) -> None:
    mem.write("reference/plan.md", "# Plan\n\nLaunch on the first of March with the zeppelin.\n")
    first = mem.commit("plan v1")
    mem.write("reference/plan.md", "# Plan\n\nLaunch on the tenth of April with the balloon.\n")
    mem.commit("plan v2")
    out = mem.json("recall", "--at", first, "--mode", "keyword", "launch")
    assert [h["text"] for h in out["results"]] == ["# Plan\n\nLaunch on the first of March with the zeppelin."]
    assert out["results"][0]["revision"] == first and out["view"]["commit"] == first
    assert out["view"]["kind"] == "at" and out["view"]["first_parent"] is True
    assert "balloon" in mem.json("recall", "--mode", "keyword", "launch")["results"][0]["text"]
    text = mem("recall", "--at", "HEAD~1", "--mode", "keyword", "launch").stdout
    assert text.startswith(f"as at {first[:7]} ") and "zeppelin" in text
    assert mem("recall", "--at", "no-such-rev", "x", code=1).stderr.startswith("error: unknown revision 'no-such-rev'")
    # a date that is none is said as --from says it, not as a revision git does not know (a newcomer)
    assert mem("recall", "--at", "2026-13-45", "x", code=2).stderr.startswith(
        "error: '2026-13-45' is not a valid date (month must be in 1..12)")
    assert mem("recall", "--at", "HEAD", "--history", "x", code=2).stderr.startswith("error: --at and --history")


def test_at_a_revision_off_the_first_parent_chain(mem: Mem) -> None:
    side = mem.side_edit("notes/a.md", "# A\n\nThe quokka lives on Rottnest.\n",
                         "# A\n\nThe quokka lives on Rottnest island, near Perth.\n")
    mem.write("notes/b.md", "# B\n\nUnrelated wombat.\n")
    mem.commit("b")
    mem("index")
    out = mem.json("recall", "--at", side, "--mode", "keyword", "quokka")
    assert out["view"]["first_parent"] is False
    hit = out["results"][0]
    assert hit["text"].endswith("near Perth.") and hit["commit"] == side and hit["revision"] == side
    assert_at_lines(show(mem.path, side, "notes/a.md"), hit["text"], hit["lines"]["start"], hit["lines"]["end"])
    assert mem.json("recall", "--at", side, "--mode", "keyword", "wombat")["results"] == []
    assert mem.json("recall", "--mode", "keyword", "wombat")["results"][0]["path"] == "notes/b.md"


def test_at_a_date_and_a_period(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = Builder()
    b.commit("v1", day("2026-01-10 09:00"), {"plan.md": "# Plan\n\nShip the walrus release.\n"})
    b.commit("v2", day("2026-01-12 18:00"), {"plan.md": "# Plan\n\nShip the narwhal release.\n"})
    commits = b.write(tmp_path / "r")
    monkeypatch.setenv("TZ", "UTC")
    __import__("time").tzset()
    m = Mem(tmp_path / "r", monkeypatch)
    assert m.json("recall", "--at", "2026-01-11", "--mode", "keyword", "ship")["view"]["commit"] == commits[0]
    assert m.json("recall", "--at", "2026-01-12", "--mode", "keyword", "ship")["view"]["commit"] == commits[1]
    assert m.json("recall", "--at", "2026-01-12T17:59", "--mode", "keyword", "ship")["view"]["commit"] == commits[0]
    assert m.json("recall", "--at", "1d", "--mode", "keyword", "ship")["view"]["commit"] == commits[1]
    err = m("recall", "--at", "2026-01-09", "x", code=1).stderr
    assert err.startswith("error: the notebook has no commits at or before 2026-01-09 (its history starts 2026-01-10")
    assert m.json("get", "plan.md", "--at", "2026-01-11")["text"] == "# Plan\n\nShip the walrus release.\n"


@pytest.mark.parametrize("command, options", [
    ("recall", ["--at", "--history", "--since", "--from", "--to", "--date", "--by"]),
    ("search", ["--at", "--history", "--date"]),
    ("get", ["--at"]),
])
def test_help_has_an_example_of_each_history_option(blank: Mem, command: str, options: list[str]) -> None:
    examples = blank(command, "--help").stdout.split("Examples:")[1]
    for option in options:
        assert f" {option} " in examples, f"no example of {command} {option}"


def test_history_in_a_notebook_inside_a_code_repository(blank: Mem) -> None:
    blank.git("init", "-q")
    blank.write("src/app.py", "print('hi')\n")
    blank.commit("code")
    blank("init", "--no-index", "--dir", "memory")
    blank.write("memory/knowledge/stack.md", "# Stack\n\nThe API runs on Falcon.\n")
    first = blank.commit("stack v1")
    blank.write("src/app.py", "print('hello')\n")
    blank.commit("code only")
    blank.write("memory/knowledge/stack.md", "# Stack\n\nThe API runs on FastAPI.\n")
    blank.commit("stack v2")
    [hit] = blank.json("recall", "--at", "HEAD~1", "--mode", "keyword", "API")["results"]
    assert hit["path"] == "knowledge/stack.md" and "Falcon" in hit["text"] and hit["commit"] == first
    assert blank.json("get", "knowledge/stack.md", "--at", "HEAD~1")["text"].endswith("Falcon.\n")
    log = blank.json("log")["entries"]
    assert [e["subject"] for e in log] == ["stack v2", "stack v1"]  # the code-only commit is not memory
    old = [r for r in blank.json("recall", "--history", "--mode", "keyword", "API")["results"] if not r["current"]]
    assert old[0]["changed_by"]["subject"] == "stack v2"
