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

from gitmem.errors import GitmemError, PathOutside
from gitmem.gitops.repo import open_notebook
from gitmem.notes import forget, memory, reading
from tests.conftest import Mem
from tests.conftest import git as git_run

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


def test_listings_pass_over_a_symlinked_page(linked: Mem) -> None:
    """An attack run's committed symlink MEMORY.md made `git mem tags` fail outright."""
    os.symlink("knowledge/inside.md", linked.path / "MEMORY.md")
    linked.write("knowledge/tagged.md", "- wombat #marsupial\n")
    linked.commit("memory link")
    assert [(t["name"], t["pages"]) for t in linked.json("tags")["tags"]] == [("marsupial", 1)]
    assert linked.json("links", "knowledge/tagged.md")["backlinks"] == []


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
    for call in (lambda: reading.get(nb, path), lambda: memory.write(nb, path, "x"),
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


# --- a hostile .gitmem.toml from a pull (issue 12, item 1) ---------------------------------------

HOOK = "#!/bin/sh\necho PWNED > pwned.txt\n"


def hostile_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, path: str) -> Mem:
    """A clone of a repository whose committed `link` points at `target` and whose
    .gitmem.toml puts the notebook at `path` (through the link), every file a note."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git_run(origin, "init", "-q")
    os.symlink(target, origin / "link")
    (origin / ".gitmem.toml").write_text(f'[notebook]\npath = "{path}"\ninclude = ["**"]\n')
    git_run(origin, "add", "-A")
    git_run(origin, "commit", "-q", "-m", "a helpful notebook")
    git_run(tmp_path, "clone", "-q", str(origin), "victim")
    return Mem(tmp_path / "victim", monkeypatch)


def test_a_pulled_config_cannot_put_the_notebook_in_the_git_dir(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    victim = hostile_clone(tmp_path, monkeypatch, ".git", "link/hooks")
    hooks = victim.path / ".git" / "hooks"
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    before = snapshot_all(hooks)
    for args in (["init"], ["write", "post-commit", "--replace", HOOK], ["write", "pre-push", "--replace", HOOK],
                 ["remember", "--to", "post-commit", "x"], ["get", "pre-push"], ["daily", "a day"],
                 ["recall", "--mode", "keyword", "exit"], ["forget", "pre-push:1"]):
        result = victim(*args, code=1)
        assert result.stderr == ("error: the notebook folder 'link/hooks' (.gitmem.toml) goes through a symlink "
                                 "(link) (set notebook.path in .gitmem.toml to a real folder; gitmem never "
                                 "follows symlinks)\n"), (args, result.output)
    assert snapshot_all(hooks) == before and not (hooks / "post-commit").exists()
    victim.git("commit", "-q", "--allow-empty", "-m", "the user's next commit runs no hook")
    assert not (victim.path / "pwned.txt").exists()


def test_a_pulled_config_cannot_put_the_notebook_outside_the_work_tree(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "diary.md").write_text("# Diary\n\nquokka secret outside\n")
    victim = hostile_clone(tmp_path, monkeypatch, str(elsewhere), "link")
    for args in (["init"], ["remember", "a fact"], ["write", "diary.md", "overwritten"], ["get", "diary.md"],
                 ["recall", "--mode", "keyword", "quokka"], ["context"]):
        result = victim(*args, code=1)
        assert "goes through a symlink (link)" in result.stderr and "quokka" not in result.output, args
    assert snapshot_all(elsewhere) == {"diary.md": b"# Diary\n\nquokka secret outside\n"}


def test_mcp_tools_refuse_a_notebook_folder_swapped_for_a_link(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server keeps its notebook open: the check runs again on every page path."""
    from gitmem.agent import server

    m = Mem(tmp_path / "nb", monkeypatch)
    m.path.mkdir()
    m("init", "--no-index", "--dir", "memory/notes")
    h = server.Handler(open_notebook(m.path))
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "notes").mkdir(parents=True)
    (elsewhere / "notes" / "page.md").write_text("kept\n")
    os.rename(m.path / "memory", tmp_path / "old-memory")
    os.symlink(elsewhere, m.path / "memory")
    for name, args in (("write", {"page": "page.md", "content": "x", "replace": True}), ("get", {"path": "page.md"}),
                       ("remember", {"text": "a fact", "to": "page.md"}), ("forget", {"target": "page.md:1"})):
        ok, error = h.call(name, args)
        assert not ok and "goes through a symlink (memory)" in error, (name, error)
    assert snapshot_all(elsewhere) == {"notes/page.md": b"kept\n"}


