"""Markdown structure every layer reads: frontmatter, headings outside code fences, a fact's words.

Plain regular expressions, not a markdown parser: the index, the merge driver and
the page editor all need exact character offsets into the text as git stores it.
"""

from __future__ import annotations

import bisect
import re

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)", re.MULTILINE)
FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n.*?^(---|\.\.\.)[ \t]*\r?$\n?", re.MULTILINE | re.DOTALL)
# a learned fact's source and confidence at the end of its line (index/confidence.py writes it);
# the terminal and the browser show it apart from the fact's words, not as text
LEARNED_NOTE = re.compile(r"\s*<!-- gitmem: [^>]*-->")


def unlearned(text: str) -> str:
    """The text without the learned-fact notes in it."""
    return LEARNED_NOTE.sub("", text)


# the trailers gitmem's commits carry for machines (notes/trailers.py): shown to people they read as noise
GITMEM_TRAILER = re.compile(r"^Gitmem-[A-Za-z-]+: .*(?:\n|$)", re.MULTILINE)


def untrailered(message: str) -> str:
    """A commit message as people read it: without gitmem's own trailer lines."""
    return GITMEM_TRAILER.sub("", message).rstrip("\n")


def body_offset(text: str) -> int:
    """Where the page body starts: after a leading YAML frontmatter block."""
    match = FRONTMATTER.match(text)
    return match.end() if match else 0


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts (line n starts at [n - 1])."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def headings_of(text: str, start: int = 0) -> list[tuple[int, int, str]]:
    """(offset, level, title) of each heading outside code fences."""
    fenced = fenced_ranges(text)
    fence_starts = [a for a, _ in fenced]
    found = []
    for m in HEADING.finditer(text, start):
        i = bisect.bisect_right(fence_starts, m.start()) - 1
        if i < 0 or m.start() >= fenced[i][1]:
            found.append((m.start(), len(m.group(1)), m.group(2).strip()))
    return found


def fenced_ranges(text: str) -> list[tuple[int, int]]:
    marks = [m.start() for m in FENCE.finditer(text)]
    ranges = [(marks[i], marks[i + 1]) for i in range(0, len(marks) - 1, 2)]
    if len(marks) % 2:
        ranges.append((marks[-1], len(text)))
    return ranges


# short forms people and agents write for the same word: "the prod db" says "the production database"
SHORT_FORMS = {"prod": "production", "db": "database", "dbs": "databases", "env": "environment",
               "envs": "environments", "k8s": "kubernetes", "repo": "repository", "repos": "repositories",
               "config": "configuration", "dev": "development", "docs": "documentation", "app": "application",
               "apps": "applications", "auth": "authentication", "info": "information", "pw": "password",
               "pwd": "password", "addr": "address", "mgr": "manager", "dept": "department", "msg": "message",
               "msgs": "messages", "tel": "telephone", "approx": "approximately", "appt": "appointment",
               "bday": "birthday", "wk": "week", "wks": "weeks", "mins": "minutes", "hr": "hour", "hrs": "hours",
               "yr": "year", "yrs": "years"}


def long_form(word: str) -> str:
    """A lower-case word as its long form ("db" -> "database"), else itself."""
    return SHORT_FORMS.get(word, word)


def long_forms(words: str) -> str:
    """Space-separated lower-case words, each as its long form."""
    return " ".join(long_form(w) for w in words.split())


# what names one thing exactly, its dots and @ kept: an address, a URL, a host, a file, a version
# Each part is read once (possessive, starting where a run starts): a line of 20,000 letters took
# 2-5 s with backtracking, and pages are read line by line here
EXACT = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)+|(?<![a-z])[a-z]++://\S++"
                   r"|(?<![\w-])\w[\w-]*+(?:\.[\w-]++)+(?<=\w)")


def exact_names(text: str) -> set[str]:
    """The addresses, URLs, hosts and files a text names ("rosa@example.pt", "db2.internal"): two
    texts that name different ones say different things, however alike their words, which
    normalize_fact reads as "rosa example pt" and "rosa new example pt"."""
    return set(EXACT.findall(text.lower()))


def exact_differ(a: str, b: str) -> bool:
    """Whether both texts name an address, a host or a file, and not the same ones."""
    x, y = exact_names(a), exact_names(b)
    return bool(x) and bool(y) and x != y


def normalize_fact(line: str) -> str:
    """A line reduced to its words, for duplicate checks."""
    line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?", "", line)
    return " ".join(re.findall(r"\w+", line.lower()))
