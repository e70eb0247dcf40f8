"""The difficulty audit of an experiment: how often y* can be had without doing the experiment properly.

Over many drawn instances (seeds 1 to N of the public set) it measures, for each experiment:

- **guess (midpoint)**: the share of instances whose y* lies within tolerance of the middle of the range
  y* takes (what the card and the public code allow without touching the bench);
- **guess (best constant)**: the largest share any single constant answer gets within tolerance;
- **naive shortcut**: the share solved by the quick method the apparatus invites (named per experiment);
- **standard design**: the share solved by the standard design of the experiment's tier with its standard
  estimator (the seed's appendix B: a design fixed in advance, independent of θ and of the readings).

The shortcut and the standard design are simulated from the experiment's own physics and instrument models
(the circuit, the spring stand's equilibrium, the thin lens and its blur circle, the thermistor's B law with
its self-heating, the spectrophotometer with stray light and drift), each digital display shown through
its own :class:`~actloop.suites.lab.instruments.Instrument` (noise under the instance's noise key, lag,
quantization, range) once settled, and scales read to their reading resolution; no robot episode is run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from actloop.suites.lab.instance import Instance, draw
from actloop.suites.lab.instruments import OVERLOAD, Instrument, InstrumentSpec
from actloop.suites.lab.physics.noise import seeded_uniform
from actloop.suites.lab.spec import ExperimentSpec

AUDIT_INSTANCES = 1000
DYE_SCAN_CUVETTE = 4
"""The dye's standard design scans the stock diluted 8 times (cuvette 4) for λmax."""
DYE_PEAK_HALF_NM = 6
"""... and fits a parabola to readings every 1 nm within this of its coarse scan's best point."""
LENS_DISPLACEMENT_D = 0.50
"""The lens's standard design sets the screen 0.50 m from the slide: more than 4f for every lens drawn."""
Estimate = dict[str, float]


@dataclass(frozen=True)
class Design:
    """A way to estimate y* from simulated readings: its name, what it does, and the estimator."""

    name: str
    description: str
    estimate: Callable[[Instance], Estimate]


@dataclass(frozen=True)
class Plan:
    """What the audit simulates for one experiment: y* of an instance, the naive shortcut, the standard
    design."""

    target: Callable[[Instance], Estimate]
    naive: Design
    standard: Design
    note: str
    """Why the shortcut fails or succeeds: which nuisance it misses, or that none is there to miss."""


class Meter:
    """Readings of one instrument as its display shows them, each taken once the display has settled on
    a true value held long enough for its lag to die out (twenty time constants)."""

    def __init__(self, spec: InstrumentSpec, noise_key: str) -> None:
        self.instrument = Instrument(spec, noise_key)
        self.time_s = 0.0

    def read(self, true_value: float) -> float:
        """What the display shows once settled on ``true_value`` (NaN for ``OL``)."""
        spec = self.instrument.spec
        self.time_s += 20.0 * spec.time_constant_s + 1.0 / spec.refresh_hz
        self.instrument.step(self.time_s, true_value)
        shown = self.instrument.shown
        return math.nan if shown is None or shown == OVERLOAD else float(shown)


def read_scale(value: float, resolution: float) -> float:
    """A scale read to its reading resolution: the nearest multiple of it."""
    return resolution * math.floor(value / resolution + 0.5)


