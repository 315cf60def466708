"""Anthropic's memory tool (memory_20250818), backed by the notebook.

    from anthropic import Anthropic
    from gitmem.agent.memory_tool import NotebookMemoryTool

    tool = NotebookMemoryTool("~/notes")            # /memories is ~/notes/memories/
    runner = Anthropic().beta.messages.tool_runner(model=..., max_tokens=1024, tools=[tool], messages=[...])
    for message in runner: ...

The model's `/memories` is a folder of the notebook (`memories/` by default).
Every create, str_replace, insert, delete and rename is one commit through
the write path every other verb uses (the write lock, a re-read just before
writing, a commit of gitmem's change alone), with trailers `Gitmem-Verb:
memory` and `Gitmem-Tool: memory <command>` (and the session's, when
GITMEM_SESSION is set). Paths are confined like every write: no `..`, no
hidden names (.git), no symlinks, only note files (`*.md` by default: the
notebook's `include`). Text is checked by the guard (secrets and
instruction-like text are refused). Errors come back as `ToolError`, which the
SDK's tool runner returns to the model as an `is_error` tool result, in the
SDK's own words where it has them (exactly-once str_replace, rename onto an
existing path, deleting /memories). What the tool writes is a page like any
other: recall and search find it.

Needs the optional `anthropic` package: pip install 'gitmem-notebook[anthropic]'.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

try:
    from anthropic.lib.tools import ToolError
    from anthropic.tools import BetaAbstractMemoryTool
    from anthropic.types.beta import (
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )
except ImportError as exc:  # the optional extra is missing: say how to add it
    raise ImportError("gitmem's NotebookMemoryTool needs the optional 'anthropic' package (2.14 or later): "
                      "pip install 'gitmem-notebook[anthropic]' (in a clone: pip install '.[anthropic]')") from exc

from .. import credentials
from ..errors import GitmemError
from ..gitops import commits, indexlock
from ..gitops.repo import open_notebook
from ..notebook import Notebook
from ..notes import change, guard, trailers
from ..text import clean_text

ROOT = "/memories"
WIDTH = 6  # line numbers as the SDK's local tool prints them


class NotebookMemoryTool(BetaAbstractMemoryTool):
    """The memory tool over the notebook at `path` (any folder inside its repository)."""

    def __init__(self, path: str | os.PathLike[str] = ".", folder: str = "memories") -> None:
        super().__init__()
        self.nb: Notebook = open_notebook(Path(path).expanduser())
        self.folder = self.nb.page(folder, default_suffix="")

    # -- paths ---------------------------------------------------------------
    def _rel(self, path: str) -> str:
        """The notebook-relative path of a /memories path; the root itself is the folder."""
        if path != ROOT and not path.startswith(ROOT + "/"):
            raise ToolError(f"Path must start with /memories, got: {path}")
        inner = path[len(ROOT):].strip("/")
        try:
            return self.nb.page(f"{self.folder}/{inner}" if inner else self.folder, default_suffix="")
        except GitmemError as exc:
            from .server import for_agents  # worded for a tool caller, as the MCP server's errors are

            raise ToolError(f"error: {for_agents(exc.line())}") from exc

    def _page(self, path: str) -> str:
        rel = self._rel(path)
        if rel == self.folder or not self.nb.settings.is_note(rel):
            raise ToolError(f"{path} is not a memory file gitmem keeps: name it with .md, e.g. /memories/notes.md")
        return rel

    def _shown(self, rel: str) -> str:
        return ROOT + rel[len(self.folder):]

    # -- reading -------------------------------------------------------------
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        rel = self._rel(command.path)
        full = self.nb.file(rel)
        if full.is_symlink():
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
        if rel == self.folder or full.is_dir():
            return self._listing(command.path, rel)
        text = self._read(command.path, rel)
        lines = text.split("\n")
        start = 1
        if command.view_range and len(command.view_range) == 2:
            first, last = command.view_range
            start = max(1, first)
            lines = lines[start - 1:len(lines) if last == -1 else last]
        # a line a pull or an editor wrote never passed the write guard: its secrets stay out
        numbered = [f"{str(i + start).rjust(WIDTH)}\t{credentials.redact(line)[0]}" for i, line in enumerate(lines)]
        return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(numbered)

    def _read(self, path: str, rel: str) -> str:
        try:
            data = self.nb.read_bytes(rel)
        except GitmemError as exc:
            from .server import for_agents  # worded for a tool caller, as the MCP server's errors are

            raise ToolError(f"error: {for_agents(exc.line())}") from exc
        if data is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        return self.nb.read(rel)

    def _listing(self, path: str, rel: str) -> str:
        base = self.nb.file(rel)
        lines = [f"{_size(base) if base.is_dir() else '0B'}\t{path}"]  # /memories before its first file
        for folder, dirs, files in os.walk(base) if base.is_dir() else ():
            depth = len(Path(folder).relative_to(base).parts)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not Path(folder, d).is_symlink()) \
                if depth < 1 else []
            inner = Path(folder).relative_to(base).as_posix()
            prefix = "" if inner == "." else inner + "/"
            for name in dirs:
                lines.append(f"{_size(Path(folder, name))}\t{path.rstrip('/')}/{prefix}{name}/")
            for name in sorted(files):
                full = Path(folder, name)
                if not name.startswith(".") and not full.is_symlink() \
                        and self.nb.settings.is_note(f"{rel}/{prefix}{name}"):
                    lines.append(f"{_size(full)}\t{path.rstrip('/')}/{prefix}{name}")
        header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
        return header + "\n" + "\n".join(lines)

    # -- writing -------------------------------------------------------------
    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        rel = self._page(command.path)
        if os.path.lexists(self.nb.file(rel)):
            raise ToolError(f"File {command.path} already exists")
        self._write(rel, "create", lambda before: command.file_text, must_be_new=True)
        return f"File created successfully at: {command.path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        rel = self._page(command.path)

        def replaced(content: str) -> str:
            count = content.count(command.old_str)
            if count == 0:
                raise ToolError(f"No replacement was performed, old_str `{command.old_str}` did not appear "
                                f"verbatim in {command.path}.")
            if count > 1:
                lines = [content[:i].count("\n") + 1 for i in _positions(content, command.old_str)]
                raise ToolError(f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` "
                                f"in lines: {', '.join(map(str, lines))}. Please ensure it is unique")
            return content.replace(command.old_str, command.new_str)

        after = self._write(rel, "str_replace", replaced, needs=command.path)
        at = after.find(command.new_str)
        line = after[:at].count("\n") if at >= 0 else 0
        lines = after.split("\n")
        snippet = [f"{str(n).rjust(WIDTH)}\t{lines[n - 1]}"
                   for n in range(max(0, line - 2) + 1, min(len(lines), line + 3) + 1)]
        return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" \
            + "\n".join(snippet)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        rel = self._page(command.path)

        def inserted(content: str) -> str:
            lines = content.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if not 0 <= command.insert_line <= len(lines):
                raise ToolError(f"Invalid `insert_line` parameter: {command.insert_line}. "
                                f"It should be within the range [0, {len(lines)}].")
            lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
            return "\n".join(lines) + "\n"

        self._write(rel, "insert", inserted, needs=command.path)
        return f"The file {command.path} has been edited."

    def _write(self, rel: str, verb: str, make: Callable[[str], str | None], must_be_new: bool = False,
               needs: str | None = None) -> str:
        """Apply `make` (the new text from the current text) as one commit, under the write lock."""
        try:
            with change.write_lock(self.nb):
                change.committable(self.nb)
                if needs is not None and self.nb.read_bytes(rel) is None:
                    raise ToolError(f"The path {needs} does not exist. Please provide a valid path.")
                if must_be_new and os.path.lexists(self.nb.file(rel)):
                    raise ToolError(f"File {self._shown(rel)} already exists")
                before = change.current(self.nb, rel)
                after = _given(make(before), before)
                guard.check(after if must_be_new else _added(before, after), False, rel)
                self.nb.file(rel).parent.mkdir(parents=True, exist_ok=True)
                with trailers.by_agent():  # the agent's: never a page that tells it who it is
                    change.apply(self.nb, {rel: change.towards(self.nb, before, after, rel)},
                                 f"mem: memory {verb} {rel}", trailers=self._trailers(verb))
                return after
        except GitmemError as exc:
            from .server import for_agents  # worded for a tool caller, as the MCP server's errors are

            raise ToolError(f"error: {for_agents(exc.line())}") from exc

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        rel = self._rel(command.path)
        if rel == self.folder:
            raise ToolError("Cannot delete the /memories directory itself")
        full = self.nb.file(rel)
        if full.is_symlink() or not full.exists():
            raise ToolError(f"The path {command.path} does not exist")
        paths = self._files(rel) if full.is_dir() else [self._page(command.path)]
        self._commit(paths, [], f"mem: memory delete {rel}", "delete")
        if full.is_dir():
            _prune(full)
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old, new = self._rel(command.old_path), self._rel(command.new_path)
        if old == self.folder:
            raise ToolError("Cannot rename the /memories directory itself")
        if os.path.lexists(self.nb.file(new)):
            raise ToolError(f"The destination {command.new_path} already exists")
        if self.nb.file(old).is_dir():
            raise ToolError(f"{command.old_path} is a directory: rename the files in it one at a time")
        old, new = self._page(command.old_path), self._page(command.new_path)
        if self.nb.read_bytes(old) is None:
            raise ToolError(f"The path {command.old_path} does not exist")
        self._commit([old], [(old, new)], f"mem: memory rename {old} -> {new}", "rename")
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def _files(self, rel: str) -> list[str]:
        """The note files under a folder (a symlink or another kind of file there is refused)."""
        found = []
        for folder, dirs, files in os.walk(self.nb.file(rel)):
            for name in dirs + files:
                full = Path(folder, name)
                inner = f"{rel}/{full.relative_to(self.nb.file(rel)).as_posix()}"
                if full.is_symlink() or (name in files and not self.nb.settings.is_note(inner)):
                    raise ToolError(f"{self._shown(inner)} is not a memory file gitmem keeps; "
                                    "nothing was deleted (a person can remove it with git rm)")
                if name in files:
                    found.append(inner)
        return found

    def _commit(self, removed: list[str], moved: list[tuple[str, str]], message: str, verb: str) -> None:
        """Delete (or move) whole files and commit exactly those paths. A file with a person's
        uncommitted edits, or one git does not hold at all, is refused: deleting it would lose what
        they wrote, and moving it would put their text in gitmem's commit."""
        try:
            with change.write_lock(self.nb):
                change.committable(self.nb)
                paths = [self.nb.repo_path(r) for r in removed] + [self.nb.repo_path(n) for _, n in moved]
                dirty = [r for r in removed if self.nb.git.status(self.nb.repo_path(r))]
                if dirty:
                    raise ToolError(f"{self._shown(dirty[0])} has changes not committed yet; nothing was changed "
                                    "(commit them first: git commit)")
                with trailers.by_agent():  # never a page that tells the agent who it is (folder="reference")
                    change.not_the_agents([*removed, *(n for _, n in moved)])
                indexlock.await_movers(self.nb.git)  # a person's commit in its editor ends first
                for rel in removed:
                    if rel in dict(moved):
                        new = dict(moved)[rel]
                        self.nb.file(new).parent.mkdir(parents=True, exist_ok=True)
                        # a link, then the old name gone: a file made at the new name meanwhile (a person's
                        # editor takes no lock) is refused, where os.rename would have replaced it
                        try:
                            os.link(self.nb.file(rel), self.nb.file(new))
                        except FileExistsError:
                            raise ToolError(f"File {self._shown(new)} already exists") from None
                        self.nb.file(rel).unlink()
                    else:
                        self.nb.file(rel).unlink()
                # what git knows of, or what is there now: `git add -A` refuses a path that is neither
                tracked = [p for p in paths if self.nb.git.index_entry(p) is not None or (self.nb.top / p).exists()]
                if tracked:
                    commits.commit(self.nb.git, tracked, message, self._trailers(verb))
        except GitmemError as exc:
            from .server import for_agents  # worded for a tool caller, as the MCP server's errors are

            raise ToolError(f"error: {for_agents(exc.line())}") from exc

    def _trailers(self, verb: str) -> list[tuple[str, str]]:
        return trailers.for_verb("memory", Tool=f"memory {verb}")


