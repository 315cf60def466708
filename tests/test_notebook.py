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
