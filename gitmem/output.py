"""The one output layer: every command's data as JSON or as text for people."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import Any, Callable

GROUP_ORDER = ("notebook", "daily", "sessions")
LEADER_COLUMN = 46


def jsonable(data: Any) -> Any:
    if is_dataclass(data) and not isinstance(data, type):
        return asdict(data)
    return data


def to_json(data: Any) -> str:
    return json.dumps(jsonable(data), ensure_ascii=False, indent=2)


def render(data: Any, as_json: bool, text: Callable[[Any], str]) -> str:
    return to_json(data) if as_json else text(data)


def results(res: Any) -> str:
    """Recall/search results grouped notebook -> daily -> sessions."""
    lines: list[str] = []
    for group in GROUP_ORDER:
        hits = [h for h in res.results if h.group == group]
        if not hits:
            continue
        lines.append(f"{group.upper()} ({len(hits)})")
        for hit in hits:
            lines.append(hit_header(hit))
            lines.append(f"    {hit.snippet}")
    if not res.results:
        lines.append(f"no results for {res.query!r}")
    lines.extend(f"note: {note}" for note in res.notes)
    return "\n".join(lines)


def hit_header(hit: Any) -> str:
    span = hit.lines["start"] if hit.lines["start"] == hit.lines["end"] else f"{hit.lines['start']}-{hit.lines['end']}"
    where = f"  {hit.path}:{span} "
    dots = "." * max(3, LEADER_COLUMN - len(where))
    origin = f"{hit.commit[:7]} {hit.date[:10]}" if hit.commit and hit.date else "uncommitted"
    extra = "" if getattr(hit, "current", True) else f", until {str(getattr(hit, 'until', '') or '')[:10]}"
    return f"{where}{dots} {hit.score:.2f}  ({origin}{extra})"


def written(w: Any) -> str:
    if w.action == "duplicate":
        d = w.duplicate
        return f"already remembered at {d['path']}:{d['lines']['start']}: {d['text']}\nhint: {w.hint}"
    span = f"{w.lines['start']}-{w.lines['end']}" if w.lines["end"] != w.lines["start"] else str(w.lines["start"])
    out = f"{w.action}: {w.path}:{span} (commit {w.commit[:7] if w.commit else '-'})"
    if w.hint:
        out += f"\nhint: {w.hint}"
    return out


def forgot(f: Any) -> str:
    spans = ", ".join(f"{r['path']}:{r['lines']['start']}"
                      + (f"-{r['lines']['end']}" if r["lines"]["end"] != r["lines"]["start"] else "")
                      for r in f.removed)
    count = sum(r["lines"]["end"] - r["lines"]["start"] + 1 for r in f.removed)
    out = [f"forgot {count} line{'s' if count != 1 else ''}: {spans} (commit {f.commit[:7] if f.commit else '-'})"]
    if f.index:
        out.append(f"index: purged {f.index['texts']} chunk texts, {f.index['vectors']} vectors, "
                   f"{f.index.get('cached_embeddings', 0)} cached embeddings, {f.index['subjects']} commit subjects; "
                   "FTS optimized, WAL checkpointed")
    out.extend(f"note: {n}" for n in f.notes)
    out.append(f"note: {f.history}")
    if f.identity:
        out.append(f"note: no git identity is configured, so the commit was signed '{f.identity}'")
    return "\n".join(out)


def page(p: Any) -> str:
    return p.text.rstrip("\n")


def summary(s: Any) -> str:
    head = f"indexed {s.commit[:7]}" if s.commit else "indexed (no commits yet)"
    out = [f"{head}: {s.commits} commits, {s.blobs_chunked} blobs chunked, {s.texts_added} new chunks, "
           f"{s.embedded} embedded, {s.reused} embeddings reused, {s.seconds:.2f}s"]
    out.extend(f"note: {n}" for n in s.notes)
    return "\n".join(out)


def init(r: Any) -> str:
    out = [f"notebook: {r.notebook} (layout: {r.layout})"]
    if r.created:
        out.append(f"created: {', '.join(r.created)}" + (f" (commit {r.commit[:7]})" if r.commit else ""))
    else:
        out.append("already initialised; nothing to create")
    if r.index:
        out.append(summary(r.index).split("\n")[0])
    out.extend(f"note: {n}" for n in r.notes)
    return "\n".join(out)


def status(d: dict[str, Any]) -> str:
    idx, counts, model, sizes = d["index"], d["counts"], d["model"], d["sizes"]
    state = idx["state"]
    if state == "stale":
        behind = idx["commits_behind"]
        state += f" ({behind} commits behind HEAD)" if behind else " (HEAD moved off the indexed commit)"
    lines = [
        f"notebook:   {d['notebook']} (layout: {d['layout']})",
        f"index:      {state}; indexed {_short(idx['indexed_commit'])}, HEAD {_short(idx['head'])}",
        f"files:      {counts['files']} ({idx['worktree_changes_indexed']} uncommitted changes indexed,"
        f" {counts['conflicted_files']} with conflict markers)",
        f"chunks:     {counts['chunks']} now; {counts['distinct_chunks']} distinct texts over "
        f"{counts['revisions']} revisions ({counts['versions']} page versions, {counts['blobs']} blobs)",
        f"embeddings: {counts['embedded']} stored, {counts['pending_embeddings']} pending; "
        f"{counts['embeddings_computed']} computed, {counts['embeddings_reused']} reused from cache",
        f"model:      {model['name']} ({model['source']}); semantic search "
        + ("on" if model.get("semantic") else "off"),
        f"sizes:      index {sizes['index_bytes'] // 1024} KiB, embedding cache {sizes['embedding_cache_bytes'] // 1024} KiB",
    ]
    if "hooks" in d:
        lines.append(f"hooks:      {d['hooks']}")
    if model.get("note"):
        lines.append(f"note: {model['note']}")
    return "\n".join(lines)


def _short(oid: str | None) -> str:
    return oid[:7] if oid else "none"
