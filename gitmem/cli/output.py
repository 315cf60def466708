"""The one output layer: every command's data as JSON or as text for people.

Everything printed as text passes through `terminal_safe` (in `render`), because
most of it is quoted from notes, and notes come from pulls and agents: a page
must not be able to set the window title, write the clipboard (OSC 52), move
the cursor or hide a line from the person reading it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..paths import shown
from ..records import json_safe, to_json

if TYPE_CHECKING:  # the result classes, for the checker only: printing must not import what made them
    from ..agent.budget import Budgeted
    from ..agent.consolidate import Run
    from ..agent.context import Context, Reminder
    from ..agent.review import Pending, Reviewed
    from ..agent.session import Removed, Saved
    from ..gitops.hooks import HooksChange, HooksStatus
    from ..gitops.sync import Synced
    from ..index.maintenance import IndexSummary
    from ..notes.forget import Forgot
    from ..notes.guard import FileScan
    from ..notes.prune import Pruned
    from ..notes.reading import Page
    from ..notes.rename import Moved
    from ..notes.resolve import Resolved
    from ..notes.scaffold import InitResult
    from ..notes.written import Written
    from ..search.links import Links
    from ..search.tags import Tags

def render(data: Any, as_json: bool, text: Callable[[Any], str], redacted: bool = False) -> str:
    """JSON or text for people; `redacted`: every secret value in it replaced (credentials.py: a
    log or a chain of commits quotes lines a pull or an editor wrote), in JSON field by field."""
    if redacted:  # only then: its patterns need not load for every `git mem` start
        from .. import credentials
    if as_json and callable(getattr(data, "record", None)):
        data = data.record()  # search results: compact unless --full (search/hits.py)
    if as_json and redacted:
        data = credentials.redact_all(json.loads(to_json(data)))[0]
    if as_json:
        return json_safe(to_json(data))
    shown = text(data)
    return terminal_safe(credentials.redact(shown)[0] if redacted else shown)


# Every way text can drive a terminal (ECMA-48): string commands (OSC window titles and
# clipboard writes, DCS, SOS, PM, APC) with their payload up to the terminator, CSI
# sequences, other escapes and a lone ESC, in 7-bit and 8-bit (C1) form; then every
# remaining C0 and C1 control (BEL, backspace, CR that rewrites a line, DEL) except tab
# and newline; and the bidi embedding, override and isolate controls, which reorder what
# the reader sees (Trojan Source). click strips only CSI, and only when the output is not a terminal.
_CONTROLS = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """Text for a terminal: every control sequence, control character and bidi control removed, bar tab and
    newline."""
    return _CONTROLS.sub("", text)


def written(w: Written) -> str:
    if w.action == "duplicate" and w.duplicate is not None:
        d = w.duplicate
        # the hint starts with the same words for the JSON and the agents' tools: said once here
        hint = (w.hint or "").removeprefix("already remembered; ")
        return f"already remembered at {shown(d['path'])}:{d['lines']['start']}: {d['text']}\nhint: {hint}"
    span = f"{w.lines['start']}-{w.lines['end']}" if w.lines["end"] != w.lines["start"] else str(w.lines["start"])
    out = f"{w.action}: {shown(w.path)}:{span} (commit {w.commit[:7] if w.commit else '-'})"
    if w.replaced:  # named by --replaces: no rule to keep it from
        keep = "" if w.replaced.get("named") else " (pass --keep-both to keep both)"
        out += f"\nreplaced: {w.replaced['text']}{keep}"
    if w.now:
        out += f"\nnow: {w.now}"
    if w.updates:
        out += (f"\nupdates: {shown(w.updates['path'])}:{w.updates['lines']['start']}: {w.updates['text']} (kept; "
                "recall puts the new line first)")
    if w.maybe:
        where = f"{shown(w.maybe['path'])}:{w.maybe['lines']['start']}"
        out += (f"\nmaybe updates: {where}: {w.maybe['text']} (kept: it reads as an update, but no rule found the line "
                "it updates)")
    for c in w.watched or []:
        out += (f"\nwatched: {c.entity} ({c.priority}): the notebook said otherwise at "
                f"{shown(c.path)}:{c.lines['start']}: {c.text}")
    if w.hint:
        out += f"\nhint: {w.hint}"
    return out


def forgot(f: Forgot) -> str:
    spans = ", ".join(f"{shown(r['path'])}:{r['lines']['start']}"
                      + (f"-{r['lines']['end']}" if r["lines"]["end"] != r["lines"]["start"] else "")
                      for r in f.removed)
    count = f.lines()
    if f.action == "forget-everything":  # every span would be a screenful: the count and pages say it
        pages = f.pages()
        spans = f"every memory of {pages} page{'s' if pages != 1 else ''}, headings and frontmatter kept"
    out = [f"forgot {count} line{'s' if count != 1 else ''}: {spans} (commit {f.commit[:7] if f.commit else '-'})"
           if f.removed else "forgot 0 lines: no page holds it (no commit)"]
    if f.index:
        out.append(forgot_index(f.index))
    out.extend(f"note: {n}" for n in f.notes)
    out.append(f"note: {f.history}")  # the fallback identity's note, once, is among f.notes
    return "\n".join(out)


def forgot_index(purged: dict[str, int]) -> str:
    """What forget took out of the index, in the user's terms (the --json keeps the counts)."""
    texts = purged.get("texts", 0)
    meanings = purged.get("vectors", 0) + purged.get("cached_embeddings", 0)
    subjects = purged.get("subjects", 0)
    if not (texts or meanings or subjects):
        return "search: the index held nothing of it"
    parts = [f"{texts} passage{'s' if texts != 1 else ''}", f"{meanings} stored meaning{'s' if meanings != 1 else ''}"]
    if subjects:
        parts.append(f"{subjects} commit message{'s' if subjects != 1 else ''}")
    disk = ("its files on disk keep no copy" if not purged.get("wal_busy")
            else "a reader still has the index open, so its journal keeps a copy until the next command")
    return f"search: recall and search no longer find it (removed {', '.join(parts)} from the index; {disk})"


