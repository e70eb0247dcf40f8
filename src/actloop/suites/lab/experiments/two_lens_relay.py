"""#23 Two-lens relay: an upright image of the slide at a set magnification, formed by two lenses (configure).

A lamp at the rail's left end lights a slide (the object: a checkerboard of 2.5 mm squares with a clear
arrow pointing up); two converging lenses (lens_a, lens_b) stand in stands beside the rail's right end; two
holder carriages (near, nearer the lamp, and far) and the screen carriage slide on the rail. One positive
lens gives an inverted real image; an upright real image takes two, the first forming a real intermediate
image that the second images again (two inversions): m = m1 m2 with m_i = -v_i / u_i for each lens's own
conjugates. The card sets the magnification M; the agent leaves the bench with both lenses seated and the
screen where the image is in focus and upright at magnification M.

Hidden: each lens's focal length (45-60 mm each), each lens's principal-plane offset from its frame's
centre (which a seated lens has over its carriage's index mark; unmarked, as in #11) and the scale's zero
offset. Placing the lenses by a nominal focal length, or by each lens's f from one object distance read
with the index marks, leaves the magnification off by several per cent: each lens must be identified (f
and its offset, from conjugate pairs) and the relay computed from what was identified.

Scoring (configure): ŷ is the card's M; y* is measured in a continuation run of the final state (nothing
acting for a second): the signed magnification of the image the two lenses form (negative when inverted).
The relay counts only with both lenses seated and the screen in focus (blur circle at most FOCUS_BLUR_M);
otherwise ŷ is the reason, which scores as no value. Within the in-focus window the size the screen shows
(the chief ray's scale) changes by up to 3 % per millimetre where the exit pupil lies near the image: it is
not scored, so a screen slid within the window cannot make up for lenses set wrong. An inverted image
scores by its negative magnification, far outside 3 %. Readings (index marks) count while a lens is seated
and the image in focus; the evidence must include a reading of far_index (the second lens's mark, which
sets m2) taken with both lenses seated and the image in focus. At submission both lenses stay seated (the
relay stays set).
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import ContinuationEvaluator
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.optical_rail import (
    FOCUS_BLUR_M,
    Carriage,
    Lens,
    OpticalRail,
    focus_rule,
    rail_parts,
)
from actloop.suites.lab.platforms.optical_rail_evaluation import RailEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, uniform
from actloop.suites.lab.watch import Timeline, on_the_bench

LENSES = ("lens_a", "lens_b")
STAND_X = {"lens_a": 0.46, "lens_b": 0.54}
CARRIAGES = (Carriage("near", -0.12), Carriage("far", 0.05))
FOCAL_RANGE = (0.045, 0.060)
MAGNIFICATION_RANGE = (0.7, 1.4)
PRINCIPAL_OFFSET = (0.005, 0.012)
"""Each lens's principal plane lies 5 to 12 mm from its frame's centre towards the screen (as #11's)."""
RELAY = "both lenses seated and image in focus"
INDEXES = ("object_index", "near_index", "far_index", "screen_index")


def _parameters() -> tuple[Parameter, ...]:
    lenses = tuple(
        p
        for name in LENSES
        for p in (
            Parameter(f"f_{name[-1]}", f"{name}'s focal length", "m", uniform(*FOCAL_RANGE)),
            Parameter(
                f"principal_offset_{name[-1]}",
                f"distance of {name}'s principal plane from its frame's centre, towards the screen",
                "m",
                uniform(*PRINCIPAL_OFFSET),
            ),
        )
    )
    return (
        Parameter("M", "the set magnification of the upright image", "", uniform(*MAGNIFICATION_RANGE),
                  public=True),
        *lenses,
        Parameter("scale_offset", "position of the rail scale's zero along the rail", "m",
                  uniform(-0.004, 0.004)),
    )  # fmt: skip


def _lens_part(name: str) -> Part:
    return Part(
        name,
        f"a converging lens in a frame with a grip on top; stands in {name}_stand; its focal length is not "
        "printed and its optical centre (its principal plane) is not marked on the frame",
        restore="any",
    )


def _carriage_part(name: str, which: str) -> Part:
    return Part(
        f"{name}_carriage",
        f"a holder carriage ({which}) sliding on the rail, pushed or pulled by the grip block in front of "
        "it; a lens set in its holder is seated with its frame's centre on the optical axis above the index "
        f"mark ({name}_index)",
        restore="any",
    )


SPEC = specify(
    "two_lens_relay",
    question=(
        "Leave the bench forming, on the screen, a focused upright image of the slide at the set "
        "magnification M (image size over object size), made by both lenses seated in the carriages' holders."
    ),
    budget_s=1500.0,
    parameters=_parameters(),
    parts=(
        *rail_parts(),
        *(_lens_part(name) for name in LENSES),
        *(
            Part(f"{name}_stand", f"holds {name} beside the right end of the rail", restore="fixed")
            for name in LENSES
        ),
        _carriage_part("near", "the one nearer the lamp"),
        _carriage_part("far", "the one farther from the lamp"),
        Part(
            "screen_carriage",
            "slides on the rail, pushed or pulled by the post behind its screen; the translucent screen "
            "shows the image from either side; its index mark (screen_index) is under the screen's plane",
            restore="any",
        ),
    ),
    rules=(
        "The slide (the object) is a checkerboard of 2.5 mm squares with a clear arrow pointing up.",
        "A reading is the position of an index mark (object_index, near_index, far_index or screen_index) on "
        "the rail's scale, in mm, taken while a lens is seated in a holder and the image of the slide on the "
        "screen is in focus.",
        focus_rule(),
        "Scoring: a second after the submission, with nothing acting, the image on the screen must be in "
        "focus with both lenses seated, and upright; the magnification of the image the lenses form is "
        "scored against M (not the size the screen shows a little out of focus). An inverted image, a "
        "screen out of focus or a lens not seated fails. Nothing is submitted but the citations.",
        "At submission the relay stays set: both lenses seated in the carriages' holders and the screen "
        "where it is; no lens off the bench; the robot holds nothing.",
    ),
    minima=(
        ReadingsAt(("far_index",), "relay", 1, "set-ups with both lenses seated and the image in focus"),
    ),
    continuation_s=1.0,
)


def bench(instance: Instance) -> OpticalRail:
    """The optical rail of ``instance``: two lenses, the near and far carriages, the screen."""
    h = instance.hidden
    lenses = tuple(
        Lens(
            name=name,
            focal_length=h[f"f_{name[-1]}"],
            stand_x=STAND_X[name],
            principal_offset=h[f"principal_offset_{name[-1]}"],
        )
        for name in LENSES
    )
    return OpticalRail(lenses, CARRIAGES, h["scale_offset"])


def relay_fault(rail: OpticalRail) -> str:
    """Why the rail forms no relay image (both lenses seated, the screen in focus); empty when it does."""
    loose = [name for name, seat in rail.seats.items() if seat is None]
    if loose:
        return f"{' and '.join(loose)} not seated in a holder"
    blur = rail.blur_diameter()
    if blur > FOCUS_BLUR_M:
        return f"the screen is out of focus (blur circle {1000 * blur:.2f} mm > {1000 * FOCUS_BLUR_M:g} mm)"
    return ""


class RelayEvaluator(ContinuationEvaluator, RailEvaluator):
    """Watches the rail (readings in focus with a lens seated; when both lenses are seated and the image in
    focus) and measures the relay's magnification in the continuation run."""

    restored_text = "the relay is left set (both lenses seated) and the robot holds nothing"
    readable_at_l3 = INDEXES[1:]

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, rail: Platform) -> None:
        super().__init__(spec, record, instance, rail)
        self.relay = Timeline(self.record, "relay", "set", False)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        self.relay.update(time_s, not relay_fault(self.platform))

    def _relay_at(self, verdict: Verdict) -> bool:
        return verdict.time_s is not None and self.relay.at(verdict.time_s)

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name == "relay":
            return 1.0 if self._relay_at(verdict) else None
        return super().property_of(name, verdict, log)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        relayed = {
            v.citation.instrument
            for v in valid
            if isinstance(v.citation, ReadingCitation) and self._relay_at(v)
        }
        return [
            *self.rail_milestones(log, conditions),
            Check("L4", bool(relayed), f"valid readings with {RELAY}: {', '.join(sorted(relayed))}" if relayed
                  else f"no valid reading with {RELAY}"),
        ]  # fmt: skip

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        problems = []
        for item in self.platform.items:
            if off := on_the_bench(data, item.name):
                problems += off
            elif self.platform.seated_in(data, item) is None:
                problems.append(f"{item.name} is not seated in a holder (the relay must stay set)")
        return problems

    def set_up(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        """ŷ of m is the card's M when the relay forms an upright focused image; otherwise why not."""
        assert isinstance(platform, OpticalRail)
        fault = relay_fault(platform)
        if not fault and platform.rail is not None and platform.rail.image().magnification < 0:
            fault = f"the image is inverted (magnification {platform.rail.image().magnification:.3f})"
        return {"m": f"no relay image: {fault}"} if fault else {}

    def continued_targets(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        assert isinstance(platform, OpticalRail) and platform.rail is not None
        return {"m": platform.rail.image().magnification}


EXPERIMENT = Experiment(SPEC, bench, RelayEvaluator)
