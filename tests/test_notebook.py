import os

import pytest

from gitmem.errors import PathOutside, UsageError
from gitmem.gitops.repo import open_notebook
from gitmem.notebook import confine


@pytest.mark.parametrize("name, rel", [
    ("a.md", "a.md"), ("./x/y.md", "x/y.md"), ("x//y.md", "x/y.md"), ("with space.md", "with space.md"),
    ("-leading.md", "-leading.md"), ("ünïcode/页.md", "ünïcode/页.md"),
])
def test_confine_keeps_inside_paths(name: str, rel: str) -> None:
    assert confine(name) == rel


@pytest.mark.parametrize("name", ["../x.md", "a/../../x.md", "/etc/passwd", "~/x.md", ".git/config",
                                  "a/.git/x", ".gitmem.toml", "a\0b.md"])
def test_confine_refuses_escapes(name: str) -> None:
    with pytest.raises(PathOutside):
        confine(name)


@pytest.mark.parametrize("name", ["", "   ", "/".join(["."] * 3), "x" * 300 + ".md"])
def test_confine_refuses_empty_and_overlong(name: str) -> None:
    with pytest.raises((UsageError, PathOutside)):
        confine(name)


def test_symlinked_folder_is_refused(mem, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, mem.path / "link")
    nb = open_notebook(mem.path)
    with pytest.raises(PathOutside) as err:
        nb.page("link/secret.md")
    assert "symlink" in err.value.message


def test_rel_and_repo_path_for_a_subfolder_notebook(blank) -> None:
    blank("init", "--no-index", "--dir", "memory")
    nb = open_notebook(blank.path)
    assert nb.rel("memory/a.md") == "a.md"
    assert nb.rel("src/a.md") is None
    assert nb.repo_path("a.md") == "memory/a.md"


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("name", ["a\nb.md", "x\x1b[31m.md", "evil\u202egpj.md", "tab\there.md", "del\x7f.md"])
def test_a_new_page_name_with_a_control_character_is_refused_and_an_existing_one_read(mem, name: str) -> None:
    """gitmem never makes a page whose name prints as something else; one pulled with such a name is read."""
    result = mem("write", name, "--", "- a fact", code=2)
    assert "holds a control character" in result.stderr and result.stderr.count("\n") == 1
    assert mem.git("status", "--porcelain") == ""
    (mem.path / name).write_text("# Pulled\n\n- kept\n")
    assert open_notebook(mem.path).page(name) == name
    assert "- kept" in mem("get", name).stdout


def test_commands_to_copy_quote_a_page_name(mem) -> None:  # noqa: ANN001
    """A name from a pull (or a typo) is quoted where a hint says what to run: `$(...)` in it ran."""
    from gitmem.cli import output
    from gitmem.errors import PageNotFound

    with pytest.raises(PageNotFound) as caught:
        open_notebook(mem.path).page("q$(touch PWN).md", must_exist=True)
    assert caught.value.hint == "check the name, or create it with: git mem write 'q$(touch PWN).md' TEXT"
    lines = output._conflicts({"in_progress": None, "pages": [{"path": "a `b`.md", "facts": 1}]})
    assert lines == ["conflict:   a `b`.md: 1 fact(s) changed differently on both sides, not indexed until resolved; "
                     "run 'git mem resolve --take ours|theirs|both -- 'a `b`.md'', or without --take once you "
                     "edited the markers away"]
