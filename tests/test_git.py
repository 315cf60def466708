import os
from pathlib import Path

import pytest

from gitmem.errors import NotARepo
from gitmem.gitops import commits
from gitmem.gitops.git import Git, blob_id
from tests.conftest import git

ODD = ["with space.md", "new\nline.md", "-leading-dash.md", "glob*[x]?.md", "ünï/页.md", ":(top)magic.md"]


def test_odd_names_through_tree_status_and_commit(repo: Path) -> None:
    g = Git.find(repo)
    for name in ODD:
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text(name)
    assert sorted(g.status(".")) == sorted(ODD)
    head, fallback = commits.commit(g, ODD, "odd names")
    assert not fallback
    entries = {e.path: e.oid for e in g.tree(head, ".")}
    assert sorted(entries) == sorted(ODD)
    for name in ODD:
        assert g.read_blob(entries[name]) == name.encode()
        assert entries[name] == blob_id(name.encode())
    assert g.status(".") == []


def test_leaky_hook_variables_are_stripped(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    g = Git.find(repo)
    assert "GIT_DIR" not in os.environ and "GIT_INDEX_FILE" not in os.environ
    (repo / "a.md").write_text("a")
    commits.commit(g, ["a.md"], "m")
    assert git(repo, "log", "--format=%s") == "m\n"


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
    commits.commit(g, names, "control characters")
    (repo / "plain.md").write_text("changed")
    commits.commit(g, ["plain.md"], "second")
    log = list(g.first_parent_log(g.head(), None, "."))
    assert [c.subject for c in log] == ["control characters", "second"]
    assert sorted(c.path for c in log[0].changes) == sorted(names)
    assert [c.path for c in log[1].changes] == ["plain.md"]
    assert g.describe("HEAD").subject == "second"


def test_trailers_are_read_once_per_commit(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit never changes: a server asking again for its trailers runs no git."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "one\n\nGitmem-Verb: remember")
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    first, second = git(repo, "rev-list", "HEAD").split()[::-1]
    g = Git.find(repo)
    runs: list[tuple[str, ...]] = []
    original = Git.run
    monkeypatch.setattr(Git, "run", lambda self, *args, **kw: runs.append(args) or original(self, *args, **kw))
    assert g.trailers([first]) == {first: {"Gitmem-Verb": "remember"}}
    assert g.trailers([first, second]) == {first: {"Gitmem-Verb": "remember"}, second: {}}
    assert g.trailers([second, first]) == {second: {}, first: {"Gitmem-Verb": "remember"}}
    assert [a[-2] for a in runs] == [first, second]  # the second call asked only for the new commit


def test_head_reads_every_shape_of_head_from_the_ref_files(repo: Path, tmp_path: Path) -> None:
    """Git.head reads the ref files itself (no `git` call): it must agree with git on an unborn
    branch, a loose and a packed branch, a symbolic ref to a symbolic ref, a detached HEAD and a
    linked worktree, and see a new commit at once (a server asks again after each write)."""
    g = Git.find(repo)
    assert g.head() is None  # unborn
    (repo / "a.md").write_text("a\n")
    git(repo, "add", "a.md")
    git(repo, "commit", "-qm", "one")
    one = git(repo, "rev-parse", "HEAD").strip()
    assert g.head() == one
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists() and g.head() == one  # packed only
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    two = git(repo, "rev-parse", "HEAD").strip()
    assert g.head() == two  # the loose ref written after the packed one wins
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert g.head() == two
    git(repo, "checkout", "-q", "--detach", one)
    assert g.head() == one
    git(repo, "worktree", "add", "-q", str(tmp_path / "other"), "-b", "other", two)
    assert Git.find(tmp_path / "other").head() == two and g.head() == one


def test_read_blobs_gives_what_read_blob_gives_and_leaves_out_missing_and_large(repo: Path) -> None:
    """Many blobs in one go (the indexer's first build): the same bytes as one at a time, over
    more than one round of ids; a missing blob and one over the size asked are left out, and the
    process answers one at a time correctly afterwards (its answers stayed in step)."""
    texts = [f"note {i}\n".encode() * (i % 7) for i in range(150)] + [b"x" * 5000]
    for i, data in enumerate(texts):
        (repo / f"n{i}.md").write_bytes(data)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "notes")
    g = Git.find(repo)
    oids = [blob_id(data) for data in texts]
    missing = "0" * 40
    found = g.read_blobs([missing, *oids, oids[3], "not-hex"], largest=4096)
    assert found == {o: d for o, d in zip(oids, texts) if len(d) <= 4096}
    assert blob_id(texts[-1]) not in found and missing not in found
    assert g.read_blob(oids[-1]) == texts[-1] and g.read_blob(oids[5]) == texts[5]
