"""The arms' home pose: where every episode starts, stored as joint angles.

The joint vector is data, not a computation at reset: it enters every scene's identity, so it must be the
same on every machine, and an iterative solve through MuJoCo's kinematics could differ in its last bits
where the maths library differs. :func:`solve_home` recomputes it (tests confirm the stored values);
change ``HOME_GC`` or the arm mounts and paste its output here.
"""

from __future__ import annotations

import numpy as np

from actloop.control.ik import ArmIK
from actloop.sim.robot import GC_OFFSET
from actloop.sim.scene import LEFT_ARM, RIGHT_ARM, SceneConfig, build_model
from actloop.sim.world import World

# GC 10 cm in front of the arm's shoulder line: from here the gripper can turn 55° about every local axis
# in either direction (at y = -0.20 the elbow met joint 4's limit after about 25° of ry+).
HOME_GC = {"right": np.array([0.25, -0.10, 0.95]), "left": np.array([-0.25, -0.10, 0.95])}
# Gripper pointing straight down, fingers closing along world x: columns rx, ry, rz.
HOME_ROTATION = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, -1.0], [-1.0, 0.0, 0.0]])
HOME_SEED_Q = np.array([0.0, -0.6, 0.0, -2.9, 0.0, 2.3, 0.8])
HOME_SOLVE_ERROR = (1e-9, 1e-9)
"""Position (m) and rotation (rad) error at which :func:`solve_home` stops."""

HOME_Q: dict[str, tuple[float, ...]] = {
    "right": (
        0.04636471835422796, -0.3794508043792073, 0.06755133207871786, -2.4627910140891958,
        0.028704886892364955, 2.0839749009468305, 0.880423310411276,
    ),
    "left": (
        -0.0418547042597184, -0.37956548677006624, -0.07176992862414121, -2.4627804581370736,
        -0.03050388673309639, 2.083928225236209, 0.6918488481307635,
    ),
}  # fmt: skip


def home_control_target(arm: str) -> np.ndarray:
    """Where the arm's control frame sits at home: GC_OFFSET behind HOME_GC along the approach axis."""
    return HOME_GC[arm] - HOME_ROTATION[:, 0] * GC_OFFSET


def solve_home(arm: str) -> np.ndarray:
    """The home joint vector from inverse kinematics, solved to ``HOME_SOLVE_ERROR``."""
    model = build_model(SceneConfig(arms=(LEFT_ARM, RIGHT_ARM)))
    world = World(model)
    solution = ArmIK(model, arm).solve(
        world.data.qpos.copy(), home_control_target(arm), HOME_ROTATION, HOME_SEED_Q, HOME_SOLVE_ERROR
    )
    if not solution.converged:
        raise RuntimeError(f"home pose of the {arm} arm is unreachable; check the arm mount")
    return solution.q


def home_configuration(arm: str) -> np.ndarray:
    """The stored home joint vector of ``arm``."""
    return np.array(HOME_Q[arm], dtype=np.float64)
