"""Scaffolding the titration experiments' tests share, standing in for the agent's hands: beakers and the
electrode moved by setting their poses, the stopcock turned and the LOG key pushed by setting their joints,
the logger's rows read back for citing."""

from __future__ import annotations

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.platforms.titration import (
    BEAKER_HALF_HEIGHT,
    HUNG_TIP_Z,
    PLATE_Z,
    SLEEVE,
    STIRRER,
    STORE,
    STORE_HALF,
    STORE_WELL,
    TitrationBench,
    beaker_spot,
)
from actloop.suites.lab.reference.titration import Row, rows_of

Citation = dict[str, object]
STORED = (STORE[0], STORE[1], TABLE_TOP_Z + 2 * STORE_HALF[2] - STORE_WELL.depth + 0.0005)
"""The electrode's pose in its storage well (its tip just above the floor)."""


def bench(env: LabEnv) -> TitrationBench:
    assert isinstance(env.platform, TitrationBench)
    return env.platform


def put(env: LabEnv, body: str, position: tuple[float, float, float]) -> None:
    """Stand ``body`` (a beaker or the electrode) upright with its origin at ``position``, at rest."""
    model, data = env.model, env.data
    joint = model.joint(f"{body}_free")
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*position, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def on_stirrer(env: LabEnv, k: int) -> None:
    """Stand beaker ``k`` in the stirrer's ring."""
    put(env, f"beaker_{k}", (STIRRER[0], STIRRER[1], PLATE_Z + BEAKER_HALF_HEIGHT + 0.0005))
    env.wait(0.3)


def hang(env: LabEnv) -> None:
    """Hang the electrode in the sleeve."""
    put(env, "electrode", (SLEEVE[0], SLEEVE[1], HUNG_TIP_Z + 0.002))
    env.wait(0.5)


def store(env: LabEnv) -> None:
    put(env, "electrode", STORED)
    env.wait(0.5)


def turn(env: LabEnv, angle: float) -> None:
    """Set the stopcock's lever at ``angle`` (rad from closed); it stays there."""
    env.data.qpos[env.model.joint("stopcock").qposadr[0]] = angle
    env.data.qvel[env.model.joint("stopcock").dofadr[0]] = 0.0


def run_to(env: LabEnv, angle: float, target: int) -> None:
    """Hold the stopcock at ``angle`` until ``target`` drops have fallen, then close it."""
    turn(env, angle)
    while bench(env).burette.drops < target:
        env.wait(0.1)
    turn(env, 0.0)


def press_log(env: LabEnv) -> None:
    env.data.qpos[env.model.joint("key_log").qposadr[0]] = -0.9 * KEY_TRAVEL_M
    env.wait(0.3)  # the spring returns the key


def restore(env: LabEnv) -> None:
    """Every beaker back on its spot, the electrode in its storage well, the stopcock closed."""
    turn(env, 0.0)
    store(env)
    for k in range(1, len(bench(env).beakers) + 1):
        put(env, f"beaker_{k}", beaker_spot(k))
    env.wait(1.0)


def logged(env: LabEnv, name: str) -> list[Row]:
    """The logger's rows so far, exported to ``name`` (those with both values shown)."""
    return rows_of(env.export("logger", name)["csv"])


def cite(name: str, row: Row, value: float | None = None) -> Citation:
    """A logged row cited as its pH (or as ``value``)."""
    return {"file": name, "row": row.index, "column": "ph", "value": row.ph if value is None else value}
