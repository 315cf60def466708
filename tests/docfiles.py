"""Documents made at test time: PDFs (fpdf2), DOCX (python-docx), and bad ones of each."""

from __future__ import annotations

import io
import zipfile


def pdf(pages: list[str], password: str | None = None, owner: str = "owner") -> bytes:
    """A PDF with one page of text per item (lines split at newlines); encrypted if a password is given."""
    from fpdf import FPDF

    doc = FPDF()
    doc.set_font("Helvetica", size=11)
    for text in pages:
        doc.add_page()
        for line in text.split("\n"):
            doc.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    if password is not None:
        doc.set_encryption(owner_password=owner, user_password=password)
    return bytes(doc.output())


def image_pdf() -> bytes:
    """A PDF whose only page is a picture (a scan): no text layer."""
    from fpdf import FPDF
    from PIL import Image

    picture = Image.new("RGB", (200, 100), (200, 30, 30))
    doc = FPDF()
    doc.add_page()
    doc.image(picture, x=10, y=10, w=100)
    return bytes(doc.output())


def docx(blocks: list[tuple[str, str]]) -> bytes:
    """A DOCX of (style, text) blocks: style 'h1'/'h2'/... for headings, 'p' for a paragraph."""
    from docx import Document

    doc = Document()
    for style, text in blocks:
        if style.startswith("h"):
            doc.add_heading(text, int(style[1:]))
        else:
            doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def zip_bomb(inflated: int = 300 * 1024 * 1024) -> bytes:
    """A DOCX-shaped zip whose document.xml inflates to `inflated` bytes of nothing (~300 KB packed)."""
    good = docx([("p", "harmless")])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename != "word/document.xml":
                dst.writestr(item, src.read(item))
        with dst.open("word/document.xml", "w", force_zip64=True) as part:
            block = b" " * (1024 * 1024)
            for _ in range(inflated // len(block)):
                part.write(block)
    return out.getvalue()


LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
