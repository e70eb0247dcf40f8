"""Scaffolding the calorimetry tests share, standing in for the agent's hands: the sample stood in a well
by setting its pose, the rocker and the LOG key worked by setting their joints."""

from __future__ import annotations

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms.calorimeter import SAMPLE_WELL, CalorimeterBench
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.platforms.thermal_bench import ROCKER_THROW_RAD


def bench(env: LabEnv) -> CalorimeterBench:
    assert isinstance(env.platform, CalorimeterBench)
    return env.platform


def stand(env: LabEnv, centre: tuple[float, float], box_half_z: float) -> None:
    """Stand the sample upright in the well at ``centre`` of a box ``box_half_z`` half high, at rest."""
    joint = env.model.joint("sample_free")
    z = TABLE_TOP_Z + 2 * box_half_z - SAMPLE_WELL.depth + 0.0005
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*centre, z, 1.0, 0.0, 0.0, 0.0]
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def heater(env: LabEnv, on: bool) -> None:
    env.data.qpos[env.model.joint("rocker").qposadr[0]] = ROCKER_THROW_RAD * (1 if on else -1)


def press_log(env: LabEnv) -> None:
    env.data.qpos[env.model.joint("key_log").qposadr[0]] = -0.9 * KEY_TRAVEL_M
    env.wait(0.3)  # the spring returns the key
