"""A desk bell: a wide heavy base, a dome and a small push button whose top centre is the functional point.

The bell is one rigid free body built from convex primitives. Its origin is the centre of the base's
bottom face (it rests on the table there); the evaluator-only site ``<name>_button_top`` marks the top
centre of the push button, the point a press should hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from actloop.sim.assets.common import OBJECT_GEOM, free_body, hidden_site

DOME_LIFT = 0.003
"""Clearance between the dome ellipsoid's lowest point and the table (the base carries the bell)."""
STEM_RADIUS = 0.004
STEM_EMBED = 0.003
"""How far the button stem reaches down into the dome, so the button sits on its surface."""


@dataclass(frozen=True)
class BellModel:
    """Dimensions (metres) and colours (RGBA strings) of one bell model id."""

    base_radius: float
    base_height: float
    dome_radius: float
    dome_height: float
    stem_height: float
    button_radius: float
    button_height: float
    base_rgba: str
    dome_rgba: str
    button_rgba: str
    base_mass: float = 0.6

    @property
    def dome_centre_z(self) -> float:
        return DOME_LIFT + self.dome_height

    @property
    def dome_top_z(self) -> float:
        return self.dome_centre_z + self.dome_height

    @property
    def button_top_z(self) -> float:
        """Height of the functional point above the bell's bottom face."""
        return self.dome_top_z + self.stem_height + self.button_height


BELL_MODELS: tuple[BellModel, ...] = (
    # 0: gold dome on a black base
    BellModel(
        base_radius=0.055,
        base_height=0.018,
        dome_radius=0.036,
        dome_height=0.030,
        stem_height=0.008,
        button_radius=0.008,
        button_height=0.006,
        base_rgba="0.08 0.08 0.09 1",
        dome_rgba="0.85 0.65 0.2 1",
        button_rgba="0.25 0.22 0.2 1",
    ),
    # 1: silver dome on a dark red base, smaller and flatter
    BellModel(
        base_radius=0.050,
        base_height=0.016,
        dome_radius=0.032,
        dome_height=0.025,
        stem_height=0.007,
        button_radius=0.007,
        button_height=0.005,
        base_rgba="0.45 0.06 0.06 1",
        dome_rgba="0.78 0.79 0.82 1",
        button_rgba="0.3 0.3 0.33 1",
    ),
)


def bell_button_site(name: str) -> str:
    """Name of the bell's functional-point site (top centre of its push button)."""
    return f"{name}_button_top"


def bell(name: str, xy: Sequence[float], table_z: float, model_id: int) -> str:
    """A desk bell of model ``model_id`` standing on the table at ``xy``; geoms ``<name>_<part>``."""
    m = BELL_MODELS[model_id]
    stem_bottom = m.dome_top_z - STEM_EMBED
    stem_half = (m.stem_height + STEM_EMBED) / 2
    button_centre = m.dome_top_z + m.stem_height + m.button_height / 2
    geoms = f"""
  <geom name="{name}_base" type="cylinder" size="{m.base_radius} {m.base_height / 2}"
        pos="0 0 {m.base_height / 2}" mass="{m.base_mass}" rgba="{m.base_rgba}" {OBJECT_GEOM}/>
  <geom name="{name}_dome" type="ellipsoid" size="{m.dome_radius} {m.dome_radius} {m.dome_height}"
        pos="0 0 {m.dome_centre_z}" mass="0.08" rgba="{m.dome_rgba}" {OBJECT_GEOM}/>
  <geom name="{name}_stem" type="cylinder" size="{STEM_RADIUS} {stem_half}"
        pos="0 0 {stem_bottom + stem_half}" mass="0.005" rgba="{m.button_rgba}" {OBJECT_GEOM}/>
  <geom name="{name}_button" type="cylinder" size="{m.button_radius} {m.button_height / 2}"
        pos="0 0 {button_centre}" mass="0.005" rgba="{m.button_rgba}" {OBJECT_GEOM}/>
  {hidden_site(bell_button_site(name), (0.0, 0.0, m.button_top_z))}"""
    return free_body(name, (xy[0], xy[1], table_z), (1.0, 0.0, 0.0, 0.0), geoms)
