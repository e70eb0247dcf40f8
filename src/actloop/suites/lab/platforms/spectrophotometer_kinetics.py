"""The spectrophotometer bench for kinetics: cuvettes of crystal violet, vials of sodium hydroxide to pour
into them, and a logger recording the instrument.

On top of :mod:`.spectrophotometer`: a LOG key on the deck starts and stops the logger, which records the
wavelength and absorbance LCDs at every refresh; a vial rack to the right of the cuvettes holds vials of
base. Every cuvette and vial is a vessel (:mod:`.vessels`): a vial tipped until its surface reaches the rim
pours from its lip, into the cuvette whose mouth lies below or onto the bench, and a cuvette tipped over
spills the same way. Crystal violet fades from the moment base reaches it
(:func:`~actloop.suites.lab.physics.solutions.fade`); the seated cuvette's absorbance is its dye's
Beer-Lambert absorbance at that moment, and each liquid is drawn at its height and colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import LoggerSpec, Shown
from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET, Portion, fade
from actloop.suites.lab.physics.spectra import Band, Dye
from actloop.suites.lab.platforms.base import NUMBER_WORDS, published
from actloop.suites.lab.platforms.spectrophotometer import (
    CELL_ABSORBANCE,
    CUVETTE_HALF,
    KEYS,
    LIQUID_HALF,
    RACK_PITCH,
    RACK_Y,
    REFRESH_HZ,
    Cuvette,
    SpectrophotometerBench,
    liquid_rgb,
    rack_xml,
)
from actloop.suites.lab.platforms.vessels import Shape, Vessels
from actloop.suites.lab.spec import Part

LOG_KEY_X = 0.02
LOGGER = "logger"
CRYSTAL_VIOLET_DYE = Dye("crystal violet", (Band(592.0, 24.0), Band(545.0, 20.0, 0.35)), 87_000.0)
"""Crystal violet's spectrum in water: its main band near 590 nm with a shoulder near 545 nm."""
VIAL_RADIUS = 0.009
VIAL_HALF_HEIGHT = 0.03
VIAL_MASS = 0.012
VIAL_X0 = -0.17
"""The first vial's slot (x), RACK_PITCH apart, in a row left of the cuvettes."""
STAND_HALF = (0.085, 0.03, 0.03)
"""The vials' rack stands on a block this big (half sizes), so a hand can take a vial from the side."""
STAND_TOP = TABLE_TOP_Z + 2 * STAND_HALF[2]
VIAL_SLOT_HALF = 0.0115
"""A vial slot's half width: 2.5 mm of play around a vial."""
VIAL_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2" solref="0.004 1"'
"""A vial's contacts: stiff, with torsional friction, so that it neither creeps through the fingers nor
pivots between them while it is carried on its side."""
CUVETTE_SHAPE = Shape(LIQUID_HALF[0], 2 * CUVETTE_HALF[1] - 0.002, -CUVETTE_HALF[1] + 0.002)
VIAL_SHAPE = Shape(0.0075, 2 * VIAL_HALF_HEIGHT - 0.002, -VIAL_HALF_HEIGHT + 0.002, round=True)
BEAM_HEIGHT_M = 0.015
"""The beam crosses the cuvette this far above its inner floor: lower contents leave it in air."""


def vial_slot(k: int) -> tuple[float, float, float]:
    """Where vial ``k`` (from 1) stands in its rack (its centre), metres."""
    return (VIAL_X0 + (k - 1) * RACK_PITCH, RACK_Y, STAND_TOP + VIAL_HALF_HEIGHT)


def log_key_part() -> Part:
    """The LOG key, as the card describes it."""
    return Part(
        "key_log",
        "push key: starts or stops the logger, which records the wavelength and the absorbance at every "
        f"refresh of the LCDs ({REFRESH_HZ:g} rows a second) into a file the bench exports",
        "fixed",
    )


def vial_rack_part(vials: int) -> Part:
    return Part(
        "vial_rack", f"{NUMBER_WORDS[vials]} round slots in a row on a block left of the cuvettes", "fixed"
    )


def colour(portion: Portion) -> tuple[float, float, float]:
    """A solution's colour through 1 cm: crystal violet's transmittance in the red, green and blue."""
    return liquid_rgb(((CRYSTAL_VIOLET_DYE, portion.concentration(CRYSTAL_VIOLET)),))


