"""What a platform supplies to the lab bench."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from actloop.suites.lab.instruments import InstrumentSpec, LoggerSpec, Shown

LAYOUT_DECIMALS = 6
"""Published positions are rounded to the micrometre (exact for the benches' designed dimensions, so a
reference adding its offsets to them gets the very floats the scene was built from)."""
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
"""Small counts as a card writes them."""


def published(positions: Mapping[str, Sequence[float]]) -> dict[str, list[float]]:
    """A layout as the calibration publishes it: every value rounded to LAYOUT_DECIMALS."""
    return {name: [round(float(v), LAYOUT_DECIMALS) for v in values] for name, values in positions.items()}


@dataclass(frozen=True)
class ReadingSite:
    """Where an instrument is read in the world: the point a reader looks at, the world step between two
    adjacent graduations (or a digit's height) at that point, and the geoms of the instrument itself (its
    marks, its pointer): a ray from a camera that first hits any other geom is occluded."""

    point: np.ndarray
    resolve: np.ndarray
    geoms: tuple[str, ...]


class Platform(ABC):
    """An apparatus on the bench, built for one instance: its MJCF bodies, its printed textures, and the
    hooks the bench calls as the physics advances (models MuJoCo does not have, instruments)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Card parts whose bodies and geoms carry other names: part -> those names (a part is otherwise drawn
    by the bodies and geoms named after it)."""

    @abstractmethod
    def bodies_xml(self) -> str:
        """MJCF bodies and geoms added to the world body (materials may name :meth:`textures`)."""

    def assets_xml(self) -> str:
        """MJCF assets (materials) the bodies use."""
        return ""

    def sections_xml(self) -> str:
        """Top-level MJCF sections after the world body (tendons, contact exclusions)."""
        return ""

    def textures(self) -> dict[str, np.ndarray]:
        """Named RGB textures (H×W×3 uint8), e.g. printed scales."""
        return {}

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        """Textures to redraw before a frame is rendered, by name (same size as in :meth:`textures`), given
        what each instrument's display shows now (``shown(name)``): the faces of digital displays."""
        return {}

    def layout(self) -> dict[str, list[float]]:
        """The bench's published layout: world positions (m) of its visible fixtures and parts at the start,
        by name, that any experimenter may use (served in the calibration; a test keeps them equal to the
        scene). Never a hidden value."""
        return {}

    def instruments(self) -> list[InstrumentSpec]:
        """The instruments on this bench."""
        return []

    def loggers(self) -> list[LoggerSpec]:
        """The data loggers on this bench (each records some instruments' shown values)."""
        return []

    def recording(self) -> set[str]:
        """The loggers recording now (their controls are physical: a key, a switch)."""
        return set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        """The true value each instrument is given this step, by instrument name."""
        return {}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        """Where each instrument is read, for the readability of served images."""
        return {}

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:  # noqa: B027  (optional hook)
        """Called once the model is compiled and the arm is at home (look up ids, set initial state)."""

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:  # noqa: B027  (optional hook)
        """Called after every physics step (advance non-rigid models, update displays)."""


def turn_about_y(rise: float, run: float) -> tuple[float, float, float, float]:
    """The rotation about +y that turns +x towards (run, 0, rise) (w, x, y, z), from square roots only."""
    length = math.sqrt(run * run + rise * rise)
    cos_full = run / length
    cos_half = math.sqrt((1.0 + cos_full) / 2.0)
    sin_half = -rise / length / (2.0 * cos_half)
    return (cos_half, 0.0, sin_half, 0.0)
