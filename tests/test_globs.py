"""gitmem/globs.py: globs from a pull match in linear time and mean what the regex meant."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st

from gitmem import config, globs
from tests.conftest import Mem

EVIL = "*a" * 40 + "b"  # 40 stars: a backtracking regex tries ~n^40 ways on a path of a's
PATH = "a" * 200


@pytest.fixture
def guard() -> Iterator[None]:
    """A hang guard (not a timing assertion): the old matcher spun for hours on EVIL."""
    def stop(*_: object) -> None:
        raise AssertionError("the match did not end in 60 s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


PIECES = st.lists(st.sampled_from(["a", "b", "/", "*", "**", "**/", "?", "."]), max_size=8).map("".join)
PATHS = st.lists(st.sampled_from(["a", "b", "/", "."]), max_size=10).map("".join)


@settings(max_examples=500)
@given(PIECES, PATHS)
def test_the_automaton_means_what_the_regex_means(pattern: str, path: str) -> None:
    tokens = globs._tokens(pattern)
    assert globs.Automaton(tokens).fullmatch(path) == (globs._regex(tokens).fullmatch(path) is not None)


def test_a_glob_with_40_stars_is_matched_by_the_automaton_in_linear_steps(guard: None) -> None:
    matcher = globs.compile_glob(EVIL)
    assert isinstance(matcher, globs.Automaton)
    calls = 0
    real = globs._not_slash

    def counting(ch: str) -> bool:
        nonlocal calls
        calls += 1
        return real(ch)

    for moves in matcher.moves:
        moves[:] = [(counting if ok is real else ok, nxt) for ok, nxt in moves]
    assert matcher.fullmatch(PATH) is False and matcher.fullmatch(PATH + "b") is True
    assert calls <= 2 * 41 * (len(PATH) + 1)  # each star state looks at each character once per path


def test_defaults_stay_regexes() -> None:
    s = config.Settings()
    for pattern in (*s.include, *s.daily, *s.sessions, *s.documents, *s.always_on):
        assert not isinstance(globs.compile_glob(pattern), globs.Automaton), pattern


@pytest.mark.tally("bad-input/fault matrix")
def test_a_pulled_config_with_a_40_star_glob_does_not_stall_recall(mem: Mem, guard: None) -> None:
    toml = mem.path / ".gitmem.toml"
    toml.write_text(toml.read_text().replace('daily = ["daily/*.md"', f'daily = ["{EVIL}", "daily/*.md"'))
    assert EVIL in toml.read_text()
    mem.write(f"{PATH}.md", "# A\n\nthe ocelot sleeps\n")  # at the top: `*` never meets a '/'
    assert config.load(mem.path).group_of(f"{PATH}.md") == "notebook"
    mem.commit("a pulled config")
    hits = mem.json("recall", "--mode", "keyword", "ocelot")["results"]
    assert [h["path"] for h in hits] == [f"{PATH}.md"]


@pytest.mark.tally("bad-input/fault matrix")
def test_a_pattern_too_long_is_one_line(mem: Mem) -> None:
    toml = mem.path / ".gitmem.toml"
    toml.write_text(toml.read_text().replace('daily = ["daily/*.md"', f'daily = ["{"x" * 2000}", "daily/*.md"'))
    result = mem("recall", "x", code=None)
    assert result.exit_code == 2 and result.stderr == \
        "error: .gitmem.toml: a daily pattern is 2000 characters long, over 1024 (shorten it in daily)\n"
