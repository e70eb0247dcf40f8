"""An open bowl: a flat bottom disc plus a ring of tilted box staves forming a sloped wall.

The wall is built from separate convex pieces (not one convex hull), so objects can rest inside it.
The body origin is the centre of the bowl's underside, on the table when the bowl stands upright.
A "model id" is a :class:`BowlModel` preset: ``cyan_bowl`` (the base family's) and ``deep_bowl``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class BowlModel:
    """A bowl preset: floor disc, sloped wall and masses (metres, radians, kilograms)."""

    model_id: str
    floor_thickness: float
    floor_radius: float
    """Radius of the bottom disc; its top face is the inner floor."""
    inner_bottom_radius: float
    """Radius of the wall's inner surface at the underside."""
    wall_tilt_rad: float
    """Outward tilt of the wall from vertical."""
    wall_thickness: float
    height: float
    """Height of the rim's inner edge above the bowl origin."""
    wall_pieces: int
    floor_mass: float
    wall_mass: float
    """Total mass of the wall staves."""

    @property
    def rim_radius(self) -> float:
        """Inner radius at the rim."""
        return self.inner_bottom_radius + self.height * float(math.tan(self.wall_tilt_rad))


CYAN_BOWL = BowlModel(
    "cyan_bowl",
    floor_thickness=BOWL_FLOOR_THICKNESS,
    floor_radius=BOWL_FLOOR_RADIUS,
    inner_bottom_radius=BOWL_INNER_BOTTOM_RADIUS,
    wall_tilt_rad=BOWL_WALL_TILT_RAD,
    wall_thickness=BOWL_WALL_THICKNESS,
    height=BOWL_HEIGHT,
    wall_pieces=BOWL_WALL_PIECES,
    floor_mass=BOWL_FLOOR_MASS,
    wall_mass=BOWL_WALL_MASS,
)
"""The base family's bowl (the module constants above): 100 mm inner floor, 50 mm wall sloped 30°,
79 mm rim radius, 0.4 kg."""

DEEP_BOWL = BowlModel(
    "deep_bowl",
    floor_thickness=0.008,
    floor_radius=0.046,
    inner_bottom_radius=0.042,
    wall_tilt_rad=float(math.radians(15.0)),
    wall_thickness=0.006,
    height=0.065,
    wall_pieces=20,
    floor_mass=0.15,
    wall_mass=0.25,
)
"""A narrower, deeper, steeper bowl for held-out variants: 84 mm inner floor (8 mm thick), 65 mm wall
sloped 15°, 59 mm rim radius, 0.4 kg."""

BOWL_MODELS: dict[str, BowlModel] = {m.model_id: m for m in (CYAN_BOWL, DEEP_BOWL)}


def _wall_piece(name: str, index: int, color: str, model: BowlModel) -> str:
    """One wall stave: a box turned to its angle about z and tilted outward by the wall tilt."""
    tilt, half_t = model.wall_tilt_rad, model.wall_thickness / 2
    angle = 2 * math.pi * index / model.wall_pieces
    # Lift the stave so its lower outer edge stays just clear of the table (only the floor stands on it).
    z0 = model.wall_thickness * math.sin(tilt) + _TABLE_CLEARANCE
    slant = (model.height - z0) / math.cos(tilt)
    # Mid-point of the inner surface, moved half a thickness along the outward wall normal.
    radius = model.inner_bottom_radius + 0.5 * (model.height + z0) * math.tan(tilt) + half_t * math.cos(tilt)
    height = 0.5 * (model.height + z0) - half_t * math.sin(tilt)
    # Wide enough to close the ring at the rim's outer surface.
    half_width = (model.rim_radius + model.wall_thickness) * math.tan(math.pi / model.wall_pieces)
    quat = np.empty(4)
    pitch = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)  # local z leans towards local +x (outward)
    mujoco.mju_mulQuat(quat, np.array(yaw_quat(angle)), np.array(pitch))
    q = " ".join(f"{c:.8f}" for c in quat)
    return (
        f'<geom name="{name}_wall{index}" type="box" '
        f'size="{half_t:.5f} {half_width:.5f} {slant / 2:.5f}" '
        f'pos="{radius * math.cos(angle):.6f} {radius * math.sin(angle):.6f} {height:.6f}" quat="{q}" '
        f'mass="{model.wall_mass / model.wall_pieces:.5f}" rgba="{rgba(color)}" {OBJECT_GEOM}/>'
    )


def bowl(
    name: str, xy: Sequence[float], table_z: float, color: str = "cyan", model: BowlModel = CYAN_BOWL
) -> str:
    """A free bowl standing upright on the table at ``xy``; floor geom ``<name>_floor``."""
    h = model.floor_thickness / 2
    floor = (
        f'<geom name="{name}_floor" type="cylinder" size="{model.floor_radius} {h}" pos="0 0 {h}" '
        f'mass="{model.floor_mass}" rgba="{rgba(color)}" {OBJECT_GEOM}/>'
    )
    walls = "\n  ".join(_wall_piece(name, i, color, model) for i in range(model.wall_pieces))
    return free_body(name, (xy[0], xy[1], table_z), (1.0, 0.0, 0.0, 0.0), f"{floor}\n  {walls}")
