"""Procedural object bodies (MJCF fragments) for task scenes."""

from __future__ import annotations

import numpy as np

OBJECT_GEOM = 'contype="1" conaffinity="3" condim="4" friction="1 0.01 0.001"'

COLORS: dict[str, str] = {
    "red": "0.85 0.12 0.1 1",
    "green": "0.1 0.65 0.2 1",
    "blue": "0.12 0.3 0.85 1",
    "yellow": "0.95 0.8 0.1 1",
    "purple": "0.55 0.2 0.7 1",
    "orange": "0.95 0.45 0.05 1",
}


def yaw_quat(yaw_rad: float) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of a rotation by ``yaw_rad`` about world z."""
    return (float(np.cos(yaw_rad / 2)), 0.0, 0.0, float(np.sin(yaw_rad / 2)))


def cube(
    name: str,
    pos: tuple[float, float, float],
    yaw_rad: float,
    half_size: float = 0.022,
    color: str = "red",
    mass: float = 0.08,
) -> str:
    """A free-floating cube resting at ``pos`` (its centre) with the given yaw."""
    q = yaw_quat(yaw_rad)
    return f"""
<body name="{name}" pos="{pos[0]:.6f} {pos[1]:.6f} {pos[2]:.6f}" quat="{q[0]:.8f} 0 0 {q[3]:.8f}">
  <freejoint name="{name}_joint"/>
  <geom name="{name}_geom" type="box" size="{half_size} {half_size} {half_size}" mass="{mass}"
        rgba="{COLORS[color]}" {OBJECT_GEOM}/>
</body>"""
