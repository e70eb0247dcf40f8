"""The fixed, model-agnostic executor: metric Cartesian commands to planned joint motion in physics.

Every command is planned completely before anything moves: the Cartesian path is sampled finely, each
sample is solved by IK from the previous one, and every sample is checked for joint-limit jumps and for
robot contact with the static world (table, floor, pedestals). With two arms, the motion as it will be
executed (every moving arm at the same phase of its path, the others where they stand) is also checked
for arm-arm contact. Only a fully feasible plan is executed, as a smooth minimum-jerk joint trajectory
tracked by the position servos in physics. The result says whether planning succeeded and why not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from actloop.control.ik import ArmIK
from actloop.sim import fixedmath as fm
from actloop.sim.arm import ArmHandle
from actloop.sim.robot import FINGER_TRAVEL
from actloop.sim.world import World

WORKSPACE_LOW = np.array([-0.55, -0.45, 0.74])
WORKSPACE_HIGH = np.array([0.55, 0.35, 1.35])
ROTATION_WAYPOINT_DEG = 10.0
TRANSLATION_SAMPLE_M = 0.01
ROTATION_SAMPLE_DEG = 2.5
MAX_JOINT_JUMP = 0.6  # rad between neighbouring path samples: larger means an IK branch flip
CARTESIAN_SPEED = 0.15  # m/s average
ANGULAR_SPEED_DEG = 60.0  # deg/s average
MIN_DURATION = 0.4
SETTLE_TIME = 0.15
GRIPPER_TIME = 0.4
PENETRATION_TOLERANCE = 0.001  # metres of robot-world overlap tolerated at a waypoint
ARM_CLEARANCE = 0.01
"""Metres two arms must keep between them along a planned motion: servo tracking lags the plan by a few
millimetres, so a plan that merely avoids contact could still make the arms touch in physics."""


@dataclass(frozen=True)
class PlanResult:
    """Outcome of one command: ``success`` is the planner outcome, ``reason`` a short explanation."""

    success: bool
    reason: str
    clamped: bool = False


class PlanningError(Exception):
    """A command cannot be planned; the message is the reason shown to the model."""


def min_jerk(s: np.ndarray | float) -> np.ndarray | float:
    """Minimum-jerk time scaling of a phase in [0, 1]."""
    return 10 * s**3 - 15 * s**4 + 6 * s**5


class Executor:
    """Plans and executes metric commands for the arms of one world."""

    def __init__(
        self, world: World, arms: dict[str, ArmHandle], obstacles: frozenset[int] | None = None
    ) -> None:
        """``obstacles``: the geoms a planned path must not touch (default: the static world, i.e. every
        geom welded to the world body that is not the robot's)."""
        self.world = world
        self.arms = arms
        self._ik = {name: ArmIK(world.model, name) for name in arms}
        self._check = mujoco.MjData(world.model)
        model = world.model
        robot_geoms = frozenset().union(*(a.geoms for a in arms.values()))
        if obstacles is None:
            obstacles = frozenset(
                g for g in range(model.ngeom) if int(model.body_weldid[model.geom_bodyid[g]]) == 0
            )
        self._static_geoms = obstacles - robot_geoms
        self._geom_ids = {name: np.array(sorted(handle.geoms)) for name, handle in arms.items()}

    # --- public commands ---
    def move_world(self, moves: dict[str, np.ndarray]) -> PlanResult:
        """Translate each named arm's control point by a world-frame vector (metres), synchronized."""
        paths: dict[str, np.ndarray] = {}
        clamped_arms = []
        longest = 0.0
        for arm, delta in moves.items():
            pos, rot = self.arms[arm].control_pose(self.world.data)
            target = np.clip(pos + delta, WORKSPACE_LOW, WORKSPACE_HIGH)
            if not np.allclose(target, pos + delta, atol=1e-9):
                clamped_arms.append(arm)
            distance = fm.norm(target - pos)
            longest = max(longest, distance)
            n = max(1, int(np.ceil(distance / TRANSLATION_SAMPLE_M)))
            poses = [(pos + (target - pos) * (k / n), rot) for k in range(1, n + 1)]
            try:
                paths[arm] = self.plan(arm, poses)
            except PlanningError as err:
                return PlanResult(False, f"{arm} arm: {err}", clamped=bool(clamped_arms))
        if longest < 1e-6:
            return PlanResult(False, "target is at the workspace limit; no motion possible", clamped=True)
        try:
            self._check_arm_clearance(paths)
        except PlanningError as err:
            return PlanResult(False, str(err), clamped=bool(clamped_arms))
        self._execute(paths, max(MIN_DURATION, longest / CARTESIAN_SPEED))
        note = "motion executed"
        if clamped_arms:
            note = f"target clamped to the robot workspace ({', '.join(clamped_arms)} arm); motion executed"
        return PlanResult(True, note, clamped=bool(clamped_arms))

    def rotate_local(self, arm: str, local_axis: int, angle_rad: float) -> PlanResult:
        """Rotate about control-frame axis ``local_axis`` (0=rx, 1=ry, 2=rz), keeping GC fixed."""
        handle = self.arms[arm]
        pos, rot = handle.control_pose(self.world.data)
        gc = handle.gc(self.world.data)
        axis_world = rot[:, local_axis]
        n_way = max(1, int(np.ceil(abs(math.degrees(angle_rad)) / ROTATION_WAYPOINT_DEG)))
        n_samples = max(n_way, int(np.ceil(abs(math.degrees(angle_rad)) / ROTATION_SAMPLE_DEG)))
        poses = []
        for k in range(1, n_samples + 1):
            r_delta = fm.axis_angle_matrix(axis_world, angle_rad * k / n_samples)
            r_new = fm.matmul(r_delta, rot)
            p_new = gc - fm.matvec(r_delta, gc - pos)
            if np.any(p_new < WORKSPACE_LOW - 1e-9) or np.any(p_new > WORKSPACE_HIGH + 1e-9):
                return PlanResult(False, "rotation would move the end effector outside the robot workspace")
            poses.append((p_new, r_new))
        try:
            path = self.plan(arm, poses)
            self._check_arm_clearance({arm: path})
        except PlanningError as err:
            return PlanResult(False, str(err))
        self._execute({arm: path}, max(MIN_DURATION, abs(math.degrees(angle_rad)) / ANGULAR_SPEED_DEG))
        return PlanResult(True, f"rotation executed in {n_way} waypoint(s)")

    def set_gripper(self, arms: list[str], open_: bool) -> PlanResult:
        """Open or close grippers and let the fingers settle."""
        for arm in arms:
            self.world.data.ctrl[self.arms[arm].gripper_ctrl] = FINGER_TRAVEL if open_ else 0.0
        self.world.step(round(GRIPPER_TIME / self.world.model.opt.timestep))
        return PlanResult(True, "gripper opened" if open_ else "gripper closed")

    # --- planning ---
    def plan(self, arm: str, poses: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """IK along a list of control poses, each checked against the obstacles; returns the joint path
        (first row: the current joints) or raises PlanningError with the reason."""
        handle, ik = self.arms[arm], self._ik[arm]
        qpos = self.world.data.qpos.copy()
        q = handle.joint_positions(self.world.data)
        path = [q]
        for target_pos, target_rot in poses:
            sol = ik.solve(qpos, target_pos, target_rot, q)
            if not sol.converged:
                raise PlanningError("no inverse-kinematics solution: target out of reach or at a joint limit")
            if np.max(np.abs(sol.q - q)) > MAX_JOINT_JUMP:
                raise PlanningError("no continuous joint path to the target (arm would have to flip)")
            self._check_collision(qpos, handle, sol.q)
            q = sol.q
            path.append(q)
        return np.array(path)

    def _check_collision(self, qpos: np.ndarray, handle: ArmHandle, q: np.ndarray) -> None:
        data = self._check
        data.qpos[:] = qpos
        data.qpos[handle.qpos_idx] = q
        mujoco.mj_fwdPosition(self.world.model, data)
        for i in range(data.ncon):
            c = data.contact[i]
            g1, g2 = int(c.geom1), int(c.geom2)
            robot_hit = (g1 in handle.geoms and g2 in self._static_geoms) or (
                g2 in handle.geoms and g1 in self._static_geoms
            )
            if robot_hit and c.dist < -PENETRATION_TOLERANCE:
                other = g2 if g1 in handle.geoms else g1
                name = mujoco.mj_id2name(self.world.model, mujoco.mjtObj.mjOBJ_GEOM, other) or "scene"
                raise PlanningError(f"path would collide with the {name}")

    def _check_arm_clearance(self, paths: dict[str, np.ndarray]) -> None:
        """Raise PlanningError if, anywhere along the synchronized motion, two arms come closer than
        ``ARM_CLEARANCE``.

        The motion is sampled at twice the density of the longest path, with every moving arm at the same
        phase (as :meth:`_execute` tracks them) and the other arms standing still.
        """
        if len(self.arms) < 2:
            return
        model, data = self.world.model, self._check
        base = self.world.data.qpos.copy()
        samples = 2 * max(len(path) - 1 for path in paths.values())
        for k in range(1, samples + 1):
            data.qpos[:] = base
            for arm, path in paths.items():
                data.qpos[self.arms[arm].qpos_idx] = path_point(path, k / samples)
            mujoco.mj_kinematics(model, data)
            for moving in paths:
                for other in self.arms:
                    if other != moving and self._arms_closer_than_clearance(moving, other):
                        raise PlanningError(
                            f"the {moving} arm would collide with the {other} arm; "
                            "move one of them clear first"
                        )

    def _arms_closer_than_clearance(self, first: str, second: str) -> bool:
        """Any geom of one arm within ``ARM_CLEARANCE`` of any geom of the other, in the check data."""
        model, data = self.world.model, self._check
        a, b = self._geom_ids[first], self._geom_ids[second]
        # Bounding-sphere prefilter on squared centre distances: element-wise IEEE arithmetic only.
        d = data.geom_xpos[a][:, None, :] - data.geom_xpos[b][None, :, :]
        centre_gap_sq = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        bound = model.geom_rbound[a][:, None] + model.geom_rbound[b][None, :] + ARM_CLEARANCE + 1e-6
        for i, j in zip(*np.nonzero(centre_gap_sq < bound * bound), strict=True):
            if mujoco.mj_geomDistance(model, data, int(a[i]), int(b[j]), ARM_CLEARANCE, None) < ARM_CLEARANCE:
                return True
        return False

    # --- execution ---
    def _execute(self, paths: dict[str, np.ndarray], duration: float) -> None:
        """Track joint paths with a min-jerk profile, then settle."""
        dt = self.world.model.opt.timestep
        n_steps = max(1, round(duration / dt))
        data = self.world.data
        for k in range(1, n_steps + 1):
            s = float(min_jerk(k / n_steps))
            for arm, path in paths.items():
                data.ctrl[self.arms[arm].ctrl_idx] = path_point(path, s)
            self.world.step(1)
        self.world.step(round(SETTLE_TIME / dt))


def path_point(path: np.ndarray, phase: float) -> np.ndarray:
    """The joint vector at ``phase`` in [0, 1] along a joint path, linear between its samples."""
    if len(path) == 1:
        return np.asarray(path[0])
    x = phase * (len(path) - 1)
    i = min(int(x), len(path) - 2)
    frac = x - i
    return np.asarray((1 - frac) * path[i] + frac * path[i + 1])
