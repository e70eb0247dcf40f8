"""A bench's LOG key pressed by setting its joint: the logger's state after each press."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.env import LabEnv


def log_key_presses(env: LabEnv, logging: Callable[[], bool], presses: int = 2) -> list[bool]:
    """Press the LOG key ``presses`` times (its cap pushed 4.5 mm down, the key's spring returning it);
    whether the logger runs after each."""
    key = env.model.joint("key_log").qposadr[0]
    states = []
    for _ in range(presses):
        env.data.qpos[key] = -0.0045
        env.wait(0.3)  # the spring returns the key
        states.append(logging())
    return states
