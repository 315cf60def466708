"""Branch-scoped memory in a code repository whose notebook is `memory/`: recall on a branch sees
that branch's memory, a feature branch's facts arrive with its merge (the hooks catch the index up,
or the next read does), and each worktree has its own index."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Mem, git
from tests.indexstate import keyword, wait_current

FACTS = "knowledge/facts.md"  # notebook-relative: memory/knowledge/facts.md in the repository


@pytest.fixture
def code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mem:
    path = tmp_path / "app"
    path.mkdir()
    m = Mem(path, monkeypatch)
    git(path, "init", "-q")
    m.write("src/app.py", "print('hello')\n")
    m.commit("code")
    m("init", "--dir", "memory", "--no-index")
    m("remember", "Releases go out on Fridays")
    return m


@pytest.mark.parametrize("hooks", [True, False], ids=["hooks", "no-hooks"])
def test_a_branch_sees_its_own_memory_and_its_merge_brings_it_home(code: Mem, hooks: bool,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if hooks:
        monkeypatch.delenv("GITMEM_HOOKS")
        code("hooks", "install")
    code.git("switch", "-q", "-c", "feature")
    code("remember", "The flux capacitor needs 1.21 gigawatts")
    assert keyword(code, "capacitor") == [FACTS]
    code.git("switch", "-q", "main")
    assert keyword(code, "capacitor") == []  # main's memory does not have it
    code("remember", "The office tortoise is called Shelly")  # main moves on, on the same page
    code.git("merge", "-q", "--no-edit", "feature")  # both appended facts: merged fact by fact
    page = (code.path / "memory" / FACTS).read_text()
    assert "capacitor" in page and "tortoise" in page and "Fridays" in page and "<<<<<<<" not in page
    if hooks:
        # post-merge caught the index up in the background (a second status could meet the next
        # queued hook's worker starting: "updating", as CI saw once on 2026-11-26)
        assert wait_current(code)["index"]["indexed_commit"] == code.git("rev-parse", "HEAD").strip()
    assert keyword(code, "capacitor") == [FACTS] and keyword(code, "tortoise") == [FACTS]


def test_each_worktree_has_its_own_index_for_its_own_branch(code: Mem, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    code.git("branch", "feature")
    code.git("worktree", "add", "-q", str(tmp_path / "wt"), "feature")
    tree = Mem(tmp_path / "wt", monkeypatch)
    tree("remember", "The feature flag is called blue-lagoon")
    assert keyword(tree, "lagoon") == [FACTS]
    assert keyword(code, "lagoon") == [] and keyword(code, "Fridays") == [FACTS]
    assert (code.path / ".git/worktrees/wt/gitmem/index.db").is_file()
    assert (code.path / ".git/gitmem/index.db").is_file()
    code.git("merge", "-q", "--no-edit", "feature")
    assert keyword(code, "lagoon") == [FACTS]
