import re
import subprocess
import sys

import click
import pytest

from gitmem.cli.main import cli
from tests.conftest import Mem

COMMANDS = ["init", "remember", "daily", "write", "get", "recall", "search", "index", "rebuild", "status", "guard",
            "model download", "log", "forget"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_examples(blank: Mem, command: str) -> None:
    out = blank(*command.split(), "--help").stdout
    assert out.startswith(f"Usage: git mem {command}")
    assert "Examples:" in out and "git mem " + command.split()[0] in out.split("Examples:")[1]


def test_top_level_help_lists_the_verbs(blank: Mem) -> None:
    out = blank("--help").stdout
    for verb in ["init", "remember", "daily", "write", "get", "recall", "search", "index", "rebuild", "status", "log"]:
        assert f"  {verb} " in out


LOADED = "import sys, runpy; sys.argv = ['git-mem', *{args!r}]\n" \
         "try:\n    runpy.run_module('gitmem', run_name='__main__')\nexcept SystemExit:\n    pass\n" \
         "print('HEAVY', sorted(m for m in ('onnxruntime', 'fastembed', 'tokenizers') if m in sys.modules))"


@pytest.mark.parametrize("args", [["--help"], ["recall", "--mode", "keyword", "tyres"], ["get", "a.md"],
                                  ["daily", "x"], ["status", "--no-model"], ["log"], ["get", "a.md", "--at", "HEAD"],
                                  ["recall", "--mode", "keyword", "--history", "--since", "7d", "tyres"]])
def test_light_paths_never_load_the_model(mem: Mem, args: list[str]) -> None:
    mem.write("a.md", "tyres\n")
    mem.commit("a")
    proc = subprocess.run([sys.executable, "-c", LOADED.format(args=args)], cwd=mem.path,
                          capture_output=True, text=True)
    assert proc.stdout.strip().endswith("HEAVY []"), proc.stdout + proc.stderr


def test_hybrid_path_does_load_it(mem: Mem) -> None:
    proc = subprocess.run([sys.executable, "-c", LOADED.format(args=["recall", "tyres"])], cwd=mem.path,
                          capture_output=True, text=True)
    assert "'onnxruntime'" in proc.stdout.splitlines()[-1]


def test_usage_errors_exit_2_with_one_line(mem: Mem) -> None:
    result = mem("recall", "--mode", "fuzzy", "x", code=2)
    assert result.stderr.startswith("error: Invalid value for '--mode'") and result.stderr.count("\n") == 1
    assert mem("frobnicate", code=2).stderr.startswith("error: No such command 'frobnicate'")


def test_a_bug_exits_3_and_logs_the_traceback(mem: Mem, monkeypatch) -> None:
    from gitmem.notes import memory

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(memory, "daily", broken)
    result = mem("daily", "x", code=3)
    log = mem.path / ".git" / "gitmem" / "error.log"
    found = re.fullmatch(rf"error: internal error in gitmem \(id ([0-9a-f]{{8}})\); details in {re.escape(str(log))} "
                         r"\(please report it\)\n", result.stderr)
    assert found, result.stderr
    assert "RuntimeError: simulated bug" in log.read_text() and f"[{found.group(1)}] git mem " in log.read_text()


def test_version(blank: Mem) -> None:
    assert blank("--version").stdout.startswith("git mem, version ")


def test_readme_test_command_is_what_ci_runs() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text()
    command = next(line for line in readme.splitlines() if "pytest" in line and line.startswith("python"))
    assert command in ci


def test_click_is_only_imported_by_the_cli() -> None:
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "gitmem"
    users = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py") if "import click" in p.read_text())
    assert [u for u in users if not u.startswith("cli/")] == []
    assert {"cli/agent.py", "cli/common.py", "cli/consolidation.py", "cli/main.py", "cli/notes.py", "cli/web.py"} <= set(users)
    assert isinstance(cli, click.Group)


def test_man_page_is_current() -> None:
    from pathlib import Path

    from gitmem.cli.main import render_manpage

    page = Path(__file__).resolve().parent.parent / "man" / "git-mem.1"
    assert page.read_text() == render_manpage(), "regenerate with: git mem manpage > man/git-mem.1"


def test_man_page_usage_lines_name_every_parent() -> None:
    """A sub-command's usage line names its group: 'git mem hooks install', not 'git mem install'."""
    from gitmem.cli.main import render_manpage

    usages = [line for line in render_manpage().splitlines() if line.startswith("Usage: ")]
    assert "Usage: git mem hooks install [OPTIONS]" in usages
    assert "Usage: git mem review accept [OPTIONS] [IDS]..." in usages
    assert "Usage: git mem session rm [OPTIONS] CHAT" in usages
    assert not [u for u in usages if u.split()[3:4] in (["install"], ["accept"], ["rm"], ["download"])]


def test_commands_doc_is_generated_from_the_live_help() -> None:
    """docs/commands.md's help blocks are the commands' own --help, so they cannot drift."""
    from pathlib import Path

    from gitmem.cli.main import cli
    from gitmem.cli.reference import render_markdown

    doc = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    assert render_markdown(cli) in doc, "regenerate with: git mem manpage --docs docs/commands.md"
    for name, command in cli.commands.items():
        if not command.hidden:
            assert f"### `git mem {name}`" in doc


def test_no_arguments_prints_the_short_usage_and_exits_0(mem: Mem) -> None:
    """Paper cut 7: `git mem` alone printed the whole help prefixed 'error:' and exited 2."""
    result = mem(code=0)
    lines = result.stdout.splitlines()
    assert lines[0] == "usage: git mem <command> [<options>] [<args>]" and result.stderr == ""
    assert any(re.fullmatch(r"   remember +Store a fact on the right page, as one commit\.", line) for line in lines)
    assert not any(line.lstrip().startswith(("manpage", "merge-driver")) for line in lines)  # hidden ones


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("args, example", [
    (["write", "todo.md", "- item"], 'git mem write PAGE -- "- item"'),
    (["remember", "- item"], 'git mem remember -- "- item"'),
    (["daily", "-x"], 'git mem daily -- "- item"'),
])
def test_dash_hint_names_the_arguments_before_the_text(mem: Mem, args: list, example: str) -> None:
    """Paper cut 8: the hint for text starting with '-' left out write's PAGE."""
    result = mem(*args, code=2)
    assert f"text that starts with '-' goes after '--', e.g. {example};" in result.stderr


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("args", [["log", "--no-pager"], ["recall", "--color", "always", "x"]])
def test_a_global_option_after_the_command_says_where_it_goes(mem: Mem, args: list) -> None:
    """A newcomer's `git mem log --no-pager` was told that text starting with '-' goes after '--'."""
    result = mem(*args, code=2)
    assert result.stderr == (f"error: No such option '{args[1]}'. ({args[1]} goes before the command: "
                             f"git mem {args[1]} {args[0]} ...)\n")


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("args, line", [
    (["goal", "update", "nope", "--status", "done"], "error: Invalid value for '--status': 'done' is not one of "
     "'active', 'completed', 'abandoned'. (see 'git mem goal update --help')"),
    (["init", "-q"], "error: No such option '-q'. (see 'git mem init --help')"),
    (["recall", "--in", "x", "foo"], "error: No such option '--in'. (Did you mean one of: '--json', '--since'?) "
     "(see 'git mem recall --help')"),
])
def test_a_usage_error_names_the_whole_command_and_no_hint_that_does_not_apply(mem: Mem, args: list,
                                                                               line: str) -> None:
    """A newcomer (2026-11-27): `goal update` said "see 'git mem update --help'", and `init -q` and
    `recall --in` were told that text starting with '-' goes after '--' (neither was text)."""
    assert mem(*args, code=2).stderr == line + "\n"


@pytest.fixture
def projects(mem: Mem, monkeypatch) -> Mem:
    """`git mem` run from the notebook's projects/ folder."""
    mem.write("projects/apollo.md", "# Apollo\n\nship on Friday\nthird line\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah 555-1234\n")
    mem.commit("pages")
    return Mem(mem.path / "projects", monkeypatch)


def test_paths_are_taken_from_the_current_folder_as_git_does(projects: Mem) -> None:
    """Paper cut 2: `cd projects && git mem get apollo.md` failed (paths were read from the notebook root)."""
    assert projects("get", "apollo.md").stdout == "# Apollo\n\nship on Friday\nthird line\n"
    assert projects.json("get", "apollo.md:3")["path"] == "projects/apollo.md"
    assert projects.json("get", "../reference/contacts.md")["path"] == "reference/contacts.md"
    assert projects.json("get", ":/reference/contacts.md:3")["text"] == "- Sarah 555-1234\n"
    assert projects.json("get", str(projects.path / "apollo.md"))["path"] == "projects/apollo.md"
    assert projects.json("write", "beta.md", "new page")["path"] == "projects/beta.md"
    assert projects.json("remember", "--to", "apollo.md", "Budget is fine")["path"] == "projects/apollo.md"
    assert projects.json("log", "--path", "apollo.md")["entries"][0]["subject"] == "mem: remember Budget is fine"
    assert projects.json("remember", "--replaces", "apollo.md:6", "Budget is now tight")["replaced"]["path"] == \
        "projects/apollo.md"
    assert projects.json("remember", "--replaces", "../reference/contacts.md:3", "Sarah 555-9999")["path"] == \
        "reference/contacts.md"
    assert projects.json("forget", "apollo.md:4")["removed"] == [{"path": "projects/apollo.md",
                                                                  "lines": {"start": 4, "end": 4}}]
    assert "third line" not in (projects.path / "apollo.md").read_text()


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("spec, error", [
    ("../../outside.md", "error: '../../outside.md' leaves the notebook ('..')"),
    ("/etc/passwd", "error: '/etc/passwd' is outside the notebook"),
    ("reference/contacts.md", "error: no page projects/reference/contacts.md in the notebook"),
])
def test_paths_from_a_subfolder_stay_confined(projects: Mem, spec: str, error: str) -> None:
    assert projects("get", spec, code=1).stderr.startswith(error)


def test_a_page_not_found_from_a_subfolder_says_how_to_name_it_from_the_root(projects: Mem) -> None:
    assert projects("get", "reference/contacts.md", code=1).stderr == (
        "error: no page projects/reference/contacts.md in the notebook (paths are relative to the current folder, "
        "as in git; from the notebook's root it is: git mem get :/reference/contacts.md)\n")


def test_a_notebook_in_a_subfolder_reads_paths_from_the_repository_top(tmp_path, monkeypatch) -> None:
    """Standing at the top of a code repository above a --dir notebook: a path into the notebook
    (memory/x.md) is followed; any other is the notebook's own, as before."""
    top = Mem(tmp_path / "code", monkeypatch)
    top.path.mkdir()
    top("init", "--no-index", "--dir", "memory")
    top("write", ":/plan.md", "the plan")
    assert top.json("get", "memory/plan.md")["path"] == "plan.md"
    assert top.json("get", "plan.md")["path"] == "plan.md"


@pytest.mark.skipif(not __import__("shutil").which("man"), reason="needs man(1)")
def test_git_mem_help_finds_the_man_page_after_an_editable_install(tmp_path) -> None:
    """Paper cut 3: after `pip install -e .` (no data files installed), `git mem --help` said
    "No manual entry for git-mem". Any git mem command now puts the page beside the bin folder
    git finds git-mem in, where man looks."""
    import os
    import shutil

    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    script = prefix / "bin" / "git-mem"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -P -m gitmem \"$@\"\n")
    script.chmod(0o755)
    system = os.pathsep.join(sorted({os.path.dirname(shutil.which(t) or "/usr/bin") for t in ("git", "man")}))
    env = {**os.environ, "PATH": f"{prefix / 'bin'}{os.pathsep}{system}", "MANPAGER": "cat",
           "PAGER": "cat", "MANWIDTH": "80", "GIT_PAGER": "cat"}
    env.pop("MANPATH", None)
    page = prefix / "share" / "man" / "man1" / "git-mem.1"
    assert not page.exists()
    before = subprocess.run(["git", "mem", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "No manual entry for git-mem" in before.stdout + before.stderr  # the paper cut, reproduced
    assert subprocess.run(["git", "mem", "-h"], cwd=tmp_path, env=env, capture_output=True).returncode == 0
    from gitmem.cli.main import render_manpage

    assert page.read_text() == render_manpage()
    after = subprocess.run(["git", "mem", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert after.returncode == 0, after.stderr
    assert "long-term memory for agents" in " ".join(after.stdout.split()) and "git mem recall" in after.stdout
    shutil.rmtree(prefix / "share")


def test_progress_shows_only_once_the_work_takes_a_second(monkeypatch, capsys) -> None:
    """Paper cut 1: on a terminal, a catch-up that takes more than about a second shows a bar."""
    import io
    import time

    from gitmem.cli import common

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    quick = common.progress("embedding")
    assert quick is not None
    quick(256, 512)
    quick(512, 512)
    assert err.getvalue() == ""  # done within the second: nothing shown
    slow = common.progress("embedding")
    slow(256, 1024)
    clock[0] += 1.5
    slow(512, 1024)
    slow(1024, 1024)
    assert "embedding" in err.getvalue() and "100%" in err.getvalue()
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal: no bar at all
    assert common.progress("embedding") is None
