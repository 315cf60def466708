from hypothesis import given, settings, strategies as st

from gitmem.notes import pages

TITLE = st.text(alphabet="abcdefghij XYZ", min_size=1, max_size=12).filter(lambda t: t.strip())
BODY = st.lists(st.sampled_from(["- item", "plain line", "another: value", "1. numbered", "text with # hash"]),
                min_size=1, max_size=5).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TITLE, BODY), max_size=5), TITLE, BODY)
def test_append_to_section_then_read_back(existing, title, content) -> None:
    text = "# Page\n\n" + "".join(f"## {t}\n\n{b}\n\n" for t, b in existing)
    edit = pages.append(text, content, title)
    lines = edit.text.split("\n")
    assert "\n".join(lines[edit.start_line - 1:edit.end_line]) == content
    section = pages.find_section(edit.text, title)
    assert section is not None and content in edit.text[section.body:section.end]
    # everything that was there is still there, in order
    for t, b in existing:
        assert f"## {t}" in edit.text and b in edit.text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TITLE, BODY), min_size=1, max_size=5, unique_by=lambda tb: " ".join(tb[0].lower().split())),
       st.data(), BODY)
def test_replace_section_round_trips(existing, data, content) -> None:
    text = "# Page\n\n" + "".join(f"## {t}\n\n{b}\n\n" for t, b in existing)
    target, _ = data.draw(st.sampled_from(existing))
    edit = pages.replace(text, content, target)
    section = pages.find_section(edit.text, target)
    assert edit.text[section.body:section.end].strip("\n") == content
    assert "\n".join(edit.text.split("\n")[edit.start_line - 1:edit.end_line]) == content
    for t, b in existing:
        if " ".join(t.lower().split()) != " ".join(target.lower().split()):
            assert f"## {t}\n\n{b}\n" in edit.text


def test_append_without_section_keeps_lists_tight() -> None:
    edit = pages.append("# Facts\n\n- one\n", "- two")
    assert edit.text == "# Facts\n\n- one\n- two\n"
    assert (edit.start_line, edit.end_line) == (4, 4)


def test_append_creates_missing_section_at_end() -> None:
    edit = pages.append("# P\n\n## A\n\nx\n", "new", "B")
    assert edit.text == "# P\n\n## A\n\nx\n\n## B\n\nnew\n"
    assert edit.start_line == 9


def test_a_section_named_as_the_page_s_title_is_the_page_s_top() -> None:
    """A newcomer (2026-11-27): `write people/friends.md --section Friends` on a new page gave "# Friends"
    then "## Friends"; the page's own title is where the text goes, above its first H2."""
    edit = pages.append("# Friends\n\n- Omar\n\n## College\n\n- Ana\n", "- Bea", "friends")
    assert edit.text == "# Friends\n\n- Omar\n- Bea\n\n## College\n\n- Ana\n"
    assert (edit.start_line, edit.end_line) == (4, 4)
    assert pages.append("# Friends\n", "- Omar", "Friends").text == "# Friends\n\n- Omar\n"
    # ... up to the next heading of any level, and replaced there as a section is (a review, 2026-11-27)
    assert pages.append("# Friends\n\n- Omar\n\n# Other\n\n- x\n", "- Bea", "Friends").text == \
        "# Friends\n\n- Omar\n- Bea\n\n# Other\n\n- x\n"
    once = pages.replace("# Friends\n\n- Ann\n\n## Work\n\n- Zed\n", "- Cara", "Friends")
    assert once.text == "# Friends\n\n- Cara\n\n## Work\n\n- Zed\n" and (once.start_line, once.end_line) == (3, 3)
    assert pages.replace(once.text, "- Cara", "Friends").text == once.text


def test_section_headings_in_code_fences_are_not_sections() -> None:
    text = "# P\n\n```\n## Fake\n```\n## Real\n\nbody\n"
    assert [s.title for s in pages.sections(text)] == ["P", "Real"]


def test_daily_entry_format() -> None:
    from datetime import datetime

    when = datetime(2026, 2, 20, 9, 5)
    assert pages.daily_entry("Called Sarah\nabout the timeline", when) == \
        "## 09:05 — Called Sarah\n\nabout the timeline"
    long = "word " * 30
    entry = pages.daily_entry(long, when)
    assert entry.startswith("## 09:05 — word") and entry.split("\n")[0].endswith("…")
    assert long.strip() in entry
    edit = pages.add_daily("", "2026-02-20", "## 09:05 — x")
    assert edit.text == "# Daily Log — 2026-02-20\n\n## 09:05 — x\n"
    assert edit.start_line == 3


def test_new_page_title_from_name() -> None:
    assert pages.new_page("reference/standing-orders.md", "- a") == "# Standing orders\n\n- a\n"
    assert pages.new_page("x.md", "# Own title\nbody") == "# Own title\nbody\n"


def test_new_page_keeps_frontmatter_on_top() -> None:
    """A title goes under the frontmatter, never above it (where it would stop being frontmatter)."""
    fm = "---\ntags: [project]\n---\n"
    assert pages.new_page("projects/apollo.md", fm + "# Apollo\n\nOn track.") == fm + "# Apollo\n\nOn track.\n"
    assert pages.new_page("projects/apollo.md", fm + "On track.") == fm + "# Apollo\n\nOn track.\n"
    assert pages.new_page("projects/apollo.md", fm + "\n- a") == fm + "# Apollo\n\n- a\n"
