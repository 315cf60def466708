"""The fact merge of notebook pages (gitops/factmerge.py): every fact both sides wrote is kept, only
the same fact changed differently conflicts, and resolving takes a side or both."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitmem.gitops.factmerge import blank_conflicts, hunks, merge_facts, resolve_text
from tests.conftest import Mem

BASE = "# Facts\n\n## People\n\n- Ada likes tea\n- Bo has a boat\n\n## Places\n\n- Oslo is cold\n"


def test_facts_added_on_both_sides_at_the_same_place_are_all_kept_in_order(tmp_path: Path) -> None:
    ours = BASE.replace("- Bo has a boat\n", "- Bo has a boat\n- Cy plays oboe\n- Di runs\n")
    theirs = BASE.replace("- Bo has a boat\n", "- Bo has a boat\n- Ed sings\n")
    merged, clean = merge_facts(BASE, ours, theirs)
    assert clean
    assert merged == BASE.replace("- Bo has a boat\n", "- Bo has a boat\n- Cy plays oboe\n- Di runs\n- Ed sings\n")
    # git's own line merge stops on the same input
    for name, text in (("base", BASE), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    assert subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp_path,
                          capture_output=True).returncode == 1


def test_an_update_on_one_side_and_a_keep_on_the_other_takes_the_update() -> None:
    ours = BASE.replace("Ada likes tea", "Ada likes coffee")
    theirs = BASE + "- Rome is warm\n"
    assert merge_facts(BASE, ours, theirs) == (ours + "- Rome is warm\n", True)


def test_adjacent_facts_changed_on_each_side_merge() -> None:
    ours = BASE.replace("Ada likes tea", "Ada likes coffee")
    theirs = BASE.replace("Bo has a boat", "Bo has two boats")
    merged, clean = merge_facts(BASE, ours, theirs)
    assert clean and "- Ada likes coffee\n- Bo has two boats\n" in merged


def test_the_same_fact_changed_differently_is_a_conflict_of_that_fact_only() -> None:
    ours = BASE.replace("Ada likes tea", "Ada likes coffee") + "- Rome is warm\n"
    theirs = BASE.replace("Ada likes tea", "Ada likes cocoa").replace("Oslo is cold", "Oslo is very cold")
    merged, clean = merge_facts(BASE, ours, theirs, ("ours: f.md", "theirs: f.md"))
    assert not clean
    assert "<<<<<<< ours: f.md\n- Ada likes coffee\n=======\n- Ada likes cocoa\n>>>>>>> theirs: f.md\n- Bo has a boat" \
        in merged
    assert "- Oslo is very cold\n- Rome is warm\n" in merged
    [hunk] = hunks(merged)
    assert (hunk.ours, hunk.theirs) == (["- Ada likes coffee"], ["- Ada likes cocoa"])
    assert resolve_text(merged, "ours")[0] == BASE.replace("Ada likes tea", "Ada likes coffee").replace(
        "Oslo is cold", "Oslo is very cold") + "- Rome is warm\n"
    both, count = resolve_text(merged, "both")
    assert count == 1 and "- Ada likes coffee\n- Ada likes cocoa\n- Bo has a boat" in both
    assert "- Ada likes cocoa\n- Bo" in resolve_text(merged, "theirs")[0]
    blanked = blank_conflicts(merged)
    assert blanked.count("\n") == merged.count("\n") and "coffee" not in blanked and "cocoa" not in blanked
    assert "Rome is warm" in blanked


def test_a_fact_deleted_on_one_side_and_changed_on_the_other_conflicts() -> None:
    ours = BASE.replace("- Ada likes tea\n", "")
    theirs = BASE.replace("Ada likes tea", "Ada likes cocoa")
    merged, clean = merge_facts(BASE, ours, theirs)
    assert not clean and "<<<<<<< ours\n=======\n- Ada likes cocoa\n>>>>>>> theirs" in merged


def test_new_sections_on_both_sides_stay_whole() -> None:
    ours = BASE + "\n## Food\n\n- milk\n"
    theirs = BASE + "\n## Tools\n\n- hammer\n"
    merged, clean = merge_facts(BASE, ours, theirs)
    assert clean and merged == BASE + "\n## Food\n\n- milk\n\n## Tools\n\n- hammer\n"


def test_crlf_pages_stay_crlf() -> None:
    crlf = BASE.replace("\n", "\r\n")
    merged, clean = merge_facts(crlf, crlf + "- a\r\n", crlf + "- b\r\n")
    assert clean and merged == crlf + "- a\r\n- b\r\n"


def test_the_driver_command_merges_fact_by_fact(mem: Mem, tmp_path: Path) -> None:
    files = {}
    for name, text in (("O", BASE), ("A", BASE + "- x\n"), ("B", BASE + "- y\n")):
        files[name] = tmp_path / name
        files[name].write_text(text)
    mem("merge-driver", "--facts", *(str(files[n]) for n in "OAB"), "knowledge/f.md")
    assert files["A"].read_text() == BASE + "- x\n- y\n"
    files["A"].write_text(BASE.replace("tea", "coffee"))
    files["B"].write_text(BASE.replace("tea", "cocoa"))
    result = mem("merge-driver", "--facts", *(str(files[n]) for n in "OAB"), "knowledge/f.md", code=1)
    assert "knowledge/f.md: both sides changed the same fact; run 'git mem resolve --take ours|theirs|both -- knowledge/f.md" in result.stderr


def test_git_merges_a_page_whose_name_starts_with_a_dash(mem: Mem) -> None:
    """A git user's run (2026-11-27): "--help.md" was read by the driver as an option, the driver
    failed, and git left the page unmerged with our side in it and no markers."""
    mem.write("--help.md", BASE)
    mem.commit("page")
    mem.git("checkout", "-q", "-b", "side")
    mem.write("--help.md", BASE + "- y\n")
    mem.commit("theirs")
    mem.git("checkout", "-q", "-")
    mem.write("--help.md", BASE + "- x\n")
    mem.commit("ours")
    mem.git("merge", "-q", "--no-edit", "side")
    assert (mem.path / "--help.md").read_text() == BASE + "- x\n- y\n"


def test_a_file_that_is_no_page_is_merged_by_git_s_own_merge(mem: Mem, tmp_path: Path) -> None:
    """A git user's run (2026-11-27): a pulled `* merge=gitmem-facts` sent code to the fact merge, which
    merged two edits of one `if` "cleanly" by keeping both."""
    files = {}
    for name, text in (("O", "if a:\n    x = 1\n"), ("A", "if a:\n    x = 2\n"), ("B", "if a:\n    x = 3\n")):
        files[name] = tmp_path / name
        files[name].write_text(text)
    result = mem("merge-driver", "--facts", "--", *(str(files[n]) for n in "OAB"), "app.py", code=1)
    assert result.stderr == "" and "<<<<<<<" in files["A"].read_text() and "x = 3" in files["A"].read_text()


def test_a_repeated_line_does_not_move_a_fact_as_git_would_not() -> None:
    """A git user's run (2026-11-27): with "- b" twice on the page, the line ours added before "- TODO"
    went to the end of the page; git's own merge keeps it in place, and so does the fact merge now."""
    base, ours = "- b\n\n- TODO\n- e\n- b\n", "- b\n\n- NEW\n- TODO\n- e\n- b\n"
    assert merge_facts(base, ours, "- Y8\n\n- TODO\n- b\n") == ("- Y8\n\n- NEW\n- TODO\n- b\n", True)


