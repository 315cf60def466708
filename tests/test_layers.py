"""The package's layers: a lower layer never imports a higher one, and no module imports itself back.

Every `import` counts, at the top of a module or inside a function (a lazy import is still a
dependency); only imports under `if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"

# Lowest first. A module may import its own layer and the layers below it.
LAYERS = ["base", "gitops", "index", "search", "notes", "agent", "web", "cli"]


def layer_of(module: str) -> str:
    if module == "gitmem.__main__":  # `python -m gitmem`: the command line's entry
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in LAYERS else "base"


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The gitmem modules that `path` imports at run time (resolved to module names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "gitmem")
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            if not target.startswith("gitmem"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
    return {m for m in found if m in known and m != module_name(path)}


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(files)
    return {mod: imports_of(path, known) for mod, path in files.items()}


def test_layers_are_the_folders() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(LAYERS), f"a package that is no layer: {folders - set(LAYERS)}"


def test_no_upward_import() -> None:
    upward = []
    for mod, deps in graph().items():
        for dep in deps:
            if dep == "gitmem" or mod == "gitmem":
                continue
            if LAYERS.index(layer_of(dep)) > LAYERS.index(layer_of(mod)):
                upward.append(f"{mod} -> {dep}")
    assert upward == []


def _cycle(g: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(g.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(g):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle() -> None:
    assert _cycle(graph()) is None


def test_the_checks_can_fail() -> None:
    """The cycle finder and the layer order catch what they are meant to catch."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    assert LAYERS.index(layer_of("gitmem.cli.main")) > LAYERS.index(layer_of("gitmem.index.db"))
    assert layer_of("gitmem.notebook") == "base"


@pytest.mark.parametrize("source, expected", [
    ("from ..index import db\n", {"gitmem.index.db"}),
    ("def f():\n    from ..cli import output\n", {"gitmem.cli.output"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..cli import output\n", set()),
    ("import gitmem.cli.output\n", {"gitmem.cli.output"}),
])
def test_imports_are_read_lazily_too(tmp_path: Path, source: str, expected: set[str], monkeypatch) -> None:
    """A lazy import inside a function counts; one under TYPE_CHECKING does not."""
    folder = tmp_path / "gitmem" / "search"
    folder.mkdir(parents=True)
    (folder / "engine.py").write_text(source)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "gitmem")
    assert imports_of(folder / "engine.py", {"gitmem.index.db", "gitmem.cli.output"}) == expected


SQL = re.compile(r"\b(SELECT\s+\S|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
                 r"CREATE\s+(TEMP\s+|VIRTUAL\s+|UNIQUE\s+)*(TABLE|INDEX|VIEW)|DROP\s+TABLE)\b")


def sql_outside_the_index() -> list[str]:
    """Where code outside index/ holds SQL text or runs a statement on a connection."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        mod = module_name(path)
        if mod.startswith("gitmem.index."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
                found.append(f"{mod}:{node.lineno} SQL text")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ("execute", "executemany", "create_scalar_function")
                  and "conn" in ast.unparse(node.func.value)):
                found.append(f"{mod}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_only_the_index_speaks_sql() -> None:
    """index/ is the one gateway to SQLite: search/ and every other layer call its query functions
    (one module per table or noun) and never hold a statement of their own."""
    assert sql_outside_the_index() == []


def test_the_sql_check_can_fail(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "gitmem" / "search"
    folder.mkdir(parents=True)
    (folder / "engine.py").write_text('def f(conn):\n    return conn.execute("SELECT 1 FROM texts")\n')
    monkeypatch.setattr(__import__(__name__), "PACKAGE", tmp_path / "gitmem")
    assert sorted(sql_outside_the_index()) == ["gitmem.search.engine:2 SQL text", "gitmem.search.engine:2 conn.execute"]
