"""#26 Plate refractive index: the index n of a glass block from the shift of a focused image on the rail.

A lamp at the rail's left end lights a slide (the object); a lens and a thick glass block (its printed
thickness t on the card) stand in stands beside the rail's right end; a lens carriage, a block carriage
whose holder takes the block, and the screen carriage slide on the rail. Hidden: n, the lens's focal length
and the offset of the scale's printed zero. A plane-parallel block in the converging beam between the lens
and the screen moves the image downstream by Δ = t (1 − 1/n) whatever the lens and wherever the block
stands (paraxially), so with the lens fixed the screen's focused positions without and with the block give
n = 1 / (1 − Δ / t); the scale's zero and the lens cancel in Δ. Readings are index-mark positions taken with
the lens seated and the image in focus, each "with the block" while the block is seated in a holder between
the slide and the screen and "without" otherwise.

Geometry: the block is thick (t = 50 mm), so the shift Δ = 14-26 mm for n = 1.40-2.10, and it stands in the
image space of a lens 0.17 m from the slide (magnification 0.55-1.1, image 93-191 mm behind the lens), where
the shift is the block's alone; longitudinal magnification (the block in object space) would also magnify
the in-focus window's share of the shift and need the lens's focal length to undo it.

Error budget of the standard design (the screen at the sharpest image without and with the block, the lens
left in place); an error dΔ in the shift is dn / n = n dΔ / t, 2.8-4.2 % of n per mm:

- paraxial model: none (the image lies where the ray-transfer matrices put it; a test checks the seated
  block moves it by t (1 − 1/n) to 1e-9 m, 1e-7 of the tolerance);
- the printed thickness: exact (the block is made to it), none;
- the scale's zero and the lens: common to both readings, none;
- rail reading: a close-up of an index mark read to 0.1 mm is off by up to 0.18 mm as the marks fall on the
  camera's pixels; the mean of three close-ups 0.8 mm apart by about 0.06 mm; two readings in Δ, at most
  0.1 mm: 0.4 % of n (e 0.14). Read only to the card's 0.5 mm it would be up to 1 mm, 4 % of n;
- focus finding: the fingers holding the screen's post slip by 0.1-0.4 mm at every turn of the hand along
  the rail, so the kit operator's contrast search, which turns back after its scan, leaves the screen
  0.03-0.34 mm short of the image plane (up to 0.3 mm apart in Δ, 1.2 % of n, e 0.4; one of nine trial
  instances failed with it); approached only upwards after the scan, placed by the sharpness seen on the
  scan's steep flank, the screen stands 0.01-0.14 mm beyond the image, both times alike to 0.05 mm (14
  trial focusings): 0.2 % of n;
- the in-focus window (the card's bound) is ±1.4 % of the image distance, ±1.3-2.7 mm each time: a screen
  anywhere in it gives up to 5 mm in Δ, 15-20 % of n (the naive shortcut).

Together at most about 0.6 % of n (e 0.2) against the 3 % tolerance; the reference's e over the 20
released instances is at most 0.12 (mean 0.05).
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
from actloop.suites.lab.platforms.optical_rail import (
    OBJECT_X,
    Block,
    Carriage,
    Lens,
    OpticalRail,
    carriage_parts,
    focus_rule,
    rail_parts,
)
from actloop.suites.lab.platforms.optical_rail_evaluation import RailEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, log_uniform, uniform
from actloop.suites.lab.watch import Timeline

THICKNESS_M = 0.050
"""The block's printed thickness along the rail: the image moves 14-25 mm for the indexes drawn."""
INDEX = (1.40, 2.10)
"""Optical glasses from fluoride crowns to the densest flints, drawn log-uniformly: wide enough that no
index guessed from the card is within 3 % of more than a sixth of the blocks."""
LENS_X = -0.08
BLOCK_X = -0.035
"""The carriages start with the lens 0.17 m from the slide and the block's holder just beyond it, where the
block seated stands in the converging beam with room for the screen behind it."""
WITH_AND_WITHOUT = ReadingsAt(("screen_index",), "block", 2, "states of the block (in the beam or not)")

