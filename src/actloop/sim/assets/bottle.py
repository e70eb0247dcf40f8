"""Bottles built from regular-polygon prisms of boxes, and the prism helpers shared with the pen.

A bottle is a stack of coaxial sections along its body z axis, bottom to top: body, a two-step
shoulder, neck and a differently coloured cap. Every section is a regular prism made of boxes (a union
of ``sides / 2`` boxes turned about the axis), so collisions come from box pairs (stable multi-point
contacts) and a bottle lying on its side rests on a flat face instead of rolling.

The body origin is the **geometric centre of the bottle**: on the axis, halfway between the base and the
top of the cap. :class:`BottleModel` exposes the resting heights of that origin (upright and lying) and
the offsets of the grasp points along the axis. Each bottle also carries two evaluator-only sites:
``<name>_side_grasp`` (centre of the body section, the grasp point of a lying bottle) and
``<name>_top_grasp`` (on the axis just below the top of the body, the grasp point from above).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from actloop.sim.assets.common import free_body, hidden_site, prism_geoms

TOP_GRASP_BELOW_BODY_TOP = 0.008
"""The upright grasp point (GC from above) sits this far below the top of the body section."""


@dataclass(frozen=True)
class Section:
    """One coaxial prism of a bottle: apothem (half the flat-to-flat width), height, sides, colour."""

    apothem: float
    height: float
    sides: int
    color: str


@dataclass(frozen=True)
class BottleModel:
    """A bottle preset: its sections bottom to top (the first is the body) and its total mass.

    Presets keep the body the widest section (at most 66 mm across the corners, inside the 80 mm
    aperture), the shoulder, neck and cap within 32 mm above the body (so the palm clears the cap when
    grasping just below the body's top), and the half height more than 45 mm above the body's apothem
    (so a bottle lying on a placement target misses the upright height by more than 35 mm).
    """

    model_id: str
    sections: tuple[Section, ...]
    mass: float

    @property
    def body(self) -> Section:
        return self.sections[0]

    @property
    def height(self) -> float:
        return sum(s.height for s in self.sections)

    @property
    def upright_rest_height(self) -> float:
        """Height of the origin above its support when the bottle stands on its base."""
        return self.height / 2

    @property
    def lying_rest_height(self) -> float:
        """Height of the origin above its support when the bottle lies on a flat of its body."""
        return self.body.apothem

    @property
    def side_grasp_offset(self) -> float:
        """Axial offset (along body z) from the origin to the centre of the body section."""
        return self.body.height / 2 - self.height / 2

    @property
    def top_grasp_offset(self) -> float:
        """Axial offset (along body z) from the origin to the grasp point from above."""
        return self.body.height - TOP_GRASP_BELOW_BODY_TOP - self.height / 2

    @property
    def cap_above_body(self) -> float:
        """How far the shoulder, neck and cap rise above the body section."""
        return self.height - self.body.height


WATER_BOTTLE = BottleModel(
    "water_bottle",
    (
        Section(0.028, 0.150, 16, "cyan"),
        Section(0.024, 0.006, 16, "cyan"),
        Section(0.019, 0.006, 16, "cyan"),
        Section(0.012, 0.008, 8, "cyan"),
        Section(0.015, 0.012, 12, "red"),
    ),
    mass=0.15,
)
"""Tall slim water bottle (56 mm across the body, 182 mm tall): the base tasks' preset."""

SODA_BOTTLE = BottleModel(
    "soda_bottle",
    (
        Section(0.032, 0.128, 16, "green"),
        Section(0.027, 0.006, 16, "green"),
        Section(0.021, 0.006, 16, "green"),
        Section(0.013, 0.008, 8, "green"),
        Section(0.016, 0.012, 12, "yellow"),
    ),
    mass=0.18,
)
"""Shorter, wider bottle (64 mm across the body, 160 mm tall): reserved for the held-out variants."""

BOTTLE_MODELS: dict[str, BottleModel] = {m.model_id: m for m in (WATER_BOTTLE, SODA_BOTTLE)}


def bottle(
    name: str,
    pos: Sequence[float],
    quat: Sequence[float],
    model: BottleModel = WATER_BOTTLE,
) -> str:
    """A free bottle with its origin (geometric centre) at ``pos``; geoms ``<name>_s<i>_<k>``."""
    volumes = [s.apothem**2 * s.height for s in model.sections]
    base = -model.height / 2
    parts = []
    for i, (section, volume) in enumerate(zip(model.sections, volumes, strict=True)):
        parts.append(
            prism_geoms(
                f"{name}_s{i}",
                section.apothem,
                section.height,
                section.sides,
                base + section.height / 2,
                section.color,
                model.mass * volume / sum(volumes),
            )
        )
        base += section.height
    parts.append(hidden_site(f"{name}_side_grasp", (0.0, 0.0, model.side_grasp_offset)))
    parts.append(hidden_site(f"{name}_top_grasp", (0.0, 0.0, model.top_grasp_offset)))
    return free_body(name, pos, quat, "\n  ".join(parts))
