"""Camera rig: semantic views, incremental moves and clamping (the seed's table 27)."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.sim import camera as cam

GC = np.array([0.25, -0.2, 0.95])


def _looks_at(pose: cam.CameraPose, target: np.ndarray) -> bool:
    direction = target - np.asarray(pose.position)
    return bool(np.dot(direction / np.linalg.norm(direction), pose.forward()) > np.cos(np.deg2rad(0.5)))


@pytest.mark.parametrize("view", list(cam.SEMANTIC_OFFSETS))
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_semantic_views_sit_at_offset_and_look_at_gc(view: str, side: float) -> None:
    centre = np.array([0.1, -0.1, 0.9])
    pose = cam.semantic_view(view, centre, side)
    dx, dy, dz = cam.SEMANTIC_OFFSETS[view]
    expected = np.clip(centre + np.array([side * dx, dy, dz]), cam.CAMERA_LOW, cam.CAMERA_HIGH)
    np.testing.assert_allclose(pose.position, expected, atol=1e-12)
    assert _looks_at(pose, centre)


def test_side_view_is_clamped_to_the_camera_workspace() -> None:
    pose = cam.semantic_view("side", GC + np.array([0.2, 0, 0]))
    assert pose.position[0] == pytest.approx(cam.CAMERA_HIGH[0])
    assert _looks_at(pose, GC + np.array([0.2, 0, 0]))


def test_topdown_looks_straight_down_with_y_up_in_image() -> None:
    pose = cam.semantic_view("topdown", GC)
    np.testing.assert_allclose(pose.forward(), [0, 0, -1], atol=1e-12)
    np.testing.assert_allclose(pose.right(), [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(pose.up(), [0, 1, 0], atol=1e-12)


@pytest.mark.parametrize(
    ("action", "direction"),
    [
        ("move_left", "-right"),
        ("move_right", "right"),
        ("move_up", "up"),
        ("move_down", "-up"),
        ("zoom_in", "forward"),
        ("zoom_out", "-forward"),
    ],
)
def test_incremental_translations(action: str, direction: str) -> None:
    pose = cam.look_at((0.0, -0.6, 1.3), (0.1, 0.0, 0.8))
    moved = cam.incremental(pose, action)
    sign = -1.0 if direction.startswith("-") else 1.0
    axis = getattr(pose, direction.lstrip("-"))()
    step = cam.ZOOM_STEP_M if "zoom" in action else cam.MOVE_STEP_M
    np.testing.assert_allclose(np.asarray(moved.position) - pose.position, sign * step * axis, atol=1e-12)
    assert (moved.yaw_deg, moved.pitch_deg) == (pose.yaw_deg, pose.pitch_deg)


@pytest.mark.parametrize(
    ("action", "d_yaw", "d_pitch"),
    [("yaw_left", 10, 0), ("yaw_right", -10, 0), ("pitch_up", 0, 10), ("pitch_down", 0, -10)],
)
def test_incremental_rotations(action: str, d_yaw: float, d_pitch: float) -> None:
    pose = cam.look_at((0.0, -0.6, 1.3), (0.1, 0.0, 0.8))
    turned = cam.incremental(pose, action)
    assert turned.position == pose.position
    assert (turned.yaw_deg - pose.yaw_deg) % 360 == pytest.approx(d_yaw % 360)
    assert turned.pitch_deg - pose.pitch_deg == pytest.approx(d_pitch)
    if action == "pitch_up":
        assert turned.forward()[2] > pose.forward()[2]
    if action == "yaw_left":  # counter-clockwise seen from above: the view turns to the left
        assert np.dot(turned.forward()[:2], -pose.right()[:2]) > 0


def test_positions_never_leave_the_workspace() -> None:
    pose = cam.look_at((0.8, 0.3, 1.8), (0, 0, 0.74))
    for action in ("move_right", "move_up", "zoom_out") * 20:
        pose = cam.incremental(pose, action)
        assert np.all(np.asarray(pose.position) >= cam.CAMERA_LOW - 1e-12)
        assert np.all(np.asarray(pose.position) <= cam.CAMERA_HIGH + 1e-12)


def test_pitch_is_limited_at_straight_down() -> None:
    pose = cam.semantic_view("topdown", GC)
    assert cam.incremental(pose, "pitch_down").pitch_deg == -90.0


def test_unknown_action_raises() -> None:
    with pytest.raises(ValueError, match="unknown"):
        cam.incremental(cam.initial_pose(), "spin")
