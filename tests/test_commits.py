from pathlib import Path

import pytest

from gitmem.errors import GitFailed
from gitmem.gitops import commits
from gitmem.gitops.commits import IndexNotUpdated
from gitmem.gitops.git import Git
from tests.conftest import git


def test_commit_leaves_other_staged_work_alone(repo: Path) -> None:
    (repo / "code.py").write_text("x = 1\n")
    git(repo, "add", "code.py")
    (repo / "note.md").write_text("note\n")
    g = Git.find(repo)
    head, _ = commits.commit(g, ["note.md"], "just the note")
    assert git(repo, "show", "--name-only", "--format=", head).split() == ["note.md"]
    assert "A  code.py" in git(repo, "status", "--porcelain")


def test_a_commit_whose_index_update_fails_says_it_is_committed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)

    def fail(*args: object) -> None:
        raise GitFailed("git update-index failed: index.lock held")

    monkeypatch.setattr(commits, "_restage", fail)
    with pytest.raises(IndexNotUpdated) as err:
        commits.commit_files(g, {"a.md": b"a\n"}, "mem: a")
    head = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert err.value.message.startswith(f"committed {head}, but git's index could not be updated")
    assert err.value.hint.endswith("run: git reset -q -- a.md")
    assert git(repo, "log", "-1", "--format=%s") == "mem: a\n"
