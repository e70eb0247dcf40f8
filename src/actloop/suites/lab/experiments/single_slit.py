"""#25 Single-slit width: the width a of a single slit from its Fraunhofer dark fringes on the laser rail.

A laser at the rail's left end (its wavelength on the card) shines along the rail; a slit on a slide stands
in a stand beside the rail's right end; a holder carriage takes the slide, and the wide screen on its own
carriage shows the far-field pattern, sinc²(a sin θ / λ), with a printed millimetre scale on its back. The
dark fringes m = ±1, ±2, … lie where a sin θ = m λ, at L tan θ from the central maximum on a screen a
distance L from the slit (instruments ``dark_<m>``, read on the screen's scale). Hidden: a, the offset of the
rail scale's zero, the offset of the screen scale's zero (the scale's number at the central maximum is
not known beforehand) and the distance of the slit's plane from its frame's centre (which a seated slide
has over the carriage's index mark), so L read from the index marks is off by that distance.

Error budget (a = 40 to 100 µm, λ = 650 nm, the slit's mark 0.10 m from the laser's and the screen where
it starts, L about 0.40 m: the dark fringes 2.6 to 6.5 mm apart; the tolerance 1 %):

- physics: the zeros are exact in the angle (a test checks the logged fringes against a sin θ = m λ to
  1e-12 and finds the drawn screen darkest there); none;
- fringe readings: the card's resolution is 0.5 mm; a view of the screen's whole back from the wrist
  camera (3.6 px per mm) locates a dark fringe to about 0.05 mm against the printed ticks. The first
  fringe's distance from the central maximum, two readings to 0.5 mm, is 4-19 % off (the naive shortcut,
  83 % of instances fail); the slope over the fringes ±1 to ±6 on both sides averages twelve readings and
  drops the screen scale's unknown zero: 0.2-0.4 % (1σ) from 0.5 mm readings, 0.03 % from the camera's;
- small angles: a = λ L / spacing misses tan θ against sin θ, up to 0.5 % at the sixth fringe of the
  narrowest slit (a slope of y against m, 0.3 %); sin θ = y / √(y² + L²) or the exact y_m removes it;
- distance: the slit's plane lies up to 1 mm either side of its index mark, up to 0.25 % of L; the two
  index marks read to about 0.1 mm from close-ups, 0.04 %.

Together under 0.3 % for the reference and under 0.7 % (99 % of instances) for the standard design read
to the card's resolution, against the 1 % tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.laser_rail import LaserRail, SlitSlide, laser_rail_parts, offset_parameters
from actloop.suites.lab.platforms.optical_rail import Carriage
from actloop.suites.lab.platforms.optical_rail_evaluation import DiffractionEvaluator
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, choice, log_uniform

WAVELENGTH_M = 650e-9
"""The laser's printed wavelength (a red diode laser)."""
WIDTH = (40e-6, 100e-6)
"""Slit widths drawn log-uniformly: no width guessed from the card is within 1 % of more than a
twentyfifth of the slits; the sixth dark fringe of the narrowest stays on the screen up to 0.5 m from the
slit, and the fringes of the widest are still 9 px apart to the wrist camera at 0.4 m."""
PRINCIPAL_OFFSET = 0.001
"""The slit's plane lies up to 1 mm either side of its frame's centre (the slit is cut in a plate held
somewhere in the middle of the 6 mm thick frame)."""
SLIT_X = -0.05
"""The slit carriage starts in the rail's middle."""
INDEXES = ("slit_index", "screen_index")

SPEC = specify(
    "single_slit",
    question="Determine the width a of the single slit in the slit stand, in m.",
    budget_s=900.0,
    parameters=(
        Parameter("a", "width of the slit", "m", log_uniform(*WIDTH)),
        *offset_parameters("slit", PRINCIPAL_OFFSET),
        Parameter("wavelength", "the laser's printed wavelength", "m", choice(WAVELENGTH_M), public=True),
    ),
    parts=laser_rail_parts(
        "its wavelength is printed on it (this card's wavelength)",
        "slit",
        "a single slit (a narrow vertical opening, its edges straight and parallel)",
    ),
    rules=(
        "A reading is the position of an index mark (object_index, slit_index or screen_index) on the "
        "rail's scale, or of a dark fringe of the pattern on the screen's scale (dark_-6 ... dark_-1 on "
        "the side of falling numbers, dark_+1 ... dark_+6 on the side of rising numbers, each numbered "
        "from the central maximum), in mm, taken while the slit is seated in the carriage's holder.",
    ),
)


class SlitRail(LaserRail):
    """The laser rail with a slit: the card's slit is its slide and grip (not its stand or carriage)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **LaserRail.drawn_as,
        "slit": ("slit_glass", "slit_stem"),
    }


def bench(instance: Instance) -> SlitRail:
    """The laser rail of ``instance``: the slit in its stand, its carriage and the screen."""
    h = instance.hidden
    slit = SlitSlide(name="slit", stand_x=0.50, principal_offset=h["principal_offset"], width=h["a"])
    return SlitRail(
        (slit,), (Carriage("slit", SLIT_X),), h["scale_offset"], instance.public["wavelength"],
        h["screen_scale_offset"],
    )  # fmt: skip


class SlitEvaluator(DiffractionEvaluator):
    """Scores the slit's width, from readings of dark fringes on both sides and of both index marks."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        read = {v.citation.instrument for v in valid if isinstance(v.citation, ReadingCitation)}
        missing = [name for name in INDEXES if name not in read]
        missing += [f"a dark fringe on the {side} side" for side, sign in (("minus", "-"), ("plus", "+"))
                    if not any(name.startswith(f"dark_{sign}") for name in read)]  # fmt: skip
        return [
            *self.rail_milestones(log, conditions),
            Check("L4", not missing, "valid readings of dark fringes on both sides and of both index marks"
                  if not missing else f"no valid reading of {', '.join(missing)}"),
        ]  # fmt: skip

    def targets(self) -> dict[str, float]:
        return {"a": self.instance.hidden["a"]}


EXPERIMENT = Experiment(SPEC, bench, SlitEvaluator)
