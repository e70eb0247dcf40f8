"""#12 Grating wavelength: the wavelength λ of a laser from the spots a grating of printed line density sends
onto a screen on the laser rail.

A laser at the rail's left end shines along the rail; a transmission grating (its line density N printed
on the card) on a slide stands in a stand beside the rail's right end; a holder carriage takes the slide,
and the wide screen on its own carriage shows the orders as spots, with a printed millimetre scale on its
back. Order m leaves at sin θ_m = m λ N and lands L tan θ_m from the straight-through beam on a screen a
distance L from the grating's plane (instruments ``order_<m>``, read on the screen's scale). Hidden: λ, the
offset of the rail scale's zero, the offset of the screen scale's zero (the scale's number at the beam is
not known beforehand) and the distance of the grating's plane (a film on a glass plate in the frame) from
its frame's centre, which a seated slide has over the carriage's index mark, so L read from the index marks
is off by that distance.

Error budget (λ = 520 to 680 nm, N = 300 /mm: θ₁ = 9.0-11.8°, tan θ₁ = 0.158-0.208; dλ / λ = cos² θ (dy / y
− dL / L); the tolerance 1 %):

- physics: the spots lie exactly where the grating equation puts them (a test checks the logged orders
  against L tan(asin(λ N)) from the grating's plane to 1e-9); none;
- the angle: λ = y / (L N), the small-angle formula, is 1.2-2.2 % long (1 / cos θ); sin θ = y / √(y² + L²)
  removes it;
- the screen scale's zero: off its nominal place (75 mm at the beam) by up to 4 mm, 6-10 % of y at
  L = 0.30 m when one order is read from the nominal zero; half the distance between orders −1 and +1
  (or an order from order_0) drops it;
- spot readings: two readings to the card's 0.5 mm give the half-separation (47-62 mm at L = 0.30 m) to
  at most 0.25 mm, 0.5 % (σ 0.2 %). The wrist camera's view of the screen's whole back (3.6 px per mm)
  finds a spot's centroid to 0.01 px; a thin tick's column is off by up to 0.2 px (0.14 px rms) as it
  falls on the pixels, so interpolating between the two ticks beside a spot leaves up to 0.05 mm, and
  (with the spots at different phases) a half-separation off by a few hundredths of a millimetre; a cubic
  fitted over all 150 ticks reads the half-separation to 0.003 mm (every spot reads the same 0.15 mm
  below its logged value, which the half-separation drops);
- distance: the grating's plane lies up to 2 mm either side of its index mark, up to 0.67 % of L = 0.30 m
  (a noticeable share of the tolerance); the two index marks read to 0.5 mm give L to 0.5 mm, 0.17 %.
  Readings at two distances (the half-separations' difference over the index marks' difference) drop
  the plane's offset, at the cost of the half-separations' errors over a shorter difference.

The standard design (both first orders at one distance, L = 0.30 m from the index marks, the exact
angle, everything read to 0.5 mm) misses by at most 0.9 % (99.9 % of instances within the tolerance). The
reference reads the spots from the camera at two distances 0.20 m apart (Δy = 32-42 mm, 0.01 % from the
spots) and the index marks from close-ups to about 0.1 mm (their 0.2 m difference to 0.05-0.15 %, the
larger part): e at most 0.10 (mean 0.04) over the 20 released instances and 0.16 over 20 of a private
set. Both first orders stay on the screen's scale (within 70 mm
of the beam) for every λ up to L = 0.33 m.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.laser_rail import (
    GratingSlide,
    LaserRail,
    laser_rail_parts,
    offset_parameters,
)
from actloop.suites.lab.platforms.optical_rail import Carriage
from actloop.suites.lab.platforms.optical_rail_evaluation import DiffractionEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, choice, uniform
from actloop.suites.lab.watch import Timeline

WAVELENGTH_NM = (520.0, 680.0)
"""From green to deep red: the spot's colour tells the wavelength only roughly."""
LINES_PER_MM = 300.0
"""The grating's printed line density."""
PRINCIPAL_OFFSET = 0.002
"""The grating's plane lies up to 2 mm either side of its frame's centre (the film on a plate held
somewhere in the 6 mm thick frame)."""
GRATING_X = -0.05
"""The grating carriage starts in the rail's middle, 0.30 m from the screen."""
INDEXES = ("grating_index", "screen_index")
FIRST_ORDERS = ("order_-1", "order_+1")
SETTING_DRIFT = 0.0005
"""A new setting begins when the grating-to-screen distance moves this far from where the setting began
(the first orders move by at most 0.1 mm within one)."""

