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

import math
from collections.abc import Sequence
from typing import Any

import mujoco

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import Evaluator, robot_geom_ids
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.optical_rail import LENS_APERTURE, Carriage, Lens, OpticalRail
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, uniform

FOCUS_BLUR_M = 0.0005
"""The image is in focus while its blur circle is at most 0.5 mm across: about two pixels of a camera 14 cm
from the screen, to which the slide's 2.5 mm squares then look sharp-edged."""

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
        Part("rail", "a rail along the bench carrying the lamp and the carriages", restore="fixed"),
        Part(
            "scale",
            "a millimetre scale printed along the rail's front, read under each red index mark: its zero "
            "(not numbered) is near the rail's left (lamp) end, and it counts to the right; a longer tick "
            "every 5 mm and a number every 10 mm that counts centimetres (the tick numbered 12 is 120 mm); "
            "readings are cited in mm",
            restore="fixed",
        ),
        Part(
            "lamp",
            "a lamp housing fixed at the rail's left end lighting a slide (the object); its index mark "
            "(object_index) is under the slide's plane",
            restore="fixed",
        ),
        Part(
            "lens",
            "a converging lens in a frame with a grip on top; stands in the lens stand; the lens's optical "
            "centre (its principal plane) is not marked on the frame",
        ),
        Part("lens_stand", "holds the lens beside the right end of the rail", restore="fixed"),
        Part(
            "lens_carriage",
            "slides on the rail, pushed or pulled by the grip block in front of it; a lens set in its holder "
            "is seated with its frame's centre on the optical axis above the index mark (lens_index)",
            restore="any",
        ),
        Part(
            "screen_carriage",
            "slides on the rail, pushed or pulled by the post behind its screen; the translucent screen "
            "shows the image from either side; its index mark (screen_index) is under the screen's plane",
            restore="any",
        ),
    ),
    rules=(
        "A reading is the position of an index mark (object_index, lens_index or screen_index) on the rail's "
        "scale, in mm, taken while the lens is seated in the lens carriage's holder and the image of the "
        "slide on the screen is in focus.",
        f"In focus means, for scoring, that the blur circle on the screen (the patch one point of the slide "
        f"lights) is at most {1000 * FOCUS_BLUR_M:g} mm across. A screen a distance d from the sharp "
        f"image, which lies a distance v behind the lens, has a blur circle of {1000 * LENS_APERTURE:g} mm "
        f"(the lens's clear aperture) times d / v; a pattern that merely looks sharpest to a contrast or "
        f"gradient measure may lie outside that bound.",
    ),
)

FOCUSED = "lens seated and image in focus"
L2_HOLD_S = 1.0
INDEXES = ("object_index", "lens_index", "screen_index")


def bench(instance: Instance) -> OpticalRail:
    """The optical rail of ``instance``: one lens, one lens carriage, the screen."""
    h = instance.hidden
    lens = Lens("lens", h["f"], 0.50, h["principal_offset"])
    return OpticalRail((lens,), (Carriage("lens", -0.05),), h["scale_offset"])


class LensEvaluator(Evaluator):
    """Watches the rail: whether the robot handles the lens or a carriage, whether the lens is seated and
    the image in focus; scores the result against the hidden focal length."""

    required_conditions = (FOCUSED,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, rail: Platform) -> None:
        super().__init__(spec, record)
        if not isinstance(rail, OpticalRail):
            raise TypeError("the lens evaluator watches an optical rail")
        self.rail = rail
        self.f = instance.hidden["f"]
        self.acted = False
        self.focused_held = False
        self._focused_since: float | None = None
        self._ids: dict[str, Any] = {}

    def _geoms(self, model: mujoco.MjModel) -> dict[str, Any]:
        if not self._ids:
            bodies = {model.body(b).id for b in ("lens", "lens_carriage", "screen_carriage")}
            self._ids = {
                "robot": robot_geom_ids(model),
                "apparatus": {i for i in range(model.ngeom) if int(model.geom_bodyid[i]) in bodies},
                "bench": {model.geom("table").id, model.geom("floor").id},
            }
        return self._ids

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        ids = self._geoms(model)
        if not self.acted:
            robot = ids["robot"]
            pairs = zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True)
            self.acted = any((a in robot and b in ids["apparatus"]) or (b in robot and a in ids["apparatus"])
                             for a, b in pairs)  # fmt: skip
        focused = self.rail.seats["lens"] == "lens" and self.rail.blur_diameter() <= FOCUS_BLUR_M
        self.tracker.update(time_s, {FOCUSED: focused})
        if focused:
            self._focused_since = time_s if self._focused_since is None else self._focused_since
            self.focused_held |= time_s - self._focused_since >= L2_HOLD_S
        else:
            self._focused_since = None

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = next(
            (o for o in log.observations.values()
             if conditions.held(FOCUSED, o.time_s)
             and any(v.readable for name in INDEXES[1:] for v in o.views_of(name))),
            None,
        )  # fmt: skip
        read = {v.citation.instrument for v in valid if isinstance(v.citation, ReadingCitation)}
        missing = [name for name in INDEXES if name not in read]
        return [
            Check("L1", self.acted, "the robot handled the lens or a carriage" if self.acted
                  else "the robot touched neither the lens nor a carriage"),
            Check("L2", self.focused_held, f"the lens stood seated with the image in focus for {L2_HOLD_S} s"
                  if self.focused_held else "the lens was never seated with the image in focus"),
            Check("L3", first is not None,
                  f"observation {first.observation_id} shows a focused image with an index readable" if first
                  else "no observation shows a focused image with the lens or screen index readable"),
            Check("L4", not missing, "valid readings of every index" if not missing
                  else f"no valid reading of {', '.join(missing)}"),
        ]  # fmt: skip

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = []
        for lens in self.rail.lenses:
            centre, tilt = self.rail.lens_pose(data, lens.name)
            if float(centre[2]) < TABLE_TOP_Z:
                problems.append(f"{lens.name} is off the bench")
            elif not self.rail.in_stand(data, lens):
                home = self.rail.stand_seat(lens)
                drift = math.dist((float(centre[0]), float(centre[1])), home[:2])
                problems.append(
                    f"{lens.name} is not in its stand ({1000 * drift:.0f} mm from it, tilted "
                    f"{math.degrees(tilt):.0f} degrees)"
                )
        robot, bench_geoms = self._geoms(model)["robot"], self._geoms(model)["bench"]
        pairs = list(zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True))
        held = {b if a in robot else a for a, b in pairs if (a in robot) != (b in robot)} - bench_geoms
        if held:
            problems.append("the robot is touching " + ", ".join(sorted(model.geom(g).name for g in held)))
        return Check("restored", not problems, "; ".join(problems) or "the lens is back in its stand")

    def targets(self) -> dict[str, float]:
        return {"f": self.f}


EXPERIMENT = Experiment(SPEC, bench, LensEvaluator)
