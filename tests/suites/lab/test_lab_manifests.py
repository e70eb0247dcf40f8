"""Released lab instances: every manifest entry passed the reference within half its tolerance, and its
inputs draw the same here (``actloop verify-instances --suite lab --check``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from actloop.cli import main
from actloop.core.suite import get_suite
from actloop.suites.lab import manifests
from actloop.suites.lab.experiments import experiment_keys


def test_every_released_instance_passed_the_reference_within_half_its_tolerance() -> None:
    for key in experiment_keys():
        manifest = manifests.load(key)
        assert len(manifest.instances) >= 5, key
        for entry in manifest.instances:
            assert entry["success"] and entry["reference_e"] <= manifests.MAX_REFERENCE_E, (key, entry)
        assert not set(manifest.seeds()) & {int(e["seed"]) for e in manifest.rejected}, key


def test_the_check_reproduces_every_instance_and_names_a_changed_one(tmp_path: Path) -> None:
    assert main(["verify-instances", "--suite", "lab", "--check", "--ids-only"]) == 0
    shutil.copy(manifests.MANIFEST_DIR / "hookes_law.json", tmp_path / "hookes_law.json")
    data = json.loads((tmp_path / "hookes_law.json").read_text())
    data["instances"][2]["instance_id"] = "0" * 16
    (tmp_path / "hookes_law.json").write_text(json.dumps(data))
    check = get_suite("lab").check_seeds("hookes_law", tmp_path)
    assert check.scenes == len(data["instances"]) and check.bitwise
    assert check.problems == [f"hookes_law seed {data['instances'][2]['seed']}: instance "
                              f"{manifests.load('hookes_law').instances[2]['instance_id']} here, "
                              f"{'0' * 16} released"]  # fmt: skip
