"""Cooking pots with two mirrored side handles, built from convex primitives; two presets (model ids).

Body frame: z up along the pot's axis, the handles along body x (the right handle at +x, the left one at
-x). The origin is the centre of the pot's bottom face, on the table when the pot stands upright, so its
height is the height of the pot's base.

Collision pieces, all convex: a bottom disc, a ring of vertical box staves forming the wall (separate
pieces, so the pot is open), and per handle either a flat tab (a box sticking out of the wall) or a round
rod (a capsule) with a knob at its end. The handles stick out radially near the rim; a gripper takes one
from above with its fingers closing across it (along body y). The evaluator-only sites
``<name>_left_handle`` and ``<name>_right_handle`` mark each handle's grasp point: the middle of its
free length, at its mid-height.

The pot is heavy (``PotModel.mass``): held by one handle it turns in the grasp (the fingers hold the
handle by friction about the closing axis only), so it lifts level only with both handles held.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from actloop.sim.assets.common import OBJECT_GEOM, free_body, hidden_site, yaw_quat

Handle = Literal["tab", "rod"]
HANDLE_SIDES: tuple[tuple[str, float], ...] = (("left", -1.0), ("right", 1.0))
"""Handle name and the sign of its body-x direction."""
WALL_PIECES = 20
HANDLE_EMBED = 0.004
"""How far a handle reaches into the wall, so it is one with the pot."""
BOTTOM_MASS_FRACTION = 0.45
HANDLE_MASS_FRACTION = 0.05
"""Each handle's share of the pot's mass; the wall takes the rest."""
_TABLE_CLEARANCE = 0.0005
"""The staves end this far above the bottom face: only the bottom disc stands on the table."""


@dataclass(frozen=True)
class PotModel:
    """Dimensions (metres), mass (kg) and colours (RGBA strings) of one pot model id."""

    name: str
    radius: float
    """Outer radius of the wall."""
    height: float
    """Bottom face to rim."""
    wall_thickness: float
    bottom_thickness: float
    handle: Handle
    handle_length: float
    """How far the handle sticks out of the wall."""
    handle_width: float
    """Across the handle (along body y): the tab's width or the rod's diameter."""
    handle_thickness: float
    """The tab's vertical thickness (the rod's is its diameter)."""
    handle_below_rim: float
    """From the rim down to the handle's centre line."""
    body_rgba: str
    handle_rgba: str
    mass: float

    @property
    def handle_z(self) -> float:
        """Height of the handles' centre line above the bottom face."""
        return self.height - self.handle_below_rim

    @property
    def grasp_radius(self) -> float:
        """Distance from the axis to a handle's grasp point: the middle of its free length."""
        return self.radius + self.handle_length / 2

    @property
    def handle_span(self) -> float:
        """Distance between the two grasp points."""
        return 2 * self.grasp_radius


POT_MODELS: tuple[PotModel, ...] = (
    PotModel(
        name="steel stockpot",
        radius=0.085,
        height=0.115,
        wall_thickness=0.005,
        bottom_thickness=0.008,
        handle="tab",
        handle_length=0.045,
        handle_width=0.030,
        handle_thickness=0.012,
        handle_below_rim=0.018,
        body_rgba="0.62 0.64 0.67 1",
        handle_rgba="0.1 0.1 0.11 1",
        mass=2.4,
    ),
    PotModel(
        name="red casserole",
        radius=0.100,
        height=0.085,
        wall_thickness=0.006,
        bottom_thickness=0.008,
        handle="rod",
        handle_length=0.045,
        handle_width=0.020,
        handle_thickness=0.020,
        handle_below_rim=0.016,
        body_rgba="0.8 0.12 0.1 1",
        handle_rgba="0.45 0.28 0.12 1",
        mass=2.2,
    ),
)


def pot_handle_site(name: str, side: str) -> str:
    """Name of the grasp-point site of the pot's ``side`` ("left" or "right") handle."""
    return f"{name}_{side}_handle"


