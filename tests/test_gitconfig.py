"""gitops/gitconfig.py: git's settings read once, and read again whenever where they come from changes."""

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.gitops import gitconfig
from gitmem.gitops.git import Git
from tests.conftest import git


@pytest.fixture
def counted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Git, list[tuple[str, ...]]]:
    """A Git whose `git config` runs are counted; the racy window off, so that a snapshot is
    trusted as soon as it is read."""
    monkeypatch.setattr(gitconfig, "RACY_SECONDS", 0.0)
    g = Git.find(repo)
    runs: list[tuple[str, ...]] = []
    real = g.call

    def call(*args: str, **kwargs: object) -> tuple[int, bytes, bytes]:
        if args[0] == "config":
            runs.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(g, "call", call)
    return g, runs


def _later() -> None:
    time.sleep(0.01)  # past the clock tick of the last write, as any later change is


def test_a_setting_is_read_once_while_its_files_stay(counted: tuple[Git, list[tuple[str, ...]]], repo: Path) -> None:
    g, runs = counted
    git(repo, "config", "mem.modelDir", "/models/a")
    _later()
    assert g.config_get("mem.modelDir") == "/models/a"
    assert g.config_get("mem.modeldir") == "/models/a"  # git's keys ignore case outside a subsection
    assert g.config_get("mem.personal") is None
    assert len(runs) == 1 and runs[0][:2] == ("config", "--list")


def test_a_change_by_plain_git_is_seen(counted: tuple[Git, list[tuple[str, ...]]], repo: Path) -> None:
    g, runs = counted
    git(repo, "config", "mem.modelDir", "/models/a")
    _later()
    assert g.config_get("mem.modelDir") == "/models/a"
    git(repo, "config", "mem.modelDir", "/models/b")  # same length: only the times and content differ
    assert g.config_get("mem.modelDir") == "/models/b"
    assert len(runs) == 2


def test_a_file_written_just_now_is_never_trusted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    g = Git.find(repo)
    runs: list[str] = []
    real = g.call

    def call(*args: str, **kwargs: object) -> tuple[int, bytes, bytes]:
        runs.append(args[0])
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(g, "call", call)
    git(repo, "config", "mem.modelDir", "/models/a")
    assert g.config_get("mem.modelDir") == "/models/a"
    assert g.config_get("mem.modelDir") == "/models/a"
    assert runs == ["config", "config"]  # changed within RACY_SECONDS: a change in the same tick would not show


def test_a_user_config_that_appears_later_counts(counted: tuple[Git, list[tuple[str, ...]]], repo: Path,
                                                tmp_path_factory: pytest.TempPathFactory,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    g, runs = counted
    user = tmp_path_factory.mktemp("home") / "gitconfig"
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    assert g.config_get("mem.personal") is None
    user.write_text("[mem]\n\tpersonal = ~/notes\n")
    assert g.config_get("mem.personal") == "~/notes"
    git(repo, "config", "mem.personal", "~/here")  # the repository's own wins, as in git
    assert g.config_get("mem.personal") == "~/here"
    assert len(runs) == 3


def test_settings_given_in_the_environment_count(counted: tuple[Git, list[tuple[str, ...]]],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    g, runs = counted
    assert g.config_get("mem.daemon") is None
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "mem.daemon")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    assert g.config_get("mem.daemon") == "true"
    assert len(runs) == 2


def test_an_included_file_is_watched(counted: tuple[Git, list[tuple[str, ...]]], repo: Path,
                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    g, runs = counted
    extra = tmp_path_factory.mktemp("inc") / "extra"
    extra.write_text("[mem]\n\tmodelDir = /models/a\n")
    git(repo, "config", "include.path", str(extra))
    _later()
    assert g.config_get("mem.modelDir") == "/models/a"
    assert g.config_get("mem.modelDir") == "/models/a" and len(runs) == 1
    extra.write_text("[mem]\n\tmodelDir = /models/b\n")
    assert g.config_get("mem.modelDir") == "/models/b"


def test_gitmems_own_writes_drop_the_snapshot(counted: tuple[Git, list[tuple[str, ...]]]) -> None:
    g, runs = counted
    assert g.config_get("mem.daemon") is None
    g.config_set("mem.daemon", "true")
    assert g.config_get("mem.daemon") == "true"
    g.config_unset("mem.daemon")
    assert g.config_get("mem.daemon") is None


def test_an_old_snapshot_is_read_again(counted: tuple[Git, list[tuple[str, ...]]],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    g, runs = counted
    monkeypatch.setattr(gitconfig, "MAX_AGE", 0.0)
    g.config_get("mem.daemon")
    g.config_get("mem.daemon")
    assert len(runs) == 2


def test_a_malformed_config_is_asked_key_by_key(counted: tuple[Git, list[tuple[str, ...]]], repo: Path) -> None:
    g, runs = counted
    with (repo / ".git" / "config").open("a") as f:
        f.write("[mem\n")
    assert g.config_get("mem.daemon") is None
    assert [r[:2] for r in runs] == [("config", "--list"), ("config", "--get")]


def test_keys_without_a_value_and_keys_given_twice(counted: tuple[Git, list[tuple[str, ...]]], repo: Path) -> None:
    g, _ = counted
    with (repo / ".git" / "config").open("a") as f:
        f.write('[mem]\n\tflag\n\tmulti = a\n\tmulti = b\n[branch "Main"]\n\tRemote = origin\n')
    assert g.config_get("mem.flag") is None  # as `git config --get` prints it: empty
    assert g.config_get("mem.multi") == "b"  # the last, as git gives it
    assert g.config_get("branch.Main.remote") == "origin"
    assert g.config_get("branch.main.remote") is None  # a subsection keeps its case


KEY = st.tuples(st.sampled_from(["mem", "Mem", "branch", "remote"]),
                st.one_of(st.none(), st.sampled_from(["Main", "main", "a.b", "x y"])),
                st.sampled_from(["modelDir", "personal", "remote", "fetch"]))
VALUE = st.text(st.characters(codec="utf-8", exclude_characters="\0\n\r\\\"", exclude_categories=["Cs", "Cc"]),
                max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(KEY, VALUE), min_size=1, max_size=4), KEY)
def test_the_snapshot_answers_as_git_config_get(repo: Path, entries: list[tuple[tuple[str, str | None, str], str]],
                                                asked: tuple[str, str | None, str]) -> None:
    config, first = repo / ".git" / "config", repo / ".git" / "config.first"
    if not first.exists():  # the repository's own settings, kept for every example
        first.write_text(config.read_text())
    lines = [first.read_text()]
    for (section, sub, var), value in entries:
        head = f'[{section} "{sub}"]' if sub is not None else f"[{section}]"
        lines.append(f'{head}\n\t{var} = "{value}"\n')
    config.write_text("".join(lines))
    g = Git.find(repo)
    for section, sub, var in [asked] + [e[0] for e in entries]:
        key = ".".join(p for p in (section, sub, var) if p is not None)
        assert g.config_get(key) == g.config_get_uncached(key), key


def test_parse_reads_origins_relative_to_the_work_tree(tmp_path: Path) -> None:
    out = b"file:.git/config\0core.bare\nfalse\0file:/etc/gitconfig\0mem.flag\0command line:\0mem.x\ny\0"
    values, origins = gitconfig.parse(out, tmp_path)
    assert values == {"core.bare": "false", "mem.flag": "", "mem.x": "y"}
    assert origins == [tmp_path / ".git/config", Path("/etc/gitconfig")]
    assert os.fspath(origins[0]).startswith(os.fspath(tmp_path))