def forget_preview(preview: list[dict[str, Any]]) -> str:
    """What a broad forget would remove: each spot, then its lines, indented."""
    out = ["would forget:"]
    for item in preview:
        if item["path"] is None:
            out.append("  (history only)")
        else:
            start, end = item["lines"]["start"], item["lines"]["end"]
            out.append(f"  {shown(item['path'])}:{start}" + (f"-{end}" if end != start else ""))
        out.extend(f"    {line}" for line in item["text"].split("\n"))
    return "\n".join(out)


def page(p: Page) -> str:
    return p.text.rstrip("\n")


def summary(s: IndexSummary) -> str:
    head = f"indexed {s.commit[:7]}" if s.commit else "indexed (no commits yet)"
    out = [f"{head}: {s.commits} commits, {s.blobs_chunked} blobs chunked, {s.texts_added} new chunks, "
           f"{s.embedded} embedded, {s.reused} embeddings reused, {s.seconds:.2f}s"]
    out.extend(f"note: {n}" for n in s.notes)
    return "\n".join(out)


def init(r: InitResult) -> str:
    out = [f"notebook: {r.notebook} (layout: {r.layout})"]
    if r.created:
        out.append(f"created: {', '.join(r.created)}" + (f" (commit {r.commit[:7]})" if r.commit else ""))
    else:
        out.append("already initialised; nothing to create")
    if r.index:
        out.append(summary(r.index).split("\n")[0])
    if r.hooks:
        out.append(f"hooks: installed in {r.hooks.dir}"
                   + (f" (your {', '.join(r.hooks.chained)} kept; it runs after gitmem's)" if r.hooks.chained else ""))
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
        f"{counts['revisions']} revisions ({counts['versions']} page versions holding "
        f"{counts.get('chunks_over_history', 0)} chunks, {counts['blobs']} blobs)",
        f"embeddings: {counts['embedded']} stored, {counts['pending_embeddings']} pending; "
        f"{counts['embeddings_computed']} computed, {counts['embeddings_reused']} reused from cache",
        f"model:      {model['name']} ({model['source']}); semantic search "
        + ("on" if model.get("semantic") else "off"),
        f"sizes:      index {sizes['index_bytes'] // 1024} KiB, "
        f"embedding cache {sizes['embedding_cache_bytes'] // 1024} KiB",
    ]
    if "hooks" in d:
        lines.append(f"hooks:      {_hooks_line(d['hooks'])}")
    lines.extend(_documents(d.get("documents")))
    if d.get("unparsed_frontmatter"):
        bad = d["unparsed_frontmatter"]
        lines.append(f"frontmatter: YAML cannot read it in {len(bad)} page(s), taken as private if it mentions "
                     f"private: {', '.join(bad)}")
    lines.extend(_conflicts(d.get("conflicts")))
    if model.get("note"):
        lines.append(f"note: {model['note']}")
    return "\n".join(lines)


