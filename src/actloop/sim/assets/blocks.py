"""Box-shaped objects: cubes and blocks, and the flat target pad used by placement tasks."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.sim.assets.common import OBJECT_GEOM, free_body, rgba, yaw_quat

TARGET_PAD_HALF = (0.05, 0.05, 0.003)


def cube(
    name: str,
    pos: Sequence[float],
    yaw_rad: float,
    half_size: float = 0.022,
    color: str = "red",
    mass: float = 0.08,
) -> str:
    """A free cube resting at ``pos`` (its centre) with the given yaw; geom ``<name>_geom``."""
    return block(name, pos, yaw_rad, (half_size, half_size, half_size), color, mass)


def block(
    name: str,
    pos: Sequence[float],
    yaw_rad: float,
    half_extents: Sequence[float],
    color: str,
    mass: float,
) -> str:
    """A free box with its centre at ``pos``; geom ``<name>_geom``."""
    hx, hy, hz = half_extents
    return free_body(
        name,
        pos,
        yaw_quat(yaw_rad),
        f'<geom name="{name}_geom" type="box" size="{hx} {hy} {hz}" mass="{mass}" '
        f'rgba="{rgba(color)}" {OBJECT_GEOM}/>',
    )


def target_pad(name: str, xy: Sequence[float], table_z: float, color: str = "blue") -> str:
    """A thin, heavy square pad lying on the table, marking where an object is to be placed.

    Its body origin is the centre of its top surface.
    """
    hx, hy, hz = TARGET_PAD_HALF
    return free_body(
        name,
        (xy[0], xy[1], table_z + 2 * hz),
        (1.0, 0.0, 0.0, 0.0),
        f'<geom name="{name}_geom" type="box" size="{hx} {hy} {hz}" pos="0 0 {-hz}" mass="0.3" '
        f'rgba="{rgba(color)}" {OBJECT_GEOM}/>',
    )
