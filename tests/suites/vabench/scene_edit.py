"""Scene edits shared by the vabench family tests: teleport free bodies, set the gripper, settle; and
playing protocol actions (or the expert's plan) through ``env.step``.

The state-edit checker tests put a scene into a chosen state by writing MuJoCo state directly (never
through the protocol), then call ``env.evaluate()``; the evaluation carries both verdicts, the hardened
``conditions`` and the seed's literal ``paper_conditions``. Every function here acts on the right arm,
the only one the single-arm families use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from actloop.sim.robot import FINGER_TRAVEL
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import EnvAction
from actloop.suites.vabench.protocol.step import Evaluation, Transition

MakeEnv = Callable[..., SpatialEnv]
"""The ``make_env`` fixture (tests/conftest.py): ``make_env(task, seed=1000, *, reset=True, **kwargs)``."""
IDENTITY_QUAT = (1.0, 0.0, 0.0, 0.0)
LATCH_LIFT_M = 0.06
"""How far above its start :func:`stage_placement` lifts the object to latch ``previously_lifted``."""


def teleport(env: SpatialEnv, body: str, pos: Sequence[float], quat: Sequence[float] | None = None) -> None:
    """Put the free body ``body`` at ``pos`` (and ``quat`` if given, else keep its orientation), at rest.

    Writes qpos at the body's freejoint (``<body>_joint``), zeroes its velocity and recomputes the
    derived quantities, so positions, sites and contacts can be read at once.
    """
    joint = env.world.model.joint(f"{body}_joint")
    adr, dof = int(joint.qposadr[0]), int(joint.dofadr[0])
    env.world.data.qpos[adr : adr + 3] = pos
    if quat is not None:
        env.world.data.qpos[adr + 3 : adr + 7] = quat
    env.world.data.qvel[dof : dof + 6] = 0.0
    env.world.forward()


def raise_from_start(env: SpatialEnv, body: str, lift_m: float) -> None:
    """Put ``body`` ``lift_m`` above its start height, keeping its x, y and orientation."""
    adr = int(env.world.model.joint(f"{body}_joint").qposadr[0])
    pos = env.world.data.qpos[adr : adr + 3].copy()
    pos[2] = env.context.initial_positions[body][2] + lift_m
    teleport(env, body, pos)


def set_gripper(env: SpatialEnv, closed: bool, fingers: float | None = None) -> None:
    """Command the right gripper closed (0) or open (``FINGER_TRAVEL``).

    With ``fingers`` each finger is also put that far from the centre at once; without it they stay
    where they are (the paper's checkers read the command, not the finger positions).
    """
    arm = env.context.arms["right"]
    env.world.data.ctrl[arm.gripper_ctrl] = 0.0 if closed else FINGER_TRAVEL
    if fingers is not None:
        env.world.data.qpos[list(arm.finger_qpos)] = fingers
    env.world.forward()


def put_in_gripper(env: SpatialEnv, body: str, half_width: float, penetration: float = 0.0005) -> None:
    """Teleport ``body`` (unrotated) to the finger midpoint and close the fingers on it at once, each pad
    ``penetration`` into a body ``half_width`` wide along the closing axis (world x at home)."""
    teleport(env, body, env.context.arms["right"].gc(env.world.data), IDENTITY_QUAT)
    set_gripper(env, closed=True, fingers=half_width - penetration)


def settle(env: SpatialEnv, steps: int, from_rest: bool = False) -> None:
    """Step the physics ``steps`` times with the current controls (after zeroing every velocity if
    ``from_rest``) and recompute the derived quantities."""
    if from_rest:
        env.world.data.qvel[:] = 0.0
    env.world.step(steps)
    env.world.forward()


def unmet(conditions: Mapping[str, bool]) -> list[str]:
    """Names of the conditions that do not hold, in the checker's order."""
    return [name for name, ok in conditions.items() if not ok]


def lift_and_grip(env: SpatialEnv, body: str, lift_m: float, closed: bool) -> Evaluation:
    """Raise ``body`` ``lift_m`` above its start, command the gripper; return the evaluation."""
    raise_from_start(env, body, lift_m)
    set_gripper(env, closed)
    return env.evaluate()


def stage_placement(
    env: SpatialEnv,
    obj: str,
    goal: str,
    offset: Sequence[float],
    obj_quat: Sequence[float],
    *,
    lifted: bool = True,
    lift_quat: Sequence[float] = IDENTITY_QUAT,
    goal_shift: Sequence[float] = (0.0, 0.0, 0.0),
    goal_quat: Sequence[float] = IDENTITY_QUAT,
    closed: bool = False,
) -> None:
    """Stage the end of a placement: ``obj`` at ``offset`` (world frame) from the goal's origin.

    If ``lifted``, ``obj`` is first put ``LATCH_LIFT_M`` above its start (at ``lift_quat``) and the
    state evaluated, which latches ``previously_lifted``. The goal is moved ``goal_shift`` from its
    start (at ``goal_quat``) and the gripper commanded closed or open.
    """
    if lifted:
        start = env.context.initial_positions[obj]
        teleport(env, obj, start + np.array([0.0, 0.0, LATCH_LIFT_M]), lift_quat)
        env.evaluate()  # latches previously_lifted
    goal_pos = env.context.initial_positions[goal] + np.asarray(goal_shift)
    teleport(env, goal, goal_pos, goal_quat)
    teleport(env, obj, goal_pos + np.asarray(offset), obj_quat)
    set_gripper(env, closed)


def play(env: SpatialEnv, actions: Iterable[EnvAction]) -> Transition:
    """Step ``actions`` in order (a generator is resumed after each step), each dispatched and planned
    successfully; return the last step's result."""
    result = None
    for action in actions:
        result = env.step(action)
        assert result.dispatched and result.observation.feedback.planner_success is not False, action
    assert result is not None, "no action to play"
    return result


def play_expert_until(env: SpatialEnv, stop: Callable[[EnvAction], bool]) -> None:
    """Execute the expert's plan up to, not including, the first action for which ``stop`` is True."""
    for action in env.task.expert(env.context):
        if stop(action):
            return
        play(env, [action])
    raise AssertionError("the expert's plan never reached the stopping action")
