"""An open bowl: a flat bottom disc plus a ring of tilted box staves forming a sloped wall.

The wall is built from separate convex pieces (not one convex hull), so objects can rest inside it.
The body origin is the centre of the bowl's underside, on the table when the bowl stands upright.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from actloop.sim.assets.common import OBJECT_GEOM, free_body, rgba, yaw_quat

BOWL_FLOOR_THICKNESS = 0.006
BOWL_FLOOR_RADIUS = 0.054
"""Radius of the bottom disc; its top face is the inner floor."""
BOWL_INNER_BOTTOM_RADIUS = 0.050
"""Radius of the wall's inner surface at the underside (about 100 mm inner diameter at the floor)."""
BOWL_WALL_TILT_RAD = float(math.radians(30.0))
"""Outward tilt of the wall from vertical."""
BOWL_WALL_THICKNESS = 0.006
BOWL_HEIGHT = 0.050
"""Height of the rim's inner edge above the bowl origin."""
BOWL_WALL_PIECES = 20
BOWL_FLOOR_MASS = 0.15
BOWL_WALL_MASS = 0.25
"""Total mass of the wall staves; the whole bowl weighs 0.4 kg."""
BOWL_RIM_RADIUS = BOWL_INNER_BOTTOM_RADIUS + BOWL_HEIGHT * float(math.tan(BOWL_WALL_TILT_RAD))
"""Inner radius at the rim (about 79 mm)."""
_TABLE_CLEARANCE = 0.0005


def _wall_piece(name: str, index: int, color: str) -> str:
    """One wall stave: a box turned to its angle about z and tilted outward by the wall tilt."""
    tilt, half_t = BOWL_WALL_TILT_RAD, BOWL_WALL_THICKNESS / 2
    angle = 2 * math.pi * index / BOWL_WALL_PIECES
    # Lift the stave so its lower outer edge stays just clear of the table (only the floor stands on it).
    z0 = BOWL_WALL_THICKNESS * math.sin(tilt) + _TABLE_CLEARANCE
    slant = (BOWL_HEIGHT - z0) / math.cos(tilt)
    # Mid-point of the inner surface, moved half a thickness along the outward wall normal.
    radius = BOWL_INNER_BOTTOM_RADIUS + 0.5 * (BOWL_HEIGHT + z0) * math.tan(tilt) + half_t * math.cos(tilt)
    height = 0.5 * (BOWL_HEIGHT + z0) - half_t * math.sin(tilt)
    # Wide enough to close the ring at the rim's outer surface.
    half_width = (BOWL_RIM_RADIUS + BOWL_WALL_THICKNESS) * math.tan(math.pi / BOWL_WALL_PIECES)
    quat = np.empty(4)
    pitch = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)  # local z leans towards local +x (outward)
    mujoco.mju_mulQuat(quat, np.array(yaw_quat(angle)), np.array(pitch))
    q = " ".join(f"{c:.8f}" for c in quat)
    return (
        f'<geom name="{name}_wall{index}" type="box" '
        f'size="{half_t:.5f} {half_width:.5f} {slant / 2:.5f}" '
        f'pos="{radius * math.cos(angle):.6f} {radius * math.sin(angle):.6f} {height:.6f}" quat="{q}" '
        f'mass="{BOWL_WALL_MASS / BOWL_WALL_PIECES:.5f}" rgba="{rgba(color)}" {OBJECT_GEOM}/>'
    )


def bowl(name: str, xy: Sequence[float], table_z: float, color: str = "cyan") -> str:
    """A free bowl standing upright on the table at ``xy``; floor geom ``<name>_floor``."""
    h = BOWL_FLOOR_THICKNESS / 2
    floor = (
        f'<geom name="{name}_floor" type="cylinder" size="{BOWL_FLOOR_RADIUS} {h}" pos="0 0 {h}" '
        f'mass="{BOWL_FLOOR_MASS}" rgba="{rgba(color)}" {OBJECT_GEOM}/>'
    )
    walls = "\n  ".join(_wall_piece(name, i, color) for i in range(BOWL_WALL_PIECES))
    return free_body(name, (xy[0], xy[1], table_z), (1.0, 0.0, 0.0, 0.0), f"{floor}\n  {walls}")
