"""Settings: the notebook's own (committed in .gitmem.toml) and this machine's.

Notebook settings travel with the notebook; machine settings (where the model
lives) come from environment variables or git config, the
variable winning. With no settings at all every default below applies.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import PathOutside, UsageError
from .globs import MAX_LENGTH as MAX_GLOB
from .globs import Matcher, compile_glob
from .paths import confine, safe_pattern

CONFIG_FILE = ".gitmem.toml"
DEFAULT_MODEL = "BAAI/bge-small-en-v1.5"
# the page `git mem init --agent-instructions` writes: how the agent should use the notebook, which
# `context` always loads; recall and the prompt hook leave it out (its lines are no memories)
INSTRUCTIONS_PAGE = "reference/agent-instructions.md"
# the watch list (notes/watch.py; folders, flat): bookkeeping of whom to watch ("**Priya** — priority: high");
# the folders layout's, under reference/, is given to the agent whole by `context` and is never an answer
# ("what is Priya's role" put it first, a newcomer's); the flat layout's is not in the context: recall finds it
WATCH_PAGES = ("reference/watched.md", "WATCHED.md")
PLAN_PAGE = "PLAN.md"  # the agent's plan (notes/plan.py)
# the pages that tell the agent who it is, whom it serves and how to work, at the notebook's top
IDENTITY_PAGES = ("SOUL.md", "IDENTITY.md", "USER.md", "AGENTS.md", "CLAUDE.md")


# ... and, in any folder, the files agent tools take their orders from (Claude Code reads a nested
# CLAUDE.md and CLAUDE.local.md; Gemini CLI a GEMINI.md). Not USER.md: the memory tool's own
# /memories/user.md is the agent's notes on its user.
TOOL_ORDERS = frozenset(n.casefold() for n in ("AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.local.md",
                                               "GEMINI.md"))  # Codex reads AGENTS.override.md before AGENTS.md


def tells_the_agent(rel: str) -> bool:
    """Whether a page tells an agent who it is, whom it serves and how to work: the instructions
    page, an identity page at the notebook's top (what `context` loads as such), or an agent tool's
    orders in any folder; as .md or .markdown, in any case of its letters (USER.md and user.md are
    one file where file names are case-insensitive; an attack run's agent wrote projects/CLAUDE.md
    and USER.markdown). An agent may not change one (notes/change.not_the_agents)."""
    folded = rel.casefold()
    if folded.endswith(".markdown"):
        folded = folded[:-len(".markdown")] + ".md"
    return folded == INSTRUCTIONS_PAGE.casefold() or folded in {p.casefold() for p in IDENTITY_PAGES} or \
        folded.rsplit("/", 1)[-1] in TOOL_ORDERS


NOTE_SUFFIXES = (".md", ".markdown")  # a note is markdown, whatever notebook.include says
DOCUMENT_SUFFIXES = (".pdf", ".docx", ".html", ".htm", ".txt")  # documents gitmem reads (index/documents.KINDS)
MODEL_DIR_ENV = "GITMEM_MODEL_DIR"
MODEL_DIR_KEY = "mem.modelDir"
MODEL_NAME_ENV = "GITMEM_MODEL"
MODEL_NAME_KEY = "mem.model"
LAYOUTS = ("folders", "flat")
FUSIONS = ("scores", "rrf")  # hybrid: mean of scores relative to each ranker's best, or reciprocal rank fusion
GROUPS = ("notebook", "daily", "documents", "sessions")  # the order recall and search list them in
RECALL_GROUPS = ("notebook", "daily", "documents")  # recall's default (search.recall in .gitmem.toml)
# remember --category (memory.CATEGORIES: the page or MEMORY.md section of each)
CATEGORIES = ("fact", "preference", "contact", "todo", "shopping", "infrastructure", "rule", "decision", "event")
MODES = ("hybrid", "keyword", "semantic")
DATE_BASES = ("auto", "commit", "file")  # what date filters compare


@dataclass(frozen=True)
class Settings:
    """Notebook settings; every field can be set in .gitmem.toml."""

    path: str = "."
    layout: str = "folders"
    include: tuple[str, ...] = ("**.md", "**.markdown")
    daily: tuple[str, ...] = ("daily/*.md", "memory/????-??-??.md")
    sessions: tuple[str, ...] = ("sessions/*.md", "memory/????-??-??-????*.md")
    documents: tuple[str, ...] = ("**.pdf", "**.docx", "**.html", "**.htm", "**.txt")
    documents_private: tuple[str, ...] = ()  # documents never extracted nor indexed
    doc_max_bytes: int = 50_000_000
    doc_max_pages: int = 2000
    doc_seconds: int = 60  # CPU seconds one document's extraction may take
    doc_memory_mb: int = 1024  # address space of the extracting process
    recall: tuple[str, ...] = RECALL_GROUPS
    max_chars: int = 1600
    overlap_chars: int = 320
    limit: int = 15
    min_score: float = 0.25
    rrf_k: int = 60
    fusion: str = "scores"
    # a read embeds up to this many new texts itself; with more (a fresh clone) it answers by keyword
    # at once and embeds in the background
    embed_on_read: int = 100
    always_on: tuple[str, ...] = ("SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md", "reference/*.md")
    file_budget: int = 8000
    total_budget: int = 32000
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def group_of(self, path: str) -> str:
        """The group a notebook-relative path belongs to; first match wins."""
        if _matches(self.daily, path):
            return "daily"
        if _matches(self.sessions, path):
            return "sessions"
        if self.is_document(path):
            return "documents"
        return "notebook"

    def is_note(self, path: str) -> bool:
        """Whether a notebook-relative path is a note gitmem indexes (and writes): a markdown file
        the include patterns match. Only markdown, whatever a pulled .gitmem.toml says: with
        include = ["**"], `git mem write Makefile` and the MCP write tool edited code (an attack run)."""
        if path == CONFIG_FILE or any(part.startswith(".") for part in path.split("/")):
            return False
        return path.lower().endswith(NOTE_SUFFIXES) and _matches(self.include, path)

    def is_document(self, path: str) -> bool:
        """Whether a notebook-relative path is a document (PDF, DOCX, HTML, text) gitmem extracts."""
        if any(part.startswith(".") for part in path.split("/")) or _matches(self.include, path):
            return False
        return _matches(self.documents, path) and not _matches(self.documents_private, path)

    def is_indexed(self, path: str) -> bool:
        """A note or a document: what the index holds."""
        return self.is_note(path) or self.is_document(path)

    def extract_signature(self) -> str:
        """Changes whenever a document's extraction could come out differently (a failure retried)."""
        return f"x1:{self.doc_max_bytes}:{self.doc_max_pages}:{self.doc_seconds}:{self.doc_memory_mb}"

    def chunker_signature(self) -> str:
        """Changes whenever chunking would produce different chunks."""
        # v2: forgotten lines blanked before a page is cut; private read from bad frontmatter
        # v3: private read in any key case and from any yes-like value (privacy.py)
        # v4: a nested list item is keyed and embedded with the items it is nested under (blocks.py)
        return f"v4:{self.max_chars}:{self.overlap_chars}"

    def layout_signature(self) -> str:
        """Changes whenever the set of notes or their groups would differ."""
        return repr((self.path, self.include, self.daily, self.sessions, self.documents, self.documents_private))


