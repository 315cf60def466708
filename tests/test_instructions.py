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


def test_recall_and_the_prompt_hook_leave_the_instructions_page_out(blank: Mem) -> None:
    """Its lines are no memories, and `context` gives the page whole: a newcomer's "3. Ask the
    user." was the first answer to a wifi question, and the prompt hook injected the page's lines
    for an unrelated prompt. search, which ranks everything, still finds it."""
    from gitmem.cli import prompt

    blank("init", "--agent-instructions")
    blank.write("knowledge/home.md", "# Home\n\n- The wifi password is on the fridge door.\n")
    blank.commit("home")
    asked = "where do I look for the password when I cannot find something"
    assert instructions.PATH in [r["where"].split(":")[0] for r in blank.compact("search", "--min-score", "0", asked)
                                 ["results"]]
    for mode in ("hybrid", "keyword"):
        found = blank.compact("recall", "--mode", mode, "--min-score", "0", "-n", "50", asked)["results"]
        assert found and not [r for r in found if r["where"].startswith(instructions.PATH)], found
        assert instructions.PATH not in prompt.context(str(blank.path), "ask the user where to look", mode)
    assert [p["path"] for p in blank.json("context")["parts"]][:1] == [instructions.PATH]


def test_init_never_writes_the_page_through_a_committed_symlink(blank: Mem, tmp_path) -> None:
    """An attack run (2026-11-27): a clone whose `reference` is a committed symlink to a folder elsewhere
    got the instructions page written there."""
    outside = tmp_path / "outside"
    outside.mkdir()
    blank.git("init", "-q")
    (blank.path / "reference").symlink_to(outside)
    blank.git("add", "reference")
    blank.git("commit", "-q", "-m", "a link")
    out = blank("init", "--no-index", "--agent-instructions", code=1)
    assert out.stderr == ("error: reference/agent-instructions.md goes through a symlink (reference) "
                          "(gitmem never follows symlinks; use the real path)\n")
    assert list(outside.iterdir()) == [] and not (blank.path / ".gitattributes").exists()


def test_init_leaves_a_persons_uncommitted_gitattributes_uncommitted(mem: Mem) -> None:
    """An attack run (2026-11-27): 'mem: init notebook' committed .gitattributes whole, a person's staged
    and unstaged lines with gitmem's."""
    mem.write(".gitattributes", "*.png binary\n")
    mem.git("add", ".gitattributes")
    mem.write(".gitattributes", "*.png binary\n*.gif binary\n")
    head = mem.git("rev-parse", "HEAD")
    out = mem("init", "--no-index")
    assert "\nnote: .gitattributes has uncommitted changes of yours, so gitmem's lines were added to it but not " \
        "committed; commit them with yours when you are ready: git commit .gitattributes\n" in out.stdout
    assert mem.git("rev-parse", "HEAD") == head and mem.git("show", ":.gitattributes") == "*.png binary\n"
    assert (mem.path / ".gitattributes").read_text().startswith("*.png binary\n*.gif binary\n# gitmem:")
