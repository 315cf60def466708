"""Confidence: the annotation on a fact's line, decay by source with floors,
git blame as the last confirmation, reinforcement on use."""

from __future__ import annotations

import time
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.gitops.repo import open_notebook
from gitmem.index import confidence
from gitmem.index.confidence import Annotation
from tests.conftest import Mem, git

WEEK = 7 * 86400
LONG_AGO = "2026-01-01T12:00:00+00:00"
LONG_AGO_TS = 1767268800


def commit_at(m: Mem, when: str, message: str = "edit") -> None:
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    git(m.path, "add", "-A", env=env)
    git(m.path, "commit", "-q", "-m", message, env=env)


@given(st.sampled_from(confidence.SOURCES), st.floats(0, 1), st.from_regex(r"[a-z][a-z ]{0,30}[a-z]", fullmatch=True),
       st.one_of(st.none(), st.from_regex(r"sessions/[a-z0-9-]{1,20}\.md", fullmatch=True)))
def test_annotation_round_trips(source: str, stated: float, text: str, origin: str | None) -> None:
    line = confidence.annotate(f"- {text}", Annotation(source, stated, origin))
    body, ann = confidence.parse(line)
    assert body == f"- {text}" and ann is not None
    assert (ann.source, ann.origin) == (source, origin) and abs(ann.confidence - round(stated, 2)) < 1e-9


def test_a_line_without_annotation_parses_as_itself() -> None:
    assert confidence.parse("- plain <!-- a comment -->") == ("- plain <!-- a comment -->", None)


def test_decay_by_source_with_floors() -> None:
    assert confidence.decayed(0.8, "inferred", 10) == pytest.approx(0.8 * 0.95 ** 10)
    assert confidence.decayed(0.8, "inferred", 1000) == pytest.approx(0.0, abs=1e-9)
    assert confidence.decayed(0.9, "explicit", 10) == pytest.approx(0.9 * 0.98 ** 10)
    assert confidence.decayed(0.9, "explicit", 1000) == 0.5
    assert confidence.decayed(0.9, "preference", 1000) == 0.4
    assert confidence.decayed(0.3, "explicit", 1000) == 0.3  # stated under the floor: kept, not raised
    assert confidence.decayed(0.7, "inferred", 0) == 0.7


def test_effective_confidence_counts_from_the_commit_that_wrote_the_line(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 from s.md -->\n"
                                    "- Bob is tall\n")
    commit_at(mem, LONG_AGO)
    nb = open_notebook(mem.path)
    facts = confidence.facts(nb, "knowledge/facts.md", now=LONG_AGO_TS + 10 * WEEK)
    assert [(f.line, f.source, f.stated) for f in facts] == [(3, "inferred", 0.7), (4, "explicit", 1.0)]
    assert facts[0].effective == pytest.approx(0.7 * 0.95 ** 10, abs=1e-4)
    assert facts[1].effective == pytest.approx(0.98 ** 10, abs=1e-4)
    assert facts[0].confirmed_at == LONG_AGO_TS
    # the always-on pages are exempt
    mem.write("reference/preferences.md", "# Preferences\n\n- tea <!-- gitmem: preference 0.60 -->\n")
    commit_at(mem, LONG_AGO)
    pref = confidence.facts(nb, "reference/preferences.md", now=LONG_AGO_TS + 100 * WEEK)
    assert pref[0].effective == 0.6 and pref[0].exempt


def test_reinforced_at_most_once_an_hour(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob likes jazz <!-- gitmem: inferred 0.70 -->\n")
    commit_at(mem, LONG_AGO)
    nb = open_notebook(mem.path)
    now = LONG_AGO_TS + 10 * WEEK
    served = [("knowledge/facts.md", "- Bob likes jazz <!-- gitmem: inferred 0.70 -->")]
    assert confidence.reinforce(nb, served, now) == 1
    assert confidence.reinforce(nb, served, now + 60) == 0
    assert confidence.reinforce(nb, served, now + 3601) == 1
    effective = confidence.facts(nb, "knowledge/facts.md", now=now + 3700)[0].effective
    assert effective == pytest.approx(0.7 * 0.95 ** (10 + 3700 / WEEK) + 0.10, abs=1e-4)
    assert mem.git("status", "--porcelain") == ""  # never a commit, nothing in the work tree


def test_recall_shows_confidence_and_reinforces(mem: Mem) -> None:
    mem.write("knowledge/facts.md", "# Facts\n\n- Bob plays the theremin <!-- gitmem: inferred 0.70 -->\n")
    commit_at(mem, LONG_AGO)
    out = mem.json("recall", "theremin", "--mode", "keyword")
    hit = out["results"][0]
    expected = 0.7 * 0.95 ** ((time.time() - LONG_AGO_TS) / WEEK)
    assert hit["confidence"] == pytest.approx(expected, abs=1e-3)
    text = mem("recall", "theremin", "--mode", "keyword").stdout  # the first recall reinforced it ...
    assert f"confidence {expected + 0.05:.2f})" in text
    assert "- Bob plays the theremin\n" in text + "\n" and "gitmem:" not in text  # the comment is not shown
    again = mem.json("recall", "theremin", "--mode", "keyword")["results"][0]["confidence"]
    assert again == pytest.approx(expected + 0.05, abs=1e-3)  # ... the second, within the hour, did not


def test_confidence_is_a_mild_ranking_factor(mem: Mem) -> None:
    # a and b differ only in the stated confidence, so BM25 scores them alike before the factor
    mem.write("knowledge/a.md", "# A\n\n- Bob plays the theremin <!-- gitmem: inferred 0.20 -->\n")
    mem.write("knowledge/b.md", "# B\n\n- Bob plays the theremin <!-- gitmem: inferred 0.90 -->\n")
    mem.write("knowledge/c.md", "# C\n\n- Bob plays the theremin\n")
    mem.commit()
    hits = mem.json("search", "theremin", "--mode", "keyword")["results"]
    scores = {h["path"]: (h["score"], h["confidence"]) for h in hits}
    assert scores["knowledge/a.md"][1] == pytest.approx(0.2, abs=1e-3)
    assert scores["knowledge/a.md"][0] / scores["knowledge/b.md"][0] == pytest.approx(0.92 / 0.99, abs=1e-3)
    assert scores["knowledge/c.md"] == (1.0, None)  # no learned fact: untouched (the best keyword match)
    assert [h["path"] for h in hits] == ["knowledge/c.md", "knowledge/b.md", "knowledge/a.md"]
