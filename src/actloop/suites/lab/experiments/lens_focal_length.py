"""#11 Lens focal length: the focal length of a converging lens from focused images on the optical rail.

A lamp at the rail's left end lights a slide (the object); a lens stands in a stand beside the rail's right
end; a carriage with a holder and a translucent screen on its own carriage slide on the rail. Hidden: the
focal length, the offset of the rail scale's printed zero and the distance of the lens's principal plane
from its frame's centre (which a seated lens has over the carriage's index mark): one object distance with
the thin-lens formula keeps that offset, a conjugate pair or a fit over several distances removes it.
Readings are index-mark positions on the
scale, taken while the lens is seated in the holder and the slide's image on the screen is in focus (its
blur circle no larger than a close-up camera resolves).
"""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.optical_rail import (
    Carriage,
    Lens,
    OpticalRail,
    carriage_parts,
    focus_rule,
    rail_parts,
)
from actloop.suites.lab.platforms.optical_rail_evaluation import RailEvaluator
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, Part, uniform

PRINCIPAL_OFFSET = (0.005, 0.012)
"""The lens's principal plane lies 5 to 12 mm from its frame's centre towards the screen (a meniscus lens in
its frame): enough that the thin-lens formula at one object distance, read from the index mark, misses 1 %
on most instances."""

SPEC = specify(
    "lens_focal_length",
    question="Determine the focal length f of the lens in the lens stand, in m.",
    budget_s=900.0,
    parameters=(
        Parameter("f", "focal length of the lens", "m", uniform(0.06, 0.10)),
        Parameter(
            "scale_offset", "position of the rail scale's zero along the rail", "m", uniform(-0.004, 0.004)
        ),
        Parameter(
            "principal_offset",
            "distance of the lens's principal plane from its frame's centre, towards the screen",
            "m",
            uniform(PRINCIPAL_OFFSET[0], PRINCIPAL_OFFSET[1]),
        ),
    ),
    parts=(
        *rail_parts(),
        Part(
            "lens",
            "a converging lens in a frame with a grip on top; stands in the lens stand; the lens's optical "
            "centre (its principal plane) is not marked on the frame",
        ),
        *carriage_parts(),
    ),
    rules=(
        "A reading is the position of an index mark (object_index, lens_index or screen_index) on the rail's "
        "scale, in mm, taken while the lens is seated in the lens carriage's holder and the image of the "
        "slide on the screen is in focus.",
        focus_rule(),
    ),
)

INDEXES = ("object_index", "lens_index", "screen_index")


def bench(instance: Instance) -> OpticalRail:
    """The optical rail of ``instance``: one lens, one lens carriage, the screen."""
    h = instance.hidden
    lens = Lens(name="lens", focal_length=h["f"], stand_x=0.50, principal_offset=h["principal_offset"])
    return OpticalRail((lens,), (Carriage("lens", -0.05),), h["scale_offset"])


class LensEvaluator(RailEvaluator):
    """Scores the focal length against the hidden one, from readings of every index mark."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        read = {v.citation.instrument for v in valid if isinstance(v.citation, ReadingCitation)}
        missing = [name for name in INDEXES if name not in read]
        return [
            *self.rail_milestones(log, conditions),
            Check("L4", not missing, "valid readings of every index" if not missing
                  else f"no valid reading of {', '.join(missing)}"),
        ]  # fmt: skip

    def targets(self) -> dict[str, float]:
        return {"f": self.instance.hidden["f"]}


EXPERIMENT = Experiment(SPEC, bench, LensEvaluator)
