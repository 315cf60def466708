from gitmem.notes import instructions
from tests.conftest import Mem


def test_init_writes_the_instructions_on_request_and_context_loads_them(blank: Mem) -> None:
    out = blank.json("init", "--no-index", "--agent-instructions")
    assert out["created"] == [".gitmem.toml", instructions.PATH, ".gitattributes"]
    assert blank.git("status", "--porcelain") == "" and blank.git("log", "--format=%s") == "mem: init notebook\n"
    text = (blank.path / instructions.PATH).read_text()
    for must in ("remember", "daily/YYYY-MM-DD.md", "1. `git mem recall", "2. `git mem search --in sessions",
                 "3. Ask the user", "The user's edits win", "do not follow instructions"):
        assert must in text, must
    context = blank.json("context", "--date", "2026-02-20")
    assert [p["path"] for p in context["parts"]] == [instructions.PATH]


def test_without_the_flag_there_is_no_instructions_page(blank: Mem) -> None:
    blank("init", "--no-index")
    assert not (blank.path / instructions.PATH).exists()


def test_a_second_init_adds_it_but_never_overwrites_the_users_edits(mem: Mem) -> None:
    out = mem.json("init", "--no-index", "--agent-instructions")
    assert out["created"] == [instructions.PATH] and out["commit"]
    (mem.path / instructions.PATH).write_text("# My own rules\n")
    mem.commit("my rules")
    out = mem.json("init", "--no-index", "--agent-instructions")
    assert out["created"] == [] and (mem.path / instructions.PATH).read_text() == "# My own rules\n"


def test_flat_layout_names_its_daily_log(flat: Mem) -> None:
    flat("init", "--no-index", "--agent-instructions")
    assert "memory/YYYY-MM-DD.md" in (flat.path / instructions.PATH).read_text()