SPEC = specify(
    "plate_index",
    question="Determine the refractive index n of the glass block in the block stand.",
    budget_s=600.0,
    parameters=(
        Parameter("n", "refractive index of the glass block", "", log_uniform(*INDEX)),
        Parameter("f", "focal length of the lens", "m", uniform(0.06, 0.09)),
        Parameter(
            "scale_offset", "position of the rail scale's zero along the rail", "m", uniform(-0.004, 0.004)
        ),
        Parameter(
            "thickness",
            "the glass block's printed thickness along the rail",
            "m",
            choice(THICKNESS_M),
            public=True,
        ),
    ),
    parts=(
        *rail_parts(),
        Part("lens", "a converging lens in a frame with a grip on top; stands in the lens stand"),
        Part(
            "block",
            "a clear glass block with plane parallel faces across the rail (its printed thickness along "
            "the rail is on this card) and a grip on top; stands in the block stand",
        ),
        *carriage_parts(),
        Part("block_stand", "holds the block beside the right end of the rail", restore="fixed"),
        Part(
            "block_carriage",
            "slides on the rail, pushed or pulled by the grip block in front of it; the block set in its "
            "holder is seated with its centre on the optical axis above the index mark (block_index); the "
            "holder takes the block only, the lens carriage's the lens only",
            restore="any",
        ),
    ),
    rules=(
        "A reading is the position of an index mark (object_index, lens_index, block_index or screen_index) "
        "on the rail's scale, in mm, taken while the lens is seated in the lens carriage's holder and the "
        "image of the slide on the screen is in focus. It is taken with the block while the block is "
        "seated in a holder between the slide and the screen, and without it otherwise.",
        focus_rule(),
    ),
    minima=(WITH_AND_WITHOUT,),
)


class PlateRail(OpticalRail):
    """The optical rail with a block: the card's block is its glass and grip (not its stand or carriage)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **OpticalRail.drawn_as,
        "block": ("block_glass", "block_stem"),
    }


def bench(instance: Instance) -> PlateRail:
    """The optical rail of ``instance``: a lens, a glass block, their carriages and the screen."""
    h = instance.hidden
    lens = Lens(name="lens", focal_length=h["f"], stand_x=0.54)
    block = Block(name="block", stand_x=0.46, thickness=instance.public["thickness"], index=h["n"])
    carriages = (Carriage("lens", LENS_X), Carriage("block", BLOCK_X, slot=block.half))
    return PlateRail((lens, block), carriages, h["scale_offset"])


class PlateEvaluator(RailEvaluator):
    """Tracks whether the block stands in the beam besides the focus, and scores n."""

    restored_text = "the lens and the block are back in their stands"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, rail: Platform) -> None:
        super().__init__(spec, record, instance, rail)
        self.in_beam = Timeline(self.record, "block", "in_beam", False)
        """Whether the block is seated in a holder between the slide and the screen."""

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        rail = self.platform
        holder = rail.seats["block"]
        between = holder is not None and OBJECT_X < rail.carriage_x(data, holder) < rail.carriage_x(
            data, "screen"
        )
        self.in_beam.update(time_s, between)

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "block" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        return float(self.in_beam.at(verdict.time_s))

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        states = {
            self.in_beam.at(v.time_s)
            for v in valid
            if isinstance(v.citation, ReadingCitation) and v.citation.instrument == "screen_index"
            and v.time_s is not None
        }  # fmt: skip
        missing = [label for state, label in ((False, "without"), (True, "with")) if state not in states]
        return [
            *self.rail_milestones(log, conditions),
            Check("L4", not missing, "valid screen readings in focus with and without the block"
                  if not missing else f"no valid screen reading in focus {' or '.join(missing)} the block"),
        ]  # fmt: skip

    def targets(self) -> dict[str, float]:
        return {"n": self.instance.hidden["n"]}


EXPERIMENT = Experiment(SPEC, bench, PlateEvaluator)
