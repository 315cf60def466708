import os
import subprocess
from pathlib import Path

import pytest

from gitmem.errors import NotARepo
from gitmem.gitops.git import Git, IndexLocked, blob_id
from tests.conftest import git, live_git_holding_index_lock

ODD = ["with space.md", "new\nline.md", "-leading-dash.md", "glob*[x]?.md", "ünï/页.md", ":(top)magic.md"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    return tmp_path


def test_odd_names_through_tree_status_and_commit(repo: Path) -> None:
    g = Git.find(repo)
    for name in ODD:
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text(name)
    assert sorted(g.status(".")) == sorted(ODD)
    head, fallback = g.commit(ODD, "odd names")
    assert not fallback
    entries = {e.path: e.oid for e in g.tree(head, ".")}
    assert sorted(entries) == sorted(ODD)
    for name in ODD:
        assert g.read_blob(entries[name]) == name.encode()
        assert entries[name] == blob_id(name.encode())
    assert g.status(".") == []


def test_commit_leaves_other_staged_work_alone(repo: Path) -> None:
    (repo / "code.py").write_text("x = 1\n")
    git(repo, "add", "code.py")
    (repo / "note.md").write_text("note\n")
    g = Git.find(repo)
    head, _ = g.commit(["note.md"], "just the note")
    assert git(repo, "show", "--name-only", "--format=", head).split() == ["note.md"]
    assert "A  code.py" in git(repo, "status", "--porcelain")


def test_fallback_identity(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    (repo / "a.md").write_text("a")
    head, fallback = Git.find(repo).commit(["a.md"], "m")
    assert fallback
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "gitmem <gitmem@localhost>\n"


def test_leaky_hook_variables_are_stripped(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    g = Git.find(repo)
    assert "GIT_DIR" not in os.environ and "GIT_INDEX_FILE" not in os.environ
    (repo / "a.md").write_text("a")
    g.commit(["a.md"], "m")
    assert git(repo, "log", "--format=%s") == "m\n"


def test_index_lock_contention_is_retried(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)
    person = live_git_holding_index_lock(repo, 0.6)  # a running git holds the lock: wait for it
    (repo / "a.md").write_text("a")
    try:
        g.commit(["a.md"], "after the lock")
    finally:
        person.wait()
    assert git(repo, "log", "--format=%s") == "after the lock\na person's commit\na person's file\nstart\n"


@pytest.mark.tally("bad-input/fault matrix")
def test_a_stale_index_lock_is_named_at_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock no running git holds (a killed git left it) is said at once, with a fix that works."""
    from gitmem.gitops import git as gateway

    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    (repo / "a.md").write_text("a")
    g = Git.find(repo)
    slept: list[float] = []
    real_sleep = gateway.time.sleep
    monkeypatch.setattr(gateway.time, "sleep", lambda s: (slept.append(s), real_sleep(s)))
    with pytest.raises(IndexLocked) as err:
        g.commit(["a.md"], "blocked")
    monkeypatch.setattr(gateway.time, "sleep", real_sleep)
    assert slept == [0.2]  # the one second look at the lock, and no retries (they went on for 14 s)
    assert "is left over from a git that stopped" in err.value.message
    assert err.value.hint == f"remove it, then run the command again: rm -f {lock}"
    subprocess.run(["sh", "-c", err.value.hint.split(": ", 1)[1]], cwd=repo, check=True)  # the fix works
    g.commit(["a.md"], "after the fix")
    assert git(repo, "log", "-1", "--format=%s") == "after the fix\n"


def test_not_a_repo(tmp_path: Path) -> None:
    with pytest.raises(NotARepo):
        Git.find(tmp_path)


def test_bare_repo_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", "b.git")
    with pytest.raises(NotARepo) as err:
        Git.find(tmp_path / "b.git")
    assert "bare" in err.value.message


def test_first_parent_log_with_merge_and_delete(repo: Path) -> None:
    (repo / "a.md").write_text("a")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    git(repo, "checkout", "-qb", "side")
    (repo / "b.md").write_text("b")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "a.md").unlink()
    git(repo, "commit", "-qam", "delete a")
    git(repo, "merge", "-q", "--no-edit", "side")
    g = Git.find(repo)
    log = list(g.first_parent_log(g.head(), None, "."))
    assert [c.subject for c in log] == ["one", "delete a", "Merge branch 'side'"]
    assert [(c.path, c.oid is None) for c in log[1].changes] == [("a.md", True)]
    assert [c.path for c in log[2].changes] == ["b.md"]  # what the merge brought, against the first parent


def test_log_parsing_survives_control_characters_in_names(repo: Path) -> None:
    names = ["odd\x01name.md", "\nlead.md", ":colon.md", "plain.md"]
    for name in names:
        (repo / name).write_text(name)
    g = Git.find(repo)
    g.commit(names, "control characters")
    (repo / "plain.md").write_text("changed")
    g.commit(["plain.md"], "second")
    log = list(g.first_parent_log(g.head(), None, "."))
    assert [c.subject for c in log] == ["control characters", "second"]
    assert sorted(c.path for c in log[0].changes) == sorted(names)
    assert [c.path for c in log[1].changes] == ["plain.md"]
    assert g.describe("HEAD").subject == "second"


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("config, env, author, committer, fallback", [
    ("", {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com",
          "GIT_COMMITTER_NAME": "Cy", "GIT_COMMITTER_EMAIL": "cy@example.com"},
     "Ann <ann@example.com>", "Cy <cy@example.com>", False),
    ("[user]\n\tname = Conf Name\n", {"GIT_AUTHOR_EMAIL": "ann@example.com", "GIT_COMMITTER_EMAIL": "cy@example.com"},
     "Conf Name <ann@example.com>", "Conf Name <cy@example.com>", False),
    ("", {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com"},
     "Ann <ann@example.com>", "gitmem <gitmem@localhost>", True),
    ("[user]\n\tname = Conf Name\n", {}, "Conf Name <gitmem@localhost>", "Conf Name <gitmem@localhost>", True),
])
def test_identity_follows_git(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config: str,
                              env: dict[str, str], author: str, committer: str, fallback: bool) -> None:
    """GIT_AUTHOR_*/GIT_COMMITTER_* and user.* as git itself reads them; gitmem's fallback fills
    only what git would lack."""
    cfg = tmp_path / "partial.gitconfig"
    cfg.write_text(config)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (repo / "a.md").write_text("a")
    g = Git.find(repo)
    _, used = g.commit(["a.md"], "m")
    (repo / "b.md").write_text("b")
    _, used_too = g.commit_files({"b.md": b"b"}, "n")
    assert used == used_too == fallback
    for rev in ("HEAD", "HEAD~1"):
        assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", rev) == f"{author}|{committer}\n"


def test_a_commit_whose_index_update_fails_says_it_is_committed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitmem.errors import GitFailed
    from gitmem.gitops.git import IndexNotUpdated

    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    g = Git.find(repo)

    def fail(*args: object) -> None:
        raise GitFailed("git update-index failed: index.lock held")

    monkeypatch.setattr(Git, "_restage", fail)
    with pytest.raises(IndexNotUpdated) as err:
        g.commit_files({"a.md": b"a\n"}, "mem: a")
    head = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert err.value.message.startswith(f"committed {head}, but git's index could not be updated")
    assert err.value.hint.endswith("run: git reset -q -- a.md")
    assert git(repo, "log", "-1", "--format=%s") == "mem: a\n"
