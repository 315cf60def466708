"""Text out of documents: PDF (pypdf), DOCX (python-docx), HTML (lxml), plain text.

Why these libraries (see docs/documents.md): pypdf is pure Python, maintained,
handles encrypted and damaged files with clear exceptions and extracts a page
at a time; python-docx reads paragraphs with their styles (so headings stay
headings) and tables in document order; lxml (already required by
python-docx) is libxml2's real HTML parser, tolerant of broken markup and of
the encoding a page declares. No OCR: a PDF without a text layer is a failure
with a note, not an empty success.

A document's text has the shape the index and `git mem get` use:
- PDF: one text per page; lines are lines of that page's extracted text.
- DOCX and HTML: one text; every paragraph (and table row, list item) is one
  line, headings written as markdown headings (`## Terms`), so line N is
  paragraph N and the chunker cuts sections at headings.
- TXT: the text as it is.

Untrusted input runs within limits. PDF, DOCX and HTML are parsed in a
child process (`python -m gitmem.index.documents`, documents framed on its
stdin, one after another) with an address-space limit (RLIMIT_AS) and a
CPU-time limit per document (RLIMIT_CPU), and the parent kills it after a
wall-clock timeout: a zip bomb or a pathological PDF costs that child, never
the indexer, and the next document gets a fresh one. Before any parsing:
a size cap, a git-LFS pointer check, and for DOCX the zip's declared sizes and
compression ratios (Python's zipfile never inflates past an entry's declared
size, so the check holds).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

from ..launch import python_command

KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".txt": "txt"}
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
LFS_MAX = 1024  # a pointer file is ~130 bytes
ZIP_MAX_TOTAL = 256 * 1024 * 1024  # what a DOCX may inflate to, all parts together
ZIP_MAX_RATIO = 200  # a part inflating more than this many times its packed size is a bomb
ZIP_RATIO_FLOOR = 1024 * 1024  # below this size a high ratio is harmless (XML of repeated tags)
OUT_OF_MEMORY = ("failed to map segment", "Cannot allocate memory")  # how a refused mmap of a library reads
GRACE_SECONDS = 5  # wall clock beyond the CPU limit before the child is killed
BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
HTML_BLOCKS = frozenset("""address article aside blockquote body caption dd details div dl dt fieldset figcaption
figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th
thead tr ul""".split())
HTML_DROP = ("script", "style", "noscript", "template", "head", "svg", "math")
CHARSET = re.compile(rb"<meta[^>]+charset|<\?xml[^>]+encoding", re.IGNORECASE)
XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*>")
# markers (private-use characters) inside HTML text, replaced once whitespace is collapsed
PARA, BREAK = "\ue000", "\ue001"


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 50_000_000
    max_pages: int = 2000
    seconds: int = 60
    memory_mb: int = 1024


@dataclass
class Extract:
    """What came out of one document: its pages (one text for non-PDF kinds), or a failure note."""

    kind: str
    pages: list[str] = field(default_factory=list)
    failed: str | None = None  # why nothing could be indexed (one line, for status)
    note: str | None = None  # a partial success (pages left out)
    total_pages: int | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.pages)


class Failed(Exception):
    """A document gitmem cannot extract text from; the message is the note status shows."""


def kind_of(path: str) -> str | None:
    """pdf, docx, html or txt by the file name's ending (any case), else None."""
    dot = path.rfind(".")
    return KINDS.get(path[dot:].lower()) if dot >= 0 else None


def refusal(kind: str, size: int, head: bytes, limits: Limits) -> str | None:
    """Why a document is not even parsed (too large, a git-LFS pointer), from its size and first bytes."""
    if size > limits.max_bytes:
        return (f"too large to extract ({_mb(size)} over the {_mb(limits.max_bytes)} limit; "
                "raise documents.max_bytes in .gitmem.toml)")
    if size <= LFS_MAX and head.startswith(LFS_POINTER):
        return "a git-LFS pointer, not the document: run 'git lfs pull' to fetch the content"
    return None


def extract(kind: str, data: bytes, limits: Limits = Limits()) -> Extract:
    """One document's text, within limits, in a child of its own (Extractor for many)."""
    with Extractor(limits) as fence:
        return fence.extract(kind, data)


def parse(kind: str, data: bytes, limits: Limits = Limits()) -> Extract:
    """Extract in this process (the child's work; `extract` fences it)."""
    try:
        if kind == "pdf":
            return _pdf(data, limits)
        if kind == "docx":
            return Extract(kind, [_docx(data)])
        if kind == "html":
            return Extract(kind, [_html(data)])
        if kind == "txt":
            return Extract(kind, [_tidy(data.decode("utf-8", errors="replace").lstrip("\ufeff"))])
    except Failed as exc:
        return Extract(kind, failed=str(exc))
    except Exception as exc:  # noqa: BLE001 - any parser error on untrusted bytes is that file's failure
        if isinstance(exc, MemoryError) or any(w in str(exc) for w in OUT_OF_MEMORY):
            return Extract(kind, failed=f"ran out of memory (over {limits.memory_mb} MB) while extracting "
                                        "(documents.memory_mb)")
        return Extract(kind, failed=f"not a readable {kind.upper()} file ({type(exc).__name__}: {_line(exc)})")
    raise ValueError(f"unknown document kind {kind!r}")