def _added(before: str, after: str) -> str:
    """The lines `after` has that `before` lacks: what the guard checks on an edit (a page's old
    text was checked when it was written, or a person wrote it)."""
    had = set(before.split("\n"))
    return "\n".join(line for line in after.split("\n") if line not in had)


def _positions(text: str, part: str) -> list[int]:
    found, start = [], 0
    while (at := text.find(part, start)) != -1:
        found.append(at)
        start = at + 1
    return found


def _size(path: Path) -> str:
    """A size as the SDK's local tool shows it: 512B, 4K, 1.5M."""
    size: float = path.lstat().st_size
    for unit in ("B", "K", "M"):
        if size < 1024:
            return f"{int(size)}{unit}" if size == int(size) else f"{size:.1f}{unit}"
        size /= 1024
    return f"{size:.1f}G"


def _prune(folder: Path) -> None:
    """Remove the folders a deletion left empty (git does not keep empty folders either)."""
    for current, _dirs, _files in sorted(os.walk(folder), key=lambda w: -len(w[0])):
        try:
            os.rmdir(current)
        except OSError:
            pass


# characters a page the agent writes may hold: a 14 MB page of list items held a notebook's index 40 minutes
MAX_PAGE = 1 << 20


def _given(after: str | None, before: str) -> str:
    """The page's new text as the agent gave it, cleaned as every text from an agent is (NUL and other
    controls out: a NUL made the page a binary file); a ToolError for no text, or a page grown past
    MAX_PAGE (a newcomer's 2,000,000-line create was taken)."""
    if not isinstance(after, str):
        raise ToolError("error: no text given (file_text is required)")
    after = clean_text(after)
    if len(after) > MAX_PAGE and len(after) > len(before):
        raise ToolError(f"error: the file would hold {len(after):,} characters; a memory file holds at most "
                        f"{MAX_PAGE:,}: split it into smaller files")
    return after
