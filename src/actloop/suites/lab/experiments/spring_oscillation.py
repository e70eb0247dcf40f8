"""#4 Spring oscillation: the stiffness of a spring from how a tray hanging on it oscillates under loads.

The oscillation stand (:mod:`..platforms.oscillation_stand`): an open-coil spring carries a tray of printed
mass; slotted weights of printed mass stand in a rack; a linear encoder reads the tray's drop and a logger
records it 120 times a second. Setting a weight on the resting tray starts it oscillating about its new rest.
Hidden: k (scored), the spring's own mass (a third of it moves with the load, so ω² = k / (m + m_s / 3)),
the damping, the spring's length and the encoder's zero. One load's period with the printed masses alone
misses k by the spring's share, several percent; the standard design fits 1/ω0² against the load over three
or more loads, whose slope is 1/k whatever the spring's mass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Citation, Conditions, RowCitation, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.oscillation_stand import ENCODER, LOGGER, OscillationStand, stand_parts
from actloop.suites.lab.platforms.spring_stand_evaluation import StandEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.oscillation import fit_damped, undamped
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, choice, uniform
from actloop.suites.lab.watch import ContactWatch, HeldFor

FREE = "tray free"
PERIODS = 5
LOADS = 3
"""L4 and the evidence: cited encoder rows of PERIODS or more free periods at LOADS or more loads."""
TRAY_KG = 0.05

SPEC = specify(
    "spring_oscillation",
    question=(
        "Determine the stiffness k of the spring hanging from the stand (the force per unit extension, in "
        "N/m) from the oscillations of the tray on it."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("k", "spring stiffness", "N/m", uniform(25.0, 45.0)),
        Parameter("spring_mass", "the spring's own mass", "kg", uniform(0.015, 0.04)),
        Parameter("damping_ratio", "the damping ratio with the tray and one weight", "", uniform(0.02, 0.04)),
        Parameter(
            "free_length", "how far below the anchor the unloaded spring ends", "m", uniform(0.1, 0.12)
        ),
        Parameter("encoder_zero", "the tray's drop at the encoder's zero", "m", uniform(0.1, 0.11)),
        Parameter(
            "weight_mass", "printed mass of each slotted weight", "kg", choice(0.03, 0.04, 0.05), public=True
        ),
    ),
    parts=stand_parts(),
    rules=(
        f"The tray's mass is printed on it: {TRAY_KG:g} kg.",
        "An encoder row counts only while the robot touches neither the tray nor anything on it.",
        f"The records must show {PERIODS} or more free periods of the loaded tray at each of {LOADS} or more "
        "loads.",
    ),
)


def bench(instance: Instance) -> OscillationStand:
    """The oscillation stand of ``instance``."""
    h, p = instance.hidden, instance.public
    moving = TRAY_KG + p["weight_mass"] + h["spring_mass"] / 3
    damping = 2 * h["damping_ratio"] * math.sqrt(h["k"] * moving)
    return OscillationStand(
        h["k"], h["spring_mass"], damping, h["free_length"], TRAY_KG, h["encoder_zero"], p["weight_mass"]
    )


class SpringOscillationEvaluator(StandEvaluator):
    """Watches the tray's free stretches at each load; scores k, refitting the cited encoder rows."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, stand: Platform) -> None:
        super().__init__(spec, record, instance, stand)
        self._free = HeldFor()
        self.free_at: dict[int, float] = {}
        """The longest free stretch at each load (s)."""

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """An encoder row counts while the tray is free."""
        return (FREE,) if instrument_of(citation) == ENCODER.name else ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies("key_log") | super().handled(watch)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        self.tracker.update(time_s, {FREE: self.tray_free})
        held = self._free.update(time_s, self.tray_free)
        load = self.loads.now
        self.free_at[load] = max(self.free_at.get(load, 0.0), held)

    def period(self, load: int) -> float:
        stand = self.platform
        assert stand.motion is not None
        mass = stand.motion.moving_mass(stand.tray_mass + load * stand.weight_mass)
        return 2 * math.pi * math.sqrt(mass / stand.k)

    def cited_rows(self, valid: Sequence[Verdict]) -> dict[int, list[tuple[float, float]]]:
        """The valid encoder rows by the load they were taken at: (time, value)."""
        out: dict[int, list[tuple[float, float]]] = {}
        for v in valid:
            if (
                isinstance(v.citation, RowCitation)
                and v.citation.column == ENCODER.name
                and v.time_s is not None
            ):
                out.setdefault(self.loads.at(v.time_s), []).append((v.time_s, v.citation.value))
        return out

    def recorded_loads(self, valid: Sequence[Verdict]) -> list[int]:
        """The loaded trays with cited rows spanning PERIODS periods."""
        return sorted(
            load
            for load, rows in self.cited_rows(valid).items()
            if load >= 1 and max(t for t, _ in rows) - min(t for t, _ in rows) >= PERIODS * self.period(load)
        )

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        swung = [
            load for load, held in self.free_at.items() if load >= 1 and held >= PERIODS * self.period(load)
        ]
        logged = any(
            conditions.held(FREE, r.time_s) and self.loads.at(r.time_s) >= 1 for r in log.rows(LOGGER)
        )
        recorded = self.recorded_loads(valid)
        return [
            self.handled_check(),
            Check(
                "L2",
                bool(swung),
                f"the loaded tray swung free for {PERIODS} periods at loads {sorted(swung)}"
                if swung
                else f"the loaded tray never swung free for {PERIODS} periods",
            ),
            Check(
                "L3",
                logged,
                "the logger recorded the loaded tray free" if logged else "no free loaded tray logged",
            ),
            Check(
                "L4",
                len(recorded) >= LOADS,
                f"cited encoder rows span {PERIODS} free periods at loads {recorded} ({LOADS} are needed)",
            ),
        ]

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float]:
        """k from the cited rows: each load's damped oscillation fitted, 1/ω0² against the load's printed
        mass by least squares (its slope is 1/k)."""
        stand = self.platform
        points = []
        for load, rows in self.cited_rows(valid).items():
            if load < 1 or len(rows) < 20:
                continue
            rows.sort()
            fit = fit_damped([t for t, _ in rows], [value for _, value in rows])
            points.append((load * stand.weight_mass, 1.0 / undamped(fit) ** 2))
        if len(points) < 2:
            raise ValueError("fitted oscillations at two or more loads are needed")
        slope, _ = line(points)
        return {"k": 1.0 / slope}

    def targets(self) -> dict[str, float]:
        return {"k": self.instance.hidden["k"]}


EXPERIMENT = Experiment(SPEC, bench, SpringOscillationEvaluator)