def _pdf(data: bytes, limits: Limits) -> Extract:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")  # many PDFs are encrypted with an empty user password
        except Exception as exc:  # noqa: BLE001 - unsupported algorithm, missing crypto library
            raise Failed(f"encrypted, and cannot be opened without its password ({_line(exc)})") from exc
        if not opened:
            raise Failed("encrypted: it needs a password, so its text cannot be read")
    try:
        total = len(reader.pages)
    except FileNotDecryptedError as exc:
        raise Failed("encrypted: it needs a password, so its text cannot be read") from exc
    pages = [_tidy(reader.pages[i].extract_text() or "") for i in range(min(total, limits.max_pages))]
    if not any(p.strip() for p in pages):
        raise Failed(f"no text layer in {total} page{'s' if total != 1 else ''} (scanned or image-only? "
                     "gitmem does no OCR)")
    note = None
    if total > limits.max_pages:
        note = f"only the first {limits.max_pages} of {total} pages extracted (documents.max_pages)"
    return Extract("pdf", pages, note=note, total_pages=total)


def _docx(data: bytes) -> str:
    import zipfile

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise Failed("not a readable DOCX file (not a zip archive)") from exc
    total = 0
    for info in archive.infolist():
        total += info.file_size
        if info.file_size > ZIP_RATIO_FLOOR and info.file_size > ZIP_MAX_RATIO * max(info.compress_size, 1):
            raise Failed(f"refused: {info.filename} would inflate {info.file_size // max(info.compress_size, 1)}"
                         " times its packed size (a zip bomb?)")
    if total > ZIP_MAX_TOTAL:
        raise Failed(f"refused: its parts would inflate to {_mb(total)} (over {_mb(ZIP_MAX_TOTAL)}; a zip bomb?)")
    from docx import Document
    from docx.table import Table

    lines: list[str] = []
    for block in Document(io.BytesIO(data)).iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                cells = list(dict.fromkeys(_flat(c.text) for c in row.cells))  # merged cells repeat
                line = " | ".join(c for c in cells if c)
                if line:
                    lines.append(line)
            continue
        text = _flat(block.text)
        if text:
            lines.append(_heading_mark(block.style.name if block.style is not None else "") + text)
    return "\n".join(lines) + ("\n" if lines else "")


def _heading_mark(style: str) -> str:
    """'## ' for Word's 'Heading 2' (and 'Title' as '# '), '' for any other style."""
    if style == "Title":
        return "# "
    match = re.fullmatch(r"Heading (\d)", style or "")
    return "#" * min(int(match.group(1)), 6) + " " if match else ""


def _html(data: bytes) -> str:
    from lxml import html

    source: bytes | str = data
    if not CHARSET.search(data[:4096]):  # no declared encoding: UTF-8, not libxml2's Latin-1 default
        source = XML_DECLARATION.sub("", data.decode("utf-8", errors="replace").lstrip("\ufeff"), count=1)
    try:
        root = html.document_fromstring(source)
    except Exception as exc:  # noqa: BLE001 - lxml raises ParserError / ValueError on empty or odd input
        raise Failed(f"not a readable HTML file ({_line(exc)})") from exc
    title = " ".join((root.findtext(".//title") or "").split())
    for bad in root.xpath("|".join(f"//{tag}" for tag in HTML_DROP)):
        bad.drop_tree()
    for el in root.iter():
        if not isinstance(el.tag, str):  # comments, processing instructions
            el.text = None
            continue
        el.text = SPACES.sub(" ", " ".join((el.text or "").split("\n"))) if el.text else el.text
        el.tail = SPACES.sub(" ", " ".join((el.tail or "").split("\n"))) if el.tail else el.tail
        tag = el.tag.lower()
        if tag == "br":
            el.tail = BREAK + (el.tail or "")
        elif tag in HTML_BLOCKS:
            mark = "#" * int(tag[1]) + " " if re.fullmatch(r"h[1-6]", tag) else ""
            el.text = PARA + mark + (el.text or "")
            el.tail = PARA + (el.tail or "")
    raw = root.text_content()
    lines = [" ".join(part.split()) for part in raw.replace(BREAK, PARA).split(PARA)]
    lines = [ln for ln in lines if ln and ln.strip("#").strip()]
    if title and not any(ln.lstrip("#").strip() == title for ln in lines[:3]):
        lines.insert(0, f"# {title}")
    return "\n".join(lines) + ("\n" if lines else "")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _tidy(text: str) -> str:
    """Extracted text with trailing spaces and runs of blank lines removed."""
    text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return BLANK_RUNS.sub("\n\n", text).strip("\n") + "\n"


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.0f} MB" if n >= 10_000_000 else f"{n / 1_000_000:.1f} MB"


