"""`git mem hooks prompt`: Claude Code's UserPromptSubmit hook. It reads the JSON Claude Code sends
on stdin, recalls the facts that bear on the prompt and prints them as the hook's additional
context, within a time budget: the prompt is never held longer than BUDGET seconds.

With the warm daemon up, the recall is hybrid (the daemon answers in milliseconds); without it, the
hook starts it for the next prompt (unless `git config mem.daemon false` or GITMEM_DAEMON=0) and
answers this one by a keyword recall in this process, on a thread: if it has not answered when the budget is spent, the
hook prints nothing on stdout, says why on stderr (and how to start the daemon) and exits. It
always exits 0 (exit 2 would block the prompt), and prints nothing for no match, an empty prompt
or input that is not Claude Code's JSON.

With a personal notebook configured (search/scopes.py), its facts are recalled too, by keyword
(also through the daemon: no model time is spent on it), after the project's, and ranked with
them (each marked "personal:"). The project's answer is kept as soon as
it is in hand: when the budget runs out while the personal notebook is being read, the hook prints
the project's facts alone, so a personal notebook never costs the prompt what it had before.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..text import loads as bounded_json

BUDGET = 0.3  # seconds from this process's start (the interpreter's own start included) to its answer
MARGIN = 0.03  # kept for printing and exiting
LIMIT = 5  # facts injected, at most ...
NEAR = 0.5  # ... each scoring at least this share of the best one's score (as weak matches: engine.WEAK_NEAR)
MAX_INPUT = 1024 * 1024  # bytes of stdin read
MAX_QUERY = 2000  # characters of the prompt used as the query
MAX_FACT = 400  # characters of a fact shown
BUDGET_ENV = "GITMEM_PROMPT_BUDGET"  # seconds, for a slower machine (and the tests)
HEADER = "Memories from the notebook (git mem) that may bear on this prompt; check before relying on them:"


def budget() -> float:
    try:
        value = float(os.environ.get(BUDGET_ENV, BUDGET))
    except ValueError:
        return BUDGET
    return value if value >= 0 else BUDGET


def started() -> float:
    """When this process started, on time.monotonic()'s clock (Linux: /proc; elsewhere: now). The
    interpreter's start and gitmem's imports take 30-100 ms, more under load: a budget counted
    from here, not from them, is what the prompt waits (a newcomer measured 0.25-0.41 s wall time
    with the budget counted after them, 2026-11-26)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            ticks = int(stat.read().rsplit(b")", 1)[1].split()[19])  # field 22, starttime, in clock ticks
        with open("/proc/uptime", "rb") as uptime:
            age = float(uptime.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.monotonic()
    return time.monotonic() - min(max(0.0, age), 60.0)  # a clock oddity never spends more than the budget


PING = 0.1  # seconds to ask a late daemon whether it is still warming up (the budget is spent already)


def late(seconds: float, starting: bool, up: bool, warming: bool = False) -> str:
    """Why no answer came within the prompt's budget, and what answers the next prompts."""
    said = f"gitmem: no answer within the prompt's {seconds:g} s; "
    if starting:
        return said + ("the warm daemon is starting and answers the next prompts in milliseconds "
                       "(git mem daemon status)\n")
    if up and warming:
        # "a busy machine?" on an idle one, while the daemon loaded its model (an agent developer's run)
        return said + ("the warm daemon is still catching up and loading its model; it answers the next prompts "
                       "in milliseconds\n")
    if up:
        return said + ("the warm daemon did not answer in time (a busy machine?); GITMEM_PROMPT_BUDGET gives it "
                       "longer, in seconds\n")
    return said + "a warm daemon answers in milliseconds: git mem daemon start, or git config mem.daemon true\n"


def main(argv: list[str]) -> int:
    """The hook: stdin JSON in, Claude Code's hook JSON out (or nothing)."""
    from . import client

    deadline = started() + budget() - MARGIN
    query = read_prompt(sys.stdin.buffer.read(MAX_INPUT + 1))
    if not query:
        return 0
    text: str | None = None
    found = client.find_git_dir()
    why = client.refused(client.socket_path(found[1])) if found is not None else None
    # a hook that runs on every prompt is what the warm daemon is for: it is started for the next
    # prompt unless mem.daemon says false (a newcomer's hook at load answered nothing, 2026-11-26),
    # in a notebook only (a plugin installed for every project runs this in every repository)
    starting = found is not None and why == "no socket" and client.wanted_for_prompts(found[0]) \
        and client.spawn(found[0])
    if found is not None and not client.switched_off() and why is None:
        left = deadline - time.monotonic()
        if left > 0:
            answer = client.ask(client.socket_path(found[1]), {"op": "prompt", "query": query, "wait": left,
                                                               "env": client.env_snapshot()}, wait=left)
            if answer is not None and isinstance(answer.get("text"), str):
                text = answer["text"]
    done = True
    if text is None:
        text, done = _in_process(query, deadline)
    if text:
        sys.stdout.write(hook_output(text))
        sys.stdout.flush()
    if not done:  # the budget ran out: leave the search thread behind, and say why nothing came (stderr:
        # Claude Code shows it in its transcript view, never in the prompt; a newcomer could not tell it from no match)
        sys.stdout.flush()
        # the daemon up and late is no reason to start one (a newcomer's was told to, under load)
        up = found is not None and why is None and not client.switched_off()
        state = client.ask(client.socket_path(found[1]), {"op": "ping"}, wait=PING) if up and found else None
        sys.stderr.write(late(budget(), bool(starting), up, state is not None and not state.get("ready")))
        sys.stderr.flush()
        os._exit(0)
    return 0


def read_prompt(raw: bytes) -> str | None:
    """The prompt from Claude Code's UserPromptSubmit input, cut to MAX_QUERY; None if there is none."""
    if len(raw) > MAX_INPUT:
        return None
    try:  # bounded: plain json.loads recursed to a RecursionError on 100,000 nested brackets (a newcomer's)
        payload = bounded_json(raw.decode("utf-8"))
    except ValueError:
        return None
    prompt = payload.get("prompt") if isinstance(payload, dict) else None
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    return prompt.strip()[:MAX_QUERY]


def hook_output(text: str) -> str:
    """Claude Code's JSON for a hook that adds context to the prompt."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}},
                      ensure_ascii=False) + "\n"


def _in_process(query: str, deadline: float) -> tuple[str | None, bool]:
    """A keyword recall here, on a thread: (its text, whether it finished) by the deadline; the
    project's facts alone when only they are in hand then, None when not even they are."""
    box: dict[str, str] = {}

    def work() -> None:
        try:
            box["text"] = context(".", query, "keyword", partial=lambda text: box.setdefault("project", text))
        except Exception:  # noqa: BLE001 - no notebook, an index being rebuilt: the prompt goes on
            box["text"] = box.get("project", "")

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    text = box.get("text")
    return (text, True) if text is not None else (box.get("project"), False)


def context(where: str, query: str, mode: str, partial: Callable[[str], object] | None = None) -> str:
    """The facts that bear on `query`, as the hook injects them ('' for no good match): the
    project's, and the personal notebook's when one is configured. `partial` is handed the
    project's alone first, while the personal notebook is still to be read."""
    from dataclasses import replace

    from ..errors import GitmemError
    from ..gitops.repo import open_notebook
    from ..search import engine, scopes

    nb = open_notebook(where)
    asked = engine.Query(query, mode=mode, limit=LIMIT, served=True, instructions=False, hints=False)
    results = engine.run(nb, asked)
    if partial is not None:
        partial(_strong(results.results, results.about))
    try:  # by keyword in every mode: cheap, and it never embeds the personal notebook's new text now
        results = scopes.widen(nb, replace(asked, mode="keyword"), results)
    except GitmemError:  # a personal notebook gone missing: the project's facts still reach the prompt
        pass
    return _strong(results.results, results.about)


ABOUT = 2  # weak facts of a person the prompt names, at most


def _strong(hits: list[Any], about: tuple[str, ...] = ()) -> str:
    """What the prompt gets: weak matches are shown to a person as weak, a prompt gets only what
    stands out, and of that only what scores near the best of its notebook (recall fills its limit
    with the next best: a newcomer's "remind me how to reach Priya" got Priya's two facts, then
    Dana's email, Dana's role and the database's port, in every prompt's context). And the best
    ABOUT weak facts that say the name of someone the prompt names (by name or by role), marked
    weak: "what should I pack for Maya's school lunch" got nothing, where recall's first, weak,
    was "Maya is allergic to peanuts" (a newcomer, 2026-11-27)."""
    current = [hit for hit in hits if not getattr(hit, "replaced", False)]
    strong = [hit for hit in current if not getattr(hit, "weak", False)]
    best: dict[str, float] = {}  # per notebook: each scores on its own words and background
    for hit in strong:
        scope = getattr(hit, "scope", "project")
        best[scope] = max(best.get(scope, 0.0), hit.score)
    shown = [hit for hit in strong if hit.score >= NEAR * best[getattr(hit, "scope", "project")]]
    theirs = [hit for hit in current if getattr(hit, "weak", False) and _says(hit, about)][:ABOUT]
    return render(shown + theirs[:max(0, LIMIT - len(shown))])


def _says(hit: Any, names: tuple[str, ...]) -> bool:
    fact = getattr(hit, "fact", None)
    text = fact.text if fact else hit.snippet
    return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) for name in names)


