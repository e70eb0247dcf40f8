"""A bench's keys pressed by setting their joints: the logger's state after each press of LOG."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.env import LabEnv


def press_key(env: LabEnv, key: str) -> None:
    """Press ``key_<key>`` once: its cap pushed 4.5 mm down, the key's spring returning it."""
    env.data.qpos[env.model.joint(f"key_{key}").qposadr[0]] = -0.0045
    env.wait(0.3)


def log_key_presses(env: LabEnv, logging: Callable[[], bool], presses: int = 2) -> list[bool]:
    """Press the LOG key ``presses`` times; whether the logger runs after each."""
    states = []
    for _ in range(presses):
        press_key(env, "log")
        states.append(logging())
    return states
