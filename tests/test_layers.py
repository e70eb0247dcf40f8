"""The layout's rules, checked on the source: shared layers never import a suite, and lower layers never
import higher ones. Every import counts, including those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "actloop"
SHARED = ("core", "sim", "control", "runtime", "records", "report", "viewer", "agent", "runs", "cli")
LOWER_THAN = {
    "core": {"sim", "control", "runtime", "records", "report", "viewer", "agent", "runs", "cli"},
    "sim": {"control", "runtime", "records", "report", "viewer", "agent", "runs", "cli"},
    "control": {"runtime", "records", "report", "viewer", "agent", "runs", "cli"},
    "runtime": {"records", "report", "viewer", "agent", "runs", "cli"},
    "records": {"report", "viewer", "agent", "runs", "cli"},
    "agent": {"report", "viewer", "runs", "cli"},
    "runs": {"report", "viewer", "cli"},
}
"""Layers a layer must not import (``core`` may name higher layers in type annotations only)."""


def imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, imported actloop module, only for type checking) for every import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found += [(node.lineno, n, id(node) in typing_only) for n in names if n.startswith("actloop.")]
    return found


def layer_files(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", SHARED)
def test_shared_layers_never_import_a_suite(layer: str) -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{line} imports {name}"
        for path in layer_files(layer)
        for line, name, _ in imports(path)
        if name == "actloop.suites" or name.startswith("actloop.suites.")
    ]
    assert found == []


@pytest.mark.parametrize("layer", sorted(LOWER_THAN))
def test_lower_layers_never_import_higher_ones(layer: str) -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{line} imports {name}"
        for path in layer_files(layer)
        for line, name, typing_only in imports(path)
        if name.split(".")[1] in LOWER_THAN[layer] and not (layer == "core" and typing_only)
    ]
    assert found == []


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from actloop.suites.vabench import env\n")
    assert imports(source) == [(2, "actloop.suites.vabench", False)]


def test_the_command_line_imports_no_heavy_package_until_a_command_runs() -> None:
    """Spawned environment workers re-import the ``actloop`` entry module: it must stay light."""
    import subprocess
    import sys

    heavy = ("inspect_ai", "mujoco", "duckdb", "scipy", "ray")
    code = f"import sys, actloop.cli; print([m for m in {heavy!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` under the source root ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` -> the package's modules it imports at run time (``from p import m``
    counts as importing the module m when m is one; imports for type checking only do not count)."""
    modules = {module_name(p, package.parent): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                            for a in node.names}  # fmt: skip
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        typed = {n for _, n, typing_only in imports(path) if typing_only}
        graph[name] = {t for t in targets if t in modules and t != name and t not in typed}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others() -> None:
    """The bench, its experiments, its evaluators and level T1 (and everything else) form no import
    cycle: leaf modules (the physics rate, the request errors) hold what several of them need."""
    assert cycles(import_graph(PACKAGE)) == []


def test_the_cycle_check_finds_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "actloop"
    (package / "lab").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "lab" / "__init__.py").write_text("")
    (package / "lab" / "env.py").write_text("from actloop.lab.experiment import KEY\n")
    (package / "lab" / "experiment.py").write_text("def f():\n    from actloop.lab import env\n")
    (package / "lab" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from actloop.lab import env\n"
    )
    assert cycles(import_graph(package)) == [["actloop.lab.env", "actloop.lab.experiment"]]
