"""Split a markdown page into overlapping chunks with exact line ranges.

Sections first (at H1/H2 headings outside code fences), then paragraphs,
then sentences, then whitespace, so that a chunk is never longer than
`max_chars`. Inside a section, consecutive chunks share up to `overlap`
characters of whole pieces. Every chunk's text is exactly `text[start:end]`,
so its line range can be checked against `git show REV:path`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..markdown import headings_of, line_starts

PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Chunk:
    start: int  # character offsets into the page text
    end: int
    start_line: int  # 1-based, inclusive
    end_line: int
    heading: str
    text: str


def chunk(text: str, max_chars: int = 1600, overlap: int = 320, start: int = 0) -> list[Chunk]:
    """Chunks of text[start:] (pass body_offset(text) to skip frontmatter)."""
    lines = line_starts(text)
    headings = headings_of(text, start)
    offsets = [h[0] for h in headings]
    chunks: list[Chunk] = []
    for lo, hi in _sections(text, start, headings):
        for a, b in _pack(_pieces(text, lo, hi, max_chars), max_chars, overlap):
            chunks.append(_make(text, a, b, lines, offsets, headings))
    return chunks


def _sections(text: str, start: int, headings: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Spans between H1/H2 headings; an H1 title with no text of its own joins the next section."""
    titles = {off for off, level, _ in headings if level == 1}
    cuts = [start] + [off for off, level, _ in headings if level <= 2 and off > start] + [len(text)]
    spans: list[tuple[int, int]] = []
    lo = cuts[0]
    for a, b in zip(cuts, cuts[1:]):
        line_end = text.find("\n", a, b)
        if a in titles and b < len(text) and (line_end < 0 or not text[line_end:b].strip()):
            continue
        if text[lo:b].strip():
            spans.append((lo, b))
        lo = b
    return spans


def _pieces(text: str, lo: int, hi: int, max_chars: int) -> list[tuple[int, int]]:
    """Trimmed spans no longer than max_chars covering every non-space character."""
    out: list[tuple[int, int]] = []
    for a, b in _split(text, lo, hi, PARAGRAPH_BREAK):
        if b - a <= max_chars:
            out.append((a, b))
            continue
        for c, d in _split(text, a, b, SENTENCE_BREAK):
            out.extend(_hard_split(text, c, d, max_chars))
    return out


def _split(text: str, lo: int, hi: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    spans, pos = [], lo
    for m in pattern.finditer(text, lo, hi):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, hi))
    return [t for t in (_trim(text, a, b) for a, b in spans) if t]


def _trim(text: str, a: int, b: int) -> tuple[int, int] | None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else None


def _hard_split(text: str, a: int, b: int, max_chars: int) -> list[tuple[int, int]]:
    out = []
    while b - a > max_chars:
        cut = text.rfind(" ", a + 1, a + max_chars + 1)
        cut = cut if cut > a else a + max_chars
        span = _trim(text, a, cut)
        if span:
            out.append(span)
        a = cut
        while a < b and text[a].isspace():
            a += 1
    if a < b:
        out.append((a, b))
    return out


def _pack(pieces: list[tuple[int, int]], max_chars: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy runs of pieces; each next run restarts with trailing pieces of
    the last one, up to `overlap` characters."""
    spans = []
    first = 0
    while first < len(pieces):
        last = first
        while last + 1 < len(pieces) and pieces[last + 1][1] - pieces[first][0] <= max_chars:
            last += 1
        end = pieces[last][1]
        spans.append((pieces[first][0], end))
        if last + 1 >= len(pieces):
            break
        nxt = last + 1
        while nxt - 1 > first and end - pieces[nxt - 1][0] <= overlap and \
                pieces[last + 1][1] - pieces[nxt - 1][0] <= max_chars:
            nxt -= 1
        first = nxt
    return spans


def _make(text: str, a: int, b: int, lines: list[int], offsets: list[int],
          headings: list[tuple[int, int, str]]) -> Chunk:
    i = bisect.bisect_right(offsets, a) - 1
    heading = headings[i][2] if i >= 0 else ""
    start_line = bisect.bisect_right(lines, a)
    end_line = bisect.bisect_right(lines, b - 1)
    return Chunk(a, b, start_line, end_line, heading, text[a:b])
