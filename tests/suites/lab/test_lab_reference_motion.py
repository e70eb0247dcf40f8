"""The reference's motion through the public client over HTTP: straight lines from IK waypoints within
the speed limits, carrying a weight from the rack to the tray."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import actloop.suites.lab.reference as reference_package
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Arm, quaternion
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client

PUBLIC = ("actloop.suites.lab.reference",)


def test_the_reference_imports_only_public_things() -> None:
    for path in Path(reference_package.__path__[0]).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith("actloop") or name.startswith(PUBLIC), (
                    f"{path.name} imports {name}"
                )
                assert not name.startswith("mujoco"), f"{path.name} imports {name}"


def test_quaternions_put_the_axes_where_asked() -> None:
    assert pytest.approx(quaternion((0.0, 0.0, -1.0), (1.0, 0.0, 0.0))) == DOWN
    assert np.linalg.norm(quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))) == pytest.approx(1.0)


def test_a_weight_is_carried_from_the_rack_to_the_tray_through_the_client() -> None:
    env = LabEnv("hookes_law", 3)
    rack = env.platform.rack_position(1)
    tray = env._world.data.geom_xpos[env._model.geom("tray_plate").id].copy()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        arm = Arm(lab)
        arm.grip(0.045)  # open enough for the weight, not so wide as to touch its neighbours
        assert arm.line([rack[0], rack[1], rack[2] + 0.15]) < 0.003
        assert arm.line([rack[0], rack[1], rack[2] + GC_OFFSET + 0.004]) < 0.003  # fingertips clear the table
        arm.grip(0.0)
        safe = 1.16
        for waypoint in ([rack[0], rack[1], safe], [tray[0], rack[1], safe], [tray[0], tray[1], safe]):
            assert arm.line(waypoint) < 0.003
        assert arm.line([tray[0], tray[1], tray[2] + GC_OFFSET + 0.016]) < 0.003
        arm.grip(0.06)
        arm.line([tray[0], tray[1], safe])
        lab.wait(3.0)
        assert env.evaluator.loads.now == 1  # the tray carries the weight
        assert env.evaluator.acted
        lab.close()


def test_the_references_pad_offset_is_the_published_one() -> None:
    robot = LabEnv("hookes_law", 1, render=False).calibration()["robot"]
    assert robot["finger_pad_centre_in_hand_m"] == pytest.approx([GC_OFFSET, 0.0, 0.0], abs=1e-12)
