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

from collections.abc import Sequence

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict, distinct
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.thermal_bench import ThermalBench, bench_parts
from actloop.suites.lab.platforms.thermal_bench_evaluation import ThermalEvaluator, readings_of, settled_rule
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, ReadingsAt, log_uniform, uniform

LEADS_OHM = (20.0, 60.0)
"""The two constantan leads' resistance together (ohm): 2 m of 0.15-0.25 mm wire."""
SUFFICIENT_TEMPERATURES = 3
"""L4 and the evidence minimum: three temperatures identify B, R25 and the leads' resistance in series."""
TEMPERATURE_GAP_C = 5.0

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
    parts=bench_parts(),
    rules=(settled_rule(),),
    minima=(
        ReadingsAt(
            ("thermometer", "ohmmeter"),
            "temperature",
            SUFFICIENT_TEMPERATURES,
            "temperatures of the block",
            TEMPERATURE_GAP_C,
            "degC",
        ),
    ),
)


def bench(instance: Instance) -> ThermalBench:
    """The thermal bench of ``instance``."""
    h = instance.hidden
    return ThermalBench(h["B"], h["R25"], h["room"], h["leads"])


class ThermistorEvaluator(ThermalEvaluator):
    """Scores B and R25 against the hidden values, from readings at three or more temperatures."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        temperatures = distinct(readings_of(valid, "thermometer"), TEMPERATURE_GAP_C)
        resistances = readings_of(valid, "ohmmeter")
        return [
            *self.bench_milestones(log, conditions),
            Check(
                "L4",
                len(temperatures) >= SUFFICIENT_TEMPERATURES and len(resistances) >= SUFFICIENT_TEMPERATURES,
                f"valid readings at {len(temperatures)} temperatures {TEMPERATURE_GAP_C:g} degC apart "
                f"({[round(t, 2) for t in temperatures]}) and {len(resistances)} resistances",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"B": self.instance.hidden["B"], "R25": self.instance.hidden["R25"]}


EXPERIMENT = Experiment(SPEC, bench, ThermistorEvaluator)
