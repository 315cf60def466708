"""docs/consolidation.md's walkthrough, run line by line as a new user would
(session -> consolidate -> review -> accept -> recall), against a local
OpenAI-compatible server standing in for the Ollama URL the page names."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gitmem.agent import llm
from tests.conftest import ROOT, Mem
from tests.llmserver import LLMServer, answer

DOC = ROOT / "docs" / "consolidation.md"


def walkthrough() -> list[str]:
    text = DOC.read_text()
    block = re.search(r"<!-- walkthrough -->\n```sh\n(.*?)```\n<!-- /walkthrough -->", text, re.DOTALL)
    assert block, "docs/consolidation.md lost its walkthrough block"
    return [ln for ln in block.group(1).split("\n") if ln.strip()]


def test_the_documented_walkthrough_works(blank: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    server = LLMServer()
    monkeypatch.setattr(llm, "BACKOFF", 0.01)
    server.then(("json", answer(facts=[{"text": "The user works at Acme as a data engineer", "source": "explicit",
                                        "confidence": 0.9}],
                                summary="The user started a new job at Acme.", topics=["work"])))
    outputs: dict[str, str] = {}
    try:
        for line in walkthrough():
            if line.startswith("export "):
                name, _, value = line[len("export "):].partition("=")
                if name == "GITMEM_LLM_URL":
                    assert value == "http://127.0.0.1:11434/v1"  # the Ollama URL the page documents
                    value = server.url
                monkeypatch.setenv(name, value)
                continue
            stdin = None
            if line.startswith("printf "):
                printed, _, line = line.partition(" | ")
                stdin = shlex.split(printed)[1].replace("\\n", "\n")
            words = shlex.split(line)
            assert words[:2] == ["git", "mem"], line
            outputs[" ".join(words[2:4])] = blank(*words[2:], input=stdin).stdout
    finally:
        server.close()
    assert len(server.requests) == 1  # the dry run sent nothing; the run sent the one session
    assert "I just started at Acme" in server.sent()
    assert "would-send" in outputs["consolidate --dry-run"] and "proposed on gitmem/proposed" in outputs["consolidate --dry-run"]
    assert "proposed" in outputs["consolidate"] and "next: git mem review" in outputs["consolidate"]
    assert "+- The user works at Acme as a data engineer <!-- gitmem: explicit 0.90" in outputs["review"]
    assert outputs["review accept"].startswith("accepted: ")
    assert "knowledge/facts.md" in outputs["recall where does the user work"]
    facts = (Path(blank.path) / "knowledge/facts.md").read_text()
    assert "The user works at Acme as a data engineer" in facts
    assert blank.git("status", "--porcelain") == ""