class KineticsBench(SpectrophotometerBench):
    """The spectrophotometer with ``cuvettes`` (their true contents in ``cuvette_contents``) and vials of
    ``vial_contents``; crystal violet fades at ``k0`` (1/s) plus ``k2`` (L mol⁻¹ s⁻¹) times [OH⁻]."""

    keys = (*KEYS, ("log", LOG_KEY_X))

    def __init__(
        self,
        cuvettes: Sequence[Cuvette],
        cuvette_contents: Sequence[Portion],
        vial_contents: Sequence[Portion],
        k0: float,
        k2: float,
        seed: int | str,
    ) -> None:
        super().__init__(cuvettes, seed)
        self.vials = tuple(f"vial_{k}" for k in range(1, len(vial_contents) + 1))
        self.vessels = Vessels(
            [c.name for c in cuvettes] + list(self.vials),
            [CUVETTE_SHAPE] * len(cuvettes) + [VIAL_SHAPE] * len(vial_contents),
            [*cuvette_contents, *vial_contents],
            colour,
            lambda portion, seconds: fade(portion, seconds, k0, k2),
        )
        self.logging = False
        self._model: mujoco.MjModel | None = None
        self._time = 0.0

    # --- scene ---
    def bodies_xml(self) -> str:
        vials = "\n".join(self._vial_xml(k) for k in range(1, len(self.vials) + 1))
        first = vial_slot(1)[:2]
        rack = rack_xml("vial_rack", "vial_rack", len(self.vials), first, VIAL_SLOT_HALF, STAND_TOP)
        middle = first[0] + (len(self.vials) - 1) * RACK_PITCH / 2
        stand = (
            f'<body name="vial_stand" pos="{middle:.4f} {RACK_Y} {TABLE_TOP_Z + STAND_HALF[2]}">\n'
            f'  <geom name="vial_stand" type="box" size="{" ".join(map(str, STAND_HALF))}" '
            f'rgba="0.35 0.3 0.25 1" {WORLD_GEOM}/>\n</body>'
        )
        return super().bodies_xml() + stand + rack + vials

    def _vial_xml(self, k: int) -> str:
        x, y, z = vial_slot(k)
        inner, depth, floor = VIAL_SHAPE.inner_half, VIAL_SHAPE.depth, VIAL_SHAPE.floor_z
        return f"""
<body name="vial_{k}" pos="{x:.4f} {y} {z + 0.0005:.5f}">
  <freejoint name="vial_{k}_free"/>
  <geom name="vial_{k}" type="cylinder" size="{VIAL_RADIUS} {VIAL_HALF_HEIGHT}" mass="{VIAL_MASS}"
        rgba="0.9 0.94 0.97 0.35" {VIAL_CONTACT} {WORLD_GEOM}/>
  <geom name="vial_{k}_liquid" type="cylinder" size="{inner} {depth / 2:.4f}"
        pos="0 0 {floor + depth / 2:.4f}" rgba="0.95 0.95 1 1" contype="0" conaffinity="0" mass="0"/>
</body>"""

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        self.vessels.attach(model)
        self._model = model
        self.vessels.draw(model, 0.0)

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        log_was_down = self.down["log"]
        super().after_step(model, data)
        time_s = self._time = self._now(data)
        if self.down["log"] and not log_was_down:
            self.logging = not self.logging
        self.vessels.step(data, self._dt, time_s)

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        """The LCDs' faces, and every vessel's liquid drawn as it is now."""
        if self._model is not None:
            self.vessels.draw(self._model, self._time)
        return super().redraw(shown)

    def absorbance_in_beam(self, time_s: float) -> float:
        """The seated cuvette's cell and, when its liquid reaches the beam, its dye's absorbance now."""
        if self.in_holder is None:
            return 0.0
        portion = self.vessels.contents(self.in_holder, time_s)
        if CUVETTE_SHAPE.fill_height(portion.volume_ml) < BEAM_HEIGHT_M:
            return CELL_ABSORBANCE
        dye = portion.concentration(CRYSTAL_VIOLET)
        return CELL_ABSORBANCE + CRYSTAL_VIOLET_DYE.epsilon(self.meter.wavelength) * dye

    # --- the logger ---
    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, ("wavelength", "absorbance"), REFRESH_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The spectrophotometer's layout (the LOG key's among its keys), each vial's place in its rack (the
        floor under its centre) and a vial's size (diameter, diameter, height)."""
        return {
            **super().layout(),
            **published(
                {
                    **{f"{v}_slot": [*vial_slot(k)[:2], STAND_TOP] for k, v in enumerate(self.vials, 1)},
                    "vial_size": [2 * VIAL_RADIUS, 2 * VIAL_RADIUS, 2 * VIAL_HALF_HEIGHT],
                }
            ),
        }
