"""Page texts by blob as the index sees them: what search names facts in (search/facts.py) and
what the indexer embeds those facts from (index/weighed.py), read once each."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Literal

from . import chunks

if TYPE_CHECKING:
    from .indexer import Index

_PARSED: dict[tuple[str, str], str] = {}  # (git dir, blob oid) -> the page's text, see Reader._read
# characters of page text kept (the pages of a 10k-chunk notebook are 3.7 MB: a warm process that
# kept 256 pages read a third of its result pages from git again on every query, 34 ms of 130)
PARSED_CHARS = 16_000_000
KEPT_PAGES = 2_000  # page texts kept between queries (index/memo.py) ...
KEPT_CHARS = 200_000  # ... each at most this long ...
KEPT_ALL = PARSED_CHARS  # ... and all of them together at most this many characters (then: start again)
_parsed_chars = 0
_PARSED_LOCK = threading.Lock()


class Reader:
    """Page texts by blob as the index sees them (forgotten lines blanked), read once each. A
    document's text is its extracted text (page `page` of a PDF), never its source: an HTML
    comment or script that extraction drops must not come back as a hit's fact."""

    def __init__(self, index: Index, keep: bool = True) -> None:
        self.index = index
        self.keep = keep  # False: read without filling the process's page cache (indexing reads every page)
        self._texts: dict[tuple[int, int | None], str | None] = {}
        # a page's text by blob (and document page), kept between queries while the index and the
        # record of forgotten lines are unchanged; at most KEPT_PAGES, none longer than KEPT_CHARS,
        # KEPT_ALL characters in all (a daemon's memory: 2,000 long pages would be 400 MB)
        self._kept: dict[tuple[int, int | None], str] = (
            index.kept(("pages", index.forgotten.key), KEPT_PAGES) if keep else {})
        self._kept_chars: dict[str, int] = index.kept(("pages-chars", index.forgotten.key)) if keep else {}

    def text(self, blob: int, path: str | None, page: int | None = None) -> str | None:
        """The page's text (None: unreadable); `path` (None: unknown) is read when git has no such blob."""
        key = (blob, page)
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        if key not in self._texts:
            document = self._document(blob, page)
            text = self._texts[key] = document if document is not False else self._read(blob, path)
            if text is not None and len(text) <= KEPT_CHARS and document is not None:
                self._keep(key, text)  # not a read that failed, nor an extraction still pending
        return self._texts[key]

    def _keep(self, key: tuple[int, int | None], text: str) -> None:
        held = self._kept_chars.get("all", 0) if self._kept else 0
        if held + len(text) > KEPT_ALL:
            self._kept.clear()  # start again, as memo.of does past its count
            held = 0
        self._kept[key] = text
        self._kept_chars["all"] = held + len(text)

    def _document(self, blob: int, page: int | None) -> str | None | Literal[False]:
        """A document blob's extracted text (None: not extracted), or False: not a document."""
        from . import extracts

        row = chunks.document(self.index.conn, blob)
        if row is None:
            return False
        got = extracts.cached(self.index, row[1], row[0])
        if got is None or got.failed or not 1 <= (page or 1) <= len(got.pages):
            return None
        return self.index.forgotten.redact(got.pages[(page or 1) - 1])

    def _read(self, blob: int, path: str | None) -> str | None:
        from ..errors import PathOutside
        from .blobs import parse

        oid = chunks.blob_oid(self.index.conn, blob)
        key = (str(self.index.nb.git.git_dir), oid)
        kept = _PARSED.get(key)
        if kept is not None:  # a blob never changes: parsed once per process
            return self.index.forgotten.redact(kept)
        data: bytes | None
        try:
            data = self.index.nb.git.read_blob(oid)
        except Exception:  # a work-tree file git has not stored (gitdb raises its own BadObject/ValueError)
            try:
                data = self.index.nb.read_bytes(path) if path is not None else None  # never through a symlink
            except PathOutside:
                data = None
            if data is None:
                return None
            return self.index.forgotten.redact(parse(data).text)
        text = parse(data).text
        if self.keep:
            _keep_parsed(key, text)
        return self.index.forgotten.redact(text)  # not _PARSED[key]: another thread may have evicted it


def _keep_parsed(key: tuple[str, str], text: str) -> None:
    """Keep a page's text, dropping the oldest while more than PARSED_CHARS are kept."""
    global _parsed_chars
    with _PARSED_LOCK:  # a server reads pages for queries at once
        if key in _PARSED:
            return
        while _PARSED and _parsed_chars + len(text) > PARSED_CHARS:
            _parsed_chars -= len(_PARSED.pop(next(iter(_PARSED))))
        _PARSED[key] = text
        _parsed_chars += len(text)