def _conflicts(conflicts: dict[str, Any] | None) -> list[str]:
    """The conflicts lines of status: pages a merge left with markers (not indexed until resolved)."""
    if not conflicts or not (conflicts["pages"] or conflicts["in_progress"]):
        return []
    lines = []
    if conflicts["in_progress"]:
        lines.append(f"git:        a {conflicts['in_progress']} is in progress")
    for page in conflicts["pages"]:
        if not page["facts"]:  # git left it unmerged and wrote no markers (its merge driver failed, or a deletion)
            lines.append(f"conflict:   {shown(page['path'])}: unmerged, with no markers to settle; take a side: "
                         f"git mem resolve --take ours|theirs -- {shown(shlex.quote(page['path']))}")
            continue
        lines.append(f"conflict:   {shown(page['path'])}: {page['facts']} fact(s) changed differently on both sides, "
                     "not indexed until resolved; run 'git mem resolve --take ours|theirs|both -- "
                     f"{shown(shlex.quote(page['path']))}', or without --take once you edited the markers away")
    return lines


def _documents(docs: dict[str, Any] | None) -> list[str]:
    """The documents lines of status: counts, then one line per document that failed or was cut."""
    if not docs or not docs["files"]:
        return []
    kinds = ", ".join(f"{n} {k.upper()}" for k, n in docs["kinds"].items())
    lines = [f"documents:  {docs['files']} ({kinds}): {docs['extracted']} extracted ({docs['pages']} PDF pages), "
             f"{docs['pending']} waiting, {docs['failed']} failed"]
    lines.extend(f"  {shown(p['path'])}: {'failed: ' if p['state'] == 'failed' else ''}{p['note']}"
                 for p in docs["problems"])
    return lines


def _short(oid: str | None) -> str:
    return oid[:7] if oid else "none"


def context(c: Context | Budgeted) -> str:
    return c.text.rstrip("\n")


def reminder(r: Reminder) -> str:
    return r.text


def session_saved(s: Saved) -> str:
    if s.action == "private":
        return f"private: {s.hint}"
    out = f"{s.action}: {shown(s.path or '')} ({s.messages} messages, chat {s.chat}, " \
          + (f"commit {s.commit[:7]})" if s.commit else "no commit)")
    run = [consolidated(s.consolidation)] if s.consolidation is not None else []
    return "\n".join([out, *(f"note: {n}" for n in s.notes), *([f"hint: {s.hint}"] if s.hint else []), *run])


def session_removed(r: Removed) -> str:
    return f"removed: {shown(r.path)} (chat {r.chat}, commit {r.commit[:7] if r.commit else '-'})"


def _hooks_line(h: Any) -> str:
    if not isinstance(h, dict):
        return str(h)
    state = "installed" if h["installed"] else f"not installed ({', '.join(h['missing'])} missing or changed)"
    if h.get("switched_off"):
        state += f", switched off by {h['switched_off']}"
    driver = "merge drivers " + ("on" if h["merge_driver"] else "off")
    return f"{state} in {h['dir']}; {driver}"


def hooks_change(c: HooksChange) -> str:
    """`git mem hooks install` / `uninstall`."""
    parts = [f"{label}: {', '.join(names)}" for label, names in (
        ("installed", c.written), ("already installed", c.unchanged), ("kept and chained", c.chained),
        ("removed", c.removed), ("restored", c.restored)) if names]
    out = [f"hooks in {c.dir}: " + ("; ".join(parts) if parts else "nothing to do")]
    out.append("merge drivers (pages, daily logs): " + ("configured" if c.merge_driver else "removed from this clone"))
    out.extend(f"note: {n}" for n in c.notes)
    return "\n".join(out)