# Where each TOML table's keys land in Settings.
_SECTIONS = {
    "notebook": {"path": "path", "layout": "layout", "include": "include"},
    "groups": {"daily": "daily", "sessions": "sessions"},
    "chunking": {"max_chars": "max_chars", "overlap_chars": "overlap_chars"},
    "search": {"limit": "limit", "min_score": "min_score", "rrf_k": "rrf_k", "fusion": "fusion",
               "embed_on_read": "embed_on_read", "recall": "recall"},
    "documents": {"include": "documents", "private": "documents_private", "max_bytes": "doc_max_bytes",
                  "max_pages": "doc_max_pages", "timeout_seconds": "doc_seconds", "memory_mb": "doc_memory_mb"},
    "context": {"always_on": "always_on", "file_budget": "file_budget", "total_budget": "total_budget"},
}


def load(top: Path) -> Settings:
    """Read .gitmem.toml at the repo top; defaults for anything it omits."""
    file = top / CONFIG_FILE
    if file.is_symlink():  # it travels with every clone: a link could make it say anything
        raise PathOutside(f"{CONFIG_FILE} is a symlink; gitmem reads its settings only from a plain file",
                          f"replace the link with the file itself: git rm {CONFIG_FILE}, then git mem init")
    if not file.is_file():
        return Settings()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{CONFIG_FILE} is not valid TOML: {exc}", f"fix or delete {file}") from exc
    return from_dict(data)


def from_dict(data: dict[str, Any]) -> Settings:
    """Settings from parsed TOML; unknown tables are kept in `extra`."""
    values: dict[str, Any] = {}
    kinds = {f.name: f.type for f in fields(Settings)}
    for section, keys in _SECTIONS.items():
        table = data.get(section, {})
        for key, attr in keys.items():
            if key in table:
                values[attr] = _coerce(table[key], str(kinds[attr]), f"{section}.{key}")
    extra = {k: v for k, v in data.items() if k not in _SECTIONS}
    settings = replace(Settings(), **values, extra=extra)
    if settings.layout not in LAYOUTS:
        raise UsageError(f"{CONFIG_FILE}: layout must be one of {', '.join(LAYOUTS)}", "fix notebook.layout")
    if settings.fusion not in FUSIONS:
        raise UsageError(f"{CONFIG_FILE}: search.fusion must be one of {', '.join(FUSIONS)}", "fix search.fusion")
    _check_ranges(settings)
    unknown = [g for g in settings.recall if g not in GROUPS]
    if unknown or not settings.recall:
        raise UsageError(f"{CONFIG_FILE}: search.recall must list groups among {', '.join(GROUPS)}",
                         "fix search.recall")
    return replace(settings, path=_notebook_path(settings.path))