def pot_handle_geoms(name: str, side: str, model_id: int) -> tuple[str, ...]:
    """Names of the geoms forming the ``side`` handle of pot ``name`` of model ``model_id``."""
    if POT_MODELS[model_id].handle == "tab":
        return (f"{name}_{side}_handle",)
    return (f"{name}_{side}_handle", f"{name}_{side}_knob")


def _f(values: Sequence[float]) -> str:
    return " ".join(f"{v:.6f}" for v in values)


def _wall(name: str, m: PotModel, mass: float) -> list[str]:
    half_t = m.wall_thickness / 2
    radius = m.radius - half_t
    half_width = m.radius * math.tan(math.pi / WALL_PIECES) + 0.0005
    bottom = _TABLE_CLEARANCE
    half_h = (m.height - bottom) / 2
    out = []
    for i in range(WALL_PIECES):
        angle = 2 * math.pi * i / WALL_PIECES
        pos = (radius * math.cos(angle), radius * math.sin(angle), bottom + half_h)
        out.append(
            f'<geom name="{name}_wall{i}" type="box" size="{_f((half_t, half_width, half_h))}" '
            f'pos="{_f(pos)}" quat="{_f(yaw_quat(angle))}" mass="{mass / WALL_PIECES:.6f}" '
            f'rgba="{m.body_rgba}" {OBJECT_GEOM}/>'
        )
    return out


def _handle(name: str, m: PotModel, side: str, sign: float, mass: float) -> list[str]:
    inner = m.radius - HANDLE_EMBED
    outer = m.radius + m.handle_length
    z = m.handle_z
    geom = f"{name}_{side}_handle"
    if m.handle == "tab":
        half = (outer - inner) / 2
        return [
            f'<geom name="{geom}" type="box" size="{_f((half, m.handle_width / 2, m.handle_thickness / 2))}" '
            f'pos="{_f((sign * (inner + half), 0.0, z))}" mass="{mass:.6f}" rgba="{m.handle_rgba}" '
            f"{OBJECT_GEOM}/>"
        ]
    r = m.handle_width / 2
    knob_r = 1.25 * r
    return [
        f'<geom name="{geom}" type="capsule" size="{r:.6f}" '
        f'fromto="{_f((sign * inner, 0.0, z, sign * (outer - r), 0.0, z))}" mass="{0.8 * mass:.6f}" '
        f'rgba="{m.handle_rgba}" {OBJECT_GEOM}/>',
        f'<geom name="{name}_{side}_knob" type="sphere" size="{knob_r:.6f}" '
        f'pos="{_f((sign * (outer - knob_r + 0.004), 0.0, z))}" mass="{0.2 * mass:.6f}" '
        f'rgba="{m.handle_rgba}" {OBJECT_GEOM}/>',
    ]


def pot(name: str, xy: Sequence[float], table_z: float, yaw_rad: float, model_id: int) -> str:
    """Pot ``model_id`` standing on the table at ``xy``, its handles' axis (body x) at ``yaw_rad`` from
    world x."""
    m = POT_MODELS[model_id]
    h = m.bottom_thickness / 2
    handle_mass = HANDLE_MASS_FRACTION * m.mass
    wall_mass = m.mass * (1 - BOTTOM_MASS_FRACTION) - 2 * handle_mass
    parts = [
        f'<geom name="{name}_bottom" type="cylinder" size="{m.radius - 0.0005:.6f} {h:.6f}" '
        f'pos="0 0 {h:.6f}" mass="{BOTTOM_MASS_FRACTION * m.mass:.6f}" rgba="{m.body_rgba}" {OBJECT_GEOM}/>',
        *_wall(name, m, wall_mass),
    ]
    for side, sign in HANDLE_SIDES:
        parts.extend(_handle(name, m, side, sign, handle_mass))
        parts.append(hidden_site(pot_handle_site(name, side), (sign * m.grasp_radius, 0.0, m.handle_z)))
    return free_body(name, (xy[0], xy[1], table_z), yaw_quat(yaw_rad), "\n  ".join(parts))
