"""The terminal's manners (cli/terminal.py): colour, the pager, help, completion, and a
model folder that init remembers."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MODEL_DIR, Mem

ESC = "\x1b["


def test_colour_always_paints_results_and_never_or_no_color_does_not(mem: Mem) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    painted = mem("--color=always", "recall", "--mode", "keyword", "phone").stdout
    assert painted.splitlines()[0] == "\x1b[1mNOTEBOOK\x1b[m (1)"
    assert "\x1b[35mreference/contacts.md:3\x1b[m" in painted
    assert "      - Sarah's phone is 555-1234" in painted.splitlines()  # a fact's list item is not a 'removed' line
    assert ESC not in mem("--color=never", "recall", "--mode", "keyword", "phone").stdout
    assert ESC not in mem("recall", "--mode", "keyword", "phone").stdout  # auto: not a terminal here


def test_no_color_turns_auto_off_but_not_an_explicit_always(mem: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitmem.cli import terminal

    monkeypatch.setenv("NO_COLOR", "1")
    terminal.MANNERS.color = "auto"
    assert terminal.colour_on(open(os.devnull)) is False
    mem("remember", "Sarah's phone is 555-1234")
    assert ESC in mem("--color=always", "log").stdout


def test_colour_never_lets_a_note_drive_the_terminal(mem: Mem) -> None:
    """Only gitmem's own escapes reach the screen: a note's ESC sequences are still removed."""
    mem.write("knowledge/facts.md", "# Facts\n\n- the vault code is \x1b]0;pwned\x07 in the safe\n")
    mem.commit("hostile")
    out = mem("--color=always", "recall", "--mode", "keyword", "vault").stdout
    assert "\x1b]0;" not in out and "pwned" not in out and "      - the vault code is  in the safe" in out.splitlines()


def test_error_label_is_red_with_colour_always(mem: Mem) -> None:
    result = mem("--color=always", "recall", code=1)
    assert result.stderr.startswith("\x1b[31m\x1b[1merror:\x1b[m empty query")
    assert mem("recall", code=1).stderr.startswith("error: empty query")


def _on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run git-mem with a pseudo-terminal as standard output; what it printed there."""
    main, child = pty.openpty()
    proc = subprocess.Popen([str(Path(sys.executable).parent / "git-mem"), *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=child, stderr=subprocess.PIPE)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def test_log_goes_through_gits_pager_on_a_terminal_and_no_pager_skips_it(mem: Mem, tmp_path: Path) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    paged = tmp_path / "paged.txt"
    env = {**os.environ, "GIT_PAGER": f"cat > {paged}", "TERM": "xterm"}
    _on_a_terminal(["log"], mem.path, env)
    assert "mem: remember Sarah's phone is 555-1234" in paged.read_text()
    paged.unlink()
    shown = _on_a_terminal(["--no-pager", "log"], mem.path, env)
    assert not paged.exists() and "mem: remember Sarah's phone is 555-1234" in shown
    mem.git("config", "core.pager", f"cat > {paged}")  # git's own order: core.pager when GIT_PAGER is unset
    _on_a_terminal(["log"], mem.path, {k: v for k, v in env.items() if k != "GIT_PAGER"})
    assert "Sarah's phone" in paged.read_text()


def test_log_is_not_paged_when_output_is_not_a_terminal(mem: Mem, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    monkeypatch.setenv("GIT_PAGER", f"cat > {tmp_path / 'paged.txt'}")
    assert "Sarah's phone" in mem("log").stdout
    assert not (tmp_path / "paged.txt").exists()


def test_help_verb_prints_the_short_help(mem: Mem) -> None:
    assert mem("help", "recall").stdout == mem("recall", "-h").stdout
    assert mem("help", "hooks", "install").stdout.startswith("Usage: git mem hooks install [OPTIONS]")
    assert mem("help").stdout.startswith("usage: git mem <command> [<options>] [<args>]")
    assert "no such command: git mem frobnicate" in mem("help", "frobnicate", code=2).stderr


def _complete(words: list[str], cword: int, cwd: Path) -> list[str]:
    env = {**os.environ, "_GIT_MEM_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(words),
           "COMP_CWORD": str(cword)}
    out = subprocess.run([str(Path(sys.executable).parent / "git-mem")], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=60).stdout
    return [line.split(",", 1)[1] for line in out.splitlines() if line.startswith("plain,")]


def test_completion_offers_verbs_options_and_choices(mem: Mem) -> None:
    assert _complete(["git-mem", "rec"], 1, mem.path) == ["recall"]
    assert _complete(["git-mem", "recall", "--mode", ""], 3, mem.path) == ["hybrid", "keyword", "semantic"]
    assert "install" in _complete(["git-mem", "hooks", ""], 2, mem.path)


@pytest.mark.skipif(not Path("/usr/share/bash-completion/completions/git").is_file(),
                    reason="git's bash completion is not installed")
def test_bash_script_completes_git_mem_through_gits_own_completion(mem: Mem) -> None:
    script = mem("completion", "bash").stdout
    probe = ("source /usr/share/bash-completion/completions/git; source /dev/stdin; "
             "COMP_WORDS=(git mem rev); COMP_CWORD=2; COMP_LINE='git mem rev'; COMP_POINT=11; "
             "__git_wrap__git_main; echo \"[${COMPREPLY[*]}]\"")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-c", probe], input=script, cwd=mem.path, env=env, capture_output=True,
                         text=True, timeout=60).stdout
    assert out.strip() == "[review]"


def test_zsh_and_fish_scripts_name_git_mem(mem: Mem) -> None:
    assert mem("completion", "zsh").stdout.startswith("#compdef git-mem")
    assert "_GIT_MEM_COMPLETE=fish_complete" in mem("completion", "fish").stdout


def test_init_remembers_a_model_folder_in_git_config(blank: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITMEM_MODEL_DIR")
    out = blank("init", "--no-index", "--model-dir", str(MODEL_DIR)).stdout
    assert f"note: model: {MODEL_DIR.resolve()} kept in git config mem.modelDir" in out
    assert blank.git("config", "--local", "mem.modelDir").strip() == str(MODEL_DIR.resolve())
    status = blank.json("status")
    assert status["model"]["source"] == "git config mem.modelDir"


def test_init_refuses_a_folder_without_a_model(blank: Mem, tmp_path: Path) -> None:
    result = blank("init", "--model-dir", str(tmp_path), code=2)
    assert result.stderr.startswith(f"error: no embedding model in {tmp_path}")
    assert list(blank.path.iterdir()) == []  # nothing made: a newcomer's refused init left a .git (2026-11-27)