def slope(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (slope, intercept) of y against x."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    b = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    return b, mean_y - b * mean_x


# --- black-box resistor -----------------------------------------------------------------------------------
def _black_box() -> Plan:
    from actloop.suites.lab.experiments.black_box_resistor import BlackBoxWiring
    from actloop.suites.lab.platforms.circuit_board import AMMETER, VOLTMETER
    from actloop.suites.lab.reference.black_box_resistor import fit_resistance
    from actloop.suites.lab.rig import DT

    def meters(instance: Instance) -> Callable[[float], tuple[float, float]]:
        h = instance.hidden
        wiring = BlackBoxWiring(h["R"], h["voltmeter_zero"], h["ammeter_zero"])
        circuit = wiring.build(DT)
        circuit.set_switch("power", True)
        circuit.set_switch("contacts", True)
        volt, amp = Meter(VOLTMETER, instance.noise_key), Meter(AMMETER, instance.noise_key)

        def at(setting: float) -> tuple[float, float]:
            circuit.set_source("supply", volts=setting)
            true = wiring.true_values(circuit)
            return volt.read(true["voltmeter"]), amp.read(true["ammeter"])

        return at

    def naive(instance: Instance) -> Estimate:
        volts, milliamps = meters(instance)(10.0)
        return {"R": 1000.0 * volts / milliamps}

    def standard(instance: Instance) -> Estimate:
        at = meters(instance)
        points = [at(float(setting)) for setting in (2, 4, 6, 8, 10) for _ in range(3)]
        return {"R": fit_resistance(points, instance.public["voltmeter_resistance"])}

    return Plan(
        lambda i: {"R": i.hidden["R"]},
        Design("one reading at 10 V", "R = V / I from one voltmeter and ammeter reading at 10 V", naive),
        Design(
            "slope of five settings",
            "three readings at each of 2, 4, 6, 8, 10 V; R from the least-squares slope of I against V "
            "(less the voltmeter's published conductance)",
            standard,
        ),
        "the meters' zero errors (±0.2 V, ±0.2 mA) move one reading at 10 V by up to 2 % in voltage and "
        "0.1-10 % in current, far past 0.3 %; a slope over several settings drops them",
    )


# --- Hooke's law ------------------------------------------------------------------------------------------
def _hookes_law() -> Plan:
    from actloop.suites.lab.experiments.hookes_law import bench
    from actloop.suites.lab.platforms.spring_stand import RULER, G

    def readings(instance: Instance, loads: Sequence[int]) -> list[tuple[float, float]]:
        """(load in kg, ruler reading in mm) at rest with ``n`` weights on the tray: the close-wound spring
        stays shut at its unloaded length until the load exceeds its initial tension, then the pointer
        falls by (load - F0) / k; the ruler's offset shifts every reading alike."""
        stand, m = bench(instance), instance.public["weight_mass"]
        return [(n * m, read_scale(stand.resting_reading_mm(n), RULER.resolution)) for n in loads]

    def naive(instance: Instance) -> Estimate:
        (m0, r0), (m1, r1) = readings(instance, (0, 1))
        return {"k": G * (m1 - m0) / ((r0 - r1) / 1000.0)}

    def standard(instance: Instance) -> Estimate:
        b, _ = slope(readings(instance, (1, 2, 3, 4, 5)))
        return {"k": -G / (b / 1000.0)}

    return Plan(
        lambda i: {"k": i.hidden["k"]},
        Design(
            "unloaded and one weight",
            "k = m g / (difference of the ruler readings with the empty tray and with one weight)",
            naive,
        ),
        Design(
            "slope of five loads",
            "ruler readings at 1 to 5 weights; k = g / (least-squares slope of the reading against the load)",
            standard,
        ),
        "the ruler's offset, the spring's unloaded length and the tray's mass drop out of differences, but "
        "the close-wound spring's initial tension F0 does not: the empty tray hangs on the shut coils, so "
        "the first weight extends the spring by ((tray + weight) g - F0) / k, 12-83 % less than m g / k, "
        "while every weight opens the coils, so readings at 1 to 5 weights lie on the line",
    )


# --- lens focal length ------------------------------------------------------------------------------------
def _lens() -> Plan:
    from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, INDEX, LENS_APERTURE, OBJECT_X

    def marks(instance: Instance, points: Sequence[float]) -> list[float]:
        """The scale's readings (m) at the world positions ``points``: the scale's offset shifts all alike,
        and each is read to its resolution."""
        offset = instance.hidden["scale_offset"]
        return [read_scale(1000.0 * (x - offset), INDEX.resolution) / 1000.0 for x in points]

    def one_distance(instance: Instance, u: float) -> float:
        """f = uv / (u + v) with the lens's index mark u from the slide and the screen anywhere its blur
        circle is in focus (a quantile of the instance's noise): the lens's principal plane is δ beyond
        its mark, so the true distances are u + δ and v − δ."""
        f, delta = instance.hidden["f"], instance.hidden["principal_offset"]
        object_distance = u + delta
        v = object_distance * f / (object_distance - f)
        depth = FOCUS_BLUR_M * v / LENS_APERTURE  # blur = aperture |1 - s / v| at the screen's s
        s = v + depth * (2.0 * seeded_uniform(instance.noise_key, "audit/focus", 0) - 1.0)
        obj, lens, screen = marks(instance, (OBJECT_X, OBJECT_X + u, OBJECT_X + object_distance + s))
        u_read, v_read = lens - obj, screen - lens
        return u_read * v_read / (u_read + v_read)

    def displacement(instance: Instance, distance: float) -> float:
        """f = (D² − d²) / 4D with the screen D from the slide and the lens at each of its two focus
        positions d apart, each anywhere in its in-focus window (a quantile of the instance's noise): the
        lens moving by x moves the image by x (1 − m²), so the window is the screen's ±(blur v / aperture)
        over |1 − m²|. Both positions are off their marks by the same δ, which drops out of d."""
        f, delta = instance.hidden["f"], instance.hidden["principal_offset"]
        gap = math.sqrt(distance * distance - 4.0 * distance * f)
        lens_marks = []
        for k, u in enumerate(((distance - gap) / 2.0, (distance + gap) / 2.0)):
            v = distance - u
            window = FOCUS_BLUR_M * v / LENS_APERTURE / abs(1.0 - (v / u) ** 2)
            shift = window * (2.0 * seeded_uniform(instance.noise_key, "audit/focus", k) - 1.0)
            lens_marks.append(OBJECT_X + u - delta + shift)
        obj, first, second, screen = marks(instance, (OBJECT_X, *lens_marks, OBJECT_X + distance))
        d_read, gap_read = screen - obj, abs(second - first)
        return (d_read * d_read - gap_read * gap_read) / (4.0 * d_read)

    return Plan(
        lambda i: {"f": i.hidden["f"]},
        Design(
            "one object distance",
            "the thin-lens formula at one object distance (0.20 m) with the screen where the image looks "
            "in focus",
            lambda i: {"f": one_distance(i, 0.20)},
        ),
        Design(
            "displacement method",
            f"the screen fixed {LENS_DISPLACEMENT_D:g} m from the slide, the lens at each of its two focus "
            "positions, f = (D² − d²) / 4D",
            lambda i: {"f": displacement(i, LENS_DISPLACEMENT_D)},
        ),
        "the scale's offset drops out of u and v, but the lens's principal plane lies 5-12 mm beyond its "
        "index mark: one object distance keeps that offset in u and v (a bias of about δ (v − u) / (u + v) "
        "and more, zero only near u = v), which the displacement method's two positions share and cancel",
    )


# --- thermistor B -----------------------------------------------------------------------------------------
def _thermistor() -> Plan:
    from actloop.suites.lab.physics.heat import Thermistor
    from actloop.suites.lab.platforms.thermal_bench import (
        OHMMETER,
        TEST_CURRENT,
        THERMOMETER,
        WELL_CONDUCTANCE,
    )
    from actloop.suites.lab.reference.thermistor_b import fit_b_r25, fit_thermistor

    def points(instance: Instance, celsius: Sequence[float]) -> list[tuple[float, float]]:
        """(thermometer °C, ohmmeter Ω) with the probe settled in the block's well at each block
        temperature: the bead runs warmer than the block by its Joule heat over the well's conductance, and
        the two-wire ohmmeter reads the leads in series with it."""
        h = instance.hidden
        probe = Thermistor(h["R25"], h["B"], h["leads"], TEST_CURRENT)
        thermometer, ohmmeter = Meter(THERMOMETER, instance.noise_key), Meter(OHMMETER, instance.noise_key)
        out = []
        for t in celsius:
            block = t + 273.15
            bead = block
            for _ in range(20):  # the steady state of the bead's heat balance
                bead = block + probe.joule_heat(bead) / WELL_CONDUCTANCE
            out.append((thermometer.read(t), 1000.0 * ohmmeter.read(probe.two_wire(bead) / 1000.0)))
        return out

    def naive(instance: Instance) -> Estimate:
        b, r25 = fit_b_r25(points(instance, (30.0, 40.0)))
        return {"B": b, "R25": r25}

    def standard(instance: Instance) -> Estimate:
        b, r25, _ = fit_thermistor(points(instance, (30.0, 40.0, 50.0, 60.0, 70.0, 80.0)))
        return {"B": b, "R25": r25}

    return Plan(
        lambda i: {"B": i.hidden["B"], "R25": i.hidden["R25"]},
        Design("two temperatures", "B and R25 from one reading each at 30 and 40 degC", naive),
        Design(
            "six temperatures, leads fitted",
            "readings at 30, 40, 50, 60, 70 and 80 degC; a least-squares fit of R = r + R25 exp(B (1/T - "
            "1/T25)) with the series resistance r as a third parameter",
            standard,
        ),
        "the two-wire probe's leads (20-60 ohm, in series) add to every reading; two points fitted by the B "
        "law alone take them for the thermistor and miss B by 0.16-1.7 % (R25 by 0.1-1.1 %), past 0.3 % on "
        "most instances; a fit over 30-80 degC, where the leads are 0.6-8 % of the hottest reading, "
        "separates them",
    )


# --- dye absorptivity -------------------------------------------------------------------------------------
def _solve3(matrix: list[list[float]], rhs: list[float]) -> tuple[float, float, float]:
    """The solution of a 3×3 linear system by Cramer's rule."""

    def det(m: list[list[float]]) -> float:
        return (
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        )

    whole = det(matrix)
    columns = [[[rhs[i] if j == k else matrix[i][j] for j in range(3)] for i in range(3)] for k in range(3)]
    a, b, c = (det(m) / whole for m in columns)
    return a, b, c


def _dye() -> Plan:
    from actloop.suites.lab.experiments.dye_absorptivity import DILUTIONS, dilution, dye
    from actloop.suites.lab.physics.spectra import Spectrophotometer

    def meter(instance: Instance) -> Callable[[float, float], float]:
        """``read(nm, concentration)``: blank with the solvent at ``nm``, then read the dye there."""
        spectro = Spectrophotometer("absorbance", instance.noise_key)
        the_dye = dye(instance)
        clock = [0.0]

        def read(nm: float, concentration: float) -> float:
            spectro.set_wavelength(nm)
            clock[0] += 2.0
            spectro.blank(clock[0])
            clock[0] += 2.0
            return spectro.read(clock[0], the_dye.epsilon(spectro.wavelength) * concentration)

        return read

    def peak(read: Callable[[float, float], float], concentration: float) -> float:
        """λmax from a 5 nm scan of ``concentration``, refined by the vertex of a least-squares parabola
        through readings every 1 nm within DYE_PEAK_HALF_NM nm of the scan's best point."""
        coarse = max(range(400, 701, 5), key=lambda nm: read(float(nm), concentration))
        window = range(-DYE_PEAK_HALF_NM, DYE_PEAK_HALF_NM + 1)
        points = [(float(d), read(float(coarse + d), concentration)) for d in window]
        sums = [sum(x**k for x, _ in points) for k in range(5)]
        rhs = [sum(x**k * y for x, y in points) for k in range(3)]
        matrix = [[sums[i + j] for j in range(3)] for i in range(3)]
        _, c1, c2 = _solve3(matrix, rhs)
        return coarse + (-c1 / (2.0 * c2) if c2 < 0 else 0.0)

    def naive(instance: Instance) -> Estimate:
        read, stock = meter(instance), instance.public["stock_concentration"]
        nm = peak(read, stock / dilution(DYE_SCAN_CUVETTE))
        return {"lambda_max": nm, "epsilon": read(nm, stock) / stock}

    def standard(instance: Instance) -> Estimate:
        read, stock = meter(instance), instance.public["stock_concentration"]
        nm = peak(read, stock / dilution(DYE_SCAN_CUVETTE))
        points = [(0.0, 0.0)] + [
            (stock / dilution(i), read(nm, stock / dilution(i))) for i in range(1, DILUTIONS + 1)
        ]
        linear = [(c, a) for c, a in points if a < 1.0]  # stray light bends the line above 1 A
        b = sum(c * a for c, a in linear) / sum(c * c for c, _ in linear)
        return {"lambda_max": nm, "epsilon": b}

    return Plan(
        lambda i: {"lambda_max": dye(i).lambda_max, "epsilon": dye(i).epsilon_max},
        Design(
            "one absorbance of the stock",
            "λmax from a scan of the stock diluted 8 times; ε = A / c from one reading of the stock there",
            naive,
        ),
        Design(
            "dilution series",
            "λmax as the naive scan; ε from the slope through zero of A against c over the dilutions "
            "reading below 1 A",
            standard,
        ),
        "stray light (0.1 % of the lamp) caps what the stock reads near 3 A while ε c is 2-14 A, so one "
        "reading of the stock fails; below 1 A the readings are linear in c",
    )


PLANS: dict[str, Callable[[], Plan]] = {
    "black_box_resistor": _black_box,
    "hookes_law": _hookes_law,
    "lens_focal_length": _lens,
    "thermistor_b": _thermistor,
    "dye_absorptivity": _dye,
}


# --- the audit --------------------------------------------------------------------------------------------
def _within(spec: ExperimentSpec, estimate: Estimate, target: Estimate) -> bool:
    """Whether every scored quantity of ``estimate`` lies within its tolerance of ``target``."""
    for q in spec.quantities:
        value, true = estimate.get(q.name, math.nan), target[q.name]
        error = abs(value - true) / abs(true) if q.relative else abs(value - true)
        if not error <= q.tolerance:
            return False
    return True


def _interval(spec: ExperimentSpec, name: str, true: float) -> tuple[float, float]:
    """The constant answers within tolerance of ``true``."""
    q = next(q for q in spec.quantities if q.name == name)
    half = q.tolerance * abs(true) if q.relative else q.tolerance
    return true - half, true + half


def _best_1d(intervals: Sequence[tuple[float, float]]) -> int:
    """The most intervals any one point lies in (closed intervals)."""
    events = sorted([(low, 0) for low, _ in intervals] + [(high, 1) for _, high in intervals])
    best = inside = 0
    for _, kind in events:
        inside += 1 if kind == 0 else -1
        best = max(best, inside)
    return best


def best_constant_share(spec: ExperimentSpec, targets: Sequence[Estimate]) -> float:
    """The largest share of ``targets`` that one constant answer gets within tolerance (an exact sweep over
    the first quantity's interval ends, then over the second's)."""
    names = [q.name for q in spec.quantities]
    boxes = [{name: _interval(spec, name, t[name]) for name in names} for t in targets]
    first = names[0]
    if len(names) == 1:
        return _best_1d([box[first] for box in boxes]) / len(targets)
    if len(names) > 2:
        raise ValueError(f"{spec.key}: the best constant is swept over at most two quantities")
    best = 0
    for low, _ in (box[first] for box in boxes):
        inside = [box[names[1]] for box in boxes if box[first][0] <= low <= box[first][1]]
        best = max(best, _best_1d(inside))
    return best / len(targets)


def audit(experiment: str, instances: int = AUDIT_INSTANCES) -> dict[str, Any]:
    """The difficulty audit of ``experiment`` over seeds 1..``instances`` of the public set."""
    from actloop.suites.lab.experiments import experiment as find

    spec = find(experiment).spec
    if experiment not in PLANS:
        raise ValueError(f"no difficulty audit for {experiment!r}; audited: {', '.join(sorted(PLANS))}")
    plan = PLANS[experiment]()
    drawn = [draw(spec, seed) for seed in range(1, instances + 1)]
    targets = [plan.target(i) for i in drawn]
    middle = {
        q.name: (min(t[q.name] for t in targets) + max(t[q.name] for t in targets)) / 2
        for q in spec.quantities
    }

    def share(design: Callable[[Instance], Estimate]) -> float:
        hits = sum(_within(spec, design(i), t) for i, t in zip(drawn, targets, strict=True))
        return hits / instances

    return {
        "instances": instances,
        "tier": spec.tier,
        "guess_midpoint": share(lambda _: middle),
        "guess_best_constant": best_constant_share(spec, targets),
        "naive_shortcut": {"name": plan.naive.name, "method": plan.naive.description},
        "naive_rate": share(plan.naive.estimate),
        "standard_design": {"name": plan.standard.name, "method": plan.standard.description},
        "standard_rate": share(plan.standard.estimate),
        "note": plan.note,
    }


def keep_audit(manifest: Any, instances: int = AUDIT_INSTANCES, result: dict[str, Any] | None = None) -> None:
    """Record the audit of ``manifest``'s experiment (``result``, or one run now) in it, rates rounded to
    0.1 %."""
    result = dict(result or audit(manifest.experiment, instances))
    for name in ("guess_midpoint", "guess_best_constant", "naive_rate", "standard_rate"):
        result[name] = round(result[name], 3)
    manifest.audit = result


def add_audit_command(sub: Any) -> None:
    """``actloop lab audit``: print the difficulty audit of experiments, optionally recording it."""
    parser = sub.add_parser(
        "audit",
        help="the difficulty audit: guess-from-card, naive-shortcut and standard-design success rates",
    )
    parser.add_argument(
        "--experiment", action="append", help="experiment key (repeatable; default: every audited one)"
    )
    parser.add_argument("--instances", type=int, default=AUDIT_INSTANCES, help="instances drawn (seeds 1..N)")
    parser.add_argument(
        "--write", action="store_true", help="record the audit in the experiment's released manifest"
    )
    parser.set_defaults(handler=audit_command)


def audit_command(args: Any) -> int:
    from rich.table import Table

    from actloop.cli.common import console
    from actloop.suites.lab import manifests
    from actloop.suites.lab.experiments import experiment_keys

    keys = args.experiment or [key for key in experiment_keys() if key in PLANS]
    table = Table(title=f"difficulty audit ({args.instances} instances each)")
    for column in ("experiment", "tier", "guess: midpoint", "guess: best constant", "naive shortcut",
                   "naive", "standard design", "standard"):  # fmt: skip
        table.add_column(column)
    for key in keys:
        result = audit(key, args.instances)
        table.add_row(
            key,
            result["tier"],
            f"{100 * result['guess_midpoint']:.1f} %",
            f"{100 * result['guess_best_constant']:.1f} %",
            result["naive_shortcut"]["name"],
            f"{100 * result['naive_rate']:.1f} %",
            result["standard_design"]["name"],
            f"{100 * result['standard_rate']:.1f} %",
        )
        if args.write:
            manifest = manifests.load(key)
            keep_audit(manifest, args.instances, result)
            manifest.save()
    console.print(table)
    return 0
