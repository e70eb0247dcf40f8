"""Vessels holding solutions on a bench: their contents as state, poured when tilted, drawn as a fill
level and a colour.

MuJoCo has no fluids. A vessel is a rigid body with an open top (a cuvette's square mouth, a vial's round
one) whose liquid is a :class:`~actloop.suites.lab.physics.solutions.Portion` that moves with it. Its
surface stays level: a vessel of inner half width ``r`` and depth ``h`` filled to ``f`` pours once it leans
past ``tan θ = (h − f) / r``, from the lowest point of its rim, faster the further it leans (all of it
within about a second when upside down). What it pours falls straight down into the vessel whose mouth lies
under that point and below it (what runs over that vessel's rim is spilled), or onto the bench: a spill,
recorded with its volume and time, which leaves the bench unrestored. Each vessel's liquid is drawn as a
geom whose height follows the volume and whose colour follows the contents (its bounding sphere is set to
hold the vessel's whole inside, so the renderer never culls a fuller drawing).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import mujoco
import numpy as np

from actloop.suites.lab.physics.solutions import Portion

POUR_ML_S = 3.0
"""How fast a vessel pours when its surface stands a full half width past the rim (or it is upside down)."""
STANDING_COS = math.cos(math.radians(2.0))
"""A vessel leaning less than this pours only when filled to within :attr:`Shape.brim_ml` of its rim."""


@dataclass(frozen=True)
class Shape:
    """A vessel's inside, in its body frame: the inner half width (square) or radius (round), the depth
    from the inner floor to the rim, and the floor's height above the body's origin (metres)."""

    inner_half: float
    depth: float
    floor_z: float
    round: bool = False

    @property
    def area_m2(self) -> float:
        return math.pi * self.inner_half**2 if self.round else 4.0 * self.inner_half**2

    @property
    def capacity_ml(self) -> float:
        return self.area_m2 * self.depth * 1e6

    @cached_property
    def brim_ml(self) -> float:
        """The volume above which the vessel pours at a lean of :data:`STANDING_COS` or less."""
        lean = math.tan(math.acos(STANDING_COS))
        return self.area_m2 * max(self.depth - self.inner_half * lean, 0.0) * 1e6

    def fill_height(self, volume_ml: float) -> float:
        """How high ``volume_ml`` stands above the floor when upright (m); at most the depth."""
        return min(volume_ml * 1e-6 / self.area_m2, self.depth)

    def pour_rate(self, volume_ml: float, up: np.ndarray) -> float:
        """mL/s poured with the vessel's axis along world ``up`` (a unit vector) and ``volume_ml`` in it."""
        if volume_ml <= 0.0:
            return 0.0
        cos_t, sin_t = float(up[2]), math.hypot(float(up[0]), float(up[1]))
        if cos_t <= 0.0:
            return POUR_ML_S
        past_rim = sin_t * self.inner_half - cos_t * (self.depth - self.fill_height(volume_ml))
        return POUR_ML_S * min(max(past_rim / self.inner_half, 0.0), 1.0)

    def lip(self, position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
        """The lowest point of the rim in the world, for a vessel at ``position`` turned by ``rotation``."""
        up = rotation[:, 2]
        lean = np.array([up[0], up[1], 0.0])
        norm = float(np.linalg.norm(lean))
        rim_centre = position + up * (self.floor_z + self.depth)
        if norm < 1e-12:
            return rim_centre
        across = lean / norm - up * float(up @ (lean / norm))  # the lean's direction in the rim's plane
        across /= float(np.linalg.norm(across))
        reach = self.inner_half if self.round else self.inner_half * _square_reach(rotation, across)
        return rim_centre + across * reach

    def catches(self, position: np.ndarray, rotation: np.ndarray, point: np.ndarray) -> bool:
        """Whether something falling straight down from ``point`` enters this vessel's mouth (the vessel
        near upright and its rim below the point)."""
        up = rotation[:, 2]
        if up[2] < 0.9:
            return False
        rim_centre = position + up * (self.floor_z + self.depth)
        if point[2] < rim_centre[2]:
            return False
        local = rotation.T @ (np.array([point[0], point[1], rim_centre[2]]) - rim_centre)
        if self.round:
            return math.hypot(float(local[0]), float(local[1])) <= self.inner_half
        return abs(float(local[0])) <= self.inner_half and abs(float(local[1])) <= self.inner_half


def _square_reach(rotation: np.ndarray, across: np.ndarray) -> float:
    """How far a square rim reaches from its centre along ``across`` (a unit vector in its plane), in
    half widths."""
    local = rotation.T @ across
    return 1.0 / max(abs(float(local[0])), abs(float(local[1])), 1e-12)


@dataclass(frozen=True)
class Spill:
    """Liquid poured onto the bench: when (s), from which vessel, how much (mL)."""

    time_s: float
    vessel: str
    volume_ml: float


Reaction = Callable[[Portion, float], Portion]
"""What a vessel's contents become over some seconds (nothing, for solutions that do not react)."""


def unreacting(portion: Portion, seconds: float) -> Portion:
    """Contents that stay as they are."""
    return portion


class Vessels:
    """The vessels of a bench: each one's body, liquid geom and shape, its contents (advanced by
    ``reaction`` since it last changed), and the spills."""

    def __init__(
        self,
        names: Sequence[str],
        shapes: Sequence[Shape],
        contents: Sequence[Portion],
        colour: Callable[[Portion], tuple[float, float, float]],
        reaction: Reaction = unreacting,
    ) -> None:
        self.names, self.shapes = tuple(names), tuple(shapes)
        self._contents = [(0.0, portion) for portion in contents]
        self.colour, self.reaction = colour, reaction
        self.spills: list[Spill] = []
        self.mixed_at: list[float | None] = [None] * len(self.names)
        """When something was first poured into each vessel (None: never)."""
        self._bodies: list[int] = []
        self._liquids: list[int] = []

    def contents(self, i: int, time_s: float) -> Portion:
        """What vessel ``i`` holds at ``time_s`` (s)."""
        since, portion = self._contents[i]
        return self.reaction(portion, time_s - since)

    def stored(self, i: int) -> Portion:
        """What vessel ``i`` held when its contents last changed (the solutes that react not advanced since;
        the volume and the others as they are now)."""
        return self._contents[i][1]

    def _set(self, i: int, time_s: float, portion: Portion) -> None:
        self._contents[i] = (time_s, portion)

    def attach(self, model: mujoco.MjModel) -> None:
        self._bodies = [model.body(name).id for name in self.names]
        self._liquids = [model.geom(f"{name}_liquid").id for name in self.names]
        for geom, shape in zip(self._liquids, self.shapes, strict=True):
            corners = 1 if shape.round else 2  # a square's corner lies √2 half widths out
            model.geom_rbound[geom] = math.sqrt(corners * shape.inner_half**2 + shape.depth**2)

    def step(self, data: mujoco.MjData, dt: float, time_s: float) -> None:
        """Pour from every vessel leaning past its rim into the vessel below its lip, or onto the bench."""
        upright = data.xmat[self._bodies, 8] >= STANDING_COS
        for i, shape in enumerate(self.shapes):
            volume = self._contents[i][1].volume_ml  # reactions leave the volume as it is
            if volume == 0.0 or (upright[i] and volume < shape.brim_ml):
                continue
            rotation = data.xmat[self._bodies[i]].reshape(3, 3)
            rate = shape.pour_rate(volume, rotation[:, 2])
            if rate == 0.0:
                continue
            poured, left = self.contents(i, time_s).take(rate * dt)
            self._set(i, time_s, left)
            lip = shape.lip(data.xpos[self._bodies[i]], rotation)
            self.fall(data, lip, poured, time_s, self.names[i])

    def fall(
        self, data: mujoco.MjData, point: np.ndarray, portion: Portion, time_s: float, source: str
    ) -> None:
        """``portion`` falls straight down from ``point``: into the vessel whose mouth lies below (what runs
        over its rim is spilled), or onto the bench, a spill of ``source`` (a vessel's or a burette's
        name)."""
        into = self._receiver(data, point, source)
        if into is None:
            self.spills.append(Spill(time_s, source, portion.volume_ml))
            return
        filled = self.contents(into, time_s).plus(portion)
        excess = filled.volume_ml - self.shapes[into].capacity_ml
        if excess > 0.0:  # it runs over the rim
            over, filled = filled.take(excess)
            self.spills.append(Spill(time_s, self.names[into], over.volume_ml))
        self._set(into, time_s, filled)
        if self.mixed_at[into] is None:
            self.mixed_at[into] = time_s

    def _receiver(self, data: mujoco.MjData, point: np.ndarray, source: str) -> int | None:
        for j, shape in enumerate(self.shapes):
            body = self._bodies[j]
            if self.names[j] != source and shape.catches(
                data.xpos[body], data.xmat[body].reshape(3, 3), point
            ):
                return j
        return None

    def draw(self, model: mujoco.MjModel, time_s: float) -> None:
        """Set each liquid geom's height and colour from its vessel's contents (drawing only: the geoms
        collide with nothing and weigh nothing)."""
        for i, shape in enumerate(self.shapes):
            portion = self.contents(i, time_s)
            height = shape.fill_height(portion.volume_ml)
            geom = self._liquids[i]
            axis = 1 if model.geom_type[geom] == mujoco.mjtGeom.mjGEOM_CYLINDER else 2  # its half height
            model.geom_size[geom][axis] = max(height / 2.0, 1e-5)
            model.geom_pos[geom][2] = shape.floor_z + height / 2.0
            model.geom_rgba[geom] = (*self.colour(portion), 1.0 if portion.volume_ml > 0.0 else 0.0)

    def spilled_ml(self) -> dict[str, float]:
        """The volume each vessel has spilled onto the bench (mL)."""
        spilled: dict[str, float] = {}
        for spill in self.spills:
            spilled[spill.vessel] = spilled.get(spill.vessel, 0.0) + spill.volume_ml
        return spilled