SPEC = specify(
    "grating_wavelength",
    question="Determine the wavelength lambda of the laser, in nm.",
    budget_s=900.0,
    parameters=(
        Parameter("lambda", "the laser's wavelength", "nm", uniform(*WAVELENGTH_NM)),
        *offset_parameters("grating", PRINCIPAL_OFFSET),
        Parameter(
            "lines_per_mm",
            "the grating's printed line density",
            "lines/mm",
            choice(LINES_PER_MM),
            public=True,
        ),
    ),
    parts=laser_rail_parts(
        "its wavelength is not marked",
        "grating",
        "a transmission grating (vertical lines, this card's line density)",
    ),
    rules=(
        "A reading is the position of an index mark (object_index, grating_index or screen_index) on the "
        "rail's scale, or of a spot of the pattern on the screen's scale (order_0 the straight-through "
        "beam, order_-1 and order_-2 on the side of falling numbers, order_+1 and order_+2 on the side of "
        "rising numbers), its centre in mm, taken while the grating is seated in the carriage's holder.",
    ),
)


class GratingRail(LaserRail):
    """The laser rail with a grating: the card's grating is its slide and grip (not its stand or
    carriage)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **LaserRail.drawn_as,
        "grating": ("grating_glass", "grating_stem"),
    }


def bench(instance: Instance) -> GratingRail:
    """The laser rail of ``instance``: the grating in its stand, its carriage and the screen."""
    h = instance.hidden
    grating = GratingSlide(
        name="grating",
        stand_x=0.50,
        principal_offset=h["principal_offset"],
        lines_per_m=1000.0 * instance.public["lines_per_mm"],
    )
    return GratingRail(
        (grating,), (Carriage("grating", GRATING_X),), h["scale_offset"], 1e-9 * h["lambda"],
        h["screen_scale_offset"],
    )  # fmt: skip


class GratingEvaluator(DiffractionEvaluator):
    """Numbers the settings of the grating's distance from the screen (the spots stand still within one)
    and scores λ from readings of both first orders in one setting and of both index marks."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, rail: Platform) -> None:
        super().__init__(spec, record, instance, rail)
        self.setting = Timeline(self.record, "setting", "number", 0)
        """The setting the spots are in: 0 while no grating is seated, then 1, 2, ... as the distance from
        the seated grating to the screen changes by more than SETTING_DRIFT."""
        self._began: float | None = None
        self._settings = 0

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        rail = self.platform
        assert isinstance(rail, LaserRail)
        if not rail.diffracting:
            self._began = None
            self.setting.update(time_s, 0)
            return
        length = rail.distance(rail.diffracting[0])
        if self._began is None or abs(length - self._began) > SETTING_DRIFT:
            self._began = length
            self._settings += 1
            self.setting.update(time_s, self._settings)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        read: dict[str, set[int]] = {}
        for v in valid:
            if isinstance(v.citation, ReadingCitation) and v.time_s is not None:
                read.setdefault(v.citation.instrument, set()).add(self.setting.at(v.time_s))
        both = read.get(FIRST_ORDERS[0], set()) & read.get(FIRST_ORDERS[1], set())
        missing = [name for name in INDEXES if name not in read]
        if not both:
            missing.insert(0, "order_-1 and order_+1 with the grating and the screen in one place")
        return [
            *self.rail_milestones(log, conditions),
            Check("L4", not missing, "valid readings of both first orders in one setting and of both index "
                  "marks" if not missing else f"no valid reading of {', '.join(missing)}"),
        ]  # fmt: skip

    def targets(self) -> dict[str, float]:
        return {"lambda": self.instance.hidden["lambda"]}


EXPERIMENT = Experiment(SPEC, bench, GratingEvaluator)
