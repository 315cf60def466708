from hypothesis import given, settings, strategies as st

from gitmem.index.chunker import chunk
from gitmem.markdown import body_offset, headings_of

LINE = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=120),
    st.sampled_from(["", "# Title", "## Section", "### Sub", "```", "- item one", "Sentence. Another one! Third?",
                     "word " * 60, "x" * 700, "   ", "---", "tags: [a]"]),
)
PAGE = st.lists(LINE, max_size=60).map(lambda lines: "\n".join(lines).replace("\r", ""))


def check(text: str, max_chars: int, overlap: int) -> None:
    start = body_offset(text)
    chunks = chunk(text, max_chars, overlap, start)
    lines = text.split("\n")
    covered = [False] * len(text)
    previous = None
    for c in chunks:
        assert c.text == text[c.start:c.end]
        assert c.text.strip() and c.text == c.text.strip()
        assert len(c.text) <= max_chars
        assert c.start >= start
        # the line range is exactly the lines the text spans
        assert text.count("\n", 0, c.start) + 1 == c.start_line
        assert text.count("\n", 0, c.end - 1) + 1 == c.end_line
        assert c.text.split("\n")[0] in lines[c.start_line - 1]
        if previous is not None:
            assert c.start > previous.start and c.end > previous.end
            assert previous.end - c.start <= overlap  # never more than the overlap is repeated
        for i in range(c.start, c.end):
            covered[i] = True
        previous = c
    lost = [i for i in range(start, len(text)) if not covered[i] and not text[i].isspace()]
    assert not lost, f"characters not in any chunk: {lost[:5]}"


@settings(max_examples=300, deadline=None)
@given(PAGE, st.integers(20, 400), st.integers(0, 120))
def test_chunks_cover_the_page_exactly(text: str, max_chars: int, overlap: int) -> None:
    check(text, max_chars, min(overlap, max_chars // 2))


@settings(max_examples=50, deadline=None)
@given(PAGE)
def test_default_sizes(text: str) -> None:
    check(text, 1600, 320)


def test_sections_split_at_h1_h2_not_inside_fences() -> None:
    text = "# Title\n\nintro\n\n## A\nalpha\n```\n## not a heading\n```\n### deeper\nmore\n## B\nbeta\n"
    chunks = chunk(text)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Title", "## A", "## B"]
    assert [c.heading for c in chunks] == ["Title", "A", "B"]
    assert (chunks[1].start_line, chunks[1].end_line) == (5, 11)


def test_title_only_h1_joins_the_first_section() -> None:
    text = "# Daily Log — 2026-01-02\n\n## 09:00 — Called Sarah\n\n## 10:00 — Lunch\nwith Bob\n"
    chunks = chunk(text)
    assert chunks[0].text == "# Daily Log — 2026-01-02\n\n## 09:00 — Called Sarah"
    assert chunks[1].text == "## 10:00 — Lunch\nwith Bob"


def test_long_section_overlaps_by_whole_pieces() -> None:
    paragraphs = [f"Paragraph {i} " + "filler words " * 20 for i in range(12)]
    text = "## Long\n\n" + "\n\n".join(p.strip() for p in paragraphs) + "\n"
    chunks = chunk(text, 800, 300)
    assert len(chunks) > 2
    for a, b in zip(chunks, chunks[1:]):
        assert 0 < a.end - b.start <= 300  # consecutive chunks share a paragraph


def test_frontmatter_is_not_chunked() -> None:
    text = "---\ntags: [x]\ntype: fact\n---\n# Page\n\nbody\n"
    start = body_offset(text)
    assert text[start:].startswith("# Page")
    assert chunk(text, start=start)[0].start_line == 5


def test_a_word_longer_than_a_chunk_is_cut() -> None:
    text = "a" * 5000
    chunks = chunk(text, 1600, 320)
    assert "".join(c.text for c in chunks) == text


def test_headings_of_ignores_unclosed_fence_tail() -> None:
    assert [h[2] for h in headings_of("# A\n```\n# B\n")] == ["A"]
