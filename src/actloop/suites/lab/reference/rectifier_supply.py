"""The reference experimenter for the rectifier supply, through the public client only.

It switches the supply on and starts the logger, then for each load box in turn (68, 180, 470, 1200 ohm)
sets it into the load socket and, one after another, sets into the filter socket each module whose R_min
that load helps to bracket, noting when each circuit has settled. From the logger's exported rows it takes
each circuit's mean ripple, and finds each module's R_min by inverse quadratic interpolation of log R
against log ripple through its three loads (the ripple falls nearly as 1/R, so the curve is close to a
line there). It then builds the final supply (the least capacitance whose R_min is within the final load),
logs it under the final load, exports the rows again and submits with every row it rests on, leaving the
supply running and the other boxes on their pads.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.circuit_board import BoardOperator
from actloop.suites.lab.reference.motion import Client

MODULES = ("F1", "F2", "F3")
LOADS = {"load_68": 68.0, "load_180": 180.0, "load_470": 470.0, "load_1200": 1200.0}
BRACKETS = {"F3": ("load_68", "load_180", "load_470"), "F2": ("load_68", "load_180", "load_470"),
            "F1": ("load_180", "load_470", "load_1200")}  # fmt: skip
"""The three loads nearest each module's R_min over the card's ranges of modules and supply."""
SETTLE_S = 0.6
"""A circuit's rows count from this long after its last box was set in (the card's half second, and a
margin for the box coming to rest)."""
LOG_S = 1.5
RIPPLE = "ripple_meter"


def interpolate(points: Sequence[tuple[float, float]], ripple: float) -> float:
    """R (ohm) at which the ripple equals ``ripple``, from three (R, ripple) points: the quadratic in log
    ripple through their log R, evaluated at log ``ripple``."""
    xs = [math.log(r) for _, r in points]
    ys = [math.log(ohms) for ohms, _ in points]
    x = math.log(ripple)
    total = 0.0
    for i in range(3):
        term = ys[i]
        for j in range(3):
            if j != i:
                term *= (x - xs[j]) / (xs[i] - xs[j])
        total += term
    return math.exp(total)


class Supply:
    """The rectifier bench under the operator: which circuit was settled when, and the logger's rows."""

    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.board = BoardOperator(lab, {})
        self.windows: list[tuple[str, str, float, float]] = []
        """(module, load box, start, end) of each settled circuit, in simulated seconds."""

    def now(self) -> float:
        return float(self.lab.state()["time_s"])

    def log_circuit(self, module: str, load: str) -> None:
        """Set the module in (the load is already in), let it settle and log it, and note the window."""
        self.board.carry_box(f"filter_{module}_pad", "filter_socket")
        start = self.now() + SETTLE_S
        self.lab.wait(SETTLE_S + LOG_S)
        self.windows.append((module, load, start, self.now()))

    def rows(self, file: str) -> list[tuple[int, float, dict[str, float]]]:
        """(row index, time, values) of every row of a fresh export of the logger."""
        path = Path(self.lab.export("logger", file)["file"])
        with path.open() as handle:
            return [
                (i, float(row["time_s"]), {k: float(v) for k, v in row.items() if k != "time_s"})
                for i, row in enumerate(csv.DictReader(handle))
            ]


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, build the final supply and submit; returns the submission's answer."""
    bench = Supply(lab)
    board = bench.board
    board.rocker(on=True)
    board.press_rec()
    for load in LOADS:
        needed = [m for m in reversed(MODULES) if load in BRACKETS[m]]
        if not needed:
            continue
        board.carry_box(f"{load}_pad", "load_socket")
        for module in needed:
            bench.log_circuit(module, load)
            board.carry_box("filter_socket", f"filter_{module}_pad")
        board.carry_box("load_socket", f"{load}_pad")
    rows = bench.rows("modules.csv")
    citations, r_min = [], {}
    for module in MODULES:
        points = []
        for load in BRACKETS[module]:
            ripple, cited = _window_mean(rows, bench.windows, module, load, "modules.csv")
            citations += cited
            points.append((LOADS[load], ripple))
        r_min[module] = interpolate(points, public["ripple_limit"])
    final = next((m for m in MODULES if r_min[m] <= public["final_load"]), MODULES[-1])
    board.carry_box("load_final_pad", "load_socket")
    bench.log_circuit(final, "load_final")
    _, cited = _window_mean(bench.rows("final.csv"), bench.windows, final, "load_final", "final.csv")
    board.rise()
    result = {f"R_min_{m}": r_min[m] for m in MODULES}
    if not all(math.isfinite(v) and v > 0 for v in result.values()):
        raise RuntimeError("the ripple readings give no R_min")
    return lab.submit(result, citations + cited)


def _window_mean(
    rows: list[tuple[int, float, dict[str, float]]],
    windows: list[tuple[str, str, float, float]],
    module: str,
    load: str,
    file: str,
) -> tuple[float, list[dict[str, Any]]]:
    """The mean ripple over the rows logged while ``module`` settled under ``load``, and their citations."""
    start, end = next((s, e) for m, ld, s, e in windows if (m, ld) == (module, load))
    inside = [(i, values[RIPPLE]) for i, t, values in rows if start <= t <= end]
    if not inside:
        raise RuntimeError(f"no logged row of {module} under {load}")
    citations = [{"file": file, "row": i, "column": RIPPLE, "value": value} for i, value in inside]
    return sum(v for _, v in inside) / len(inside), citations
