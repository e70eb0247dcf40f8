"""Scenes and episodes are platform-independent: no CPU-dispatched maths on any path that decides
simulation state, scene identity from the inputs, manifests checked bit for bit on the same platform and
within tolerance elsewhere.

Tests never change the BLAS settings: instead numpy's linear-algebra and transcendental entry points are
patched to raise while a scene is built, reset and driven, and the state-path modules are scanned for
the ``@`` operator.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import actloop
from actloop.sim.fingerprint import platform_fingerprint
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.home import HOME_GC, HOME_Q, HOME_ROTATION, home_configuration, solve_home
from actloop.suites.vabench.protocol.decisions import MoveWorld, RotateLocal, SetGripper, Translation
from actloop.suites.vabench.seeds import (
    SCENE_POSITION_TOLERANCE_M,
    check_manifest,
    load_manifest,
    run_expert,
    scene_of,
)
from actloop.suites.vabench.task import task_names

PACKAGE = Path(actloop.__file__).parent
STATE_PATH_MODULES = sorted(
    [
        *(PACKAGE / "control").glob("*.py"),
        *(PACKAGE / "sim").glob("*.py"),
        *(PACKAGE / "sim" / "assets").glob("*.py"),
        *(PACKAGE / "suites" / "vabench").glob("*.py"),
        *(PACKAGE / "suites" / "vabench" / "tasks").glob("*.py"),
    ]
)
RENDER_ONLY = {"render.py", "fingerprint.py", "demonstration.py"}
"""Modules that never change simulation state: they render, describe the platform or film."""
NUMPY_LINALG = ("solve", "norm", "inv", "lstsq", "pinv", "eig", "eigh", "svd", "qr", "cholesky", "det")
NUMPY_DISPATCHED = (
    "dot", "matmul", "einsum", "inner", "vdot", "tensordot", "outer",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot", "exp", "log", "power",
    "sinh", "cosh", "tanh", "deg2rad", "rad2deg", "radians", "degrees",
)  # fmt: skip
TRACE = (
    MoveWorld(Translation("z", "-", 60.0)),
    RotateLocal("rx", "+", 35.0),
    MoveWorld(Translation("x", "-", 40.0)),
    SetGripper("close"),
    MoveWorld(Translation("z", "+", 50.0)),
    RotateLocal("ry", "-", 20.0),
    SetGripper("open"),
)


@pytest.fixture
def no_dispatched_maths(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """numpy's BLAS-backed and CPU-dispatched functions raise while the fixture is active."""

    def forbidden(name: str):
        def call(*args: object, **kwargs: object) -> None:
            raise AssertionError(f"numpy.{name} used on a simulation-state path")

        return call

    for name in NUMPY_LINALG:
        monkeypatch.setattr(np.linalg, name, forbidden(f"linalg.{name}"))
    for name in NUMPY_DISPATCHED:
        monkeypatch.setattr(np, name, forbidden(name))
    yield


def test_state_path_modules_use_no_matrix_operator() -> None:
    offenders = []
    for path in STATE_PATH_MODULES:
        if path.name in RENDER_ONLY:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ast.MatMult):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, f"'@' goes through BLAS; use actloop.sim.fixedmath: {offenders}"


def test_reset_and_an_action_trace_use_no_dispatched_maths(no_dispatched_maths: None) -> None:
    env = SpatialEnv("grasp_single_cube", 1000, render=False)
    try:
        env.reset()
        for action in TRACE:
            result = env.step(action)
            assert result.dispatched
    finally:
        env.close()


@pytest.mark.parametrize("task", task_names())
def test_every_family_builds_resets_and_runs_its_expert_without_dispatched_maths(
    task: str, no_dispatched_maths: None
) -> None:
    env = SpatialEnv(task, load_manifest(task).seed_list()[0], render=False)
    try:
        ok, _, reason = run_expert(env)
    finally:
        env.close()
    assert ok, reason


def test_home_joint_vectors_are_the_stored_solution() -> None:
    for arm in HOME_Q:
        np.testing.assert_allclose(solve_home(arm), home_configuration(arm), atol=1e-9)


def test_the_stored_home_pose_puts_the_fingers_at_home() -> None:
    env = SpatialEnv("grasp_single_cube", 1000, render=False)
    try:
        env.reset()
        handle = env.context.arms["right"]
        data = env.world.data
        assert np.max(np.abs(handle.gc(data) - HOME_GC["right"])) < 2e-3  # after the reset settle
        _, rot = handle.control_pose(data)
        assert np.max(np.abs(rot - HOME_ROTATION)) < 2e-3
    finally:
        env.close()


def test_scene_identity_hashes_inputs_not_state() -> None:
    a, b = SpatialEnv("place_cube_on_cube", 1000, render=False), SpatialEnv("place_cube_on_cube", 1000)
    other = SpatialEnv("place_cube_on_cube", 1001, render=False)
    try:
        assert a.scene_id == b.scene_id != other.scene_id
        before = a.scene_id
        a.reset()
        a.step(MoveWorld(Translation("z", "-", 30.0)))
        assert a.scene_id == before  # what happens in the episode is not part of the identity
    finally:
        for env in (a, b, other):
            env.close()


def test_manifest_check_is_bitwise_on_its_platform_and_tolerant_elsewhere() -> None:
    manifest = load_manifest("grasp_single_cube")
    # a manifest made on this machine (the shipped one may come from another platform)
    manifest.platform = platform_fingerprint()
    manifest.seeds = [{**scene_of("grasp_single_cube", manifest.seed_list()[0]), "expert_steps": 9}]
    manifest.demo = None
    same = check_manifest(manifest)
    assert same.bitwise and same.mode == "bitwise" and same.problems == [] and same.scenes == 1

    elsewhere = copy.deepcopy(manifest)
    elsewhere.platform = {**manifest.platform, "digest": "another-machine"}
    elsewhere.seeds[0]["state_hash"] = "0" * 64  # bits differ on another platform: not a problem
    tolerant = check_manifest(elsewhere)
    assert not tolerant.bitwise and tolerant.problems == []

    drifted = copy.deepcopy(elsewhere)
    drifted.seeds[0]["poses"]["cube"][0] += 3 * SCENE_POSITION_TOLERANCE_M
    (problem,) = check_manifest(drifted).problems
    assert "beyond tolerance" in problem and "cube" in problem

    tampered = copy.deepcopy(manifest)
    tampered.seeds[0]["state_hash"] = "0" * 64
    (problem,) = check_manifest(tampered).problems
    assert "on the manifest's own platform" in problem

    renamed = copy.deepcopy(manifest)
    renamed.seeds[0]["scene_id"] = "f" * 64
    (problem,) = check_manifest(renamed).problems
    assert "scene identity" in problem


def test_scene_entries_record_identity_state_and_poses() -> None:
    entry = scene_of("place_single_cube", 1000)
    assert set(entry) == {"seed", "scene_id", "state_hash", "poses"}
    assert set(entry["poses"]) == {"cube", "target"}
    assert all(len(pose) == 7 for pose in entry["poses"].values())
