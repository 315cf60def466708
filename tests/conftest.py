"""Shared fixtures: an isolated git environment, notebooks in tmp_path, the CLI."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner, Result

from gitmem.cli.main import cli
from tests.tally import (  # noqa: F401
    pytest_configure,
    pytest_runtest_logreport,
    pytest_runtest_makereport,
    pytest_terminal_summary,
)

ROOT = Path(__file__).resolve().parent.parent
SHARED_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODEL_DIR = Path(os.environ.get("GITMEM_MODEL_DIR") or SHARED_MODEL)


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HOME, global git config and caches."""
    home = tmp_path_factory.mktemp("home")
    config = home / ".gitconfig"
    config.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n"
                      "[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GITMEM_MODEL_DIR", str(MODEL_DIR))
    monkeypatch.delenv("GITMEM_MODEL", raising=False)
    # init installs git hooks that index in the background; tests of the hooks turn them back on.
    monkeypatch.setenv("GITMEM_HOOKS", "0")
    # ... and a suite run inside Claude Code (CLAUDECODE=1) or an agent's shell writes as a person
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "CLAUDECODE",
                 "GITMEM_AGENT"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with no usable model: a named model that is not downloaded."""
    monkeypatch.delenv("GITMEM_MODEL_DIR", raising=False)
    monkeypatch.setenv("GITMEM_MODEL", "sentence-transformers/all-MiniLM-L6-v2")


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run real git in a test (the tests may; gitmem itself goes through its gateway)."""
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    if out.returncode:
        raise AssertionError(f"git {shlex.join(args)} failed: {out.stderr}")
    return out.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository (no notebook)."""
    git(tmp_path, "init", "-q")
    return tmp_path


class Mem:
    """`git mem` in one directory, through click's CliRunner."""

    def __init__(self, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.path = path
        self._mp = monkeypatch
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, code: int | None = 0) -> Result:
        self._mp.chdir(self.path)
        result = self.runner.invoke(cli, list(args), input=input, catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, f"exit {result.exit_code}: {result.output}"
        return result

    def json(self, *args: str, input: str | None = None) -> dict:
        """A command's --json. recall and search print every field of each result (--full): the
        tests read chunks, provenance and history from them; `compact` reads what agents get."""
        import json

        full = ("--full",) if args and args[0] in ("recall", "search") else ()
        return json.loads(self(*args, *full, "--json", input=input).stdout)

    def compact(self, *args: str) -> dict:
        """recall's or search's --json as it is printed by default (compact results)."""
        import json

        return json.loads(self(*args, "--json").stdout)

    def git(self, *args: str) -> str:
        return git(self.path, *args)

    def write(self, rel: str, text: str) -> Path:
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def commit(self, message: str = "edit", *paths: str) -> str:
        self.git("add", "-A", *(["--", *paths] if paths else []))
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def side_edit(self, rel: str, text: str, edited: str) -> str:
        """A page committed here, then edited on a branch `side` off the first-parent chain; back
        on main. The side branch's commit."""
        self.write(rel, text)
        self.commit("page")
        self.git("checkout", "-q", "-b", "side")
        self.write(rel, edited)
        side = self.commit("side edit")
        self.git("checkout", "-q", "main")
        return side


# `git mem init --no-index` made once per worker and environment, then copied: most tests start
# from a fresh notebook, and init (a commit, its config) took 0.09 s where a copy takes 0.007 s.
# What init reads is the key (git's and gitmem's variables, the global git config, anything else
# in HOME), so a test that set up its environment otherwise gets a notebook of its own.
# init's own tests (tests/test_scaffold.py) run it on the `blank` folder.
_INITIALISED: dict[tuple[object, ...], Path] = {}


def _init_key(layout: str) -> tuple[object, ...] | None:
    home = Path(os.environ["HOME"])
    if any(p.name not in (".gitconfig", ".cache") for p in home.iterdir()):
        return None
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(("GIT", "XDG_CONFIG"))
                 and k not in ("GIT_CONFIG_GLOBAL",))
    return (layout, tuple(env), (home / ".gitconfig").read_text())


def _notebook(path: Path, layout: str, monkeypatch: pytest.MonkeyPatch,
              factory: pytest.TempPathFactory) -> Mem:
    key = _init_key(layout)
    made = _INITIALISED.get(key) if key is not None else None
    if made is None:
        made = factory.mktemp("initialised") / "nb" if key is not None else path
        made.mkdir()
        Mem(made, monkeypatch)("init", "--no-index", "--layout", layout)
        if key is not None:
            _INITIALISED[key] = made
    if made != path:
        shutil.copytree(made, path, symlinks=True)
    monkeypatch.chdir(path)  # where init left the test
    return Mem(path, monkeypatch)


@pytest.fixture
def mem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mem]:
    """A fresh folders-layout notebook (index not built yet)."""
    yield _notebook(tmp_path / "notes", "folders", monkeypatch, tmp_path_factory)


@pytest.fixture
def flat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mem]:
    yield _notebook(tmp_path / "flat", "flat", monkeypatch, tmp_path_factory)


@pytest.fixture
def blank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mem:
    """An empty folder (no repository yet)."""
    path = tmp_path / "blank"
    path.mkdir()
    return Mem(path, monkeypatch)


def python_in_subprocess(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)


def live_git_holding_index_lock(repo: Path, seconds: float) -> subprocess.Popen[bytes]:
    """A real `git commit` that holds .git/index.lock while its pre-commit hook sleeps (returns
    once the lock is there). The hook is removed when it has run."""
    import time

    held = repo / "held-by-git.txt"
    held.write_text("a file a person edits\n")
    git(repo, "add", "held-by-git.txt")
    git(repo, "commit", "-q", "-m", "a person's file")
    held.write_text("an edit\n")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/bin/sh\nsleep {seconds}\nrm -f -- \"$0\"\n")
    hook.chmod(0o755)
    # `commit -a` holds index.lock while its hooks run
    proc = subprocess.Popen(["git", "commit", "-q", "-a", "-m", "a person's commit"], cwd=repo,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not (repo / ".git" / "index.lock").exists():
        assert proc.poll() is None, "git ended before it took index.lock"
        time.sleep(0.01)
    return proc


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every attempt to reach the network in this process, and every model load that may download
    (fastembed without local_files_only): a test asserts the list, instead of a wall-clock limit."""
    import socket

    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(f"connect {args[1:] or args}")
        raise OSError("network disabled in this test")

    real_create = socket.create_connection

    def create_connection(address: object, *args: object, **kwargs: object) -> socket.socket:
        attempts.append(f"create_connection {address}")
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    assert real_create is not None
    try:
        import fastembed
    except ImportError:
        return attempts
    real = fastembed.TextEmbedding

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            if not kwargs.get("local_files_only") and not kwargs.get("specific_model_path"):
                attempts.append(f"download {kwargs.get('model_name')}")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(fastembed, "TextEmbedding", Recording)
    return attempts
