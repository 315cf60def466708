"""Build git histories fast (one `git fast-import`), with fixed commit dates,
branches and merges, for the history tests and the benchmark."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from gitmem import config

AUTHOR = "Ada Lovelace <ada@example.com>"


@dataclass
class Spec:
    branch: str
    message: str
    when: datetime
    files: dict[str, str | None]  # path -> new text, or None to delete
    parent: int | None = None  # mark to start the branch from (first commit on a side branch)
    merge: int | None = None  # mark of the merged commit
    renames: list[tuple[str, str]] = field(default_factory=list)
    author: str = AUTHOR


class Builder:
    """Collects commits, then writes them all with one fast-import."""

    def __init__(self) -> None:
        self.specs: list[Spec] = []

    def commit(self, message: str, when: datetime, files: dict[str, str | None] | None = None,
               branch: str = "main", parent: int | None = None, merge: int | None = None,
               renames: list[tuple[str, str]] | None = None, author: str = AUTHOR) -> int:
        """Queue a commit; returns its mark (1-based, in order)."""
        self.specs.append(Spec(branch, message, when, files or {}, parent, merge, renames or [], author))
        return len(self.specs)

    def stream(self) -> bytes:
        out: list[bytes] = []
        for mark, s in enumerate(self.specs, start=1):
            ts = int(s.when.timestamp())
            msg = s.message.encode()
            out.append(f"commit refs/heads/{s.branch}\nmark :{mark}\n"
                       f"author {s.author} {ts} +0000\ncommitter {s.author} {ts} +0000\n".encode())
            out.append(b"data %d\n%s\n" % (len(msg), msg))
            if s.parent:
                out.append(f"from :{s.parent}\n".encode())
            if s.merge:
                out.append(f"merge :{s.merge}\n".encode())
            for old, new in s.renames:
                out.append(f'R "{old}" "{new}"\n'.encode())
            for path, text in s.files.items():
                if text is None:
                    out.append(f'D "{path}"\n'.encode())
                else:
                    data = text.encode()
                    out.append(f'M 100644 inline "{path}"\n'.encode() + b"data %d\n%s\n" % (len(data), data))
            out.append(b"\n")
        return b"".join(out)

    def write(self, repo: Path, notebook: bool = True) -> list[str]:
        """Create the repository; returns the commit ids in mark order."""
        repo.mkdir(parents=True, exist_ok=True)
        git(repo, "init", "-q", "-b", "main")
        if notebook and self.specs:
            self.specs[0].files.setdefault(config.CONFIG_FILE, config.render(config.Settings()))
        subprocess.run(["git", "fast-import", "--quiet", "--export-marks=.git/marks"], cwd=repo,
                       input=self.stream(), check=True, capture_output=True)
        git(repo, "checkout", "-q", "-f", "main")
        marks = dict(line.split() for line in (repo / ".git" / "marks").read_text().splitlines())
        return [marks[f":{i}"] for i in range(1, len(self.specs) + 1)]


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if out.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def day(text: str) -> datetime:
    """A fixed UTC moment from 'YYYY-MM-DD HH:MM'."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)


def show(repo: Path, rev: str, path: str) -> str:
    return git(repo, "show", f"{rev}:{path}")


def assert_at_lines(page: str, text: str, start: int, end: int) -> None:
    """`text` sits in `page` exactly on lines start..end (1-based)."""
    lines = page.split("\n")
    window = "\n".join(lines[start - 1:end])
    assert text in window, f"{text!r} not on lines {start}-{end} of {page!r}"
    assert text.split("\n")[0] in lines[start - 1] and text.split("\n")[-1] in lines[end - 1]
    assert text.count("\n") == end - start, f"{text!r} spans {text.count(chr(10)) + 1} lines, not {start}-{end}"


# -- generated histories (hypothesis) -----------------------------------------
WORDS = ("apple river stone cloud maple quiet amber lantern copper meadow harbor pebble willow ember "
         "violet canyon falcon tundra saffron juniper").split()
