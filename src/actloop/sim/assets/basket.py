"""An open rectangular basket: a floor slab and four walls, each a separate box (convex pieces).

The body origin is the centre of the basket's underside, on the table when it stands upright; body x is
the long side. The walls stand on the floor's edge, so the inner cavity is exactly
``2 * inner_half_x`` by ``2 * inner_half_y`` and ``wall_height - floor_thickness`` deep. The basket is
heavy (2 kg on a 316 x 216 mm footprint) so that a gripper or a carried object brushing a wall does not
slide it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from actloop.sim.assets.common import OBJECT_GEOM, free_body, rgba, yaw_quat


@dataclass(frozen=True)
class BasketModel:
    """A basket preset: inner size, wall and floor dimensions (metres), total mass and colour."""

    model_id: str
    inner_half_x: float
    inner_half_y: float
    wall_height: float
    """Height of the rim above the basket's underside."""
    wall_thickness: float
    floor_thickness: float
    mass: float
    color: str

    @property
    def outer_half_x(self) -> float:
        return self.inner_half_x + self.wall_thickness

    @property
    def outer_half_y(self) -> float:
        return self.inner_half_y + self.wall_thickness

    @property
    def depth(self) -> float:
        """Depth of the cavity: from the inner floor up to the rim."""
        return self.wall_height - self.floor_thickness


STORAGE_BASKET = BasketModel(
    "storage_basket",
    inner_half_x=0.15,
    inner_half_y=0.10,
    wall_height=0.05,
    wall_thickness=0.008,
    floor_thickness=0.006,
    mass=2.0,
    color="brown",
)
"""300 x 200 mm inside, 44 mm deep: room for a 182 mm bottle and a 140 mm pen lying side by side with a
column of two 44 mm cubes and a standing bottle beside them, each with space for the open fingers."""


def basket(
    name: str, xy: Sequence[float], yaw_rad: float, table_z: float, model: BasketModel = STORAGE_BASKET
) -> str:
    """A free basket standing on the table at ``xy`` with its long side turned ``yaw_rad`` from world x.

    Geoms ``<name>_floor`` and ``<name>_wall_{px,nx,py,ny}``; mass is shared by volume. The walls at ±x
    span the full outer width, the walls at ±y fit between them.
    """
    t, f = model.wall_thickness, model.floor_thickness
    hz = (model.wall_height - f) / 2  # half height of a wall standing on the floor slab
    ix, iy, ox, oy = model.inner_half_x, model.inner_half_y, model.outer_half_x, model.outer_half_y
    boxes = {  # part: (half extents, centre)
        "floor": ((ox, oy, f / 2), (0.0, 0.0, f / 2)),
        "wall_px": ((t / 2, oy, hz), (ix + t / 2, 0.0, f + hz)),
        "wall_nx": ((t / 2, oy, hz), (-ix - t / 2, 0.0, f + hz)),
        "wall_py": ((ix, t / 2, hz), (0.0, iy + t / 2, f + hz)),
        "wall_ny": ((ix, t / 2, hz), (0.0, -iy - t / 2, f + hz)),
    }
    volumes = {part: 8 * sx * sy * sz for part, ((sx, sy, sz), _) in boxes.items()}
    total = sum(volumes.values())
    geoms = [
        f'<geom name="{name}_{part}" type="box" size="{sx:.5f} {sy:.5f} {sz:.5f}" '
        f'pos="{px:.5f} {py:.5f} {pz:.5f}" mass="{model.mass * volumes[part] / total:.5f}" '
        f'rgba="{rgba(model.color)}" {OBJECT_GEOM}/>'
        for part, ((sx, sy, sz), (px, py, pz)) in boxes.items()
    ]
    return free_body(name, (xy[0], xy[1], table_z), yaw_quat(yaw_rad), "\n  ".join(geoms))
