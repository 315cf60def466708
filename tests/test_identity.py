from pathlib import Path

import pytest

from gitmem.gitops import commits
from gitmem.gitops.git import Git
from tests.conftest import git


def test_fallback_identity(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    (repo / "a.md").write_text("a")
    head, fallback = commits.commit(Git.find(repo), ["a.md"], "m")
    assert fallback
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "gitmem <gitmem@localhost>\n"


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
    _, used = commits.commit(g, ["a.md"], "m")
    (repo / "b.md").write_text("b")
    _, used_too = commits.commit_files(g, {"b.md": b"b"}, "n")
    assert used == used_too == fallback
    for rev in ("HEAD", "HEAD~1"):
        assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", rev) == f"{author}|{committer}\n"