NAMES = ("notes/alpha.md", "notes/beta.md", "gamma.md", "daily/2026-01-05.md", "sessions/2026-01-06-0930.md",
         "reference/plan.md", "notes/delta.md")
SMALL_CHUNKS = config.Settings(max_chars=240, overlap_chars=80)


class Generated:
    """A random history: adds, edits, deletes, renames, side branches merged
    back. Every sentence starts with a token used nowhere else, ever."""

    def __init__(self, draw) -> None:  # draw: hypothesis data.draw
        self.draw = draw
        self.counter = 0
        self.builder = Builder()
        self.pages: dict[str, list[str]] = {}  # main's pages: path -> blocks
        self.hour = 0
        self.tip = 0

    def token(self) -> str:
        self.counter += 1
        return f"tok{self.counter:04d}x"

    def sentence(self) -> str:
        from hypothesis import strategies as st

        words = self.draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=7))
        return f"{self.token()} {' '.join(words)}."

    def block(self) -> str:
        from hypothesis import strategies as st

        if self.draw(st.integers(0, 5)) == 0:
            return f"## Part {self.token()}"
        return " ".join(self.sentence() for _ in range(self.draw(st.integers(1, 4))))

    def text(self, path: str, blocks: list[str]) -> str:
        return f"# {path}\n\n" + "\n\n".join(blocks) + "\n"

    def when(self) -> datetime:
        self.hour += 1
        return day("2026-01-01 00:00") + timedelta(hours=self.hour)

    def change(self, pages: dict[str, list[str]]) -> tuple[dict[str, str | None], list[tuple[str, str]], str]:
        """One random change to `pages` (mutated): files, renames, message."""
        from hypothesis import strategies as st

        free = [n for n in NAMES if n not in pages]
        kinds = ["add"] if not pages else ["edit", "edit", "edit", "delete", "rename"] + (["add"] if free else [])
        if len(pages) == 1:
            kinds = [k for k in kinds if k != "delete"]
        if not free:
            kinds = [k for k in kinds if k != "rename"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "add":
            path = self.draw(st.sampled_from(free))
            pages[path] = [self.block() for _ in range(self.draw(st.integers(1, 4)))]
            return {path: self.text(path, pages[path])}, [], f"add {path}"
        path = self.draw(st.sampled_from(sorted(pages)))
        if kind == "delete":
            del pages[path]
            return {path: None}, [], f"delete {path}"
        if kind == "rename":
            new = self.draw(st.sampled_from(free))
            pages[new] = pages.pop(path)
            return {}, [(path, new)], f"rename {path} to {new}"
        blocks = pages[path]
        action = self.draw(st.sampled_from(["replace", "insert", "remove", "append"]))
        i = self.draw(st.integers(0, len(blocks) - 1))
        if action == "replace":
            blocks[i] = self.block()
        elif action == "insert":
            blocks.insert(i, self.block())
        elif action == "remove" and len(blocks) > 1:
            blocks.pop(i)
        else:
            blocks.append(self.block())
        return {path: self.text(path, blocks)}, [], f"{action} in {path}"

    def main_commit(self) -> None:
        files, renames, message = self.change(self.pages)
        self.tip = self.builder.commit(message, self.when(), files, renames=renames)

    def side_branch(self, name: str) -> None:
        """A branch off main with 1-2 commits, main moving on meanwhile, then merged."""
        from hypothesis import strategies as st

        side = {p: list(b) for p, b in self.pages.items()}
        fork = self.tip
        touched: set[str] = set()
        mark = fork
        for i in range(self.draw(st.integers(1, 2))):
            files, renames, message = self.change(side)
            touched |= set(files) | {p for pair in renames for p in pair}
            mark = self.builder.commit(f"{name}: {message}", self.when(), files, branch=name,
                                       parent=fork if i == 0 else None, renames=renames)
        if self.draw(st.booleans()):
            untouched = {p: b for p, b in self.pages.items() if p not in touched}
            if untouched:
                path = self.draw(st.sampled_from(sorted(untouched)))
                self.pages[path].append(self.block())
                self.tip = self.builder.commit(f"main: append to {path}", self.when(),
                                               {path: self.text(path, self.pages[path])})
        merged: dict[str, str | None] = {}
        for path in sorted(touched):
            if path in side:
                self.pages[path] = side[path]
                merged[path] = self.text(path, side[path])
            else:
                self.pages.pop(path, None)
                merged[path] = None
        self.tip = self.builder.commit(f"Merge branch '{name}'", self.when(), merged, merge=mark)

    def build(self, repo: Path) -> list[str]:
        from hypothesis import strategies as st

        self.main_commit()
        for i in range(self.draw(st.integers(2, 6))):
            if self.draw(st.integers(0, 3)) == 0:
                self.side_branch(f"side{i}")
            else:
                self.main_commit()
        self.builder.specs[0].files[config.CONFIG_FILE] = config.render(SMALL_CHUNKS)
        return self.builder.write(repo)


# -- a realistic scripted week of agent memory ----------------------------------
def daily(date: str, *entries: tuple[str, ...]) -> str:
    """A daily log: (HH:MM, first line, optional body) per entry."""
    out = f"# Daily Log — {date}\n"
    for hhmm, first, *rest in entries:
        out += f"\n## {hhmm} — {first}\n" + "".join(f"\n{line}\n" for line in rest)
    return out


CONTACTS = "# Contacts\n\n- Sarah Chen's phone is 555-1234\n"
PLAN_1 = "# Plan\n\n## Goal\n\nLaunch the beta in March.\n\n## Steps\n\n- Write the spec\n"


def week(repo: Path) -> dict[str, str]:
    """About thirty commits over 2026-02-02..07 (UTC), one side branch merged
    back, a rename, a deleted page, a late-committed daily log. Returns
    commit ids by name."""
    b = Builder()
    marks: dict[str, int] = {}
    d2 = [("10:00", "Called Sarah about the timeline", "She wants the draft by Friday.")]

    def c(name: str, when: str, files: dict[str, str | None], message: str, **kw) -> None:
        marks[name] = b.commit(message, day(when), files, **kw)

    c("contacts", "2026-02-02 09:00", {"reference/contacts.md": CONTACTS}, "mem: remember Sarah Chen's phone is 555-1234")
    c("facts", "2026-02-02 09:30", {"knowledge/facts.md": "# Facts\n\n- The office wifi password rotates monthly\n"},
      "mem: remember the office wifi password rotates monthly")
    c("d2a", "2026-02-02 10:00", {"daily/2026-02-02.md": daily("2026-02-02", *d2)}, "mem: daily 2026-02-02 Called Sarah")
    c("plan1", "2026-02-02 14:00", {"reference/plan.md": PLAN_1}, "Plan: first draft of the beta plan")
    d2.append(("16:00", "Spec review with the design team", "Agreed to drop the offline mode."))
    c("d2b", "2026-02-02 16:00", {"daily/2026-02-02.md": daily("2026-02-02", *d2)}, "mem: daily 2026-02-02 Spec review")
    c("config", "2026-02-02 18:00", {".gitmem.toml": config.render(config.Settings()) + "\n# tuned\n"},
      "tune settings")
    c("bob", "2026-02-03 09:00", {"reference/contacts.md": CONTACTS + "- Bob Marsh's phone is 555-9999\n"},
      "mem: remember Bob Marsh's phone is 555-9999")
    plan2 = PLAN_1 + "- Build the prototype\n"
    c("plan2", "2026-02-03 11:00", {"reference/plan.md": plan2}, "Plan: add the prototype step")
    c("tea", "2026-02-03 12:00", {"reference/preferences.md": "# Preferences\n\n- Prefers green tea in the afternoon\n"},
      "mem: remember prefers green tea in the afternoon")
    c("todos", "2026-02-03 13:00", {"lists/todos.md": "# Todos\n\n- [ ] Renew the passport\n- [ ] Book the dentist\n"},
      "mem: remember to renew the passport")
    d3 = [("13:15", "Standup: prototype scope agreed")]
    c("d3a", "2026-02-03 13:15", {"daily/2026-02-03.md": daily("2026-02-03", *d3)}, "mem: daily 2026-02-03 Standup")
    d3.append(("17:30", "Vendor says the sensors ship late", "Expect a three week delay."))
    c("d3b", "2026-02-03 17:30", {"daily/2026-02-03.md": daily("2026-02-03", *d3)}, "mem: daily 2026-02-03 Vendor")
    contacts3 = CONTACTS.replace("555-1234", "555-4321") + "- Bob Marsh's phone is 555-9999\n"
    c("sarah", "2026-02-04 10:00", {"reference/contacts.md": contacts3}, "Sarah has a new phone number")
    plan3 = plan2.replace("in March", "in April")
    c("plan3", "2026-02-04 11:00", {"reference/plan.md": plan3},
      "Plan: the beta slips to April because the sensor vendor is late")
    d4 = [("11:30", "Told the team about the April date")]
    c("d4a", "2026-02-04 11:30", {"daily/2026-02-04.md": daily("2026-02-04", *d4)}, "mem: daily 2026-02-04 Told the team")
    # the laptop clone works on a branch, main moves on, then they merge
    c("laptop1", "2026-02-04 20:00", {"daily/2026-02-04-laptop.md": daily("2026-02-04", ("20:00", "Sketched the pelican logo"))},
      "mem: daily 2026-02-04 Sketched the pelican logo", branch="laptop", parent=marks["d4a"])
    c("laptop2", "2026-02-04 21:00", {"knowledge/design.md": "# Design\n\n- The logo is a pelican holding a key\n"},
      "mem: remember the logo is a pelican holding a key", branch="laptop")
    c("coffee", "2026-02-05 08:00", {"reference/preferences.md": "# Preferences\n\n- Prefers green tea in the afternoon\n"
                                     "- Takes coffee black in the morning\n"}, "mem: remember takes coffee black")
    c("merge", "2026-02-05 09:00", {"daily/2026-02-04-laptop.md": daily("2026-02-04", ("20:00", "Sketched the pelican logo")),
                                    "knowledge/design.md": "# Design\n\n- The logo is a pelican holding a key\n"},
      "Merge branch 'laptop'", merge=marks["laptop2"])
    c("rename", "2026-02-05 10:00", {}, "Rename facts to general", renames=[("knowledge/facts.md", "knowledge/general.md")])
    d3.append(("18:45", "Late note: the courier lost the spare sensor"))
    c("late", "2026-02-05 12:00", {"daily/2026-02-03.md": daily("2026-02-03", *d3)}, "mem: daily 2026-02-03 late note")
    c("done", "2026-02-06 09:00", {"reference/plan.md": plan3.replace("- Write the spec", "- [x] Write the spec")},
      "Plan: the spec is written")
    c("drop", "2026-02-06 10:00", {"lists/todos.md": None}, "Drop the todo list; moved to the calendar")
    c("session", "2026-02-06 14:30", {"sessions/2026-02-06-1430.md": "# Session 2026-02-06 14:30\n\n"
                                      "user: can we move the demo to Thursday?\nassistant: yes, Thursday at 3pm\n"},
      "mem: session 2026-02-06 14:30")
    d6 = [("15:00", "Demo moved to Thursday at 3pm")]
    c("d6", "2026-02-06 15:00", {"daily/2026-02-06.md": daily("2026-02-06", *d6)}, "mem: daily 2026-02-06 Demo moved")
    c("wifi", "2026-02-07 09:00", {"knowledge/general.md": "# Facts\n\n- The office wifi password rotates weekly now\n"},
      "The wifi password now rotates weekly")
    c("plan4", "2026-02-07 10:00", {"reference/plan.md": plan3.replace("- Write the spec", "- [x] Write the spec")
                                    + "- Recruit ten beta testers\n"}, "Plan: recruit testers for the beta")
    ids = b.write(repo)
    return {name: ids[mark - 1] for name, mark in marks.items()}
