"""A personal notebook beside the project's (search/scopes.py, notes/scopes.py): recall reads both and
labels each result, `remember --scope personal` writes there, preferences go there by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Mem, git


@pytest.fixture
def personal(mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mem:
    path = tmp_path / "me"
    path.mkdir()
    mine = Mem(path, monkeypatch)
    mine("init", "--no-index")
    git(tmp_path, "config", "--global", "mem.personal", str(path))
    return mine


def _heads(*ms: Mem) -> list[str]:
    return [m.git("rev-parse", "HEAD").strip() for m in ms]


def test_remember_scope_personal_writes_one_commit_there_only(mem: Mem, personal: Mem) -> None:
    before = _heads(mem, personal)
    out = mem.json("remember", "--scope", "personal", "My dentist is Dr. Okafor")
    assert out["scope"] == "personal" and out["path"] == "knowledge/facts.md"
    after = _heads(mem, personal)
    assert after[0] == before[0] and after[1] != before[1]
    assert personal.git("rev-list", "--count", f"{before[1]}..HEAD").strip() == "1"
    assert "Okafor" in (personal.path / "knowledge/facts.md").read_text()
    assert not (mem.path / "knowledge/facts.md").exists()


def test_recall_reads_both_notebooks_and_labels_each_result(mem: Mem, personal: Mem) -> None:
    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    found = mem.json("recall", "--mode", "keyword", "dentist")["results"]
    assert [(h["path"], h["scope"]) for h in found] == [("knowledge/facts.md", "personal")]
    found = mem.json("recall", "--mode", "keyword", "deploy")["results"]
    assert [(h["path"], h["scope"]) for h in found] == [("knowledge/infrastructure.md", "project")]
    text = mem("recall", "--mode", "keyword", "dentist").stdout
    assert "personal notebook)" in text and f"read the personal notebook too ({personal.path})" in text
    search = mem.json("search", "--mode", "keyword", "dentist OR deploy")["results"]
    assert sorted(h["scope"] for h in search) == ["personal", "project"]


def test_with_a_personal_notebook_every_compact_result_names_its_scope(mem: Mem, personal: Mem) -> None:
    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    found = mem.compact("search", "--mode", "keyword", "dentist OR deploy")["results"]
    assert sorted((h["where"], h["scope"]) for h in found) == [("knowledge/facts.md:3", "personal"),
                                                               ("knowledge/infrastructure.md:3", "project")]
    text = mem("search", "--mode", "keyword", "dentist OR deploy").stdout
    mine = next(line for line in text.splitlines() if line.startswith("  knowledge/facts.md:3 "))
    assert ", personal notebook)" in mine
    ours = next(line for line in text.splitlines() if line.startswith("  knowledge/infrastructure.md:3 "))
    assert "personal" not in ours


def test_a_preference_goes_to_the_personal_notebook_and_says_so(mem: Mem, personal: Mem) -> None:
    out = mem.json("remember", "I prefer short answers without emoji")
    assert out["scope"] == "personal" and out["path"] == "reference/preferences.md"
    assert "written to your personal notebook" in out["hint"]
    assert (personal.path / "reference/preferences.md").is_file() and not (mem.path / "reference/preferences.md").exists()
    kept = mem.json("remember", "--scope", "project", "I prefer tabs over spaces in this repo")
    assert kept["scope"] == "project" and (mem.path / "reference/preferences.md").is_file()
    assert mem.json("remember", "The build takes four minutes")["scope"] == "project"


@pytest.mark.tally("bad-input/fault matrix")
def test_without_a_personal_notebook_everything_stays_here(mem: Mem) -> None:
    assert mem.json("remember", "I prefer short answers")["scope"] == "project"
    failed = mem("remember", "--scope", "personal", "My dentist is Dr. Okafor", code=2)
    assert failed.stderr.startswith("error: no personal notebook is configured")
    assert mem.json("recall", "--mode", "keyword", "short answers")["results"][0]["scope"] == "project"
    compact = mem.compact("recall", "--mode", "keyword", "short answers")["results"]
    assert len(compact) == 1 and "scope" not in compact[0]  # no label noise without a personal notebook


def test_the_mcp_tools_read_and_write_both_scopes(mem: Mem, personal: Mem) -> None:
    from tests.test_server import handler

    h = handler(mem)
    ok, out = h.call("remember", {"text": "My dentist is Dr. Okafor", "scope": "personal"})
    assert ok and out["scope"] == "personal" and "Okafor" in (personal.path / "knowledge/facts.md").read_text()
    ok, found = h.call("recall", {"query": "dentist", "mode": "keyword"})
    assert ok and [(r["where"].split(":")[0], r["scope"]) for r in found["results"]] == \
        [("knowledge/facts.md", "personal")]  # MCP's compact results
    mem("remember", "The dentist appointments are booked through tools/book.sh")
    ok, found = h.call("search", {"query": "dentist", "mode": "keyword"})
    assert ok and sorted(r["scope"] for r in found["results"]) == ["personal", "project"]


def test_the_web_api_labels_every_result_with_its_scope(mem: Mem, personal: Mem) -> None:
    from tests.test_web import client

    mem("remember", "The deploy script is tools/deploy.sh")
    personal("remember", "My dentist is Dr. Okafor on Elm Street")
    answer = client(mem).get("/api/search", params={"query": "dentist OR deploy", "mode": "keyword"})
    assert answer.status_code == 200
    assert sorted((r["where"], r["scope"]) for r in answer.json()["results"]) == \
        [("knowledge/facts.md:3", "personal"), ("knowledge/infrastructure.md:3", "project")]
