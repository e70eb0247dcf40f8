"""Scaffolding the spring-stand tests share, standing in for the agent's hands: a weight set on the tray
plate or anywhere by setting its pose, at rest."""

from __future__ import annotations

from actloop.suites.lab.env import LabEnv

SPOTS = ((-0.032, -0.015), (0.0, -0.015), (0.032, -0.015), (-0.016, 0.02), (0.016, 0.02))
"""Places for the weights on the tray plate, relative to its centre."""


def place(env: LabEnv, weight: int, position: tuple[float, float, float]) -> None:
    model, data = env._model, env._world.data
    joint = model.joint(f"weight_{weight}_free")
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*position, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def on_tray(env: LabEnv, weight: int) -> None:
    """Set ``weight`` on the tray plate at its own spot."""
    data, model = env._world.data, env._model
    x, y, z = data.geom_xpos[model.geom("tray_plate").id]
    dx, dy = SPOTS[weight - 1]
    place(env, weight, (float(x) + dx, float(y) + dy, float(z) + 0.003 + 0.012 + 0.0005))
