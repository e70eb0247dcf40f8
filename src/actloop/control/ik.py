"""Damped-least-squares inverse kinematics for one arm's control site.

IK runs on a private scratch ``MjData`` so solving never disturbs the simulation state. Joint limits
are enforced by clamping each iterate; a small null-space pull towards the starting configuration keeps
solutions close to the current posture (no elbow flips between neighbouring waypoints). All linear
algebra goes through :mod:`actloop.sim.fixedmath`, so a solution is the same on every CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from actloop.sim import fixedmath as fm

POSITION_TOLERANCE = 5e-4  # metres
ROTATION_TOLERANCE = 5e-3  # radians
MAX_ITERATIONS = 200
DAMPING = 1e-3


@dataclass(frozen=True)
class IKResult:
    q: np.ndarray
    position_error: float
    rotation_error: float

    @property
    def converged(self) -> bool:
        return self.position_error < POSITION_TOLERANCE and self.rotation_error < ROTATION_TOLERANCE


def rotation_error(current: np.ndarray, target: np.ndarray) -> np.ndarray:
    """World-frame rotation vector taking ``current`` to ``target`` (both 3x3)."""
    err_quat = np.empty(4)
    mujoco.mju_mat2Quat(err_quat, fm.matmul_t(target, current).reshape(9))
    vec = np.empty(3)
    mujoco.mju_quat2Vel(vec, err_quat, 1.0)
    return vec


class ArmIK:
    """IK for the 7 joints of one arm towards a target pose of its ``<arm>_control`` site."""

    def __init__(self, model: mujoco.MjModel, arm: str) -> None:
        self.model = model
        self.scratch = mujoco.MjData(model)
        self.site = model.site(f"{arm}_control").id
        joints = [model.joint(f"{arm}_joint{i}") for i in range(1, 8)]
        self.qpos_idx = np.array([int(j.qposadr[0]) for j in joints])
        self.dof_idx = np.array([int(j.dofadr[0]) for j in joints])
        self.lower = np.array([float(j.range[0]) for j in joints])
        self.upper = np.array([float(j.range[1]) for j in joints])
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))

    def _load(self, qpos_full: np.ndarray, q_arm: np.ndarray | None) -> None:
        self.scratch.qpos[:] = qpos_full
        if q_arm is not None:
            self.scratch.qpos[self.qpos_idx] = q_arm
        mujoco.mj_kinematics(self.model, self.scratch)
        mujoco.mj_comPos(self.model, self.scratch)

    def solve(
        self,
        qpos_full: np.ndarray,
        target_pos: np.ndarray,
        target_rot: np.ndarray,
        q_start: np.ndarray,
        stop_error: tuple[float, float] = (POSITION_TOLERANCE * 0.2, ROTATION_TOLERANCE * 0.2),
    ) -> IKResult:
        """Solve for arm joints reaching ``target_pos``/``target_rot``, starting from ``q_start``.

        Iteration stops once the position and rotation errors are below ``stop_error`` (m, rad).
        """
        q = np.clip(q_start.astype(np.float64), self.lower, self.upper)
        q_rest = q.copy()
        pos_err = rot_err = np.inf
        for _ in range(MAX_ITERATIONS):
            self._load(qpos_full, q)
            pos = self.scratch.site_xpos[self.site]
            rot = self.scratch.site_xmat[self.site].reshape(3, 3)
            e_pos = target_pos - pos
            e_rot = rotation_error(rot, target_rot)
            pos_err, rot_err = fm.norm(e_pos), fm.norm(e_rot)
            if pos_err < stop_error[0] and rot_err < stop_error[1]:
                break
            mujoco.mj_jacSite(self.model, self.scratch, self._jacp, self._jacr, self.site)
            jac = np.vstack([self._jacp[:, self.dof_idx], self._jacr[:, self.dof_idx]])
            err = np.concatenate([e_pos, e_rot])
            jjt = fm.Cholesky(fm.matmul_t(jac, jac) + DAMPING * np.eye(6))
            dq = fm.mat_t_vec(jac, jjt.solve(err))
            # null-space pull towards the start posture: (I - J^T (J J^T)^-1 J) v
            pull = 0.05 * (q_rest - q)
            dq += pull - fm.mat_t_vec(jac, jjt.solve(fm.matvec(jac, pull)))
            step = float(np.max(np.abs(dq)))
            if step > 0.2:
                dq *= 0.2 / step
            q = np.clip(q + dq, self.lower, self.upper)
        return IKResult(q=q, position_error=pos_err, rotation_error=rot_err)
