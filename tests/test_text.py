"""gitmem/text.py: the sanitiser every text from outside goes through, and bounded JSON."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, strategies as st

from gitmem.text import MAX_DEPTH, TooDeep, clean_text, depth, loads

C0 = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


@given(st.text())
def test_clean_text_leaves_no_control_but_tab_and_newline(s: str) -> None:
    out = clean_text(s)
    assert not C0.search(out) and clean_text(out) == out
    out.encode("utf-8")  # always writable as UTF-8 (no lone surrogate)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"))))
def test_clean_text_keeps_ordinary_text_exactly(s: str) -> None:
    assert clean_text(s) == s
    assert clean_text(s + "\n\t" + s) == s + "\n\t" + s


def test_clean_text_cases() -> None:
    assert clean_text("a\0b\x1b[31mc\x07\x08\x7f") == "ab[31mc"
    assert clean_text("one\r\ntwo\rthree") == "one\ntwo\nthree"
    assert clean_text("half \ud800 pair") == "half \ufffd pair"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=20))
def test_loads_reads_what_json_writes(value: object) -> None:
    raw = json.dumps(value)
    assert loads(raw) == value and depth(raw) <= MAX_DEPTH


@pytest.mark.parametrize("raw", ["[" * 65 + "]" * 65, '{"a": ' * 100_000 + "1" + "}" * 100_000, "[" * 1_000_000])
def test_loads_refuses_deep_nesting(raw: str) -> None:
    with pytest.raises(TooDeep):
        loads(raw)


def test_brackets_inside_strings_do_not_count() -> None:
    raw = json.dumps({"text": "[" * 1000 + '\\" {{{ "'})
    assert depth(raw) == 1 and loads(raw)["text"].startswith("[[[")
    assert loads("[" * 64 + "]" * 64) == eval("[" * 63 + "[]" + "]" * 63)
