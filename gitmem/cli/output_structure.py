"""Text output of the structured-memory commands (goals, watch, plan, session changes); the rest
of the one output layer is output.py, and `render` there wraps these (terminal_safe, --json)."""

from __future__ import annotations

from typing import Any

from ..paths import shown


def _commit(oid: str | None) -> str:
    return oid[:7] if oid else "-"


def goal_written(w: Any) -> str:
    g = w.goal
    return f"{w.action}: {w.id} ({shown(w.path)}, {g.status}, {g.progress}%, commit {_commit(w.commit)})"


def goal_line(g: Any) -> str:
    return f"{g.id}  [{g.status}, {g.progress}%]  {g.title}"


def goals(found: Any) -> str:
    out = []
    if not found.goals:
        which = "no goals" if found.all else "no active goals"
        out.append(f"{which} (add one with: git mem goal add TITLE)")
    for g in found.goals:
        out.append(goal_line(g))
        out += [f"    {line}" for line in g.description.split("\n")[:3] if line.strip()]
        out += [f"    fact: {shown(f.get('path', ''))}: {f.get('text', '')}" for f in g.facts]
        out += [f"    note: {n}" for n in g.notes[-3:]]
    out += [f"note: {shown(p)} is under goals/ but gitmem cannot read it as a goal" for p in found.skipped]
    return "\n".join(out)


def watch_written(w: Any) -> str:
    if w.action == "unwatched":
        return f"unwatched: {w.name} ({shown(w.path)}, commit {_commit(w.commit)})"
    why = f", {w.reason}" if w.reason else ""
    return f"{w.action}: {w.name} (priority {w.priority}{why}; {shown(w.path)}, commit {_commit(w.commit)})"


def watch_list(found: Any) -> str:
    if not found.watched:
        return "nothing watched (watch someone with: git mem watch NAME --priority high)"
    return "\n".join(f"{w.name}  [{w.priority}]" + (f"  {w.reason}" if w.reason else "") for w in found.watched)


def plan(p: Any) -> str:
    if not p.exists:
        return f"({p.hint})"
    when = f"\n\n(last changed {p.date}, commit {_commit(p.commit)}: {p.reason})" if p.commit else ""
    text: str = p.text
    return text + when


def plan_updated(u: Any) -> str:
    return f"{u.action}: {shown(u.path)} (commit {_commit(u.commit)}; reason: {u.reason})"


def plan_history(h: Any) -> str:
    if not h.versions:
        return f"no versions of {shown(h.path)} yet"
    return "\n".join(f"{v.date}  {_commit(v.commit)}  {v.reason}" + ("" if v.by == "plan" else f"  ({v.by})")
                     for v in h.versions)


def session_changes(c: Any) -> str:
    out = [c.summary]
    for action in ("created", "updated", "removed"):
        for change in getattr(c, action):
            where = ", ".join(shown(p) for p in change.paths)
            out.append(f"{action:8} {change.date}  {_commit(change.commit)}  {change.subject}  ({where})")
    return "\n".join(out)
