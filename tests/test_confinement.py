"""Every path from an argument (or an MCP call, which uses the same functions) stays in the notebook.

Each case runs the real command in a real repo and checks three things: one clear
line and a non-zero exit, nothing created or changed outside the notebook, and no
traceback. Symlinks committed to the tree (mode 120000) are never followed or indexed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gitmem.notes import forget, memory
from gitmem.errors import GitmemError, PathOutside
from gitmem.gitops.git import open_notebook
from tests.conftest import Mem

pytestmark = pytest.mark.tally("bad-input/fault matrix")

BAD_PATHS = {
    "dotdot": "../outside.md",
    "dotdot-deep": "knowledge/../../outside.md",
    "absolute": "/tmp/gitmem-outside.md",
    "home": "~/outside.md",
    "git-dir": ".git/config",
    "hidden": "knowledge/.hidden.md",
    "config-file": ".gitmem.toml",
    "nul": "knowledge/a\0b.md",
    "long-name": "x" * 300 + ".md",
    "long-path": "/".join(["d" * 200] * 6) + "/x.md",
    "backslash-dotdot": "..\\outside.md",
    "empty": "   ",
}
COMMANDS = {
    "get": lambda p: ["get", p],
    "get-range": lambda p: ["get", p + ":1-2"],
    "write": lambda p: ["write", p, "some text"],
    "write-section": lambda p: ["write", "--section", "S", p, "some text"],
    "remember-to": lambda p: ["remember", "--to", p, "a fact"],
    "forget-range": lambda p: ["forget", p + ":1"],
}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root except the git dir's internals (the state gitmem may touch)."""
    out = {}
    for path in root.rglob("*"):
        if path.is_file() and ".git" not in path.relative_to(root).parts:
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", BAD_PATHS)
def test_bad_paths_are_refused_with_one_line(mem: Mem, tmp_path: Path, command: str, case: str) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("outside\n")
    mem.git("config", "core.abbrev", "7")
    before, head = snapshot(tmp_path), mem.git("rev-parse", "HEAD")
    args = COMMANDS[command](BAD_PATHS[case])
    result = mem(*args, code=None)
    assert result.exit_code in (1, 2), result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    assert snapshot(tmp_path) == before and mem.git("rev-parse", "HEAD") == head
    assert not Path("/tmp/gitmem-outside.md").exists()


@pytest.fixture
def linked(mem: Mem, tmp_path: Path) -> Mem:
    """A notebook with a symlinked page and a symlinked folder, both pointing outside, committed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("quokka outside the notebook\n")
    os.symlink(outside / "secret.md", mem.path / "knowledge-link.md")
    os.symlink(outside, mem.path / "linked")
    mem.write("knowledge/inside.md", "wombat inside the notebook\n")
    os.symlink("inside.md", mem.path / "knowledge/alias.md")  # a link that stays inside is still not followed
    mem.commit("links")
    assert mem.git("ls-files", "-s", "knowledge-link.md").startswith("120000")
    return mem


@pytest.mark.parametrize("args", [
    ["get", "knowledge-link.md"], ["get", "linked/secret.md"], ["get", "knowledge/alias.md"],
    ["write", "knowledge-link.md", "overwrite"], ["write", "linked/secret.md", "overwrite"],
    ["write", "linked/new.md", "a new page through the link"], ["remember", "--to", "linked/secret.md", "x"],
    ["forget", "linked/secret.md:1"], ["forget", "knowledge-link.md:1"],
])
def test_symlinks_are_never_followed(linked: Mem, tmp_path: Path, args: list[str]) -> None:
    before = snapshot(tmp_path / "outside")
    result = linked(*args, code=None)
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.output
    assert "symlink" in result.stderr or "not a regular file" in result.stderr or "no page" in result.stderr
    assert snapshot(tmp_path / "outside") == before


@pytest.mark.parametrize("query", ["quokka", "wombat"])
def test_symlinked_pages_and_folders_are_never_indexed(linked: Mem, query: str) -> None:
    hits = linked.json("recall", "--mode", "keyword", query)["results"]
    assert [h["path"] for h in hits] == ([] if query == "quokka" else ["knowledge/inside.md"])
    # and uncommitted links are not indexed either
    os.symlink(linked.path / "linked" / "secret.md", linked.path / "fresh-link.md")
    hits = linked.json("recall", "--mode", "keyword", query)["results"]
    assert [h["path"] for h in hits] == ([] if query == "quokka" else ["knowledge/inside.md"])


def test_forget_by_text_never_reads_through_a_link(linked: Mem, tmp_path: Path) -> None:
    result = linked("forget", "quokka", code=1)
    assert result.stderr.startswith("error: nothing in the notebook matches 'quokka'")
    assert (tmp_path / "outside" / "secret.md").read_text() == "quokka outside the notebook\n"


def test_a_page_swapped_for_a_link_after_the_check_is_not_read(linked: Mem) -> None:
    nb = open_notebook(linked.path)
    rel = nb.page("knowledge/inside.md")
    os.unlink(nb.file(rel))
    os.symlink(linked.path / "linked" / "secret.md", nb.file(rel))
    with pytest.raises(PathOutside):
        nb.read(rel)


@pytest.mark.parametrize("case", BAD_PATHS)
def test_domain_functions_refuse_the_same_paths(mem: Mem, case: str) -> None:
    """What an MCP tool calls: the domain functions, not the CLI."""
    nb = open_notebook(mem.path)
    path = BAD_PATHS[case]
    for call in (lambda: memory.get(nb, path), lambda: memory.write(nb, path, "x"),
                 lambda: memory.remember(nb, "a fact", to=path), lambda: forget.forget(nb, path + ":1")):
        with pytest.raises(GitmemError):
            call()
    assert not (mem.path.parent / "outside.md").exists()


@pytest.mark.parametrize("name", ["with space.md", "ünïcode/页.md", "-leading-dash.md", "--double.md",
                                  "semi;colon.md", "quote'\"s.md", "*glob?[x].md", "trailing space .md"])
def test_odd_but_legal_names_round_trip(mem: Mem, name: str) -> None:
    mem("write", "--", name, "kookaburra lives here")
    assert json.loads(mem("get", "--json", "--", name).stdout)["text"].endswith("kookaburra lives here\n")
    hits = mem.json("recall", "--mode", "keyword", "kookaburra")["results"]
    assert [h["path"] for h in hits] == [name]
    assert mem.git("log", "-1", "--format=%s").strip() == f"mem: write {name}"
    mem("remember", "--to", name, "--", "kookaburras laugh at dawn")
    mem("forget", "--", f"{name}:3")
    assert "kookaburra lives here" not in (mem.path / name).read_text()
    assert mem.git("status", "--porcelain") == ""