def page(lines: list[str]) -> str:
    """Lines as a file holds them: each ended by a newline."""
    return "".join(line + "\n" for line in lines)


facts = st.lists(st.sampled_from([f"- fact {i}" for i in range(12)] + ["", "## Section", "plain line"]),
                 max_size=8)


@settings(max_examples=200, deadline=None)
@given(facts, facts, facts, st.integers(0, 8), st.integers(0, 8))
@example(["- fact 1", "- fact 1"], ["- fact 0"], [""], 1, 1)  # a repeated line paired across the page (found here)
def test_lines_both_sides_add_are_all_kept_each_in_its_own_order(base: list[str], mine: list[str],
                                                                  yours: list[str], at_a: int, at_b: int) -> None:
    at_a, at_b = min(at_a, len(base)), min(at_b, len(base))
    ours = base[:at_a] + mine + base[at_a:]
    theirs = base[:at_b] + yours + base[at_b:]
    merged, clean = merge_facts(page(base), page(ours), page(theirs))
    assert clean and not hunks(merged)
    lines = merged.split("\n")
    for side in (ours, theirs):  # every line a side holds is there, in that side's order
        pos = 0
        for line in side:
            if not line:
                continue
            assert line in lines[pos:], (line, lines, side)
            pos = lines.index(line, pos) + 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([f"- fact {i}" for i in range(30)]), min_size=1, max_size=8, unique=True),
       st.data())
def test_edits_of_different_facts_never_conflict_and_the_same_one_always_does(base: list[str],
                                                                               data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(base) - 1))
    j = data.draw(st.integers(0, len(base) - 1))
    ours, theirs = list(base), list(base)
    ours[i] += " (updated here)"
    theirs[j] += " (updated there)"
    merged, clean = merge_facts("\n".join(base), "\n".join(ours), "\n".join(theirs))
    if i != j:
        assert clean and merged.split("\n") == [o if o != b else t for o, t, b in zip(ours, theirs, base)]
    else:
        assert not clean and len(hunks(merged)) == 1
        assert resolve_text(merged, "theirs")[0] == "\n".join(theirs)
        assert resolve_text(merged, "ours")[0] == "\n".join(ours)


@pytest.mark.tally("bad-input/fault matrix")
def test_the_drivers_message_shows_a_pulled_name_escaped_and_quotes_it_in_the_command(mem: Mem,
                                                                                      tmp_path: Path) -> None:
    """An attack run named a page `reference/q$(touch PWN).md` and made it conflict: pasting the
    hint ran the command substitution, and a name with ESC sequences reached the terminal raw."""
    files = {}
    for name, text in (("O", BASE), ("A", BASE.replace("tea", "coffee")), ("B", BASE.replace("tea", "cocoa"))):
        files[name] = tmp_path / name
        files[name].write_text(text)
    pulled = "reference/q$(touch PWN)';x;'\x1b]0;title\x07.md"
    result = mem("merge-driver", "--facts", *(str(files[n]) for n in "OAB"), pulled, code=1)
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    quoted = "'reference/q$(touch PWN)'\"'\"';x;'\"'\"'\\x1b]0;title\\x07.md'"
    assert result.stderr == (f"gitmem: reference/q$(touch PWN)';x;'\\x1b]0;title\\x07.md: both sides changed the same "
                             f"fact; run 'git mem resolve --take ours|theirs|both -- {quoted}' or edit the markers\n")
