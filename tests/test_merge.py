import re
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.gitops.merge import join, merge_text, split
from tests.conftest import Mem

TITLE = "# Daily Log — 2026-11-22"
ENTRY = re.compile(r"^## \d{2}:\d{2} — ")


def log(*entries: str) -> str:
    return join([TITLE, *entries])


def test_split_and_join_keep_a_daily_log_as_it_is() -> None:
    text = "# Daily Log — D\n\n## 09:00 — A\n\nbody\n\n```\n## not a heading\n```\n\n## 10:00 — B\n"
    assert split(text) == ["# Daily Log — D", "## 09:00 — A\n\nbody\n\n```\n## not a heading\n```",
                           "## 10:00 — B"]
    assert join(split(text)) == text


def test_appends_on_both_sides_keep_every_entry_whole_where_union_does_not(tmp_path: Path) -> None:
    base = log("## 09:00 — Base")
    ours = log("## 09:00 — Base", "## 10:00 — Standup\n\nNotes:\n- shipped it")
    theirs = log("## 09:00 — Base", "## 10:05 — Review\n\nNotes:\n- shipped it")
    merged, clean = merge_text(base, ours, theirs)
    assert clean
    assert merged == log("## 09:00 — Base", "## 10:00 — Standup\n\nNotes:\n- shipped it",
                         "## 10:05 — Review\n\nNotes:\n- shipped it")
    # git's union merge on the same input loses the lines both appends share
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "merge-file", "--union", "ours", "base", "theirs"], cwd=tmp_path, check=True)
    assert (tmp_path / "ours").read_text().count("- shipped it") == 1


def test_entries_interleave_by_time_and_each_side_keeps_its_order() -> None:
    base = log("## 08:00 — a")
    ours = log("## 08:00 — a", "## 09:00 — o1", "## 11:00 — o2")
    theirs = log("## 08:00 — a", "## 10:00 — t1", "## 12:00 — t2")
    merged, clean = merge_text(base, ours, theirs)
    assert clean and [b[3:8] for b in split(merged)[1:]] == ["08:00", "09:00", "10:00", "11:00", "12:00"]


def test_a_log_both_sides_created_keeps_one_title() -> None:
    merged, clean = merge_text("", log("## 10:00 — mine"), log("## 10:01 — yours"))
    assert clean and merged == log("## 10:00 — mine", "## 10:01 — yours")


def test_an_edit_next_to_an_append_merges() -> None:
    base = log("## 09:00 — A", "## 09:30 — B")
    ours = log("## 09:00 — A", "## 09:30 — B, corrected")
    theirs = log("## 09:00 — A", "## 09:30 — B", "## 10:00 — C")
    assert merge_text(base, ours, theirs) == (log("## 09:00 — A", "## 09:30 — B, corrected", "## 10:00 — C"), True)
    gone = log("## 09:00 — A")
    assert merge_text(base, gone, theirs) == (log("## 09:00 — A", "## 10:00 — C"), True)


def test_two_different_edits_of_one_entry_conflict_with_whole_entries() -> None:
    base = log("## 09:00 — A")
    merged, clean = merge_text(base, log("## 09:00 — A (mine)"), log("## 09:00 — A (yours)"), ("ours", "theirs"))
    assert not clean
    assert "<<<<<<< ours\n## 09:00 — A (mine)\n=======\n## 09:00 — A (yours)\n>>>>>>> theirs" in merged


def test_crlf_logs_stay_crlf() -> None:
    base = log("## 09:00 — A").replace("\n", "\r\n")
    ours = log("## 09:00 — A", "## 10:00 — B").replace("\n", "\r\n")
    theirs = log("## 09:00 — A", "## 11:00 — C").replace("\n", "\r\n")
    merged, clean = merge_text(base, ours, theirs)
    assert clean and merged == log("## 09:00 — A", "## 10:00 — B", "## 11:00 — C").replace("\n", "\r\n")


def test_the_driver_command_writes_the_merge_into_ours(mem: Mem, tmp_path: Path) -> None:
    files = {}
    for name, text in (("O", log("## 09:00 — A")), ("A", log("## 09:00 — A", "## 10:00 — B")),
                       ("B", log("## 09:00 — A", "## 11:00 — C"))):
        files[name] = tmp_path / name
        files[name].write_text(text)
    mem("merge-driver", str(files["O"]), str(files["A"]), str(files["B"]), "daily/x.md")
    assert files["A"].read_text() == log("## 09:00 — A", "## 10:00 — B", "## 11:00 — C")
    files["A"].write_text(log("## 09:00 — edited"))
    files["B"].write_text(log("## 09:00 — edited differently"))
    result = mem("merge-driver", str(files["O"]), str(files["A"]), str(files["B"]), "daily/x.md", code=1)
    assert "daily/x.md: both sides changed the same entry" in result.stderr
    assert "<<<<<<< ours: daily/x.md" in files["A"].read_text()


times = st.integers(0, 23 * 60 + 59).map(lambda m: f"{m // 60:02d}:{m % 60:02d}")
bodies = st.lists(st.sampled_from(["", "- done", "Notes:", "more text", "## sub heading", "```", "x"]), max_size=4)


@st.composite
def entries(draw: st.DrawFn, tag: str) -> list[str]:
    made = []
    for i, (when, body) in enumerate(draw(st.lists(st.tuples(times, bodies), max_size=5))):
        text = "\n".join(ln for ln in body if ln not in ("## sub heading", "```")).strip()  # one block each
        made.append(f"## {when} — {tag} {i}" + (f"\n\n{text}" if text else ""))
    return made


@settings(max_examples=150, deadline=None)
@given(entries("base"), entries("ours"), entries("theirs"))
def test_concurrent_appends_always_merge_keeping_every_entry(base: list[str], mine: list[str],
                                                             yours: list[str]) -> None:
    merged, clean = merge_text(log(*base), log(*base, *mine), log(*base, *yours))
    blocks = split(merged)
    assert clean and blocks[0] == TITLE
    assert sorted(blocks[1:]) == sorted(base + mine + yours)
    assert all(ENTRY.match(b) for b in blocks[1:])
    assert blocks[1:1 + len(base)] == base
    for side in (mine, yours):
        assert [b for b in blocks if b in side] == side
    again, _ = merge_text(log(*base), log(*base, *yours), log(*base, *mine))
    assert sorted(split(again)) == sorted(blocks)
