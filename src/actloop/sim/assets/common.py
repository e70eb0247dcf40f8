"""Shared pieces of object assets: contact parameters, the colour palette, poses, body wrappers and
box-built prisms."""

from __future__ import annotations

import math
from collections.abc import Sequence

from actloop.sim.fixedmath import yaw_quat as yaw_quat  # re-exported for the asset modules

OBJECT_GEOM = 'contype="1" conaffinity="3" condim="4" friction="1 0.01 0.001"'
"""Contact parameters of object geoms: they collide with the world, the robots and each other."""

HIDDEN_SITE_GROUP = 5
"""Site group the renderer never draws: evaluator-only reference points live here."""

COLORS: dict[str, str] = {
    "red": "0.85 0.12 0.1 1",
    "green": "0.1 0.65 0.2 1",
    "blue": "0.12 0.3 0.85 1",
    "yellow": "0.95 0.8 0.1 1",
    "purple": "0.55 0.2 0.7 1",
    "orange": "0.95 0.45 0.05 1",
    "white": "0.92 0.92 0.9 1",
    "black": "0.08 0.08 0.09 1",
    "gray": "0.55 0.56 0.58 1",
    "brown": "0.5 0.32 0.16 1",
    "cyan": "0.1 0.7 0.8 1",
    "gold": "0.85 0.65 0.2 1",
}


def free_body(
    name: str,
    pos: Sequence[float],
    quat: Sequence[float],
    geoms: str,
) -> str:
    """A free-floating body named ``name`` (joint ``<name>_joint``) holding ``geoms`` (MJCF text)."""
    q = " ".join(f"{float(c):.8f}" for c in quat)
    return f"""
<body name="{name}" pos="{pos[0]:.6f} {pos[1]:.6f} {pos[2]:.6f}" quat="{q}">
  <freejoint name="{name}_joint"/>
  {geoms}
</body>"""


def hidden_site(name: str, pos: Sequence[float]) -> str:
    """An evaluator-only reference point (never rendered, never observed by the agent)."""
    xyz = f"{pos[0]:.6f} {pos[1]:.6f} {pos[2]:.6f}"
    return f'<site name="{name}" pos="{xyz}" size="0.004" group="{HIDDEN_SITE_GROUP}"/>'


def rgba(color: str) -> str:
    """The RGBA string of a palette colour name."""
    try:
        return COLORS[color]
    except KeyError:
        raise ValueError(f"unknown colour {color!r}; palette: {', '.join(COLORS)}") from None


def prism_geoms(
    name: str, apothem: float, length: float, sides: int, centre_z: float, color: str, mass: float
) -> str:
    """A regular ``sides``-gon prism along body z, centred at ``centre_z``, as ``sides / 2`` boxes.

    Box k spans two opposite flats (half-width ``apothem``) and one side length, turned k·360°/sides
    about z; their union is exactly the polygon. Box 0's flats face ±x, so the prism rests on a flat
    when body x points down. Geoms are named ``<name>_0`` ... and share ``mass`` equally.
    """
    if sides % 2 or sides < 4:
        raise ValueError(f"a box prism needs an even number of sides >= 4, got {sides}")
    count = sides // 2
    half_side = apothem * math.tan(math.pi / sides)
    geoms = []
    for k in range(count):
        angle = 2 * math.pi * k / sides
        quat = f"{math.cos(angle / 2):.8f} 0 0 {math.sin(angle / 2):.8f}"
        geoms.append(
            f'<geom name="{name}_{k}" type="box" size="{apothem:.6f} {half_side:.6f} {length / 2:.6f}" '
            f'pos="0 0 {centre_z:.6f}" quat="{quat}" mass="{mass / count:.6f}" rgba="{rgba(color)}" '
            f"{OBJECT_GEOM}/>"
        )
    return "\n  ".join(geoms)


def axis_quat(yaw_rad: float, elevation_rad: float) -> tuple[float, float, float, float]:
    """Orientation (w, x, y, z) pointing body z at heading ``yaw_rad`` and ``elevation_rad`` above the
    table, with body x (the flat of a prism) in the vertical plane, facing down unless upright.

    Elevation 0 lies the object on its side with its long axis along world x at yaw 0; elevation 90°
    stands it upright.
    """
    tilt = math.pi / 2 - elevation_rad  # about body y, applied first; the yaw about world z follows
    cy, sy = math.cos(tilt / 2), math.sin(tilt / 2)
    cz, sz = math.cos(yaw_rad / 2), math.sin(yaw_rad / 2)
    return (float(cz * cy), float(-sz * sy), float(cz * sy), float(sz * cy))
