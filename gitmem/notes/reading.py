"""git mem get: a page or lines of it, from the work tree or at a revision; a document's
extracted text, one page of a PDF (PATH#pN)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import BadRange, GitmemError, PageNotFound
from ..notebook import Notebook


@dataclass
class Page:
    path: str
    lines: dict[str, int]
    total_lines: int
    text: str
    revision: str | None = None  # the commit read from (--at); None: the work tree
    page: int | None = None  # a PDF page (PATH#pN): lines count within it
    pages: int | None = None  # how many pages the PDF has


def page_lines(text: str) -> list[str]:
    """Lines as git and the index number them: split at \\n only (a form feed or U+2028 is not a line break)."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
PAGE = re.compile(r"^(?P<path>.+?)#p(?P<page>\d+)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")


def get(nb: Notebook, spec: str, at: str | None = None) -> Page:
    """A page, or lines START-END of it, from the work tree or as it was at a
    revision (a commit, branch, tag, date or period). A document (PDF, DOCX, HTML,
    text) gives its extracted text; PATH#pN one page of a PDF, PATH#pN:START-END lines of it."""
    from ..index.documents import kind_of

    paged = PAGE.match(spec)
    if paged or kind_of(path_part(spec)):
        return _document(nb, spec, paged, at)
    match = RANGE.match(spec)
    name = match.group("path") if match else spec
    _not_a_range(nb, spec, match)
    revision = None
    if at is None:
        rel = nb.page(name, must_exist=True)
        text = nb.read(rel)
    else:
        rel, text, revision = _at(nb, name, at)
    lines = page_lines(text)
    if not match:
        return Page(rel, {"start": 1, "end": len(lines)}, len(lines), text, revision)
    start, end = line_range(match, rel, len(lines))
    chosen = lines[start - 1:end]
    return Page(rel, {"start": start, "end": end}, len(lines), "\n".join(chosen) + "\n", revision)


def _not_a_range(nb: Notebook, spec: str, match: re.Match[str] | None) -> None:
    """UsageError for PATH:WHAT where PATH is a page and WHAT no line range ("contacts.md:abc" was
    read as a page of that name, and the hint said to create it: a newcomer's)."""
    head, colon, tail = spec.rpartition(":")
    if match is not None or not colon or not head or not tail:
        return
    try:
        page = nb.page(head)
    except GitmemError:  # no page by that name either: PageNotFound names it below
        return
    if nb.read_bytes(page) is not None:
        raise BadRange(f"{tail!r} is not a line range of {page}", f"give PATH:START or PATH:START-END, e.g. {page}:3-5")


def path_part(spec: str) -> str:
    """The path of PATH[:LINES] as given, for a look at its ending (confined later)."""
    match = RANGE.match(spec)
    return match.group("path") if match else spec


def _document(nb: Notebook, spec: str, paged: re.Match[str] | None, at: str | None) -> Page:
    """A document's extracted text (one page of a PDF), from the work tree or a revision."""
    from ..index import extracts
    from ..index.indexer import Index

    match = paged or RANGE.match(spec)
    name = match.group("path") if match else spec
    rel = nb.page(name, default_suffix="")
    kind = extracts.kind_of(nb, rel)
    if kind is None:
        raise PageNotFound(f"{rel} is not a document gitmem reads (PDF, DOCX, HTML or text, not private; "
                           "a private one is never extracted)",
                           "PATH#pN reads page N of a PDF; see docs/documents.md")
    if at is None:
        data, revision = nb.read_bytes(rel), None
        if data is None:
            raise PageNotFound(f"no document {rel} in the notebook", "see the documents it holds: git mem status")
    else:
        rel, data, revision = _at_bytes(nb, rel, at)
    index = Index(nb)
    try:
        got = extracts.read(index, rel, kind, data)
    finally:
        index.close()
    pages = len(got.pages) if kind == "pdf" else None
    if paged is None and kind == "pdf" and match:
        raise BadRange(f"{rel} is a PDF: its lines are counted page by page",
                       f"name the page, e.g. {rel}#p1:{match.group('start')}")
    text, number = got.text, None
    if kind == "pdf" and paged is None:
        text = "".join(f"--- page {i} of {pages} ---\n{page}" for i, page in enumerate(got.pages, start=1))
    if paged is not None:
        number = int(paged.group("page"))
        if kind != "pdf" or not 1 <= number <= len(got.pages):
            raise BadRange(f"{rel} has no page {number}" + (f" (it has {len(got.pages)})" if kind == "pdf"
                                                             else " (only PDFs have pages)"),
                           f"ask for {rel}#p1" if kind == "pdf" else f"ask for {rel} or {rel}:START-END")
        text = got.pages[number - 1]
    lines = page_lines(text)
    start, end = (1, len(lines)) if match is None or match.group("start") is None else \
        line_range(match, f"{rel}#p{number}" if number else rel, len(lines))
    chosen = "\n".join(lines[start - 1:end]) + "\n" if lines else ""
    return Page(rel, {"start": start, "end": end}, len(lines), chosen, revision, number, pages)


def line_range(match: re.Match[str], rel: str, total: int) -> tuple[int, int]:
    """START-END of a PATH:START[-END] match, or BadRange if they are not lines of the page."""
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    if end < start:
        raise BadRange(f"the range {start}-{end} of {rel} is reversed (it ends before it starts)",
                       f"put the first line first: {rel}:{end}-{start}")
    if start < 1 or end > total:
        asked = f"line {start}" if start == end else f"lines {start}-{end}"
        raise BadRange(f"{asked} {'is' if start == end else 'are'} outside {rel}, which has {total} lines",
                       f"ask for lines between 1 and {total}, e.g. {rel}:1-{min(total, 10)}")
    return start, end


def _at(nb: Notebook, name: str, at: str) -> tuple[str, str, str]:
    from ..notebook import decode

    rel, data, commit = _at_bytes(nb, nb.page(name), at)
    from ..index import forgotten

    return rel, forgotten.current(nb).redact(decode(data)), commit  # forgotten lines stay forgotten


def _at_bytes(nb: Notebook, rel: str, at: str) -> tuple[str, bytes, str]:
    """A file's bytes as they were at a revision, and that commit."""
    from ..search.views import resolve

    rev = resolve(nb, at)
    data = nb.git.show(rev.commit, nb.repo_path(rel))
    if data is None:
        raise PageNotFound(f"no page {rel} at {at} ({rev.commit[:7]})",
                           f"see when it existed with: git mem log --path {rel}")
    return rel, data, rev.commit
