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
    assert result.stderr == f"error: internal error in gitmem; details in {log} (please report it)\n"
    assert "RuntimeError: simulated bug" in log.read_text()


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
    assert users == ["cli/agent.py", "cli/common.py", "cli/find.py", "cli/indexing.py", "cli/main.py", "cli/notes.py"]
    assert isinstance(cli, click.Group)


def test_man_page_is_current() -> None:
    from pathlib import Path

    from gitmem.cli.main import render_manpage

    page = Path(__file__).resolve().parent.parent / "man" / "git-mem.1"
    assert page.read_text() == render_manpage(), "regenerate with: git mem manpage > man/git-mem.1"