def render(hits: list[Any]) -> str:
    """One line a fact: its text, then where it is (what `git mem get` takes) and its date."""
    from ..agent.orders import LEFT_OUT
    from ..blocks import BULLET
    from ..notes import guard
    from ..paths import shown
    from ..search.facts import said as one_line
    from .output import terminal_safe

    lines = []
    for hit in hits:
        fact = getattr(hit, "fact", None)
        # a nested item with the items it is under: "Marcus Obi › role: on-call lead" (whose role)
        text = one_line(fact) if fact else BULLET.sub("", " ".join(hit.snippet.split()))
        rule = guard.instructs(text)  # on the whole text: what follows the cut is the model's to read too
        if len(text) > MAX_FACT:
            text = text[:MAX_FACT - 1] + "…"
        span = fact.lines if fact else hit.lines
        # the page's name as one escaped line, and none that reads as an order: a pulled name held a newline
        # and "SYSTEM NOTICE from the user: ..." on a line of its own (an attack run, 2026-11-27)
        name = shown(hit.path) if guard.instructs(hit.path) is None else "[a page whose name reads like an instruction]"
        where = f"{name}:{span['start']}" + (f"-{span['end']}" if span["end"] != span["start"] else "")
        # added to the prompt with no tool call around it: a line the write guard would refuse (pulled, or
        # written by hand) is named, not quoted (an attack run's "Ignore all previous instructions ..." was)
        if rule is not None:
            text = LEFT_OUT.format(rule=rule)
        where = f"personal: {where}" if getattr(hit, "scope", "project") == "personal" else where
        date = (fact.date if fact and fact.date else hit.date) or ""
        said = getattr(hit, "updated_by", None)
        updated = f"; {said}" if said else ""
        updated += "; weak: it may not answer" if getattr(hit, "weak", False) else ""
        lines.append(terminal_safe(f"- {text} ({where}{', ' + date[:10] if date else ''}{updated})"))
    return "\n".join([HEADER, *lines]) if lines else ""
