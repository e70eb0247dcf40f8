"""A T-shaped hammer that lies flat on the table: a box handle with a box head across one end.

Body frame: x runs along the handle from its butt end toward the head, y across it, z up. The origin
is the centre of the hammer's footprint on its bottom plane; head and handle share that bottom plane,
so the hammer rests flat. The evaluator-only site ``<name>_face`` is the functional point: the centre
of the head's bottom face, which strikes when the flat-lying hammer is lifted, carried over a target
and lowered onto it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from actloop.sim.assets.common import OBJECT_GEOM, free_body, hidden_site, rgba, yaw_quat


@dataclass(frozen=True)
class HammerGeometry:
    """Dimensions in metres and masses in kg."""

    handle_length: float = 0.14
    handle_width: float = 0.022
    handle_height: float = 0.022
    head_width: float = 0.03
    """Extent of the head along the handle axis."""
    head_length: float = 0.09
    """Extent of the head across the handle (the T's bar)."""
    head_height: float = 0.03
    handle_mass: float = 0.05
    head_mass: float = 0.12

    @property
    def total_length(self) -> float:
        return self.handle_length + self.head_width

    @property
    def head_centre_x(self) -> float:
        """Head centre along the body x axis (the origin is the footprint centre)."""
        return self.total_length / 2 - self.head_width / 2

    @property
    def handle_centre_x(self) -> float:
        return -self.total_length / 2 + self.handle_length / 2

    def handle_segment(self) -> tuple[np.ndarray, np.ndarray]:
        """Butt-end and head-end points of the handle's centre line in the body frame."""
        z = self.handle_height / 2
        start = np.array([-self.total_length / 2, 0.0, z])
        end = np.array([self.total_length / 2 - self.head_width, 0.0, z])
        return start, end


HAMMER = HammerGeometry()


def hammer_face_site(name: str) -> str:
    """Name of the hammer's functional-point site (centre of the head's striking face)."""
    return f"{name}_face"


def hammer_handle_geom(name: str) -> str:
    return f"{name}_handle"


def hammer_head_geom(name: str) -> str:
    return f"{name}_head"


def hammer(
    name: str,
    xy: Sequence[float],
    table_z: float,
    heading_rad: float,
    geometry: HammerGeometry = HAMMER,
    handle_color: str = "brown",
    head_color: str = "gray",
) -> str:
    """A hammer lying flat at ``xy`` with its handle-to-head axis at ``heading_rad`` from world x."""
    g, head = geometry, hammer_head_geom(name)
    geoms = f"""
  <geom name="{hammer_handle_geom(name)}" type="box"
        size="{g.handle_length / 2} {g.handle_width / 2} {g.handle_height / 2}"
        pos="{g.handle_centre_x} 0 {g.handle_height / 2}" mass="{g.handle_mass}" rgba="{rgba(handle_color)}"
        {OBJECT_GEOM}/>
  <geom name="{head}" type="box" size="{g.head_width / 2} {g.head_length / 2} {g.head_height / 2}"
        pos="{g.head_centre_x} 0 {g.head_height / 2}" mass="{g.head_mass}" rgba="{rgba(head_color)}"
        {OBJECT_GEOM}/>
  {hidden_site(hammer_face_site(name), (g.head_centre_x, 0.0, 0.0))}"""
    return free_body(name, (xy[0], xy[1], table_z), yaw_quat(heading_rad), geoms)
