"""What consolidation learned from a conversation, written onto pages.

Pure planning: given what an LLM extracted and a way to read pages (the work
tree for a direct write, a commit's tree for a proposal), return the new text
of every page it touches and a report of what happened to each item. Facts go
to the pages `remember` routes to, preferences to one H2 section per category
(the category's earlier value replaced), corrections replace the old fact's
line (so the old one lives on in `recall --history`), the summary and topics
to the session day's daily log. Every item passes the write guard; one that
fails is refused and reported, and the rest still land. A fact already in the
notebook is not written again: its line is reinforced (restated, so git dates
it anew).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import supersede
from ..errors import Refused
from ..index import confidence
from ..index.confidence import Annotation
from ..markdown import normalize_fact
from ..notebook import Notebook
from . import guard, pages
from .duplicate import same
from .memory import CATEGORIES, daily_path, route

SUMMARY_HEADING = "Session summary"


@dataclass(frozen=True)
class Learned:
    """What an LLM extracted from one conversation (already schema-checked)."""

    facts: list[dict[str, Any]]  # {text, source: explicit|inferred, confidence}
    preferences: list[dict[str, Any]]  # {category, value, confidence?}
    corrections: list[dict[str, Any]]  # {old, new, confidence?}
    summary: str
    topics: list[str]


@dataclass
class Outcome:
    """The new page texts and what became of each extracted item."""

    pages: dict[str, str] = field(default_factory=dict)
    written: list[dict[str, Any]] = field(default_factory=list)
    reinforced: list[dict[str, Any]] = field(default_factory=list)
    corrected: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)

    def only(self, rels: set[str]) -> Outcome:
        """The part of the outcome on these pages (what one commit of it holds); refusals stay with it."""
        def on(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [i for i in items if i.get("path") in rels]

        return Outcome({r: t for r, t in self.pages.items() if r in rels}, on(self.written), on(self.reinforced),
                       on(self.corrected), self.refused)

    def counts(self) -> str:
        parts = [f"{len(self.written)} written", f"{len(self.reinforced)} reinforced",
                 f"{len(self.corrected)} corrected"]
        if self.refused:
            parts.append(f"{len(self.refused)} refused")
        return ", ".join(parts)


class Planner:
    """Applies one Learned to pages read through `read`, keeping every edit in memory."""

    def __init__(self, nb: Notebook, read: Callable[[str], str], origin: str, when: datetime,
                 related: list[tuple[str, str]] | None = None, proposed: list[str] | None = None) -> None:
        self.nb, self._read, self.origin, self.when = nb, read, origin, when
        self.related = related or []  # (page, line) the notebook already holds on the subject
        self.proposed = [normalize_fact(p) for p in proposed or []]  # facts pending review elsewhere
        self.out = Outcome()

    def text(self, rel: str) -> str:
        if rel not in self.out.pages:
            self.out.pages[rel] = self._read(rel)
        return self.out.pages[rel]

    def _set(self, rel: str, text: str) -> None:
        self.out.pages[rel] = text

    def _allowed(self, kind: str, text: str, rel: str) -> bool:
        if "\n" in text.strip() or "<!--" in text or "-->" in text:
            self.out.refused.append({"kind": kind, "text": text, "reason": "not a single plain line"})
            return False
        try:
            guard.check(text, False, rel)
        except Refused as exc:
            self.out.refused.append({"kind": kind, "text": text, "reason": exc.message})
            return False
        return True

    def plan(self, learned: Learned) -> Outcome:
        for item in learned.corrections:
            self.correct(item["old"], item["new"], float(item.get("confidence", 0.9)))
        for item in learned.facts:
            self.fact(item["text"], item["source"], float(item["confidence"]))
        for item in learned.preferences:
            self.preference(item["category"], item["value"], float(item.get("confidence", 0.8)))
        if learned.summary.strip():
            self.summary(learned.summary, learned.topics)
        self.out.pages = {rel: text for rel, text in self.out.pages.items() if text != self._read(rel)}
        return self.out

    # -- items ---------------------------------------------------------------
    def fact(self, text: str, source: str, stated: float) -> None:
        text = " ".join(text.split())
        rel, section, cat = route(self.nb, text, None, None, None)
        if not self._allowed("fact", text, rel):
            return
        ann = Annotation(source, stated, self.origin)
        if self._reinforce(text, ann):
            return
        if any(same(p, text) for p in self.proposed if p):  # another pending proposal adds it already
            self.out.reinforced.append({"kind": "fact", "path": None, "text": text, "note": "already proposed"})
            return
        entry = confidence.annotate(pages.bullet(text, checkbox=CATEGORIES[cat][2]), ann)
        current = self.text(rel) or pages.new_page(rel, "")
        plain = "\n".join(confidence.parse(line)[0] for line in current.split("\n"))
        old = supersede.find(plain, text)  # the same subject and attribute with another value, as remember does
        if old is not None:
            lines = current.split("\n")
            indent = lines[old[0] - 1][:len(lines[old[0] - 1]) - len(lines[old[0] - 1].lstrip())]
            lines[old[0] - 1] = indent + entry
            self._set(rel, "\n".join(lines))
            self.out.corrected.append({"old": old[1].strip(), "new": text, "path": rel, "line": old[0],
                                       "note": "superseded (the same attribute with another value)"})
            return
        edit = pages.append(current, entry, section)
        self._set(rel, edit.text)
        self.out.written.append({"kind": "fact", "path": rel, "line": edit.start_line, "text": text,
                                 "source": source, "confidence": stated})

    def _reinforce(self, text: str, ann: Annotation) -> bool:
        """Restate a line that already says this (higher of the two confidences); True if found."""
        want = normalize_fact(text)
        candidates = [route(self.nb, text, None, None, None)[0]] + [rel for rel, _ in self.related]
        for rel in dict.fromkeys(candidates):
            lines = self.text(rel).split("\n")
            for i, line in enumerate(lines):
                body, old = confidence.parse(line)
                if not confidence.is_fact(line) or not same(want, body):
                    continue
                if old is None and not confidence.exempt(self.nb, rel):
                    old = Annotation("explicit", 1.0)
                if old is not None:  # a person's line on an always-on page is left as it is
                    best = max(old.confidence, ann.confidence)
                    source = "explicit" if "explicit" in (old.source, ann.source) else old.source
                    lines[i] = confidence.annotate(body, Annotation(source, best, old.origin or ann.origin,
                                                                    self.when.date().isoformat()))
                    self._set(rel, "\n".join(lines))
                self.out.reinforced.append({"kind": "fact", "path": rel, "line": i + 1, "text": body.strip(),
                                            "said": text})
                return True
        return False

    def correct(self, old: str, new: str, stated: float) -> None:
        new = " ".join(new.split())
        rel, _, _ = route(self.nb, new, None, None, None)
        if not self._allowed("correction", new, rel):
            return
        found = self._find(old)
        if found is None:  # nothing to supersede: the new value is still a fact worth keeping
            self.out.corrected.append({"old": old, "new": new, "path": None, "line": None,
                                       "note": "the old fact was not found; written as a new fact"})
            self.fact(new, "explicit", stated)
            return
        page, i = found
        lines = self.text(page).split("\n")
        marker = lines[i][:len(lines[i]) - len(lines[i].lstrip())] + ("- [ ] " if "- [ ]" in lines[i] else "- ")
        lines[i] = confidence.annotate(marker + new, Annotation("explicit", stated, self.origin))
        self._set(page, "\n".join(lines))
        self.out.corrected.append({"old": confidence.parse(self.text_line(page, i, old))[0], "new": new,
                                   "path": page, "line": i + 1})

    def text_line(self, rel: str, i: int, fallback: str) -> str:
        original = self._read(rel).split("\n")
        return original[i].strip() if i < len(original) else fallback

    def _find(self, old: str) -> tuple[str, int] | None:
        want = normalize_fact(old)
        if not want:
            return None
        pages_ = [route(self.nb, old, None, None, None)[0]] + [rel for rel, _ in self.related]
        for rel in dict.fromkeys(pages_):
            for i, line in enumerate(self.text(rel).split("\n")):
                body = confidence.parse(line)[0]
                if confidence.is_fact(line) and (same(want, body) or want == normalize_fact(body)):
                    return rel, i
        return None

    def preference(self, category: str, value: str, stated: float) -> None:
        category = " ".join(category.split()).strip().capitalize()
        value = " ".join(value.split())
        folder_page, flat_section, _ = CATEGORIES["preference"]
        flat = self.nb.settings.layout == "flat"
        rel = "MEMORY.md" if flat else folder_page
        section = f"{flat_section}: {category}" if flat else category
        if not self._allowed("preference", f"{category}: {value}", rel):
            return
        current = self.text(rel) or pages.new_page(rel, "")
        found = pages.find_section(current, section)
        before = current[found.body:found.end].strip() if found else ""
        entry = confidence.annotate(pages.bullet(value), Annotation("preference", stated, self.origin))
        if normalize_fact(confidence.parse(before)[0]) == normalize_fact(value):
            self.out.reinforced.append({"kind": "preference", "path": rel, "category": category, "text": value})
            return
        edit = pages.replace(current, entry, section)
        self._set(rel, edit.text)
        self.out.written.append({"kind": "preference", "path": rel, "line": edit.start_line, "category": category,
                                 "text": value, "replaced": confidence.parse(before)[0].strip() or None})

    def summary(self, summary: str, topics: list[str]) -> None:
        day = f"{self.when:%Y-%m-%d}"
        rel = daily_path(self.nb, day)
        body = " ".join(summary.split())
        body = "\\" + body if body[:1] in "#>-*+=|`" or body[:1].isdigit() else body  # stays a paragraph
        tags = [" ".join(t.split()) for t in topics if t.strip()][:5]
        text = f"{SUMMARY_HEADING} ({self.origin})\n\n{body}" + (f"\n\nTopics: {', '.join(tags)}" if tags else "")
        if not self._allowed("summary", body + " " + ", ".join(tags), rel):
            return
        edit = pages.add_daily(self.text(rel), day, pages.daily_entry(text, self.when))
        self._set(rel, edit.text)
        self.out.written.append({"kind": "summary", "path": rel, "line": edit.start_line, "text": body,
                                 "topics": tags})
