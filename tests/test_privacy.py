"""One reading of "private" everywhere: any key case, any yes-like value (gitmem/privacy.py).

`Private: true`, `PRIVATE: TRUE`, `private: 1`, `private: "yes"` and `private: [true]` were read as
public: such sessions were sent to the LLM and such pages printed by `git mem context`. Each
marking is tried through the index (recall), context, consolidation, the web app's listing and the
MCP tools."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, strategies as st

from gitmem.agent import llm, server
from gitmem.gitops.repo import open_notebook
from gitmem.index.blobs import parse
from gitmem.privacy import is_private, says_yes
from gitmem.web import files
from tests.conftest import Mem
from tests.llmserver import LLMServer, answer

pytestmark = pytest.mark.tally("bad-input/fault matrix")

MARKS = ["Private: true", "PRIVATE: TRUE", "private: 1", 'private: "yes"', "private: [true]", "private: yes",
         "private: on", " private : True", "Private: Y", "private: {why: therapy}", "private: 2026-11-20"]
PUBLIC = ["private: false", "Private: no", "PRIVATE: 0", 'private: "off"', "private: []", "private:",
          "private: [false, no]", "title: not about it", "privately: true"]


@pytest.mark.parametrize("mark", MARKS)
def test_every_way_of_saying_private_is_private(mark: str) -> None:
    assert parse(f"---\n{mark}\n---\n# Page\n".encode()).private == 1


@pytest.mark.parametrize("mark", PUBLIC)
def test_plain_no_and_other_keys_are_public(mark: str) -> None:
    assert parse(f"---\n{mark}\n---\n# Page\n".encode()).private == 0


@given(st.tuples(*(st.sampled_from([c, c.upper()]) for c in "private")).map("".join),
       st.sampled_from([True, 1, "yes", "TRUE", "y", [True], ["yes"], {"a": 1}, 0.5]))
def test_any_key_case_and_any_yes_value(key: str, value: object) -> None:
    assert is_private({key: value}) and says_yes(value)


@given(st.recursive(st.sampled_from([None, False, 0, "", "no", "False", "OFF", "null"]),
                    lambda inner: st.lists(inner, max_size=3), max_leaves=8))
def test_only_plain_no_reads_as_public(value: object) -> None:
    assert not is_private({"private": value})


@pytest.fixture
def marked(mem: Mem) -> Mem:
    """One always-on page and one session per marking, each with its own word, committed."""
    for i, mark in enumerate(MARKS[:5]):
        mem.write(f"reference/user{i}.md",  # always-on: context reads it
                  f"---\n{mark}\n---\n# Secret\n\nThe quokka{i} plan is secret\n")
        mem.write(f"sessions/2026-11-20-090{i}-aaaaaaa{i}.md",
                  f"---\nchat: \"p{i}\"\n{mark}\n---\nuser: my wombat{i} plans are secret\n")
    mem.write("knowledge/open.md", "# Open\n\nThe quokka open plan is public\n")
    mem.commit("private pages and sessions")
    return mem


def test_private_pages_stay_out_of_recall_context_web_and_mcp(marked: Mem) -> None:
    mem = marked
    for i in range(5):
        assert mem.json("recall", "--mode", "keyword", "--min-score", "0", f"quokka{i}")["results"] == []
        assert mem.json("search", "--mode", "keyword", "--min-score", "0", f"wombat{i}")["results"] == []
    assert [h["path"] for h in mem.json("recall", "--mode", "keyword", "quokka open")["results"]] == \
        ["knowledge/open.md"]
    out = mem.json("context", "--date", "2026-11-20")
    assert "quokka" not in out["text"] and out["parts"] == []
    assert sorted(o["path"] for o in out["omitted"] if o["reason"] == "private: true in its frontmatter") == \
        [f"reference/user{i}.md" for i in range(5)]
    nb = open_notebook(mem.path)
    listed = {s.path: s.private for s in files.sessions(nb)}
    assert len(listed) == 5 and all(listed.values())
    assert all(p["private"] for p in files.export(nb)["pages"] if "quokka" in p["text"] and "open" not in p["text"])
    os.chdir(mem.path)
    handler = server.Handler(nb)
    for i in range(5):
        ok, found = handler.call("recall", {"query": f"quokka{i}", "mode": "keyword", "min_score": 0})
        assert ok and found["results"] == []
    ok, ctx = handler.call("context", {"date": "2026-11-20"})
    assert ok and "quokka" not in ctx["text"]


def test_private_sessions_are_never_sent_to_the_llm(marked: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint = LLMServer()
    try:
        monkeypatch.setenv("GITMEM_LLM_URL", endpoint.url)
        monkeypatch.setenv("GITMEM_LLM_MODEL", "test-model")
        monkeypatch.setattr(llm, "BACKOFF", 0.01)
        endpoint.then(("json", answer(facts=[], preferences=[], summary="nothing", topics=[])))
        out = marked.json("consolidate")
        assert [s["status"] for s in out["sessions"]] == ["private"] * 5 and endpoint.requests == []
    finally:
        endpoint.close()
