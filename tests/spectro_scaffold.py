"""Scaffolding the spectrophotometer experiments' tests share, standing in for the agent's hands and eyes:
cuvettes moved by setting their poses, keys by pushing their joints, and close-ups of the LCDs logged as
served with the readability a close wrist camera has (the readability geometry is tested on a real
projection, the faces on rendered images)."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.platforms.spectrophotometer import (
    CUVETTE_HALF,
    DECK_Z,
    HOLDER,
    SpectrophotometerBench,
    rack_slot,
)
from actloop.suites.lab.platforms.spectrophotometer_kinetics import VIAL_SHAPE, vial_slot

METERS = ("wavelength", "absorbance")
Citation = dict[str, object]


def bench(env: LabEnv) -> SpectrophotometerBench:
    assert isinstance(env.platform, SpectrophotometerBench)
    return env.platform


def put(env: LabEnv, i: int, position: tuple[float, float, float]) -> None:
    """Stand cuvette ``i`` upright with its centre at ``position``."""
    model, data = env.model, env.data
    joint = model.joint(f"cuvette_{i}_free")
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*position, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def seat(env: LabEnv, i: int, dx: float = 0.0) -> None:
    """Move whatever is in the holder back to the rack and seat cuvette ``i``, ``dx`` off centre."""
    if (seated := bench(env).in_holder) is not None:
        put(env, seated, rack_slot(seated))
    put(env, i, (HOLDER[0] + dx, HOLDER[1], DECK_Z + CUVETTE_HALF[1] + 0.0003))
    env.wait(0.5)


def press(env: LabEnv, key: str, depth: float = 0.9 * KEY_TRAVEL_M) -> None:
    env.data.qpos[env.model.joint(f"key_{key}").qposadr[0]] = -depth
    env.wait(0.3)  # the spring returns the key


def close_up(env: LabEnv) -> str:
    """Serve a close-up of the LCDs (what a wrist camera over the keys makes readable)."""
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    views = [Visibility(name, "wrist", True, True, 40.0) for name in METERS]
    env.instrument_log.serve_observation(observation_id, env.clock.time_s, views)
    return observation_id


def cite(env: LabEnv) -> Citation:
    """A close-up after the display has refreshed, cited as the absorbance it shows."""
    env.wait(0.6)
    seen = close_up(env)
    value = env.instrument_log.observations[seen].shown["absorbance"]
    assert isinstance(value, float)
    return {"observation_id": seen, "instrument": "absorbance", "value": value}


def restore(env: LabEnv) -> None:
    """Every cuvette back in its rack slot."""
    for i in range(len(bench(env).cuvettes)):
        put(env, i, rack_slot(i))
    env.wait(1.0)


def read_through(
    env: LabEnv, cuvettes: tuple[int, ...], wavelengths: tuple[int, ...]
) -> dict[tuple[int, int], Citation]:
    """Blank on cuvette_0 at the first wavelength, then seat each of ``cuvettes`` in turn and cite the
    absorbance at each of ``wavelengths``: the citations by (cuvette, nm)."""
    bench(env).meter.set_wavelength(wavelengths[0])
    seat(env, 0)
    press(env, "blank")
    cited = {}
    for i in cuvettes:
        seat(env, i)
        for nm in wavelengths:
            bench(env).meter.set_wavelength(nm)
            cited[i, nm] = cite(env)
    return cited


def hold_vial(env: LabEnv, k: int, centre: np.ndarray, rotation: np.ndarray, seconds: float) -> None:
    """Hold vial ``k`` at ``centre`` turned by ``rotation`` for ``seconds`` (the scaffolding's hand)."""
    joint = env.model.joint(f"vial_{k}_free")
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rotation).reshape(9))
    for _ in range(round(seconds * 240)):
        env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*centre, *quat]
        env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0
        env.wait(1 / 240)


def pour(env: LabEnv, k: int, dx: float = 0.0) -> None:
    """Tip vial ``k`` over the holder (its lip ``dx`` to the right of the middle) until it is empty, and
    stand it back in its slot."""
    a = math.radians(-110.0)
    rotation = np.array([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0], [-math.sin(a), 0.0, math.cos(a)]])
    lip = VIAL_SHAPE.lip(np.zeros(3), rotation)
    mouth = np.array([HOLDER[0] + dx, HOLDER[1], DECK_Z + 2 * CUVETTE_HALF[1] + 0.012])
    hold_vial(env, k, mouth - lip, rotation, 1.0)
    hold_vial(env, k, np.array(vial_slot(k)), np.eye(3), 0.1)
    env.wait(0.5)
