"""Level T1: privileged perception and planned motion, added to every T0 call (the seed's section 3.2).

``segment(part, camera)`` stands in for a promptable segmentation model with ground-truth depth: the mask of
the named part as the camera sees it now (occlusion included) and world points on its visible surface.
``move_hand(position, quaternion)`` moves the hand to a pose along a path planned against the true
obstacles (every collidable geom that is not the robot or what it holds): a straight line if that is free,
else up to a safe height, across and down; it is carried out as a joint trajectory within the joint speed
limits, charged to the budget like any motion. A pose it cannot reach without collision is refused with
the reason and nothing moves.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np
from PIL import Image

from actloop.control.executor import Executor, PlanningError, min_jerk
from actloop.sim import fixedmath as fm
from actloop.suites.lab.requests import LabRequestError, request_vector
from actloop.suites.lab.rig import ARM, CAMERAS, DT, MAX_JOINT_SPEED

if TYPE_CHECKING:
    from actloop.suites.lab.env import LabEnv

MAX_POINTS = 4000
"""World points returned per segment call at most (an even stride over the mask's pixels)."""
LINE_STEP_M = 0.01
TURN_STEP_RAD = math.radians(2.5)
SAFE_Z = 1.12
"""The height (m) the hand rises to when the straight way is blocked."""
SPEED_MARGIN = 0.5
"""Planned joint speeds stay below this fraction of the published limits."""


GEOM = int(mujoco.mjtObj.mjOBJ_GEOM)
TENDON = int(mujoco.mjtObj.mjOBJ_TENDON)


def part_objects(
    model: mujoco.MjModel, parts: Iterable[str], drawn_as: Mapping[str, tuple[str, ...]]
) -> dict[str, frozenset[tuple[int, int]]]:
    """What each named part is drawn with, as ``(mjtObj type, id)``: the geoms whose name, or whose body's
    name, is the part's name (or one of its ``drawn_as`` names) or starts with it followed by ``_``, and
    the tendons named so (a coil)."""
    out = {}
    for part in parts:
        stems = drawn_as.get(part, (part,))

        def named(name: str, stems: tuple[str, ...] = stems) -> bool:
            return any(name == stem or name.startswith(stem + "_") for stem in stems)

        geoms = {
            (GEOM, g)
            for g in range(model.ngeom)
            if named(model.geom(g).name) or named(model.body(model.geom_bodyid[g]).name)
        }
        tendons = {(TENDON, t) for t in range(model.ntendon) if named(model.tendon(t).name)}
        out[part] = frozenset(geoms | tendons)
    return out


def mask_png(mask: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray((mask * 255).astype(np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def segment(env: LabEnv, part: str, camera: str) -> dict[str, Any]:
    """The part's mask in ``camera`` (PNG, white where the part is seen) and world points on its visible
    surface, with the pixel count and the points' centroid."""

    cams = {cam.name: cam for cam in CAMERAS}
    if camera not in cams:
        raise LabRequestError(f"camera must be one of {sorted(cams)}, got {camera!r}")
    objects = env.part_objects()
    if part not in objects:
        raise LabRequestError(f"no part {part!r}; parts: {', '.join(sorted(objects))}")
    cam = cams[camera]
    position, rotation = env.aim(cam)
    seen, depth = env.renderer().objects_and_depth_from(env.data, position, rotation)
    codes = seen[..., 1].astype(np.int64) * (1 << 32) + seen[..., 0]
    mask = np.isin(codes, [kind * (1 << 32) + i for kind, i in objects[part]])
    rows, cols = np.nonzero(mask)
    stride = max(1, math.ceil(len(rows) / MAX_POINTS))
    rows, cols = rows[::stride], cols[::stride]
    k = cam.intrinsics()
    d = depth[rows, cols].astype(float)
    in_camera = np.stack(
        [(cols + 0.5 - k["cx"]) / k["fx"] * d, -(rows + 0.5 - k["cy"]) / k["fy"] * d, -d], axis=1
    )
    points = [fm.matvec(rotation, p) + position for p in in_camera]
    centroid = [float(x) for x in np.mean(points, axis=0)] if points else None
    return {
        "part": part,
        "camera": camera,
        "pixels": int(mask.sum()),
        "mask_png": mask_png(mask),
        "points": [[round(float(x), 5) for x in p] for p in points],
        "centroid": centroid,
    }


def move_hand(env: LabEnv, position: Sequence[float], quaternion: Sequence[float]) -> dict[str, Any]:
    """Plan a collision-free path of the hand to the pose and follow it (see the module docstring)."""

    env.require_running()
    target_rotation = env.rotation_of(quaternion)
    target = np.array(request_vector(position, 3, "position"))
    planner = Executor(env.world, {ARM: env.arm}, obstacles=_obstacles(env))
    start, start_rotation = env.arm.control_pose(env.data)
    reasons = []
    for waypoints in _routes(start, target):
        try:
            path = _plan_route(planner, ARM, start_rotation, target_rotation, waypoints)
        except PlanningError as err:
            reasons.append(str(err))
            continue
        return {"route": len(waypoints), **env.move_joints(_timed(path, MAX_JOINT_SPEED, DT))}
    raise LabRequestError(f"no collision-free path to that pose: {'; '.join(dict.fromkeys(reasons))}")


def _routes(start: np.ndarray, target: np.ndarray) -> list[list[np.ndarray]]:
    """Straight, then over the top at :data:`SAFE_Z` (or higher, if either end is higher)."""
    top = max(SAFE_Z, float(start[2]), float(target[2]))
    over = [np.array([start[0], start[1], top]), np.array([target[0], target[1], top]), target]
    return [[target], over]


def _plan_route(
    planner: Executor,
    arm: str,
    start_rotation: np.ndarray,
    target_rotation: np.ndarray,
    waypoints: list[np.ndarray],
) -> np.ndarray:
    axis, angle = _axis_angle(fm.matmul(target_rotation, start_rotation.T))
    position = planner.arms[arm].control_pose(planner.world.data)[0]
    lengths = [fm.norm(b - a) for a, b in zip([position, *waypoints[:-1]], waypoints, strict=True)]
    total = sum(lengths) or 1.0
    poses, travelled = [], 0.0
    for a, b, length in zip([position, *waypoints[:-1]], waypoints, lengths, strict=True):
        n = max(1, math.ceil(length / LINE_STEP_M), math.ceil(abs(angle) * length / total / TURN_STEP_RAD))
        for k in range(1, n + 1):
            fraction = (travelled + length * k / n) / total
            turn = fm.axis_angle_matrix(axis, angle * fraction) if angle else np.eye(3)
            poses.append((a + (b - a) * (k / n), fm.matmul(turn, start_rotation)))
        travelled += length
    return planner.plan(arm, poses)


def _axis_angle(rotation: np.ndarray) -> tuple[np.ndarray, float]:
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rotation).reshape(9))
    if quat[0] < 0:
        quat = -quat
    sin_half = fm.norm(quat[1:])
    if sin_half < 1e-12:
        return np.array([0.0, 0.0, 1.0]), 0.0
    return quat[1:] / sin_half, 2.0 * math.atan2(sin_half, float(quat[0]))


def _timed(path: np.ndarray, max_speed: Sequence[float], dt: float) -> list[list[float]]:
    """One target per physics step along the joint path, min-jerk in time, every joint below
    :data:`SPEED_MARGIN` of its limit (min-jerk peaks at 1.875 times the mean speed)."""
    speeds = np.array(max_speed) * SPEED_MARGIN
    segment_times = [float(np.max(np.abs(b - a) / speeds)) for a, b in itertools.pairwise(path)]
    clock = np.concatenate([[0.0], np.cumsum(segment_times)])
    duration = 1.875 * float(clock[-1])
    steps = max(1, math.ceil(duration / dt))
    targets = []
    for k in range(1, steps + 1):
        t = float(min_jerk(k / steps)) * float(clock[-1])
        i = min(int(np.searchsorted(clock, t, side="right")) - 1, len(path) - 2)
        span = clock[i + 1] - clock[i]
        fraction = 0.0 if span <= 0 else (t - clock[i]) / span
        targets.append([float(x) for x in path[i] + (path[i + 1] - path[i]) * fraction])
    return targets


def _obstacles(env: LabEnv) -> frozenset[int]:
    """Every collidable geom, less the robot's own and those of a body the fingers hold."""
    model = env.model
    held = env.held_bodies()
    return frozenset(
        g
        for g in range(model.ngeom)
        if (model.geom_contype[g] or model.geom_conaffinity[g]) and int(model.geom_bodyid[g]) not in held
    )
