"""`git mem why PATH:LINE`: where the fact on that line came from.

The fact is the list item, line or paragraph holding the line (see facts.py).
Its chain, from git:
- last changed by: the commit `git blame` names for its lines (the newest of
  them): the commit that put the fact there in its present form;
- introduced by: the oldest commit `git log -L` finds for those lines, followed
  back through earlier edits of them: where the fact first appeared, maybe in
  other words;
- changes: every commit in between that touched them, newest first;
and for each commit gitmem made, what made it (its Gitmem-* trailers: the verb,
and the agent, session or MCP client when known); and the page's backlinks (the
pages that link to it, from the index; private ones left out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dates import iso
from ..errors import BadRange, GitFailed, GitmemError, UsageError
from ..index import forgotten, provenance
from . import facts, links

if TYPE_CHECKING:
    from ..gitops.log import Commit
    from ..notebook import Notebook

SPEC = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?:-\d+)?$")
MAX_CHANGES = 50


@dataclass
class Step:
    commit: str
    date: str
    author: str
    subject: str
    wrote: dict[str, str] = field(default_factory=dict)  # verb, agent, session, client (gitmem's commits)


@dataclass
class Why:
    path: str
    line: int
    fact: dict[str, Any]  # text, lines, headings, context (the items it is under, or its table's header row)
    last_changed: Step | None  # None: not committed yet
    introduced: Step | None
    changes: list[Step]
    notes: list[str] = field(default_factory=list)
    backlinks: list[Any] = field(default_factory=list)  # links.LinkLine: the pages linking to this one


def why(nb: Notebook, spec: str) -> Why:
    """The chain of the fact on line LINE of page PATH (as the work tree has it)."""
    match = SPEC.match(spec.strip())
    if not match:
        raise UsageError(f"cannot read {spec!r} as PATH:LINE", "e.g. git mem why reference/contacts.md:3")
    rel = nb.page(match.group("path"), must_exist=True)
    number = int(match.group("line"))
    text = nb.read(rel)
    total = len(text.split("\n")) - (1 if text.endswith("\n") else 0)
    if not 1 <= number <= total:
        raise BadRange(f"line {number} is outside {rel}, which has {total} lines",
                       f"ask for a line between 1 and {total}, e.g. git mem why {rel}:1")
    fact = facts.at_line(text, number)
    if fact is None:
        raise GitmemError(f"line {number} of {rel} holds no fact (a blank line)",
                          f"ask for a line with text on it; see the page with: git mem get {rel}")
    record = {"text": fact.text, "lines": fact.lines, "headings": fact.headings, "context": fact.context}
    withheld = forgotten.current(nb)
    span = (fact.lines["start"], fact.lines["end"])
    try:
        blame = provenance.of_lines(nb, withheld, None, rel, [span]).get(span)
    except GitFailed:  # git does not track the page yet
        blame = None
    linked = links.links(nb, rel).backlinks
    if blame is None or blame.commit is None:
        return Why(rel, number, record, None, None, [], ["not committed yet: the work tree holds changes to "
                                                          "these lines that no commit has"], linked)
    last = Step(blame.commit, blame.date or "", blame.author or "", blame.subject or "", blame.wrote)
    chain = _chain(nb, withheld, blame)
    notes = [] if chain else ["git log -L could not follow these lines back; only blame's answer is shown"]
    return Why(rel, number, record, last, chain[-1] if chain else last, chain[:MAX_CHANGES], notes, linked)


def _chain(nb: Notebook, withheld: forgotten.Matcher, blame: provenance.Blame) -> list[Step]:
    """Every commit that changed the fact's lines up to blame's commit, newest first."""
    if blame.commit is None or blame.path is None or blame.lines is None:
        return []
    try:
        log = nb.git.line_log(blame.commit, blame.path, blame.lines["start"], blame.lines["end"])
    except GitFailed:
        return []
    wrote = provenance.trailers(nb, [c.oid for c in log])
    return [_step(c, withheld, wrote.get(c.oid, {})) for c in log]


def _step(c: Commit, withheld: forgotten.Matcher, wrote: dict[str, str]) -> Step:
    return Step(c.oid, iso(c.time), c.author, withheld.subject(c.subject), wrote)
