"""What the commands that find things print for people: recall and search results (grouped, or
one ranking), `why` and the timeline (`log`). Quoted text passes through output.terminal_safe
(output.render) like everything else."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..config import GROUPS
from ..markdown import unlearned, untrailered
from ..paths import shown

if TYPE_CHECKING:  # the result classes, for the checker only: printing must not import what made them
    from ..search.hits import Hit, Results
    from ..search.timeline import Timeline
    from ..search.why import Step, Why

LEADER_COLUMN = 46


def results(res: Results) -> str:
    """Recall's results grouped notebook -> daily -> documents -> sessions, then the weak ones."""
    lines = _as_at(res)
    strong = [h for h in res.results if not h.weak]
    for group in GROUPS:
        hits = [h for h in strong if h.group == group]
        if hits:
            lines.append(f"{group.upper()} ({len(hits)})")
            for hit in hits:
                lines.extend(_hit(hit))
    return "\n".join(lines + _weak_and_notes(res))


def ranked(res: Results) -> str:
    """Search's results as one ranking, best first, then the weak ones."""
    lines = _as_at(res)
    for hit in (h for h in res.results if not h.weak):
        lines.extend(_hit(hit, group=True))
    return "\n".join(lines + _weak_and_notes(res))


def _as_at(res: Results) -> list[str]:
    """The lines above the results: the commit a view reads, and the question as it was asked when
    a role in it was read as the notebook's name for it."""
    view = res.view
    out = []
    if view and view.get("kind") == "at":
        out.append(f"as at {view['commit'][:7]} {view['date'][:16].replace('T', ' ')} \"{view['subject']}\"")
    if res.asked_as is not None:
        out.append(f"asked as: {res.asked_as}")
    return out


def _hit(hit: Hit, group: bool = False) -> list[str]:
    out = [hit_header(hit) + (f"  [{hit.group}]" if group else "")]
    out.extend(fact_lines(hit.fact) if hit.fact else [f"    {unlearned(hit.snippet)}"])
    if hit.changed_by:
        out.append(f"    {superseded(hit)}")
    elif hit.successor:
        later = hit.successor
        when = f" ({later['commit'][:7]} {later['date'][:10]})" if later.get("commit") and later.get("date") else ""
        said = "partly updated" if later.get("part") else "no longer true: updated"
        out.append(f"    {said} by a later line{when}")
    successor = hit.successor
    if successor and hit.changed_by and not successor.get("current"):
        out.append(_named("replaced by", successor))  # itself replaced since, or removed
    if successor and (successor.get("now") or hit.current or successor.get("current")):
        out.append(_named("now", successor.get("now") or successor))
    return out


def _named(label: str, fact: dict[str, Any]) -> str:
    """A fact named under a result: `label: PATH:LINES  its first line`."""
    return (f"    {label}: {shown(fact['path'])}:{_span(fact['lines'])}  "
            f"{unlearned(fact['text']).splitlines()[0] if fact['text'] else ''}")


def _weak_and_notes(res: Results) -> list[str]:
    """The weak results under a line of their own (they may not answer), 'no results', the notes."""
    lines: list[str] = []
    weak = [h for h in res.results if h.weak]
    if weak:
        lines.append(f"WEAK MATCHES ({len(weak)}): the closest, but they may not answer")
        mixed = len({h.group for h in weak}) > 1  # one section for every group: name each only when they differ
        for hit in weak:
            lines.extend(_hit(hit, group=mixed))
    if not res.results:  # a long query is cut, as the no-match note cuts it
        lines.append(f"no results for {res.query if len(res.query) <= 80 else res.query[:79] + '…'!r}")
    lines.extend(f"note: {note}" for note in res.notes)
    return lines


def _span(lines: dict[str, int]) -> str:
    return str(lines["start"]) if lines["start"] == lines["end"] else f"{lines['start']}-{lines['end']}"


def hit_header(hit: Hit) -> str:
    """'  PATH:LINES ...... SCORE  (commit date[, until date])': the fact's lines and provenance
    when the hit names a fact (`git mem get PATH:LINES` prints it), else the chunk's; a PDF hit
    as PATH#pPAGE:LINES."""
    cited = hit.fact or hit
    page = hit.page
    where = f"  {shown(hit.path)}{f'#p{page}' if page else ''}:{_span(cited.lines)} "
    dots = "." * max(3, LEADER_COLUMN - len(where))
    origin = f"{cited.commit[:7]} {cited.date[:10]}" if cited.commit and cited.date else \
        f"uncommitted, {cited.date[:10]}" if cited.date else "uncommitted"
    verb = hit.fact.wrote.get("verb") if hit.fact else None  # a chunk carries no trailers of its own
    extra = f", {verb}" if verb else ""
    extra += "" if hit.current else f", until {(hit.until or '')[:10]}"
    if hit.confidence is not None:
        extra += f", confidence {hit.confidence:.2f}"
    if hit.scope == "personal":
        extra += ", personal notebook"
    return f"{where}{dots} {hit.score:.2f}  ({origin}{extra})"


