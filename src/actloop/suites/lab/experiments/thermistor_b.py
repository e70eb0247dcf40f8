"""#28 Thermistor B: the B constant and R25 of a thermistor from its resistance at several temperatures.

A thermistor probe rests in a holder beside an aluminium block with a well; a heater controller (a rocker
power switch, setpoint keys, a setpoint display) holds the block near its setpoint; a meter panel shows the
block's temperature and the resistance across the probe's lead. The probe is a two-wire one: the ohmmeter
reads its two thin constantan leads in series with the thermistor, so two readings fitted by the B law alone
miss B and R25 by the leads' share (the standard design fits R = r + R25 exp(B (1/T - 1/T25)) over the
full range). Hidden: B, R25, the leads' resistance and the room's temperature. Readings count with the
probe's stem in the block's well.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import Evaluator, robot_geom_ids
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict, distinct
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.thermal_bench import LEAD_LENGTH_M, ThermalBench
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, log_uniform, uniform

LEADS_OHM = (20.0, 60.0)
"""The two constantan leads' resistance together (ohm): 2 m of 0.15-0.25 mm wire."""
SETTLE_C = 0.05
SETTLE_S = 10.0
"""Settled: the block's and the probe's temperatures each within SETTLE_C over the last SETTLE_S (stated on
the card in these numbers)."""

SPEC = specify(
    "thermistor_b",
    question=(
        "Determine the B constant (K) and the resistance at 25 degC, R25 (ohm), of the thermistor in the "
        "probe, taking its resistance to follow R = R25 exp(B (1/T - 1/298.15 K))."
    ),
    budget_s=1200.0,
    parameters=(
        Parameter("B", "B constant of the thermistor", "K", uniform(3200.0, 4200.0)),
        Parameter("R25", "resistance of the thermistor at 25 degC", "ohm", log_uniform(5000.0, 20000.0)),
        Parameter("room", "temperature of the room", "degC", uniform(19.0, 23.0)),
        Parameter(
            "leads",
            "resistance of the probe's two leads together",
            "ohm",
            uniform(LEADS_OHM[0], LEADS_OHM[1]),
        ),
    ),
    parts=(
        Part("block", "an aluminium block with a well in its top; the heater warms it", restore="fixed"),
        Part(
            "probe",
            "a two-wire thermistor probe: the thermistor in the tip of a thin stem below a handle, joined to "
            f"the ohmmeter by a {LEAD_LENGTH_M:g} m lead of two thin constantan wires; rests in its "
            "holder",
        ),
        Part("holder", "holds the probe upright by its stem beside the block", restore="fixed"),
        Part(
            "heater_switch",
            "a rocker on the controller's top: front half pressed down turns the heater on, back half off",
            restore="off",
        ),
        Part(
            "setpoint_keys",
            "two keys on the controller's top: the left one lowers the setpoint by 5 degC, the right one "
            "raises it by 5 degC (25 to 80 degC); the controller's display shows the setpoint",
            restore="any",
        ),
        Part("thermometer", "shows the block's temperature in degC", restore="fixed"),
        Part(
            "ohmmeter",
            "shows the resistance between the two wires of the probe's lead at its terminals, in kohm",
            restore="fixed",
        ),
    ),
    rules=(
        "A reading counts only with the probe's stem in the block's well and the temperature settled: the "
        f"block's temperature and the probe's have each changed by less than {SETTLE_C:g} degC over the "
        f"{SETTLE_S:g} s before it.",
    ),
    minima=(
        ReadingsAt(("thermometer", "ohmmeter"), "temperature", 3, "temperatures of the block", 5.0, "degC"),
    ),
)


def bench(instance: Instance) -> ThermalBench:
    """The thermal bench of ``instance``."""
    h = instance.hidden
    return ThermalBench(h["B"], h["R25"], h["room"], h["leads"])


IN_WELL = "probe in the block's well"
SETTLED = "temperature settled"
SETTLE_SAMPLE_S = 0.25
L2_HOLD_S = 5.0
SUFFICIENT_TEMPERATURES = 3
"""L4: three temperatures identify B, R25 and the leads' resistance in series (as the card's evidence
minimum asks)."""
TEMPERATURE_GAP_C = 5.0


