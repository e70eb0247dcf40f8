"""Handles to one arm's joints, servos and frames inside a compiled scene."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from actloop.sim.robot import FINGER_TRAVEL
from actloop.sim.world import subtree_geoms

ARM_JOINTS = 7


@dataclass(frozen=True)
class ArmHandle:
    """Indices of one arm in a model. The control frame's columns are the local axes rx, ry, rz."""

    name: str
    qpos_idx: np.ndarray
    dof_idx: np.ndarray
    ctrl_idx: np.ndarray
    gripper_ctrl: int
    finger_qpos: tuple[int, int]
    control_site: int
    pad_geoms: tuple[int, int]
    geoms: frozenset[int]

    @classmethod
    def from_model(cls, model: mujoco.MjModel, name: str) -> ArmHandle:
        joints = [model.joint(f"{name}_joint{i}") for i in range(1, ARM_JOINTS + 1)]
        return cls(
            name=name,
            qpos_idx=np.array([int(j.qposadr[0]) for j in joints]),
            dof_idx=np.array([int(j.dofadr[0]) for j in joints]),
            ctrl_idx=np.array([model.actuator(f"{name}_act{i}").id for i in range(1, ARM_JOINTS + 1)]),
            gripper_ctrl=model.actuator(f"{name}_gripper").id,
            finger_qpos=(
                int(model.joint(f"{name}_left_finger_joint").qposadr[0]),
                int(model.joint(f"{name}_right_finger_joint").qposadr[0]),
            ),
            control_site=model.site(f"{name}_control").id,
            pad_geoms=(model.geom(f"{name}_left_pad").id, model.geom(f"{name}_right_pad").id),
            geoms=subtree_geoms(model, f"{name}_link0"),
        )

    def joint_positions(self, data: mujoco.MjData) -> np.ndarray:
        return np.array(data.qpos[self.qpos_idx])

    def control_pose(self, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """Position and rotation (columns rx, ry, rz) of the control frame at the hand flange."""
        return data.site_xpos[self.control_site].copy(), data.site_xmat[self.control_site].reshape(
            3, 3
        ).copy()

    def gc(self, data: mujoco.MjData) -> np.ndarray:
        """The physical finger midpoint: halfway between the two finger pads."""
        a, b = self.pad_geoms
        return np.asarray(0.5 * (data.geom_xpos[a] + data.geom_xpos[b]))

    def gripper_commanded_open(self, data: mujoco.MjData) -> bool:
        return bool(data.ctrl[self.gripper_ctrl] > 0.5 * FINGER_TRAVEL)

    def set_configuration(self, data: mujoco.MjData, q: np.ndarray, gripper_open: bool) -> None:
        """Place the arm at ``q`` at rest with its servos holding it (used at reset only)."""
        data.qpos[self.qpos_idx] = q
        data.qvel[self.dof_idx] = 0.0
        data.ctrl[self.ctrl_idx] = q
        opening = FINGER_TRAVEL if gripper_open else 0.0
        data.qpos[list(self.finger_qpos)] = opening
        data.ctrl[self.gripper_ctrl] = opening
