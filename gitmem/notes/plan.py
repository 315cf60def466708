"""The plan: one page (PLAN.md, the agent's bedside note) whose versions are its history.

`update` rewrites the page as one commit whose Gitmem-Reason trailer says why;
`history` reads every commit that changed the page back from git, newest
first, with its date and reason (a person's own edit shows its commit
subject). Nothing else stores the history: git is the record. The page is
plain markdown (a `type: plan` frontmatter line, a `# Plan` title, the text)
that a person may edit by hand like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import config, dates
from ..errors import GitmemError
from ..notebook import Notebook, decode
from . import change, fields, guard, trailers
from .memory import given_text

PLAN = config.PLAN_PAGE
TITLE = "# Plan"


@dataclass
class Plan:
    path: str
    exists: bool
    text: str  # the page's body: what the agent reads
    commit: str | None = None  # the commit that last changed it (None: never committed)
    date: str | None = None
    reason: str | None = None
    hint: str | None = None


@dataclass
class Version:
    commit: str
    date: str
    reason: str
    by: str  # the gitmem verb that wrote it, or "hand" for a person's commit
    author: str


@dataclass
class History:
    path: str
    versions: list[Version] = field(default_factory=list)


@dataclass
class Updated:
    action: str  # "updated", "created" or "unchanged"
    path: str
    commit: str | None
    reason: str


def body(text: str) -> str:
    """The plan's text without its frontmatter (the title stays: it is what a person sees)."""
    return fields.read(text, PLAN)[1].strip("\n")


def show(nb: Notebook) -> Plan:
    """The plan as it is now in the work tree, and the commit that last changed it.

    >>> show(nb).text   # doctest: +SKIP
    '# Plan\\n\\nShip the beta on Friday; then the docs.'
    """
    rel = nb.page(PLAN)
    text = nb.read(rel)
    if not text.strip():
        return Plan(rel, False, "", hint="no plan yet; write one with: git mem plan update TEXT --reason WHY")
    try:
        plan = Plan(rel, True, body(text))
    except fields.BadFields:  # a hand edit YAML cannot read: the page as it is, rather than no plan
        plan = Plan(rel, True, text.strip("\n"))
    latest = history(nb, limit=1).versions
    if latest:
        plan.commit, plan.date, plan.reason = latest[0].commit, latest[0].date, latest[0].reason
    return plan


def render(text: str) -> str:
    """The plan page for this text: a `type: plan` field, the title, the text."""
    text = text.strip("\n")
    if not text.lstrip().startswith("# "):
        text = f"{TITLE}\n\n{text}"
    return fields.render({"type": "plan"}, text + "\n")


def update(nb: Notebook, text: str, reason: str, allow: bool = False) -> Updated:
    """Replace the plan with `text`, as one commit carrying `Gitmem-Reason: REASON`.

    >>> update(nb, "Ship the beta Friday", "the launch moved").action   # doctest: +SKIP
    'updated'
    """
    text = given_text(text, "plan")
    reason = " ".join(given_text(reason, "reason").split())
    rel = nb.page(PLAN)
    guard.check(text, allow, rel)
    guard.check(reason, allow, rel)
    new = render(text)

    def edit(_page: str) -> change.Edit:
        return change.Edit(new, 1, new.count("\n"))

    with change.write_lock(nb):
        now = change.current(nb, rel)
        head = nb.git.head()
        committed = nb.git.show(head, nb.repo_path(rel)) if head else None
        same = committed is not None and decode(committed).replace("\r\n", "\n") == now.replace("\r\n", "\n")
        if now.strip() and not same:  # (core.autocrlf: CRLF in the work tree, LF in git, is no edit)
            # the update replaces the whole page: an edit of a person's that git does not hold would be lost
            raise GitmemError(f"{rel} has changes not committed yet; nothing was written",
                              f"commit them first (git commit -- {nb.repo_path(rel)}), then update the plan")
        existed = bool(now.strip())
        done = change.apply(nb, {rel: edit}, f"mem: plan — {_short(reason)}",
                            trailers=trailers.for_verb("plan", Reason=reason))
    if done is None:
        return Updated("unchanged", rel, None, reason)
    return Updated("updated" if existed else "created", rel, done.commit, reason)


def history(nb: Notebook, limit: int | None = None) -> History:
    """Every commit that changed the plan page, newest first (a merged branch's too), with its date
    and reason."""
    rel = nb.page(PLAN)
    out = History(rel)
    head = nb.git.head()
    if head is None:
        return out
    # the versions merged in too: a teammate's plan that stands after a sync was missing (a newcomer's team)
    found = nb.git.touching(head, nb.repo_path(rel), limit, first_parent=False)
    oids = [oid for oid, _ in found]
    marks, messages = nb.git.trailers(oids), nb.git.messages(oids)
    for oid, when in found:
        mark = marks.get(oid, {})
        subject = messages.get(oid, ((), ""))[1].split("\n", 1)[0]
        verb = mark.get(trailers.PREFIX + "Verb")
        reason = mark.get(trailers.PREFIX + "Reason") or subject
        out.versions.append(Version(oid, dates.iso(when), reason, verb or "hand", nb.git.describe(oid).author))
    return out


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"
