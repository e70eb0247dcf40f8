"""#30 Dye absorptivity: the absorption peak λmax of a dye and its molar absorptivity ε there.

A single-beam spectrophotometer stands on the bench with a rack of seven 1 cm cuvettes: the solvent and
the dye's stock with five two-fold dilutions, each of printed concentration. Hidden: the dye's spectrum (a
main Gaussian band with a weaker shoulder on its blue side) and its ε at the peak. The instrument has stray
light (high absorbances read low), a drifting lamp, absorbance-dependent noise and a lamp whose brightness
changes with wavelength, so a reading means something only against a blank taken at the same wavelength.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import mujoco
import numpy as np

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import Evaluator, robot_geom_ids
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.spectra import Band, Dye
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.spectrophotometer import (
    ABSORBANCE,
    KEYS,
    Cuvette,
    SpectrophotometerBench,
    rack_slot,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, uniform

DILUTIONS = 6
"""Cuvettes 1..6 hold the stock diluted 1, 2, 4, 8, 16 and 32 times; cuvette 0 the solvent."""


def dilution(i: int) -> int:
    """The dilution factor of the dye in cuvette ``i`` (1 ≤ i ≤ DILUTIONS)."""
    return 2 ** (i - 1)


SPEC = specify(
    "dye_absorptivity",
    question=(
        "Determine the wavelength λmax (nm) at which the dye absorbs most strongly and its molar "
        "absorptivity ε at λmax (L mol⁻¹ cm⁻¹). The cuvettes have a 1 cm path."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("band_center", "centre of the dye's main absorption band", "nm", uniform(490.0, 630.0)),
        Parameter("band_width", "standard deviation of each absorption band", "nm", uniform(18.0, 32.0)),
        Parameter(
            "shoulder_height",
            "height of the shoulder band relative to the main band",
            "",
            uniform(0.15, 0.35),
        ),
        Parameter(
            "shoulder_offset",
            "distance of the shoulder to the blue of the main band",
            "band widths",
            uniform(1.0, 1.6),
        ),
        Parameter("epsilon", "molar absorptivity at the absorption peak", "L/(mol cm)", uniform(2e4, 9e4)),
        Parameter(
            "stock_concentration",
            "the dye's concentration in the stock (cuvette_1)",
            "mol/L",
            choice(1.0e-4, 1.25e-4, 1.6e-4),
            public=True,
        ),
    ),
    parts=(
        Part(
            "spectrophotometer",
            "single-beam: the beam passes through the cuvette seated in its holder; the LCDs on its deck "
            "show the set wavelength (nm) and the absorbance relative to the last blank",
            restore="fixed",
        ),
        Part("holder", "a square well on the deck; a cuvette standing on its floor is in the beam", "fixed"),
        *(
            Part(
                f"key_lambda_{way}",
                f"push key: the wavelength {way} 1 nm per press; held for 0.5 s it repeats every 0.05 s",
                "fixed",
            )
            for way in ("down", "up")
        ),
        Part(
            "key_blank", "push key: takes the reference (absorbance zero) with what is in the holder", "fixed"
        ),
        Part("rack", "seven slots in a row in front of the instrument, cuvette_0 at the left", "fixed"),
        Part("cuvette_0", "the solvent alone (a blank), in rack slot 0"),
        *(
            Part(
                f"cuvette_{i}",
                f"the dye stock diluted {dilution(i)} times (stock_concentration / {dilution(i)}), "
                f"in rack slot {i}"
                if i > 1
                else "the dye stock (stock_concentration), in rack slot 1",
            )
            for i in range(1, DILUTIONS + 1)
        ),
    ),
    rules=(
        "A reading counts only while a cuvette stands seated in the holder, untouched by the robot.",
        "The concentrations are the printed ones.",
    ),
    minima=(ReadingsAt(("absorbance",), "cuvette", 1, "dye cuvettes (cuvette_1 to cuvette_6)"),),
)


def dye(instance: Instance) -> Dye:
    """The dye of ``instance``: its main band and the shoulder on its blue side."""
    h = instance.hidden
    width = h["band_width"]
    bands = (
        Band(h["band_center"], width),
        Band(h["band_center"] - h["shoulder_offset"] * width, width, h["shoulder_height"]),
    )
    return Dye("dye", bands, h["epsilon"])


def bench(instance: Instance) -> SpectrophotometerBench:
    """The spectrophotometer bench of ``instance``: the blank, then the stock and its dilutions."""
    stock, the_dye = instance.public["stock_concentration"], dye(instance)
    cuvettes = [Cuvette("cuvette_0")] + [
        Cuvette(f"cuvette_{i}", ((the_dye, stock / dilution(i)),)) for i in range(1, DILUTIONS + 1)
    ]
    return SpectrophotometerBench(cuvettes, instance.noise_key)


SEATED = "a cuvette seated in the holder, untouched"
L2_HOLD_S = 1.2
MIN_WAVELENGTHS = 3
"""L4: one dye cuvette read at three wavelengths locates λmax, and a reading of it gives ε (A = ε c l):
readings that suffice for both, whatever the method."""
RACK_TOLERANCE_M = 0.004
UPRIGHT_TOLERANCE_RAD = math.radians(10.0)


class DyeAbsorptivityEvaluator(Evaluator):
    """Watches the bench: which cuvette stands in the holder, whether the robot touches it, when the
    instrument was blanked; scores λmax and ε against the hidden dye."""

    required_conditions = (SEATED,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record)
        if not isinstance(bench, SpectrophotometerBench):
            raise TypeError("the dye-absorptivity evaluator watches a spectrophotometer bench")
        self.bench = bench
        self.record = record
        self.dye = dye(instance)
        self.holder: list[tuple[float, int | None]] = [(0.0, None)]
        """(time, cuvette seated and untouched, or None) at every change."""
        self.acted = False
        self._since: float | None = None
        self.blanked_hold = False
        self._ids: dict[str, Any] = {}

    def _geoms(self, model: mujoco.MjModel) -> dict[str, Any]:
        if not self._ids:
            robot = np.isin(np.arange(model.ngeom), sorted(robot_geom_ids(model)))
            self._ids = {
                "robot": robot,
                "cuvettes": [model.geom(c.name).id for c in self.bench.cuvettes],
                "keys": {model.geom(f"key_{name}").id for name, _ in KEYS},
            }
        return self._ids

    def _touched(self, model: mujoco.MjModel, data: mujoco.MjData) -> set[int]:
        """The geoms the robot touches (a mask over the contacts: this runs every physics step)."""
        robot = self._geoms(model)["robot"]
        first, second = data.contact.geom1, data.contact.geom2
        by_robot = robot[first] != robot[second]
        return set(np.where(robot[first[by_robot]], second[by_robot], first[by_robot]).tolist())

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        ids = self._geoms(model)
        touched = self._touched(model, data)
        self.acted |= bool(touched & (set(ids["cuvettes"]) | ids["keys"]))
        seated = self.bench.in_holder
        if seated is not None and ids["cuvettes"][seated] in touched:
            seated = None
        if seated != self.holder[-1][1]:
            self.holder.append((time_s, seated))
            self.record.append("holder", {"time_s": time_s, "cuvette": seated})
        self.tracker.update(time_s, {SEATED: seated is not None})
        if _holds_dye(seated) and self.bench.blanks:
            self._since = time_s if self._since is None else self._since
            self.blanked_hold |= time_s - self._since >= L2_HOLD_S
        else:
            self._since = None

    def seated_at(self, time_s: float) -> int | None:
        """The cuvette seated and untouched at ``time_s``, if any."""
        return next(c for t, c in reversed(self.holder) if t <= time_s)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = next(
            (o for o in log.observations.values()
             if _holds_dye(self.seated_at(o.time_s)) and any(v.readable for v in o.views_of("absorbance"))),
            None,
        )  # fmt: skip
        readings = [
            (self.seated_at(v.time_s), log.shown_at("wavelength", v.time_s))
            for v in valid
            if v.time_s is not None
            and isinstance(v.citation, ReadingCitation)
            and v.citation.instrument == ABSORBANCE.name
        ]
        dyed = [(c, nm) for c, nm in readings if _holds_dye(c)]
        by_cuvette: dict[int, set[Any]] = {}
        for c, nm in dyed:
            by_cuvette.setdefault(c, set()).add(nm)  # type: ignore[arg-type]
        wavelengths = max((len(s) for s in by_cuvette.values()), default=0)
        return [
            Check(
                "L1", self.acted, "the robot touched a cuvette or a key" if self.acted else "nothing touched"
            ),
            Check(
                "L2",
                self.blanked_hold,
                f"a dye cuvette stood seated and untouched for {L2_HOLD_S} s after a blank"
                if self.blanked_hold
                else "no dye cuvette stood seated and untouched after a blank",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows the absorbance readably with a dye cuvette seated"
                if first
                else "no observation shows the absorbance readably with a dye cuvette seated",
            ),
            Check(
                "L4",
                wavelengths >= MIN_WAVELENGTHS,
                f"valid absorbance readings of one dye cuvette at up to {wavelengths} wavelengths (needed "
                f"{MIN_WAVELENGTHS})",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "cuvette" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        seated = self.seated_at(verdict.time_s)
        return float(seated) if seated is not None and _holds_dye(seated) else None

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = []
        for i, cuvette in enumerate(self.bench.cuvettes):
            body = data.body(cuvette.name)
            home = rack_slot(i)
            drift = math.hypot(float(body.xpos[0]) - home[0], float(body.xpos[1]) - home[1])
            tilt = math.acos(max(-1.0, min(1.0, float(body.xmat[8]))))
            if drift > RACK_TOLERANCE_M or abs(float(body.xpos[2]) - home[2]) > 0.003:
                problems.append(f"{cuvette.name} is {1000 * drift:.0f} mm from its slot in the rack")
            elif tilt > UPRIGHT_TOLERANCE_RAD:
                problems.append(f"{cuvette.name} is tipped by {math.degrees(tilt):.0f} degrees")
        held = self._touched(model, data) - {model.geom("table").id, model.geom("floor").id}
        if held:
            problems.append("the robot is touching " + ", ".join(sorted(model.geom(g).name for g in held)))
        return Check("restored", not problems, "; ".join(problems) or "every cuvette is back in the rack")

    def targets(self) -> dict[str, float]:
        return {"lambda_max": self.dye.lambda_max, "epsilon": self.dye.epsilon_max}


def _holds_dye(cuvette: int | None) -> bool:
    """Whether ``cuvette`` (an index, or None for an empty holder) holds the dye: any but the blank, 0."""
    return cuvette is not None and cuvette > 0


EXPERIMENT = Experiment(SPEC, bench, DyeAbsorptivityEvaluator)