FACT_LINES = 8


class Quoted(Protocol):
    """A fact as it is quoted: its text under its heading path (search.facts.Fact, or why's)."""

    text: str
    headings: list[str]


def fact_lines(fact: Quoted) -> list[str]:
    """The fact as it reads in markdown, under its heading path, and the list items it is nested
    under (a table row: under its table's header row)."""
    context = unlearned(getattr(fact, "context", ""))
    row = context.lstrip().startswith("|")
    path = [*fact.headings, *([context.replace(" / ", " › ")] if context and not row else [])]
    out = [f"    {' › '.join(path)}"] if path else []
    indent = "      " if path else "    "
    body = ([context] if row else []) + unlearned(fact.text).split("\n")
    out.extend(f"{indent}{line}" for line in body[:FACT_LINES])
    if len(body) > FACT_LINES:
        out.append(f"{indent}… {len(body) - FACT_LINES} more lines")
    return out


def superseded(hit: Hit) -> str:
    """'no longer true: edited in abc1234 2026-02-10 "subject"'."""
    change = hit.changed_by or {}
    if change["commit"] is None:
        return f"no longer true: {change['how']} change in the work tree"
    where = f" (renamed to {shown(change['path'])} by then)" if change["path"] != hit.path else ""
    return (f"no longer true: {change['how']} in {change['commit'][:7]} {str(change['date'])[:10]} "
            f"\"{change['subject']}\"{where}")


def why(w: Why) -> str:
    """`git mem why`: the fact, then last changed by / introduced by / the changes between."""
    fact = w.fact
    out = [f"{shown(w.path)}:{_span(fact['lines'])}"]
    out.extend(fact_lines(_Fact(fact["text"], fact["headings"], fact.get("context") or "")))
    if w.last_changed:
        out.append(f"last changed by  {_step(w.last_changed)}")
    if w.introduced and w.introduced.commit != (w.last_changed.commit if w.last_changed else None):
        out.append(f"introduced by    {_step(w.introduced)}")
    if len(w.changes) > 2:
        out.append(f"changed {len(w.changes)} times:")
        out.extend(f"  {_step(s)}" for s in w.changes)
    if getattr(w, "backlinks", None):
        out.append("page linked from " + ", ".join(f"{shown(b.path)}:{b.line}" for b in w.backlinks))
    out.extend(f"note: {n}" for n in w.notes)
    return "\n".join(out)


class _Fact:
    def __init__(self, text: str, headings: list[str], context: str = "") -> None:
        self.text, self.headings, self.context = text, headings, context


def _step(s: Step) -> str:
    made = ", ".join(f"{k} {v}" if k != "verb" else f"git mem {v}" for k, v in s.wrote.items())
    return f"{s.commit[:7]} {s.date[:10]} {s.author} \"{s.subject}\"" + (f" ({made})" if made else "")


SHOWN_LINES = 6
MARKS = {"added": "+", "changed": "~", "removed": "-"}


def timeline(t: Timeline) -> str:
    """The memory timeline, newest first, with per-page, per-section changes."""
    lines: list[str] = []
    for e in t.entries:
        score = f"  (match {e.score:.2f})" if e.score is not None else ""
        lines.append(f"{e.commit[:7]} {e.date[:16].replace('T', ' ')} {e.author}{score}")
        lines.extend(f"    {ln}" for ln in untrailered(e.message or e.subject).splitlines() if ln.strip())
        if e.merged:
            lines.append("    merged: " + "; ".join(f"{m['commit'][:7]} {m['subject']}" for m in e.merged))
        for page in e.pages:
            how = f"renamed from {shown(page.renamed_from)}" if page.renamed_from else page.change
            lines.append(f"  {shown(page.path)} ({how})")
            if page.note:
                lines.append(f"    ({page.note})")
            for sec in page.sections:
                lines.append(f"    {MARKS[sec.change]} {sec.heading or '(top of page)'}")
                changed = [f"+ {ln}" for ln in sec.added] + [f"- {ln}" for ln in sec.removed]
                lines.extend(f"        {ln}" for ln in changed[:SHOWN_LINES])
                if len(changed) > SHOWN_LINES:
                    lines.append(f"        … {len(changed) - SHOWN_LINES} more lines")
    if not t.entries:
        lines.append("no commits changed the notebook" + (" with these filters" if any(
            t.filters.get(k) for k in ("since", "until", "path", "grep")) else ""))
    lines.extend(f"note: {note}" for note in t.notes)
    return "\n".join(lines)
