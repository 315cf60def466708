"""Text out of documents (gitmem/index/documents.py), on files made in the test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from gitmem.index import documents
from tests import docfiles

bad_input = pytest.mark.tally("bad-input/fault matrix")


def test_kind_by_ending() -> None:
    assert [documents.kind_of(p) for p in ("a/b.PDF", "x.docx", "y.htm", "z.html", "n.txt", "m.md", "noext")] == \
        ["pdf", "docx", "html", "html", "txt", None, None]


def test_pdf_text_page_by_page() -> None:
    data = docfiles.pdf(["Boiler manual\nPressure 1.5 bar", "Page two\nBleed the radiators", "Last page"])
    got = documents.extract("pdf", data)
    assert got.failed is None
    assert got.pages == ["Boiler manual\nPressure 1.5 bar\n", "Page two\nBleed the radiators\n", "Last page\n"]
    assert got.total_pages == 3


def test_pdf_with_an_empty_user_password_opens() -> None:
    got = documents.extract("pdf", docfiles.pdf(["Readable anyway"], password=""))
    assert got.failed is None and got.pages == ["Readable anyway\n"]


def test_pdf_over_the_page_limit_keeps_the_first_pages_and_says_so() -> None:
    got = documents.extract("pdf", docfiles.pdf(["one", "two", "three"]), documents.Limits(max_pages=2))
    assert got.pages == ["one\n", "two\n"]
    assert got.note == "only the first 2 of 3 pages extracted (documents.max_pages)"


def test_docx_paragraph_per_line_headings_marked() -> None:
    data = docfiles.docx([("h1", "Letter to Bob"), ("p", "Dear Bob,"), ("h2", "Rent"),
                          ("p", "The rent of   900 EUR is due\non the 1st."), ("p", "")])
    got = documents.extract("docx", data)
    assert got.pages == ["# Letter to Bob\nDear Bob,\n## Rent\nThe rent of 900 EUR is due on the 1st.\n"]


def test_html_through_a_parser() -> None:
    page = (b"<html><head><title>Boiler</title><style>p{color:red}</style></head><body>"
            b"<h2>Pressure</h2><p>Keep it at\n 1.5 <b>bar</b>.<br>Check monthly.</p><script>alert(1)</script>"
            b"<ul><li>caf\xc3\xa9</li><li>two</li></ul><!-- a comment --></body></html>")
    assert documents.extract("html", page).text == \
        "# Boiler\n## Pressure\nKeep it at 1.5 bar.\nCheck monthly.\ncafé\ntwo\n"


def test_html_declared_encoding_is_honoured() -> None:
    page = b'<html><head><meta charset="iso-8859-1"></head><body><p>caf\xe9</p></body></html>'
    assert documents.extract("html", page).text == "café\n"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp", "Co")),
                        min_size=1, max_size=30).filter(lambda t: t.strip() and t.strip("#").strip()),
                min_size=1, max_size=8))
def test_html_paragraphs_are_lines(paragraphs: list[str]) -> None:
    from html import escape

    page = "<body>" + "".join(f"<p>{escape(p)}</p>" for p in paragraphs) + "</body>"
    got = documents.parse("html", page.encode("utf-8"))
    assert got.failed is None
    assert got.text == "".join(" ".join(p.split()) + "\n" for p in paragraphs)


def test_txt_is_the_text() -> None:
    assert documents.extract("txt", "\ufeffline one\r\nline two  \n\n\n\nend".encode()).text == \
        "line one\nline two\n\nend\n"


@bad_input
def test_encrypted_pdf_fails_with_a_note() -> None:
    got = documents.extract("pdf", docfiles.pdf(["secret plans"], password="hunter2"))
    assert got.pages == [] and got.failed == "encrypted: it needs a password, so its text cannot be read"


@bad_input
def test_corrupt_pdf_fails_with_a_note() -> None:
    data = docfiles.pdf(["fine"])
    got = documents.extract("pdf", data[:40] + b"\0garbage\0" * 50)
    assert got.failed is not None and got.failed.startswith("not a readable PDF file (")


@bad_input
def test_image_only_pdf_fails_with_a_note() -> None:
    got = documents.extract("pdf", docfiles.image_pdf())
    assert got.failed == "no text layer in 1 page (scanned or image-only? gitmem does no OCR)"


@bad_input
def test_lfs_pointer_is_refused() -> None:
    got = documents.extract("pdf", docfiles.LFS_POINTER)
    assert got.failed == "a git-LFS pointer, not the document: run 'git lfs pull' to fetch the content"


@bad_input
def test_too_large_is_refused_before_parsing() -> None:
    got = documents.extract("pdf", b"%PDF" + b"x" * 2000, documents.Limits(max_bytes=1000))
    assert got.failed == ("too large to extract (0.0 MB over the 0.0 MB limit; raise documents.max_bytes in "
                          ".gitmem.toml)")


@bad_input
def test_docx_zip_bomb_is_refused() -> None:
    got = documents.extract("docx", docfiles.zip_bomb())
    assert got.failed is not None and "word/document.xml would inflate" in got.failed and "zip bomb" in got.failed


@bad_input
def test_docx_that_is_not_a_zip() -> None:
    assert documents.extract("docx", b"PK\x03\x04 but not really").failed == \
        "not a readable DOCX file (not a zip archive)"


@bad_input
def test_memory_limit_stops_the_child_not_the_caller() -> None:
    """Under a 16 MB address space the child cannot even start parsing: a note, and the caller lives on."""
    got = documents.extract("pdf", docfiles.pdf(["fine"]), documents.Limits(memory_mb=16))
    assert got.failed == "ran out of memory (over 16 MB) while extracting (documents.memory_mb)"


@bad_input
def test_cpu_limit_stops_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that spins past its CPU limit is killed by the kernel (SIGXCPU) and said so."""
    import sys

    spin = "import resource; resource.setrlimit(resource.RLIMIT_CPU, (1, 2))\nwhile True: pass"
    monkeypatch.setattr(documents, "child_command", lambda: [sys.executable, "-c", spin])
    got = documents.extract("pdf", b"%PDF-1.4", documents.Limits(seconds=1))
    assert got.failed is not None and "longer than 1s" in got.failed


def test_one_child_extracts_many_and_a_failure_costs_only_its_document() -> None:
    """A run over many documents shares one child; the one that kills it fails alone."""
    with documents.Extractor(documents.Limits(memory_mb=256)) as fence:
        first = fence.extract("pdf", docfiles.pdf(["first"]))
        child = fence.proc
        second = fence.extract("docx", docfiles.docx([("p", "second")]))
        assert fence.proc is child and child is not None  # the same process answered both
        bomb = fence.extract("pdf", b"%PDF-1.4\n" + b"\0" * 64)
        third = fence.extract("html", b"<p>third</p>")
    assert (first.pages, second.pages, third.pages) == (["first\n"], ["second\n"], ["third\n"])
    assert bomb.failed is not None and bomb.failed.startswith("not a readable PDF file")


def test_the_document_endings_are_the_ones_gitmem_reads() -> None:
    """notebook.page refuses to write a page under a document's name (config.DOCUMENT_SUFFIXES)."""
    from gitmem import config
    from gitmem.index import documents

    assert set(config.DOCUMENT_SUFFIXES) == set(documents.KINDS)