def _line(exc: BaseException) -> str:
    words = " ".join(str(exc).split())
    return (words[:120] + "…") if len(words) > 120 else words or type(exc).__name__


# -- the fence: a child process with resource limits ----------------------
def child_command() -> list[str]:
    """How the fenced child is started (a test may swap it)."""
    return python_command("gitmem.index.documents")  # isolated: never the work tree's code (launch.py)


class Extractor:
    """A fenced child that extracts one document after another, so that a run over many documents
    pays Python's start and the parsers' imports once. A document that kills the child (its
    memory or CPU limit, a crash) fails alone: the next one starts a fresh child.

    Frames on the pipes: "KIND SIZE\\n" then SIZE bytes in; "SIZE\\n" then SIZE bytes of JSON out."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self.proc: subprocess.Popen[bytes] | None = None
        self.errors: Any = None  # the child's stderr, in a file: a pipe nobody reads would fill and stall it

    def __enter__(self) -> Extractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc is not None:
            proc, self.proc = self.proc, None
            try:  # (union-attr: typeshed types a pipe as Optional; Popen made both pipes, so they exist)
                proc.stdin.close()  # type: ignore[union-attr]
                proc.wait(timeout=GRACE_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            self.errors.close()

    def extract(self, kind: str, data: bytes) -> Extract:
        """A document's text, within limits; never raises for bad input (the failure is in the result)."""
        why = refusal(kind, len(data), data[:LFS_MAX], self.limits)
        if why:
            return Extract(kind, failed=why)
        if kind == "txt":
            return parse(kind, data, self.limits)  # decoding needs no fence
        if self.proc is None:
            import tempfile

            lim = self.limits
            self.errors = tempfile.TemporaryFile()
            self.proc = subprocess.Popen([*child_command(), str(lim.max_pages), str(lim.seconds), str(lim.memory_mb)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        proc = self.proc
        try:
            proc.stdin.write(f"{kind} {len(data)}\n".encode() + data)  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            answer = _frame(proc, self.limits.seconds + GRACE_SECONDS)
        except (BrokenPipeError, EOFError, TimeoutError) as exc:
            self.proc = None
            if isinstance(exc, TimeoutError):
                proc.kill()
            code = proc.wait()
            self.errors.seek(0)
            stderr = self.errors.read()[-4096:]
            self.errors.close()
            proc.stdout.close()  # type: ignore[union-attr]
            if isinstance(exc, TimeoutError):
                return Extract(kind, failed=f"extraction took longer than {self.limits.seconds}s and was "
                                            "stopped (documents.timeout_seconds)")
            return Extract(kind, failed=_death(code, stderr, self.limits))
        try:
            out = json.loads(answer)
        except ValueError:
            return Extract(kind, failed="the extracting process gave no answer")
        return Extract(kind, out.get("pages") or [], out.get("failed"), out.get("note"), out.get("total_pages"))


def _frame(proc: subprocess.Popen[bytes], seconds: float) -> bytes:
    """One answer from the child: EOFError if it died, TimeoutError if it took too long."""
    import select
    import time

    fd = proc.stdout.fileno()  # type: ignore[union-attr]
    deadline = time.monotonic() + seconds
    buf = b""
    size: int | None = None
    while size is None or len(buf) < size:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise EOFError
        buf += chunk
        if size is None and b"\n" in buf:
            head, _, buf = buf.partition(b"\n")
            size = int(head)
    return buf


def _death(code: int, stderr: bytes, limits: Limits) -> str:
    """Why the child died, as a note: a signal from its CPU limit, or memory it could not have."""
    import signal

    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return f"extraction took longer than {limits.seconds}s of CPU and was stopped (documents.timeout_seconds)"
    tail = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {code}"]
    if "MemoryError" in tail[0] or code == -signal.SIGSEGV:
        return f"ran out of memory (over {limits.memory_mb} MB) while extracting (documents.memory_mb)"
    return f"the extracting process failed: {_line(Exception(tail[0]))}"


def _child(argv: list[str]) -> int:
    """Entry of the child: limits first, then one document after another from stdin, JSON answers on stdout.
    The CPU limit is renewed for each document (it counts the process's whole life)."""
    import resource

    max_pages, seconds, memory_mb = int(argv[0]), int(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    limits = Limits(max_pages=max_pages, seconds=seconds, memory_mb=memory_mb)
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = source.readline()
        if not head:
            return 0
        kind, size = head.decode().split()
        data = source.read(int(size))
        used = resource.getrusage(resource.RUSAGE_SELF)
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        soft = int(used.ru_utime + used.ru_stime) + 1 + seconds
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
        got = parse(kind, data, limits)
        answer = json.dumps({"pages": got.pages, "failed": got.failed, "note": got.note,
                             "total_pages": got.total_pages}).encode()
        sink.write(f"{len(answer)}\n".encode() + answer)
        sink.flush()


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
