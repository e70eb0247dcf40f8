"""The reference experimenter for the battery's EMF, through the public client only.

It starts the logger and logs the open circuit (the bench has stood at rest, so it is settled from the
start), switches the load circuit on and sets each load box in turn into the load socket, logging each once
the card's settling time has passed since it was set in, and takes it back to its pad. It then switches the
circuit off and exports the logger's rows. The ammeter's open-circuit reading is its zero; with currents
taken from it (and the voltmeter's own current from its published input resistance), a least-squares line
V = E - I r through every settled row gives E and r. It submits with every row it rests on.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.circuit_board import BoardOperator
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.motion import Client

LOADS = ("load_1r0", "load_2r2", "load_4r7")
OPEN = "open"
SETTLE_S = 15.0
"""The card's settling time: rows count this long after the last change."""
MARGIN_S = 0.5
LOG_S = 3.0
FILE = "circuits.csv"
Row = tuple[int, float, dict[str, float]]


def fit_cell(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(E, r) from (current A, volts V) points: the least-squares line V = E - I r."""
    slope, intercept = line(points)
    return intercept, -slope


def cell_of(
    rows: Sequence[Row], windows: Mapping[str, tuple[float, float]], voltmeter_ohms: float
) -> tuple[float, float, list[Row]]:
    """(E, r, the rows used) from the rows inside each circuit's window: currents from the ammeter's mean
    open-circuit reading, plus the voltmeter's own current."""
    inside = {c: [row for row in rows if start <= row[1] <= end] for c, (start, end) in windows.items()}
    if not all(inside.values()):
        raise RuntimeError(f"no logged row of {[c for c, found in inside.items() if not found]}")
    zero = sum(values["ammeter"] for _, _, values in inside[OPEN]) / len(inside[OPEN])
    used = [row for found in inside.values() for row in found]
    points = [(v["ammeter"] - zero + v["voltmeter"] / voltmeter_ohms, v["voltmeter"]) for _, _, v in used]
    emf, ohms = fit_cell(points)
    return emf, ohms, used


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    board = BoardOperator(lab, {})
    now = lambda: float(lab.state()["time_s"])  # noqa: E731
    board.press_rec()
    start = now()
    lab.wait(LOG_S)
    windows = {OPEN: (start, now())}
    board.rocker(on=True)
    for load in LOADS:
        board.carry_box(f"{load}_pad", "load_socket")
        start = now() + SETTLE_S + MARGIN_S
        lab.wait(SETTLE_S + MARGIN_S + LOG_S)
        windows[load] = (start, now())
        board.carry_box("load_socket", f"{load}_pad")
    board.rocker(on=False)
    board.rise()
    with Path(lab.export("logger", FILE)["file"]).open() as handle:
        rows = [
            (i, float(row["time_s"]), {k: float(v) for k, v in row.items() if k != "time_s"})
            for i, row in enumerate(csv.DictReader(handle))
        ]
    emf, ohms, used = cell_of(rows, windows, public["voltmeter_resistance"])
    if not (emf > 0 and ohms > 0):
        raise RuntimeError(f"the readings give no cell (E {emf}, r {ohms})")
    citations = [
        {"file": FILE, "row": i, "column": name, "value": values[name]}
        for i, _, values in used
        for name in ("voltmeter", "ammeter")
    ]
    return lab.submit({"E": emf, "r": ohms}, citations)
