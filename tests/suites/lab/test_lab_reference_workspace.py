"""References run outside the sandbox act from a temporary workspace written like an agent's: the client
is loaded from there and exports land there, never in the package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import actloop.suites.lab.reference as references
from actloop.suites.lab import manifests
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import CARD, CONFIG, WORKSPACE_DIR, load_client

PACKAGE = Path(manifests.__file__).parent


def _files(directory: Path) -> set[Path]:
    return {path for path in directory.rglob("*") if "__pycache__" not in path.parts}


def test_a_reference_that_exports_writes_into_a_temporary_workspace_never_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, Any] = {}

    def exporting_reference(experiment: str) -> Any:
        def run(lab: Any, public: dict[str, float]) -> None:
            written = lab.export("logger", "sweep.csv")
            workspace = Path(written["file"]).parent
            seen.update(
                experiment=experiment,
                written=written,
                text=Path(written["file"]).read_text(),
                workspace=sorted(path.name for path in workspace.iterdir()),
                client=Path(type(lab).__init__.__code__.co_filename),
            )

        return run

    monkeypatch.setattr(references, "reference", exporting_reference)
    package_before = _files(PACKAGE)
    entry = manifests.verify_instance("black_box_resistor", 1)
    assert seen["experiment"] == "black_box_resistor" and entry["seed"] == 1 and not entry["success"]
    csv = Path(seen["written"]["file"])
    assert csv.name == "sweep.csv" and seen["text"] == "time_s,voltmeter,ammeter\n"
    assert not csv.is_relative_to(PACKAGE) and csv.parent.name.startswith("actloop-reference-")
    assert {CARD, CONFIG, "lab_client.py", "README.md", "sweep.csv"} <= set(seen["workspace"])
    assert seen["client"].parent == csv.parent  # the client was loaded from the workspace
    assert not csv.parent.exists()  # removed afterwards
    assert not {path for path in _files(PACKAGE) - package_before if path.suffix == ".csv"}
    assert not _files(WORKSPACE_DIR) - package_before


def test_a_reference_that_raises_is_reported_and_its_workspace_removed() -> None:
    folders: list[Path] = []

    def broken(lab: Any, public: dict[str, float]) -> None:
        folders.append(Path(lab.workspace))
        raise ValueError("no reading")

    env = LabEnv("black_box_resistor", 1, render=False)
    assert manifests.run_reference(env, broken) == "ValueError: no reading"
    assert folders and not folders[0].exists()
    env.close()


def test_the_client_loaded_from_the_package_refuses_to_export_and_writes_nothing() -> None:
    before = _files(WORKSPACE_DIR)
    env = LabEnv("black_box_resistor", 1, render=False)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        assert lab.workspace is None
        with pytest.raises(ValueError, match="no workspace to export into"):
            lab.export("logger", "sweep.csv")
        lab.close()
    env.close()
    assert _files(WORKSPACE_DIR) == before


def test_an_explicit_workspace_receives_the_export(tmp_path: Path) -> None:
    env = LabEnv("black_box_resistor", 1, render=False)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token, workspace=tmp_path)
        assert lab.export("logger", "run.csv") == {"file": str(tmp_path / "run.csv"), "rows": 0}
        lab.close()
    env.close()
    assert (tmp_path / "run.csv").read_text() == "time_s,voltmeter,ammeter\n"