def hooks_status(s: HooksStatus) -> str:
    """`git mem hooks status`."""
    where = s.dir + (f" (core.hooksPath = {s.hooks_path})" if s.hooks_path else "")
    out = [f"hooks:        {'installed' if s.installed else 'not installed'} in {where}"]
    for h in s.hooks:
        out.append(f"  {h.name:<14} {h.state}" + (", then the hook that was here before" if h.chained else ""))
    out.append(f"calls:        {s.python or '-'}" + ("" if s.python_ok or not s.python else " (missing!)"))
    state = ("not configured" if not s.merge_driver else "configured, but broken" if s.driver_fault else "configured")
    out.append(f"merge drivers: {state} (pages, daily logs)")
    out.extend(f"note: {n}" for n in s.notes)
    return "\n".join(out)


def guard(report: FileScan) -> str:
    """`git mem guard`: one line a finding."""
    return "\n".join(f"{f['kind']} ({f['rule']}) at {shown(str(f['path']))}:{f['line']}: {f['excerpt']}"
                     for f in report.findings)


def model_ready(d: dict[str, Any]) -> str:
    return f"model ready: {d['name']} ({d['dim']} dimensions, {d['source']}) in {d['seconds']}s"


# -- consolidation ------------------------------------------------------------

def consolidated(r: Run) -> str:
    """`git mem consolidate`: one line a session, then what it learned."""
    where = f" via {r.model} at {r.url}" if r.model else ""
    out = [f"consolidate ({r.mode}{where}): {len(r.sessions)} session(s), {r.chars_sent} characters "
           + ("would be sent" if r.mode == "dry-run" else "sent")]
    for s in r.sessions:
        line = f"  {s.status:<11} {shown(s.path)} ({s.chars} chars"
        line += f", {s.attempts} attempt{'s' if s.attempts != 1 else ''}" if s.attempts else ""
        line += f", commit {s.commit[:7]}" if s.commit else ""
        line += f", proposal {s.proposal[:7]})" if s.proposal else ")"
        out.append(line + (f": {s.reason}" if s.reason else ""))
        out.extend(f"      + {w['kind']}: {w['text']}" for w in s.written)
        out.extend(f"      ~ {c['old']} -> {c['new']}" for c in s.corrected)
        out.extend(f"      = reinforced: {x['text']}" for x in s.reinforced)
        out.extend(f"      ! refused {x['kind']}: {x['reason']}" for x in s.refused)
    if r.left:
        out.append(f"note: {r.left} session(s) left for a later run (budget or failures)")
    if any(s.status == "proposed" or s.proposal for s in r.sessions):
        out.append("next: git mem review")
    out.extend(f"note: {n}" for n in r.notes)
    return "\n".join(out)  # render() makes what the LLM said terminal-safe


def proposals(p: Pending) -> str:
    """`git mem review`: each pending proposal with its diff."""
    if not p.proposals:
        return "no pending proposals"
    out = []
    for prop in p.proposals:
        head = f"proposal {prop.id[:7]}  {prop.subject}  (session {prop.session}, model {prop.model})"
        out.append(head)
        out.append(prop.diff.rstrip("\n"))
        out.extend(f"note: {n}" for n in prop.notes)
        out.append("")
    out.append("accept: git mem review accept ID|--all    drop: git mem review drop ID|--all")
    return "\n".join(out)


def reviewed(r: Reviewed) -> str:
    if not r.proposals:
        return "\n".join([f"{r.action} nothing", *(f"note: {n}" for n in r.notes)])
    lines = [f"{r.action}: {p['id'][:7]} (session {p['session']})" for p in r.proposals]
    if r.commits:
        lines.append("commit" + ("s" if len(r.commits) > 1 else "") + ": " + ", ".join(c[:7] for c in r.commits))
    return "\n".join(lines + [f"note: {n}" for n in r.notes])


def pruned(p: Pruned) -> str:
    verb = "would remove" if p.dry_run else "removed"
    out = [f"{verb} {len(p.facts)} fact(s) under {p.threshold} and {len(p.summaries)} old summary(ies)"
           + (f" (commit {p.commit[:7]})" if p.commit else "")]
    out.extend(f"  {shown(f['path'])}:{f['line']} ({f['effective']:.2f}) {f['text']}" for f in p.facts)
    out.extend(f"  {shown(s['path'])}:{s['line']} {s['text']}" for s in p.summaries)
    return "\n".join(out)


