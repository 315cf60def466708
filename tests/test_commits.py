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


def test_a_commit_whose_index_update_fails_is_not_made(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)

    def fail(*args: object) -> None:
        raise GitFailed("git update-index failed: index.lock held")

    monkeypatch.setattr(commits, "_restage", fail)
    with pytest.raises(IndexNotUpdated) as err:
        commits.commit_files(g, {"a.md": b"a\n"}, "mem: a")
    assert err.value.message == ("git's index could not be updated: git update-index failed: index.lock held; "
                                 "nothing was committed")
    assert git(repo, "log", "-1", "--format=%s") == "start\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_a_person_s_commit_while_gitmem_s_hooks_run_never_undoes_it(repo: Path) -> None:
    """A git user's run (2026-11-27): a person's post-commit hook took seconds, and their own `git commit`
    in that time recorded the index as it was before gitmem's commit, undoing gitmem's line."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\n[ -n \"$GIT_INDEX_FILE\" ] || exit 0\n"
                    "unset GIT_INDEX_FILE\necho person > person.txt\ngit add person.txt\n"
                    "git commit -q -m \"a person's commit\"\n")
    hook.chmod(0o755)
    (repo / "a.md").write_text("a\n")  # the page as gitmem writes it, then commits it
    commits.commit_files(Git.find(repo), {"a.md": b"a\n"}, "mem: a")
    assert git(repo, "log", "--format=%s", "-2").splitlines() == ["a person's commit", "mem: a"]
    assert git(repo, "show", "HEAD:a.md") == "a\n"  # not undone
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["person.txt"]
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.tally("bad-input/fault matrix")
def test_a_commit_is_made_on_the_head_it_was_built_from_or_not_at_all(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "theirs.md").write_text("theirs\n")
    git(repo, "add", "theirs.md")
    git(repo, "commit", "-q", "-m", "a person's commit")
    theirs = git(repo, "rev-parse", "HEAD").strip()
    with pytest.raises(commits.HeadMoved):
        commits.commit_files(Git.find(repo), {"a.md": b"a\n"}, "mem: a", base=base)
    assert git(repo, "rev-parse", "HEAD").strip() == theirs  # nothing committed, nothing undone


RACING_GIT = """#!/bin/sh
# git, except that a person's commit lands just before gitmem's `git commit` reads HEAD
case "$GIT_INDEX_FILE" in *commit-index.*)
  if [ "$1" = "commit" ] && [ -e "$RACE_MARK" ]; then
    rm -f "$RACE_MARK"
    (unset GIT_INDEX_FILE; cd "$RACE_REPO" && echo "pulled line" > pulled.md && {real} add pulled.md &&
     {real} commit -q -m "a person's commit")
  fi;;
esac
exec {real} "$@"
"""


def racing_git(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that lands a person's commit in gitmem's window, once per mark."""
    import shutil

    bin_dir = tmp_path / "racing-bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(RACING_GIT.format(real=shutil.which("git")))
    wrapper.chmod(0o755)
    mark = tmp_path / "race.mark"
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("RACE_MARK", str(mark))
    monkeypatch.setenv("RACE_REPO", str(repo))
    return mark


@pytest.mark.tally("bad-input/fault matrix")
def test_a_commit_landing_while_gitmem_commits_is_never_undone(repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    mark = racing_git(tmp_path, repo, monkeypatch)
    mark.touch()
    g = Git.find(repo)
    base = g.head()
    with pytest.raises(commits.HeadMoved):  # git parented it on the person's commit: taken back
        commits.commit_files(g, {"a.md": b"a\n"}, "mem: a", base=base)
    assert not mark.exists()
    assert git(repo, "log", "-1", "--format=%s").strip() == "a person's commit"
    assert git(repo, "show", "HEAD:pulled.md") == "pulled line\n"
    # git's index held gitmem's change before gitmem's commit: the person's commit holds it with theirs, so
    # nothing is undone, and built again on it gitmem has nothing left to commit
    assert git(repo, "show", "HEAD:a.md") == "a\n"
    assert commits.commit_files(g, {"a.md": b"a\n"}, "mem: a", base=g.head()) == (None, False)


@pytest.mark.tally("bad-input/fault matrix")
def test_a_commit_that_follows_gitmems_at_once_is_never_taken_back(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitmem's commit is found by its tree when a person's commit lands on top of it before gitmem
    looks: made on its base, it stays, and so does theirs."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)
    real = commits._on_base

    def theirs_lands_first(git_: Git, base: str | None, tree: str) -> str:
        (repo / "theirs.md").write_text("theirs\n")
        git(repo, "add", "theirs.md")
        git(repo, "commit", "-q", "-m", "a person's commit")
        return real(git_, base, tree)

    monkeypatch.setattr(commits, "_on_base", theirs_lands_first)
    new, _ = commits.commit_files(g, {"a.md": b"a\n"}, "mem: a", base=g.head())
    assert git(repo, "log", "--format=%s", "-3").splitlines() == ["a person's commit", "mem: a", "start"]
    assert git(repo, "rev-parse", "HEAD~1").strip() == new and git(repo, "show", f"{new}:a.md") == "a\n"
    assert git(repo, "show", "HEAD:theirs.md") == "theirs\n"
