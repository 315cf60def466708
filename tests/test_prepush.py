"""The pre-push hook (gitops/prepush.py): a push never carries a page marked private."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import Mem, git


@pytest.fixture
def pushing(mem: Mem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mem:
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    mem.git("remote", "add", "origin", str(tmp_path / "remote.git"))
    monkeypatch.delenv("GITMEM_HOOKS")
    out = mem.json("hooks", "install")
    assert "pre-push" in out["written"]
    mem.git("push", "-q", "-u", "origin", "main")
    return mem


def _push(m: Mem) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "push", "origin", "main"], cwd=m.path, capture_output=True, text=True)


@pytest.mark.tally("bad-input/fault matrix")
def test_a_private_page_never_travels_and_the_rest_does(pushing: Mem, tmp_path: Path) -> None:
    pushing.write("knowledge/diary.md", "---\nprivate: true\n---\n# Diary\n\n- a private thought\n")
    pushing.commit("diary")
    pushing.write("knowledge/plan.md", "# Plan\n\n- ship it\n")
    pushing.commit("plan")
    refused = _push(pushing)
    assert refused.returncode != 0
    assert ("error: refusing to push to origin: knowledge/diary.md is marked private (frontmatter private: true)"
            in refused.stderr)
    remote = git(tmp_path / "remote.git", "log", "--format=%s", "main")
    assert "diary" not in remote and "plan" not in remote
    pushing.git("rm", "-q", "--cached", "knowledge/diary.md")
    pushing.git("reset", "-q", "--soft", "HEAD~2")  # the commits that added it, made again without it
    pushing.git("commit", "-q", "-m", "plan only")
    assert _push(pushing).returncode == 0
    assert "plan.md" in git(tmp_path / "remote.git", "ls-tree", "-r", "--name-only", "main")
    assert "diary" not in git(tmp_path / "remote.git", "ls-tree", "-r", "--name-only", "main")


@pytest.mark.tally("bad-input/fault matrix")
def test_sync_is_refused_the_same_way(pushing: Mem) -> None:
    pushing.write("knowledge/diary.md", "---\ntitle: Diary\nprivate: yes\n---\n- private\n")
    pushing.commit("diary")
    failed = pushing("sync", code=1)
    assert "knowledge/diary.md is marked private" in failed.stderr and failed.stderr.count("\n") == 1


def test_hooks_status_and_uninstall_cover_it(pushing: Mem) -> None:
    states = {h["name"]: h["state"] for h in pushing.json("hooks", "status")["hooks"]}
    assert states["pre-push"] == "installed"
    assert "pre-push" in pushing.json("hooks", "uninstall")["removed"]
    assert not (pushing.path / ".git/hooks/pre-push").exists()
