"""#17 Rectifier supply: R_min of three filter modules, then a supply built to a ripple limit (configure).

An AC supply (12 V rms, 50 Hz) feeds a diode bridge fixed on the board; the bridge's output runs to two
sockets, both across it, and to a voltmeter (its mean) and a ripple meter (its peak-to-peak) lying on the
board, which the logger records. Into the sockets go boxes from the pads beside the board: three filter
modules (capacitors of printed nominal value) and load boxes (resistors of printed value, one of them the
final load). Whatever stands in the sockets is in parallel across the output.

The output is the exact periodic steady state of the bridge with its winding resistance and diode drop
(:mod:`..physics.rectifier`), reached within a few cycles of a change while powered (the capacitor
charges through the winding in milliseconds); switched off, the capacitor discharges exactly through what
is across it. Hidden: each module's true capacitance (its nominal ±15 %, as electrolytics are), the
winding resistance, the bridge's forward drop and the voltmeter's zero error, so a module's R_min (the least
load that keeps the ripple within the limit) must be measured, not computed from the labels.

The objective configures: after submitting the three R_min values the agent leaves the supply running
under the final load with the module of least capacitance that keeps the ripple within the limit there;
a continuation run reads which module it runs with. Where two modules are both within 1 % of the limit
at that load (the R_min tolerance cannot tell them apart), either counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from actloop.suites.lab.catalog import FILTERS, specify
from actloop.suites.lab.evaluation import ContinuationEvaluator
from actloop.suites.lab.evidence import Conditions, RowCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentLog, InstrumentSpec
from actloop.suites.lab.physics.linear import exp
from actloop.suites.lab.physics.rectifier import Output, Rectifier, steady_state
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    METER_SPOTS,
    SOCKET,
    VOLTMETER,
    VOLTMETER_OHMS,
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    Socket,
    fixture_xml,
    logger_part,
    meter_part,
)
from actloop.suites.lab.platforms.circuit_board_evaluation import BoardEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, log_uniform, uniform
from actloop.suites.lab.watch import Timeline

RMS_VOLTS = 12.0
FREQUENCY_HZ = 50.0
RIPPLE_LIMIT_V = 0.5
NOMINAL_FARADS = {"F1": 470e-6, "F2": 1000e-6, "F3": 2200e-6}
LOAD_OHMS = (68.0, 180.0, 470.0, 1200.0)
FINAL_LOAD = "load_final"
STRAY_FARADS = 1e-9
"""The output's capacitance with no module in (the bridge's and the wiring's)."""
WITHIN_LIMIT = 0.01
"""A module within this fraction of the ripple limit at the final load counts either way."""

