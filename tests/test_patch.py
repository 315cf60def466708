"""notes/patch.py: a proposal's own change made to the page as it is now, never a union of the versions."""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given, settings, strategies as st

from gitmem.notes import patch

ITEMS = ["# T", "- a", "- b", "- c", "- d", "- e"]
LINES = st.lists(st.sampled_from(ITEMS + [""]), max_size=8)


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_cases() -> None:
    # two proposals that each append to the same page: both land, in order
    assert patch.apply("# F\n\n- one\n", "# F\n\n- one\n- b\n", "# F\n\n- one\n- a\n") == "# F\n\n- one\n- a\n- b\n"
    # a line the person removed next to the proposal's stays removed
    assert patch.apply("- one\n- L\n", "- one\n- L\n- X\n", "- one\n") == "- one\n- X\n"
    # a line the proposal changes that the person changed too: it does not apply
    assert patch.apply("- L\n", "- L2\n", "- L edited\n") is None
    # changes land where their lines are now
    assert patch.apply("a\nb\nc\n", "A\nb\nC\n", "z\na\nb\nc\n") == "z\nA\nb\nC\n"
    # added at the end of the page: at its end, even when everything above is gone
    assert patch.apply("# F\n\n- a\n- b\n", "# F\n\n- a\n- b\n- c\n", "# F") == "# F\n- c\n"
    # a page the proposal made that another proposal made meanwhile: its lines join, the title once
    assert patch.apply("", "# F\n\n- b\n", "# F\n\n- a\n") == "# F\n\n- a\n- b\n"


@settings(max_examples=200, deadline=None)
@given(theirs=LINES, ours=LINES)
def test_a_page_made_twice_keeps_every_line_of_both(theirs: list[str], ours: list[str]) -> None:
    result = patch.apply("", text(theirs), text(ours))
    assert result is not None and _within(text(ours).split("\n"), result.split("\n"))
    assert _within(text(theirs).split("\n"), result.split("\n"))


def _within(part: list[str], whole: list[str]) -> bool:
    """Whether `part` is a subsequence of `whole`."""
    rest = iter(whole)
    return all(line in rest for line in part)


@settings(max_examples=300, deadline=None)
@given(base=LINES, theirs=LINES, ours=LINES)
@example(base=["", "", "# T"], theirs=[], ours=["# T"])
@example(base=["# T", "# T", ""], theirs=[], ours=["# T", "# T"])
def test_applies_exactly_the_proposals_change(base: list[str], theirs: list[str], ours: list[str]) -> None:
    """Whatever it writes holds each line as often as the page does now plus what the proposal
    added minus what it removed: nothing the person removed comes back. (Blank lines are left out
    of the count: a trailing newline and an empty line are one and the same in these strings, so
    hypothesis found pages emptied by the proposal, rightly "", that the count called wrong.)"""
    result = patch.apply(text(base), text(theirs), text(ours))
    if result is None:
        return

    def lines(page: str) -> Counter[str]:
        return Counter(line for line in page.split("\n") if line)

    counts = lines(text(ours))
    counts.update(lines(text(theirs)))
    counts.subtract(lines(text(base)))
    assert lines(result) == +counts and all(v >= 0 for v in counts.values())


@settings(max_examples=200, deadline=None)
@given(base=st.lists(st.sampled_from(ITEMS), unique=True), theirs=st.lists(st.sampled_from(ITEMS), max_size=8),
       before=LINES)
def test_lines_the_person_added_above_stay(base: list[str], theirs: list[str], before: list[str]) -> None:
    """(Distinct lines: where blank or repeated lines are, more than one place is right.)"""
    assert patch.apply(text(base), text(base), text(before + base)) == text(before + base)
    assert patch.apply(text(base), text(theirs), text(base)) == text(theirs)
    assert patch.apply(text(base), text(theirs), "# mine\n" + text(base)) == "# mine\n" + text(theirs)