def test_a_separate_git_dir_inside_the_work_tree_is_not_a_notebook_folder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A `.git` file (worktree, --separate-git-dir) can point at a git dir with an ordinary name."""
    top = tmp_path / "top"
    git_run(tmp_path, "init", "-q", "--separate-git-dir", str(top / "store"), str(top))
    (top / ".gitmem.toml").write_text('[notebook]\npath = "store/hooks"\ninclude = ["**"]\n')
    m = Mem(top, monkeypatch)
    before = snapshot_all(top / "store" / "hooks")
    for args in (["init", "--no-index"], ["write", "post-commit", "--replace", HOOK]):
        result = m(*args, code=1)
        assert result.stderr.startswith("error: the notebook folder 'store/hooks' (.gitmem.toml) is inside "
                                        "the git dir"), result.output
    assert snapshot_all(top / "store" / "hooks") == before
    (top / ".gitmem.toml").write_text('[notebook]\npath = "."\n')  # the folder is fine; a page path is not
    for args in (["write", "store/hooks/post-commit", "--replace", HOOK], ["remember", "--to", "store/config", "x"],
                 ["get", "store/config"], ["forget", "store/config:1"]):
        result = m(*args, code=1)
        assert " is inside the git dir (name a page of the notebook, outside the git dir)" in result.stderr, args
    assert snapshot_all(top / "store" / "hooks") == before


def test_a_linked_worktree_cannot_reach_its_git_dir_through_a_link(mem: Mem, tmp_path: Path) -> None:
    mem.commit("base") if mem.git("status", "--porcelain") else None
    mem.git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    wt = Mem(tmp_path / "wt", mem._mp)
    gitdir = (tmp_path / "wt" / ".git").read_text().split(": ", 1)[1].strip()
    os.symlink(gitdir, wt.path / "link")
    (wt.path / ".gitmem.toml").write_text('[notebook]\npath = "link/notes"\ninclude = ["**"]\n')
    before = snapshot_all(Path(gitdir))
    result = wt("write", "HEAD", "--replace", "ref: refs/heads/evil", code=1)
    assert "goes through a symlink (link)" in result.stderr
    assert snapshot_all(Path(gitdir)) == before


def test_a_symlinked_config_file_is_refused(mem: Mem) -> None:
    (mem.path / "settings.toml").write_text('[notebook]\npath = "."\n')
    os.unlink(mem.path / ".gitmem.toml")
    os.symlink("settings.toml", mem.path / ".gitmem.toml")
    result = mem("get", "knowledge/facts.md", code=1)
    assert result.stderr == ("error: .gitmem.toml is a symlink; gitmem reads its settings only from a plain file "
                             "(replace the link with the file itself: git rm .gitmem.toml, then git mem init)\n")


def test_a_write_never_keeps_an_executable_mode(mem: Mem) -> None:
    page = mem.write("tools/run.md", "#!/bin/sh\necho hi\n")
    mem.commit("run")  # uncommitted, its lines would be text a replace takes away: refused
    page.chmod(0o755)
    mem("write", "tools/run.md", "--replace", "#!/bin/sh\necho replaced")
    assert page.stat().st_mode & 0o777 == 0o644
    mem("remember", "a first fact")
    mem.path.joinpath("knowledge/facts.md").chmod(0o700)
    mem("remember", "a fact that keeps the owner's bits")
    assert mem.path.joinpath("knowledge/facts.md").stat().st_mode & 0o777 == 0o600


def test_atomic_write_drops_executable_bits(tmp_path: Path) -> None:
    from gitmem.gitops.lock import atomic_write

    target = tmp_path / "post-commit"
    target.write_text("old")
    target.chmod(0o775)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o664


def snapshot_all(root: Path) -> dict[str, bytes]:
    """Every file under root, the git dir's too (lstat: a link is recorded, never followed)."""
    out: dict[str, bytes] = {}
    for path in root.rglob("*"):
        if path.is_symlink():
            out[str(path.relative_to(root))] = b"-> " + os.fsencode(os.readlink(path))
        elif path.is_file():
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def test_a_pulled_include_of_everything_never_makes_code_a_note(mem: Mem) -> None:
    """An attack run committed include = ["**"] (as a pull would bring it): `git mem write Makefile`
    then edited the Makefile, and the MCP write tool committed src/conftest.py, which pytest imports."""
    from gitmem.agent.server import Handler

    toml = mem.path / ".gitmem.toml"
    toml.write_text(toml.read_text().replace('[notebook]\n', '[notebook]\ninclude = ["**"]\n'))
    (mem.path / "Makefile").write_text("all:\n\techo hi\n")
    (mem.path / "src").mkdir()
    mem.commit("code")
    assert json.loads(mem("write", "--json", "Makefile", "--", "touch /tmp/pwned").stdout)["path"] == "Makefile.md"
    ok, out = Handler(open_notebook(mem.path)).call("write", {"page": "src/conftest.py", "content": "import os"})
    assert ok and out["path"] == "src/conftest.py.md", out
    assert (mem.path / "Makefile").read_text() == "all:\n\techo hi\n" and not (mem.path / "src/conftest.py").exists()
    assert "Makefile" not in [r["where"].split(":")[0] for r in mem.compact("search", "--mode", "keyword",
                                                                              "--min-score", "0", "echo")["results"]]
