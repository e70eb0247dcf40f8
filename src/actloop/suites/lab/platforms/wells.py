"""Square wells with a funnel around the mouth: a probe's stem dropped a few millimetres off slides into
them. A well may have a floor (a probe stands on its tip) or none (a sleeve, which a probe hangs in by its
handle)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM


@dataclass(frozen=True)
class Well:
    """A well's bore: half its width, its depth below the box's top, and the funnel's height above the top
    (its plates at 45 degrees)."""

    half: float
    depth: float
    funnel: float


def well_xml(
    name: str,
    centre: tuple[float, float],
    half: tuple[float, float, float],
    rgba: str,
    well: Well,
    base_z: float = TABLE_TOP_Z,
) -> str:
    """A box of half sizes ``half`` standing on ``base_z`` with ``well`` down its middle: four walls around
    the bore, a floor under it (none when the bore goes all the way down) and a funnel around its mouth
    (four plates at 45 degrees)."""
    hx, hy, hz = half
    w, floor, funnel = well.half, (2 * hz - well.depth) / 2, well.funnel
    side = (hx - w) / 2
    walls = [
        ("left", f"{side} {hy} {hz}", f"{-(w + side)} 0 {hz}", "0 0 0"),
        ("right", f"{side} {hy} {hz}", f"{w + side} 0 {hz}", "0 0 0"),
        ("back", f"{w} {(hy - w) / 2} {hz}", f"0 {w + (hy - w) / 2} {hz}", "0 0 0"),
        ("front", f"{w} {(hy - w) / 2} {hz}", f"0 {-(w + (hy - w) / 2)} {hz}", "0 0 0"),
    ]
    if floor > 0:
        walls.append(("floor", f"{w} {w} {floor}", f"0 0 {floor}", "0 0 0"))
    slope, across, middle = funnel * math.sqrt(2) / 2, w + funnel, w + funnel / 2 + 0.0005
    z, q = 2 * hz + funnel / 2, math.pi / 4
    walls += [
        ("funnel_left", f"{slope} {across} 0.0007", f"{-middle} 0 {z}", f"0 {q} 0"),
        ("funnel_right", f"{slope} {across} 0.0007", f"{middle} 0 {z}", f"0 {-q} 0"),
        ("funnel_front", f"{across} {slope} 0.0007", f"0 {-middle} {z}", f"{-q} 0 0"),
        ("funnel_back", f"{across} {slope} 0.0007", f"0 {middle} {z}", f"{q} 0 0"),
    ]
    geoms = "\n".join(
        f'  <geom name="{name}_{part}" type="box" size="{size}" pos="{pos}" euler="{euler}" rgba="{rgba}" '
        f"{WORLD_GEOM}/>"
        for part, size, pos, euler in walls
    )
    return f'<body name="{name}" pos="{centre[0]} {centre[1]} {base_z}">\n{geoms}\n</body>'