class ThermistorEvaluator(Evaluator):
    """Watches the thermal bench: whether the probe is in the well, what the robot touches, and how long
    the probe has sat in the heated block; scores B and R25 against the hidden values."""

    required_conditions = (IN_WELL, SETTLED)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record)
        if not isinstance(bench, ThermalBench):
            raise TypeError("the thermistor evaluator watches a thermal bench")
        self.bench = bench
        self.hidden = instance.hidden
        self.acted = False
        self.heated_in_well = False
        self._heated_since: float | None = None
        self._history: deque[tuple[float, float, float]] = deque()
        """(time, block, probe temperature), sampled every SETTLE_SAMPLE_S over the last SETTLE_S."""
        self._settled = False
        self._ids: dict[str, Any] = {}

    def _geoms(self, model: mujoco.MjModel) -> dict[str, Any]:
        if not self._ids:
            parts = ("probe_stem", "probe_handle", "rocker_cap", "key_0_cap", "key_1_cap")
            self._ids = {
                "robot": robot_geom_ids(model),
                "apparatus": {model.geom(name).id for name in parts},
                "ignored": {model.geom("table").id, model.geom("floor").id},
            }
        return self._ids

    def _touched(self, model: mujoco.MjModel, data: mujoco.MjData) -> set[int]:
        robot = self._geoms(model)["robot"]
        pairs = zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True)
        return {b if a in robot else a for a, b in pairs if (a in robot) != (b in robot)}

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        if not self.acted and self._touched(model, data) & self._geoms(model)["apparatus"]:
            self.acted = True
        in_well = self.bench.probe_in_well(data)
        if not self._history or time_s - self._history[-1][0] >= SETTLE_SAMPLE_S - 1e-9:
            self._settled = self._sample(time_s)
        self.tracker.update(time_s, {IN_WELL: in_well, SETTLED: self._settled})
        if in_well and self.bench.heater_on(data):
            self._heated_since = time_s if self._heated_since is None else self._heated_since
            self.heated_in_well |= time_s - self._heated_since >= L2_HOLD_S
        else:
            self._heated_since = None

    def _sample(self, time_s: float) -> bool:
        """Sample the block's and the probe's temperatures; whether each has stayed within SETTLE_C over the
        last SETTLE_S."""
        network = self.bench.network
        history = self._history
        history.append((time_s, network.temperature("block"), network.temperature("bead")))
        while len(history) > 1 and time_s - history[1][0] >= SETTLE_S - 1e-9:
            history.popleft()
        if time_s - history[0][0] < SETTLE_S - 1e-9:
            return False
        return all(max(s[i] for s in history) - min(s[i] for s in history) < SETTLE_C for i in (1, 2))

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = next(
            (o for o in log.observations.values()
             if conditions.held(IN_WELL, o.time_s)
             and all(any(v.readable for v in o.views_of(name)) for name in ("thermometer", "ohmmeter"))),
            None,
        )  # fmt: skip
        temperatures = distinct(_values(valid, "thermometer"), TEMPERATURE_GAP_C)
        resistances = _values(valid, "ohmmeter")
        return [
            Check(
                "L1", self.acted, "the robot handled the apparatus" if self.acted else "nothing was handled"
            ),
            Check(
                "L2",
                self.heated_in_well,
                f"the probe sat in the heated block for {L2_HOLD_S} s"
                if self.heated_in_well
                else "the probe never sat in the block with the heater on",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows both meters readable with the probe in the well"
                if first
                else "no observation shows both meters readable with the probe in the well",
            ),
            Check(
                "L4",
                len(temperatures) >= SUFFICIENT_TEMPERATURES and len(resistances) >= SUFFICIENT_TEMPERATURES,
                f"valid readings at {len(temperatures)} temperatures {TEMPERATURE_GAP_C:g} degC apart "
                f"({[round(t, 2) for t in temperatures]}) and {len(resistances)} resistances",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "temperature" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        shown = log.shown_at("thermometer", verdict.time_s)
        return float(shown) if isinstance(shown, int | float) else None

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = []
        if self.bench.heater_on(data):
            problems.append("the heater is on")
        if not self.bench.probe_in_holder(data):
            x, y, z = self.bench.probe_tip(data)
            problems.append(f"the probe is not in its holder (its tip is at {x:.3f}, {y:.3f}, {z:.3f} m)")
        else:
            tilt = math.acos(max(-1.0, min(1.0, float(data.body("probe").xmat[8]))))
            if tilt > 0.17:
                problems.append(f"the probe leans by {math.degrees(tilt):.0f} degrees")
        held = self._touched(model, data) - self._geoms(model)["ignored"]
        if held:
            problems.append("the robot is touching " + ", ".join(sorted(model.geom(g).name for g in held)))
        return Check("restored", not problems, "; ".join(problems) or "heater off, probe in its holder")

    def targets(self) -> dict[str, float]:
        return {"B": self.hidden["B"], "R25": self.hidden["R25"]}


def _values(valid: Sequence[Verdict], instrument: str) -> list[float]:
    """The values of the valid readings of ``instrument``."""
    return [
        v.citation.value
        for v in valid
        if isinstance(v.citation, ReadingCitation) and v.citation.instrument == instrument
    ]


EXPERIMENT = Experiment(SPEC, bench, ThermistorEvaluator)