RIPPLE_METER = InstrumentSpec(
    "ripple_meter", "V", DigitalDisplay(5, 3, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0004
)
METERS = (Meter(VOLTMETER, METER_SPOTS[0]), Meter(RIPPLE_METER, METER_SPOTS[1]))
FILTER_SOCKET = Socket("filter_socket", SOCKET.centre)
LOAD_SOCKET = Socket("load_socket", (-0.08, -0.05))
BRIDGE_CENTRE = (0.09, -0.05)
ROWS_Y = (-0.19, -0.28)
COLUMNS_X = (0.08, -0.005, -0.09, -0.175)
"""Pads 85 mm apart across and 90 mm along: a hand opened wide (80 mm) at one box, its fingers either
way, clears the next."""
FILTER_BOXES = tuple(
    ComponentBox(f"filter_{m}", (x, ROWS_Y[0]), "0.15 0.25 0.55 1")
    for m, x in zip(FILTERS, COLUMNS_X, strict=False)
)
LOAD_BOXES = (
    *(
        ComponentBox(f"load_{ohms:g}", (x, ROWS_Y[1]), "0.5 0.3 0.2 1")
        for ohms, x in zip(LOAD_OHMS, COLUMNS_X, strict=True)
    ),
    ComponentBox(FINAL_LOAD, (COLUMNS_X[3], ROWS_Y[0]), "0.6 0.15 0.15 1"),
)


def _parameters() -> tuple[Parameter, ...]:
    modules = tuple(
        Parameter(f"C_{m}", f"filter module {m}'s capacitance", "F", uniform(0.85 * nominal, 1.15 * nominal))
        for m, nominal in NOMINAL_FARADS.items()
    )
    public = (
        Parameter("supply_rms", "the AC supply's voltage", "V rms", choice(RMS_VOLTS), public=True),
        Parameter("frequency", "the AC supply's frequency", "Hz", choice(FREQUENCY_HZ), public=True),
        Parameter(
            "ripple_limit", "the ripple limit (peak to peak)", "V", choice(RIPPLE_LIMIT_V), public=True
        ),
        *(
            Parameter(f"nominal_{m}", f"filter module {m}'s printed capacitance", "F", choice(n), public=True)
            for m, n in NOMINAL_FARADS.items()
        ),
        Parameter(
            "final_load",
            "the final load box's printed resistance",
            "ohm",
            log_uniform(200.0, 900.0),
            public=True,
        ),
    )
    nuisances = (
        Parameter("winding_ohms", "the supply's winding resistance", "ohm", uniform(0.5, 1.5)),
        Parameter("forward_drop", "the bridge's forward drop (two diodes)", "V", uniform(1.2, 1.6)),
        Parameter("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.02, 0.02)),
    )
    return (*modules, *public, *nuisances)


SPEC = specify(
    "rectifier_supply",
    question=(
        "A filter module's R_min is the least load resistance at which the supply, built with that module, "
        "keeps its ripple (peak to peak) at or below the ripple limit. Determine R_min of each filter module "
        "F1, F2 and F3, in ohms, and leave the supply running (switched on) under the final load box with "
        "the filter module of least capacitance that keeps the ripple within the limit there."
    ),
    budget_s=1200.0,
    parameters=_parameters(),
    parts=(
        *(
            Part(
                box.name,
                f"filter module {m}: a capacitor box of printed capacitance (`nominal_{m}`) with two "
                "contacts underneath",
                restore="any",
            )
            for m, box in zip(FILTERS, FILTER_BOXES, strict=True)
        ),
        *(
            Part(
                box.name,
                f"a load box: a resistor of {ohms:g} ohm with two contacts underneath",
                restore="any",
            )
            for ohms, box in zip(LOAD_OHMS, LOAD_BOXES, strict=False)
        ),
        Part(
            FINAL_LOAD, "the final load box: a resistor of the printed resistance `final_load`", restore="any"
        ),
        Part("board", "carries the bridge, the sockets, the supply and the meters", restore="fixed"),
        Part(
            "bridge",
            "a full-wave diode bridge fixed on the board, fed by the supply; its output runs across both "
            "sockets and both meters",
            restore="fixed",
        ),
        Part(
            FILTER_SOCKET.name,
            "a walled seat across the bridge's output (nearer the bridge)",
            restore="fixed",
        ),
        Part(
            LOAD_SOCKET.name,
            "a second walled seat across the bridge's output, beside the first",
            restore="fixed",
        ),
        Part(
            "supply",
            "an AC supply (`supply_rms` at `frequency`) feeding the bridge: its red rocker switches it on "
            "(front end, marked I, pressed down) or off (back end pressed down); it has one setting, so its "
            "UP and DOWN keys do nothing",
            restore="any",
        ),
        meter_part(METERS[0], "across the bridge's output, showing its mean", "left"),
        Part(
            RIPPLE_METER.name,
            "a digital meter across the bridge's output showing its ripple (peak to peak over each cycle) in "
            "volts to 0.001 V on an LCD lying face up on the board (right)",
            restore="fixed",
        ),
        logger_part("both meters"),
    ),
    rules=(
        "A reading counts only while the supply is on with one filter module and one load box in the "
        "sockets, half a second after the last change.",
        "Cite logger rows: the evidence is the logger's record of the modules and of the final supply.",
        "At submission the final supply stays as you built it: switched on, its module and the final load "
        "box in the sockets; every other box back on its pad.",
    ),
    minima=(
        ReadingsAt(("ripple_meter",), "module", 3, "filter modules, each alone in the supply under a load"),
        ReadingsAt(("ripple_meter",), "final", 1, "final supplies (a module under the final load box)"),
    ),
    continuation_s=2.0,
)


def parallel(*ohms: float) -> float:
    return 1.0 / sum(1.0 / r for r in ohms)


class RectifierNetwork:
    """The bridge's output as the meters see it: while powered, the periodic steady state of what stands
    across it (cached per circuit); switched off, the capacitance discharging exactly through it."""

    def __init__(self, supply: Rectifier, dt: float) -> None:
        self.supply = supply
        self.dt = dt
        self.powered = False
        self.farads = STRAY_FARADS
        self.ohms = VOLTMETER_OHMS
        self.mean = 0.0
        self.ripple = 0.0
        self._steady: dict[tuple[float, float], Output] = {}

    def set(self, powered: bool, farads: float, ohms: float) -> None:
        self.powered, self.farads, self.ohms = powered, farads, ohms

    def steady(self, farads: float, ohms: float) -> Output:
        key = (farads, ohms)
        if key not in self._steady:
            self._steady[key] = steady_state(self.supply, farads, ohms)
        return self._steady[key]

    def step(self, n: int = 1) -> None:
        if self.powered:
            output = self.steady(self.farads, self.ohms)
            self.mean, self.ripple = output.mean, output.ripple
        else:
            self.mean *= exp(-n * self.dt / (self.ohms * self.farads))
            self.ripple = 0.0


@dataclass(frozen=True)
class RectifierWiring:
    """The supply, the bridge and whatever boxes stand in the sockets (all across the output), with the
    voltmeter's zero error."""

    supply: Rectifier
    farads: dict[str, float]
    """Each filter module's capacitance, by box name."""
    loads: dict[str, float]
    """Each load box's resistance, by box name."""
    voltmeter_zero: float

    def build(self, dt: float) -> RectifierNetwork:
        return RectifierNetwork(self.supply, dt)

    def across(self, boxes: Sequence[str | None]) -> tuple[float, float]:
        """The capacitance and resistance across the output with ``boxes`` in the sockets (and the
        voltmeter)."""
        farads = STRAY_FARADS + sum(self.farads.get(b or "", 0.0) for b in boxes)
        ohms = parallel(VOLTMETER_OHMS, *(self.loads[b] for b in boxes if b in self.loads))
        return farads, ohms

    def apply(self, circuit: RectifierNetwork, state: BoardState) -> None:
        circuit.set(state.powered, *self.across(list(state.seated.values())))

    def true_values(self, circuit: RectifierNetwork) -> dict[str, float]:
        return {
            "voltmeter": circuit.mean + self.voltmeter_zero,
            "ripple_meter": circuit.ripple,
        }

    def ripple(self, module: str, load_ohms: float) -> float:
        """The true ripple with ``module`` alone under a load box of ``load_ohms``."""
        return steady_state(
            self.supply, self.farads[module] + STRAY_FARADS, parallel(VOLTMETER_OHMS, load_ohms)
        ).ripple

    def r_min(self, module: str, limit: float) -> float:
        """The load resistance at which ``module``'s ripple equals ``limit`` (secant iteration on log R
        against log ripple, nearly a straight line)."""
        x0 = 1.0 / (2.0 * self.supply.frequency * self.farads[module] * limit) * self.supply.peak
        x1 = 0.8 * x0
        f0, f1 = self.ripple(module, x0) - limit, self.ripple(module, x1) - limit
        for _ in range(40):
            if f1 == f0 or abs(f1) <= 1e-12 * limit:
                return x1
            x0, f0, x1 = x1, f1, x1 - f1 * (x1 - x0) / (f1 - f0)
            f1 = self.ripple(module, x1) - limit
        raise ArithmeticError(f"R_min of {module} did not converge")


def wiring(instance: Instance) -> RectifierWiring:
    h, p = instance.hidden, instance.public
    supply = Rectifier(p["supply_rms"] * 2.0**0.5, h["winding_ohms"], h["forward_drop"], p["frequency"])
    farads = {box.name: h[f"C_{m}"] for m, box in zip(FILTERS, FILTER_BOXES, strict=True)}
    loads = {box.name: ohms for ohms, box in zip(LOAD_OHMS, LOAD_BOXES, strict=False)}
    loads[FINAL_LOAD] = p["final_load"]
    return RectifierWiring(supply, farads, loads, h["voltmeter_zero"])


class RectifierBoard(CircuitBoard):
    """The circuit board with the diode bridge fixed on it."""

    def bodies_xml(self) -> str:
        return super().bodies_xml() + fixture_xml(
            "bridge", BRIDGE_CENTRE, "0.025 0.02 0.008", "0.1 0.1 0.1 1"
        )


def bench(instance: Instance) -> RectifierBoard:
    """The rectifier's board of ``instance``."""
    return RectifierBoard(
        wiring(instance),
        (FILTER_SOCKET, LOAD_SOCKET),
        (*FILTER_BOXES, *LOAD_BOXES),
        METERS,
        setpoints=(RMS_VOLTS,),
    )


MODULE_OF = {box.name: m for m, box in zip(FILTERS, FILTER_BOXES, strict=True)}
LOAD_NAMES = frozenset(box.name for box in LOAD_BOXES)


def circuit_of(seated: Sequence[str | None]) -> tuple[str, str] | None:
    """(module label, load box) when exactly one filter module and one load box stand in the sockets."""
    modules = [MODULE_OF[b] for b in seated if b in MODULE_OF]
    loads = [b for b in seated if b in LOAD_NAMES]
    return (modules[0], loads[0]) if len(modules) == 1 and len(loads) == 1 else None


class RectifierEvaluator(ContinuationEvaluator, BoardEvaluator):
    """Watches the sockets (which module under which load), scores R_min of every module against the hidden
    truth and reads the final supply's module in the continuation run."""

    circuit_box = ""
    restored_text = "every box not in the final supply is on its pad"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self.circuit = Timeline(self.record, "circuit", "boxes", "")

    def live(self, state: BoardState) -> bool:
        return state.powered and circuit_of(list(state.seated.values())) is not None

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        found = circuit_of(list(self.platform.state.seated.values()))
        self.circuit.update(time_s, "+".join(found) if found else "")

    def _circuit_at(self, verdict: Verdict) -> tuple[str, str] | None:
        if verdict.time_s is None or not isinstance(verdict.citation, RowCitation):
            return None
        boxes = self.circuit.at(verdict.time_s)
        return (boxes.split("+")[0], boxes.split("+")[1]) if boxes else None

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        found = self._circuit_at(verdict)
        if name == "module":
            return None if found is None else float(FILTERS.index(found[0]))
        if name == "final":
            return 1.0 if found is not None and found[1] == FINAL_LOAD else None
        return super().property_of(name, verdict, log)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        loads: dict[str, set[str]] = {m: set() for m in FILTERS}
        final = False
        for v in valid:
            found = self._circuit_at(v)
            if found is not None and v.citation.column == RIPPLE_METER.name:  # type: ignore[union-attr]
                loads[found[0]].add(found[1])
                final |= found[1] == FINAL_LOAD
        short = [m for m in FILTERS if len(loads[m]) < 2]
        enough = not short and final
        evidence = ", ".join(f"{m} under {len(loads[m])} load(s)" for m in FILTERS)
        return [
            *self.live_milestones(log, conditions, valid),
            Check(
                "L4",
                enough,
                f"valid logged ripple rows: {evidence}; "
                + ("a final supply logged" if final else "no final supply logged under the final load"),
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        final = circuit_of(list(self.platform.state.seated.values()))
        kept = {f"filter_{final[0]}", final[1]} if final is not None and final[1] == FINAL_LOAD else set()
        problems = []
        for box in self.platform.boxes:
            if box.name not in kept and not self.platform.at_home(data, box, 0.01):
                x, y, _ = (float(v) for v in data.body(box.name).xpos)
                problems.append(
                    f"the {box.name.replace('_', ' ')} is not upright on its pad (at {x:.3f}, {y:.3f})"
                )
        return problems

    def set_up(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        assert isinstance(platform, RectifierBoard)
        found = circuit_of(list(platform.state.seated.values()))
        if not platform.powered or found is None or found[1] != FINAL_LOAD:
            return {"final_supply": "no supply running with one module under the final load"}
        return {"final_supply": found[0]}

    def continued_targets(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        wires = wiring(self.instance)
        limit = self.instance.public["ripple_limit"]
        targets: dict[str, float | str] = {f"R_min_{m}": wires.r_min(f"filter_{m}", limit) for m in FILTERS}
        targets["final_supply"] = self.final_module(
            wires, str(self.set_up(model, data, platform)["final_supply"])
        )
        return targets

    def final_module(self, wires: RectifierWiring, built: str) -> str:
        """The module the final supply must run with: the least capacitance whose ripple at the final load is
        within the limit; ``built`` also counts when it and every smaller module lie within WITHIN_LIMIT of
        the limit's either side as the rule needs."""
        limit = self.instance.public["ripple_limit"]
        ripples = {m: wires.ripple(f"filter_{m}", self.instance.public["final_load"]) for m in FILTERS}
        strict = next((m for m in FILTERS if ripples[m] <= limit), FILTERS[-1])
        if built in FILTERS:
            smaller = FILTERS[: FILTERS.index(built)]
            fits = ripples[built] <= limit * (1 + WITHIN_LIMIT)
            needed = all(ripples[m] >= limit * (1 - WITHIN_LIMIT) for m in smaller)
            if fits and needed:
                return built
        return strict


EXPERIMENT = Experiment(SPEC, bench, RectifierEvaluator)
