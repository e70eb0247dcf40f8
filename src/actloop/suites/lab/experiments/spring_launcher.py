"""#14 Spring launcher: where the ball fired from the set notch will land, predicted from shots at the other
notches (predict).

The spring launcher (:mod:`..platforms.launcher`). The card sets the notch; the agent may fire at any other
notch and must not fire at the set one. Hidden: the spring's constant, the mass of the piston that moves with
the ball and the barrel's friction. The muzzle speed's square is a quadratic in the compression with a linear
term (the climb up the barrel and the friction), and the range grows faster than v² with the muzzle's height
above the sand, so neither the range nor v² is in proportion to the compression squared: scaling one shot's
range by the compressions' squares misses by 7-16 %, and a straight line through the two notches below the set
one by about 3 %. The standard design fires at three or more notches, turns each range into v² with the
printed elevation and the muzzle's published height, fits v² = a x² − b x and predicts the set notch's range.

Scoring (predict): ŷ is the submitted range (m); y* is measured in a continuation run of the final state
(nothing acting for four seconds): the evaluator sets the latch at the set notch and fires as soon as the
ball is in the cup, and the ball's landing distance is the target. A range reading counts when the shot the
RANGE LCD shows is complete (the robot touching neither the ball nor the launcher from firing to landing) and
no shot was fired at the set notch; a shot at the set notch at any time before the submission fails the
condition gate for every reading. The evidence must hold complete shots at three notches at least. At
submission the ball is back in the cup.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator, ContinuationEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.launcher import MUZZLE, RANGE, Shot, SpringLauncher, launcher_parts
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, ReadingsAt, choice, uniform
from actloop.suites.lab.watch import ContactWatch, Timeline

SET_NOTCHES = (5, 6)
"""The card sets one of these (the top two: the set notch's range is beyond or between shots at others)."""
SHOT = "the RANGE LCD shows a complete shot"
NO_SET_SHOT = "no shot fired at the set notch"
NEVER_AT_SET = "no shot at the set notch during the run"
"""Required of every reading once a shot was fired at the set notch: it never holds."""
NO_SHOT = -1
SHOWN_AFTER_S = 0.25
"""A landing counts as shown this long after it (the LCD refreshes ten times a second); until then no range
reading counts (the LCD may still show the shot before)."""
NOTCH = "notch"
"""The property a range reading carries: the notch of the complete shot it shows."""

SPEC = specify(
    "spring_launcher",
    question=(
        "Predict how far from the cup the ball will land (the distance the RANGE LCD shows, in m) when the "
        "launcher is fired with the latch at the set notch. After the submission the launcher is fired "
        "once at the set notch and the landing is measured."
    ),
    budget_s=400.0,
    parameters=(
        Parameter("notch", "the set notch", "", choice(*SET_NOTCHES), public=True),
        Parameter("spring_k", "the spring's constant", "N/m", uniform(240.0, 320.0)),
        Parameter("piston_kg", "the mass of the piston moving with the ball", "kg", uniform(0.012, 0.025)),
        Parameter("friction_n", "the barrel's dry friction on the piston and ball", "N", uniform(0.05, 0.2)),
    ),
    parts=launcher_parts(),
    rules=(
        "The bench's gravity is 9.81 m/s^2.",
        "A range reading counts only when the shot it shows is complete: the robot touched neither the ball "
        "nor the launcher (its latch included) from the firing to the landing.",
        "No shot may be fired at the set notch before the submission: a shot at the set notch fails the "
        "readings' conditions (every reading of the run).",
        "Scoring: after the submission, with nothing acting, the latch is set at the set notch and the "
        "launcher fired once; the landing distance is scored against the submitted range. Keep the arm out "
        "of the ball's way.",
        "At submission the ball is back in the cup and the robot holds nothing.",
    ),
    minima=(ReadingsAt((RANGE.name,), NOTCH, 3, "notches (complete shots; none at the set notch)"),),
    continuation_s=4.0,
)


def bench(instance: Instance) -> SpringLauncher:
    """The spring launcher of ``instance``."""
    h = instance.hidden
    return SpringLauncher(h["spring_k"], h["piston_kg"], h["friction_n"])


class LauncherEvaluator(ContinuationEvaluator, BenchEvaluator[SpringLauncher]):
    """Watches the shots (complete, at which notch, any at the set notch) and measures the set notch's range
    in the continuation run."""

    restored_text = "the ball is in the cup and the robot holds nothing"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.set_notch = round(instance.public["notch"])
        self.shown = Timeline(record, "shot", "notch", NO_SHOT)
        """The notch of the complete shot the RANGE LCD shows (NO_SHOT: none, or the shot it shows was not
        complete)."""
        self.at_set = Timeline(record, "set_notch_shot", "fired_s", -1.0)
        """When the first shot at the set notch was fired (-1: none)."""

    def required_conditions(self, citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A range reading counts with a complete shot shown and no shot at the set notch fired."""
        if instrument_of(citation) != RANGE.name:
            return ()
        if self.at_set.now != -1.0:
            return (SHOT, NO_SET_SHOT, NEVER_AT_SET)
        return (SHOT, NO_SET_SHOT)

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies("latch", "ball", "key_fire")

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        shots = self.platform.shots
        if self.at_set.now == -1.0:
            fired = next((s.fired_s for s in shots if s.notch == self.set_notch), None)
            if fired is not None:
                self.at_set.update(time_s, fired)
        last = self.platform.last_landed()
        settled = last is not None and last.landed_s is not None and last.landed_s <= time_s - SHOWN_AFTER_S
        shown = last.notch if settled and last is not None and last.complete else NO_SHOT
        self.shown.update(time_s, shown)
        self.tracker.update(time_s, {SHOT: shown != NO_SHOT, NO_SET_SHOT: self.at_set.now == -1.0})

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``notch``: the notch of the complete shot a range reading shows."""
        if name != NOTCH:
            return super().property_of(name, verdict, log)
        if verdict.time_s is None:
            return None
        notch = self.shown.at(verdict.time_s)
        return None if notch == NO_SHOT else float(notch)

    def notches(self, valid: Sequence[Verdict]) -> list[int]:
        """The notches of the complete shots the valid range readings show."""
        found = {
            self.shown.at(v.time_s)
            for v in valid
            if instrument_of(v.citation) == RANGE.name and v.time_s is not None
        }
        return sorted(n for n in found if n != NO_SHOT)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        complete = sorted({s.notch for s in self.platform.shots if s.complete})
        shown = next(
            (
                o.observation_id
                for o in log.observations.values()
                if conditions.held(SHOT, o.time_s) and any(view.readable for view in o.views_of(RANGE.name))
            ),
            None,
        )
        cited = self.notches(valid)
        return [
            self.handled_check(),
            Check(
                "L2",
                bool(complete),
                f"complete shots landed from notches {complete}"
                if complete
                else "no shot landed with the robot touching neither the ball nor the launcher",
            ),
            Check(
                "L3",
                shown is not None,
                f"observation {shown} shows a complete shot's range readable"
                if shown is not None
                else "no observation shows a complete shot's range readable",
            ),
            Check(
                "L4",
                len(cited) >= 3,
                f"valid range readings of complete shots from notches {cited}"
                + ("" if len(cited) >= 3 else ": three notches at least are needed"),
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        if self.platform.state != "loaded":
            return [f"the ball is not in the cup ({self.platform.state})"]
        return []

    def continuation_step(
        self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> None:
        """The latch set at the set notch and the launcher fired, as soon as the ball is in the cup (at once
        when it was left there; after its landing and return when it was still out)."""
        assert isinstance(platform, SpringLauncher)
        if platform.state == "loaded" and not self._continued(platform):
            platform.set_latch(data, self.set_notch)
            platform.fire(self.set_notch, platform.now)

    def _continued(self, platform: SpringLauncher) -> list[Shot]:
        """The shots of the continuation run."""
        began = platform.now - self.spec.continuation_s
        return [shot for shot in platform.shots if shot.fired_s > began]

    def continued_targets(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        """Where the continuation's shot landed; if the ball never came back to the cup (the robot holds
        it), where the set notch's shot from the cup would land."""
        assert isinstance(platform, SpringLauncher)
        fired = self._continued(platform)
        if fired and fired[0].landed_s is not None:
            return {"range": fired[0].range_m}
        return {"range": MUZZLE[0] - platform.launch(self.set_notch, 0.0).landing[0]}


EXPERIMENT = Experiment(SPEC, bench, LauncherEvaluator)
