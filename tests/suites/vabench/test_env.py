"""SpatialEnv protocol behaviour: budget, camera-chain limit, refusals, privilege boundary, determinism."""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import re

from scene_edit import MakeEnv

from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import (
    CameraAction,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Translation,
)
from actloop.suites.vabench.protocol.observation import ArmState, Feedback, Frame, Observation

TASK, SEED = "grasp_single_cube", 1000
TRACE = [
    CameraAction("view_topdown"),
    MoveWorld(Translation("x", "-", 30.0)),
    RotateLocal("rx", "+", 25.0),
    MoveWorld(Translation("z", "-", 100.0)),
    SetGripper("close"),
    CameraAction("zoom_in"),
]


def _run_trace(_: int = 0) -> tuple[list[str], list[bytes]]:
    env = SpatialEnv(TASK, SEED)
    hashes, frames = [env.reset().evaluation.state_hash], []
    for action in TRACE:
        result = env.step(action)
        hashes.append(result.evaluation.state_hash)
        frames.append(result.observation.frames[0].png)
    env.close()
    return hashes, frames


def test_scene_and_trace_are_identical_across_processes() -> None:
    with mp.get_context("spawn").Pool(2) as pool:
        (h1, f1), (h2, f2) = pool.map(_run_trace, [0, 1])
    assert h1 == h2
    assert f1 == f2
    assert len(set(h1)) > 3  # the trace really changed the state


def test_an_unrendered_env_has_the_same_physics_and_no_frames() -> None:
    rendered, _ = _run_trace()
    env = SpatialEnv(TASK, SEED, render=False)
    try:
        first = env.reset()
        hashes = [first.evaluation.state_hash]
        for action in TRACE:
            result = env.step(action)
            hashes.append(result.evaluation.state_hash)
            assert result.observation.frames == ()
        assert hashes == rendered and first.observation.frames == ()
    finally:
        env.close()


def test_camera_actions_use_budget_and_are_limited_to_five_in_a_row(env: SpatialEnv) -> None:
    before = env.world.state_hash()
    for i in range(5):
        result = env.step(CameraAction("view_side" if i % 2 else "view_topdown"))
        assert result.dispatched and result.observation.step == i + 1
    assert env.world.state_hash() == before  # camera actions never change the physics state
    refused = env.step(CameraAction("view_oblique_45"))
    assert not refused.dispatched
    assert refused.observation.step == 5
    assert refused.observation.feedback.valid is False
    assert "at most 5 consecutive camera actions" in refused.observation.feedback.message
    assert env.step(SetGripper("open")).dispatched
    assert env.step(CameraAction("view_topdown")).dispatched  # the chain restarts after a robot action


def test_budget_exhaustion_ends_the_episode(env: SpatialEnv) -> None:
    result = None
    for i in range(env.budget):
        result = env.step(
            CameraAction("move_left" if (i // 5) % 2 else "move_right") if i % 6 != 5 else SetGripper("open")
        )
    assert result is not None and result.done and result.stop_reason == "budget"
    assert result.observation.step == env.budget


def test_unavailable_arm_and_out_of_range_values_are_refused_without_budget(env: SpatialEnv) -> None:
    for action, text in [
        (MoveWorld(Translation("x", "+", 50.0), arm="left"), "only the right arm"),
        (MoveWorld(Translation("x", "+", 150.0)), "distance_mm"),
        (MoveWorld(Translation("x", "+", float("nan"))), "distance_mm"),
        (RotateLocal("rz", "+", 0.5), "angle_deg"),
        (SetGripper("close", arm="both"), "dual-arm"),
        (CameraAction("view_nowhere"), "unknown camera action"),
    ]:
        result = env.step(action)
        assert not result.dispatched
        assert text in result.observation.feedback.message
        assert result.observation.step == 0


def test_passive_protocol_gives_five_views_in_fixed_order_and_refuses_camera(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, reset=False, protocol="passive")
    first = env.reset()
    assert [f.view for f in first.observation.frames] == [
        "topdown",
        "side",
        "front_side_45",
        "side_top_45",
        "oblique_45",
    ]
    refused = env.step(CameraAction("view_topdown"))
    assert not refused.dispatched
    after = env.step(MoveWorld(Translation("z", "-", 20.0)))
    assert len(after.observation.frames) == 5
    assert env.action_space.camera_actions() == ()


def test_observation_carries_only_allowed_fields() -> None:
    assert {f.name for f in dataclasses.fields(Observation)} == {
        "instruction",
        "step",
        "budget",
        "arms",
        "feedback",
        "frames",
        "consecutive_camera_actions",
        "max_consecutive_camera_actions",
    }
    assert {f.name for f in dataclasses.fields(ArmState)} == {
        "arm",
        "ee_position",
        "ee_quaternion",
        "ee_rpy_deg",
        "gripper",
        "gc",
        "axes",
        "approach_tilt_deg",
    }
    assert {f.name for f in dataclasses.fields(Feedback)} == {"action", "valid", "planner_success", "message"}
    assert {f.name for f in dataclasses.fields(Frame)} == {"view", "png"}


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", text)]


def test_no_object_pose_or_checker_state_in_any_observation(env: SpatialEnv) -> None:
    cube = env.world.body_position("cube")
    results = [env.reset()] + [env.step(a) for a in TRACE]
    for result in results:
        obs = result.observation
        payload = obs.text() + repr(dataclasses.replace(obs, frames=()))
        for word in (
            "cube_pos",
            "lifted_gt",
            "approached",
            "grasped",
            "checkpoint",
            "condition",
            "state_hash",
            "lift_mm",
            "task success",
            "'success'",
        ):
            assert word not in payload
        # no number in the payload equals a cube coordinate (to 3 decimals) unless it is proprioception
        proprio = {round(v, 3) for arm in obs.arms for v in (*arm.gc, *arm.ee_position)}
        for value in _numbers(obs.text()):
            for c in cube:
                if abs(value - c) < 5e-4:
                    assert round(value, 3) in proprio, f"{value} looks like a cube coordinate"
        for frame in obs.frames:
            assert frame.png.startswith(b"\x89PNG")