def _notebook_path(value: str) -> str:
    """notebook.path by the rules of every other path: inside the repository,
    no `..`, no hidden or absolute parts (the file travels with every clone)."""
    if value.strip().strip("/") in ("", "."):
        return "."
    try:
        return confine(value)
    except (PathOutside, UsageError) as exc:
        raise UsageError(f"{CONFIG_FILE}: notebook.path {value!r} must be a folder inside the repository "
                         f"({exc.message})", "fix notebook.path") from exc


# (field, smallest, largest) for every number in the settings
_RANGES = [("max_chars", 50, 1_000_000), ("overlap_chars", 0, 1_000_000), ("limit", 1, 1000),
           ("min_score", 0, 1), ("rrf_k", 1, 10_000), ("embed_on_read", 0, 100_000_000),
           ("file_budget", 0, 10_000_000),
           ("total_budget", 0, 100_000_000), ("doc_max_bytes", 1, 10**12), ("doc_max_pages", 1, 10**6),
           ("doc_seconds", 1, 86_400), ("doc_memory_mb", 64, 1 << 20)]
_PATTERN_FIELDS = ("include", "daily", "sessions", "documents", "documents_private", "always_on")


def _check_ranges(s: Settings) -> None:
    for name, low, high in _RANGES:
        if not low <= getattr(s, name) <= high:
            raise UsageError(f"{CONFIG_FILE}: {name} must be between {low} and {high}", f"fix {name}")
    if s.overlap_chars >= s.max_chars:
        raise UsageError(f"{CONFIG_FILE}: overlap_chars must be smaller than max_chars", "fix overlap_chars")
    for name in _PATTERN_FIELDS:
        long = [p for p in getattr(s, name) if len(p) > MAX_GLOB]
        if long:
            raise UsageError(f"{CONFIG_FILE}: a {name} pattern is {len(long[0])} characters long, over "
                             f"{MAX_GLOB}", f"shorten it in {name}")
        bad = [p for p in getattr(s, name) if not safe_pattern(p)]
        if bad:
            raise UsageError(f"{CONFIG_FILE}: {name} pattern {bad[0]!r} could reach outside the notebook",
                             f"use patterns relative to the notebook, without '..', in {name}")


def _coerce(value: Any, kind: str, name: str) -> Any:
    if "tuple" in kind:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{CONFIG_FILE}: {name} must be a list of strings", f"fix {name}")
        return tuple(value)
    kinds: dict[str, type[int] | type[str] | tuple[type[int], type[float]]] = {
        "int": int, "float": (int, float), "str": str}
    expected = kinds[kind]
    if not isinstance(value, expected) or isinstance(value, bool):
        raise UsageError(f"{CONFIG_FILE}: {name} must be a {kind}", f"fix {name}")
    return float(value) if kind == "float" else value


def render(settings: Settings) -> str:
    """The .gitmem.toml that `git mem init` commits."""
    def lst(items: tuple[str, ...]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    # the TOML's comments sit on their settings' lines, so a few source lines run past 120 columns
    return f"""# gitmem notebook settings. They travel with the notebook; see docs/commands.md.
[notebook]
path = {json.dumps(settings.path)}        # the notebook folder, relative to the repository root
layout = {json.dumps(settings.layout)}    # where remember/daily/session write: folders | flat

[groups]                  # first match wins; everything else is "notebook"
daily = {lst(settings.daily)}
sessions = {lst(settings.sessions)}

[chunking]
max_chars = {settings.max_chars}
overlap_chars = {settings.overlap_chars}

[search]
limit = {settings.limit}
min_score = {settings.min_score}
fusion = "{settings.fusion}"   # hybrid: scores (mean of each ranker's scores relative to its best) | rrf
rrf_k = {settings.rrf_k}        # used by fusion = "rrf"
embed_on_read = {settings.embed_on_read}  # a read embeds this many new texts itself; more: keyword now, the rest in the background
recall = {lst(settings.recall)}   # the groups recall searches

[documents]               # PDF, DOCX, HTML and text files, extracted once per content; see docs/documents.md
include = {lst(settings.documents)}
private = {lst(settings.documents_private)}   # never extracted nor indexed
max_bytes = {settings.doc_max_bytes}
max_pages = {settings.doc_max_pages}
timeout_seconds = {settings.doc_seconds}
memory_mb = {settings.doc_memory_mb}

[context]
always_on = {lst(settings.always_on)}
file_budget = {settings.file_budget}
total_budget = {settings.total_budget}
"""  # noqa: E501


def matches(patterns: tuple[str, ...], path: str) -> bool:
    """Whether a notebook-relative path matches any of these globs (`*` stays in a folder, `**` crosses)."""
    return _matches(patterns, path)


def _matches(patterns: tuple[str, ...], path: str) -> bool:
    return any(_glob(p).fullmatch(path) for p in patterns)


def _glob(pattern: str) -> Matcher:
    """A glob's matcher: `*` and `?` stay inside one folder, `**` crosses them (globs.py: never
    a backtracking blow-up, whatever a pull brings)."""
    return compile_glob(pattern)
