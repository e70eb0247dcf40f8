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