def moved(m: Moved) -> str:
    """'renamed OLD -> NEW (commit X)', then each page whose links changed."""
    verb = "would rename" if m.dry_run else "renamed"
    commit = "" if m.dry_run else f" (commit {m.commit[:7] if m.commit else '-'})"
    out = [f"{verb} {shown(m.old)} -> {shown(m.new)}{commit}"]
    if m.pages:
        out.append(f"{'would update' if m.dry_run else 'updated'} {m.links} link{'s' if m.links != 1 else ''} "
                   f"in {len(m.pages)} page{'s' if len(m.pages) != 1 else ''}:")
        out.extend(f"  {shown(p.path)} ({p.links})" for p in m.pages)
    if m.hint:
        out.append(f"hint: {m.hint}")
    out.extend(f"note: {note}" for note in m.notes)
    return "\n".join(out)


def links(found: Links) -> str:
    """'links from PAGE' then 'linked from', one line a link: PATH:LINE  the line."""
    lines = [f"{shown(found.page)}"]
    lines.append(f"links to ({len(found.outgoing)}):")
    lines.extend(f"  {shown(out.path)}{'' if out.exists else ' (no such page yet)'}  (line {out.line})"
                 for out in found.outgoing)
    lines.append(f"linked from ({len(found.backlinks)}):")
    lines.extend(f"  {shown(back.path)}:{back.line}  {back.text}" for back in found.backlinks)
    return "\n".join(lines)


def tags(found: Tags) -> str:
    """'NAME  N pages' a tag; with one tag asked for, its pages and lines under it."""
    if not found.tags:
        return f"no pages tagged {found.tag!r}" if found.tag else "no tags in this notebook"
    width = max(len(t.name) for t in found.tags)
    lines = []
    for tag in found.tags:
        lines.append(f"#{tag.name.ljust(width)}  {tag.pages} page{'s' if tag.pages != 1 else ''}")
        if found.tag:
            lines.extend(f"  {shown(u.path)}{f':{u.line}' if u.line else ''}  {u.text}" for u in tag.uses)
    return "\n".join(lines)


def synced(r: Synced) -> str:
    """git mem sync: what came in, what went out, how many rounds it took."""
    # "up to date": nothing came in (what this branch has may still go out: "...; pushed main")
    came = {"up to date": "nothing new on the remote", "fast-forward": "fast-forwarded to the remote",
            "merged": "merged the remote's changes", "rebased": "rebased onto the remote",
            "nothing on the remote yet": "the remote had no such branch yet"}.get(r.integrated, r.integrated)
    went = f"pushed {', '.join(shown(p) for p in r.pushed)}" if r.pushed else "nothing to push"
    rounds = f" ({r.attempts} attempts: the remote moved meanwhile)" if r.attempts > 1 else ""
    lines = [f"synced {shown(r.branch)} with {shown(r.remote)}: {came}; {went}{rounds}"]
    lines.extend(f"note: {n}" for n in r.notes)
    return "\n".join(lines)


def resolved(r: Resolved) -> str:
    """git mem resolve: how many conflicts, which side, and what was concluded."""
    line = (f"resolved {r.conflicts} conflict(s) in {shown(r.path)} (took {r.take})" if r.conflicts else
            f"took {r.take} side of {shown(r.path)} whole, as git staged it" if r.take in ("ours", "theirs") else
            f"marked {shown(r.path)} merged as you edited it")
    if r.concluded:
        line += f"; the {r.concluded} is concluded" + (f" (commit {r.commit[:7]})" if r.commit else "")
    elif r.commit:
        line += f" (commit {r.commit[:7]})"
    return "\n".join([line, *(f"note: {n}" for n in r.notes)])


def daemon_state(d: dict[str, Any]) -> str:
    """`git mem daemon start|stop|status`."""
    # the setting, not the process: "mem.daemon: unset (off)" beside a running daemon read as "off"
    head = f"started on demand (git config mem.daemon): {d.get('enabled') or 'unset, by the prompt hook only'}"
    if not d.get("running"):
        # "not running (stopped)" after a stop read as if there had been nothing to stop (a newcomer)
        state = "stopped" if d.get("note") == "stopped" else \
            f"not running{' (' + d['note'] + ')' if d.get('note') else ''}"
        return "\n".join([f"gitmem daemon: {state}", head])
    models = ", ".join(d.get("models") or []) or "none loaded yet"
    return "\n".join([f"gitmem daemon: running, pid {d['pid']}, {d['served']} requests served",
                      f"socket: {d['socket']}", f"stops after {d['idle_seconds']:.0f}s without a request",
                      f"models: {models}", head])
