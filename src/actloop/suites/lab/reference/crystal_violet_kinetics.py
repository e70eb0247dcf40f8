"""The reference experimenter for crystal-violet kinetics, through the public client only.

It blanks on the water at 590 nm (crystal violet's band) and starts the logger. Then two kinetic runs: a
cuvette of dye seated in the holder, a vial of base taken from the side and poured into it, the vial put
back, and the cuvette left untouched until the run has lasted its time; the strongest base (vial_4) first,
the weakest (vial_1) into another cuvette after. Each run's logged absorbance decays as exp(−k t) with
k = k0 + k2 [OH⁻]: the slope of ln A against time gives k, and the two runs' difference over their
hydroxide difference gives k2, free of k0. It stops the logger, puts every cuvette back, exports the log and
submits citing every row fitted.

What it knows besides the card is the bench's published layout; every value comes from the logger file.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.pouring import PouringOperator

WAVELENGTH_NM = 590
RUNS = ((1, "vial_4", 0.120, 150.0), (2, "vial_1", 0.030, 300.0))
"""(cuvette, vial, the vial's printed NaOH in mol/L, seconds from the pour to the run's end): the strongest
base first."""
DYE_ML, BASE_ML = 2.0, 1.0
SETTLE_S = 20.0
"""A run's rows are fitted from this long after its pour (the vial back in its rack, the hand away)."""
MIN_A = 0.05
BLANK = 0
LOG_FILE = "kinetics.csv"

Row = tuple[int, float, float]
"""(row index, time in s, absorbance)."""


def rows_of(text: str) -> list[Row]:
    """Every row of the logger file's text: (index, time, absorbance)."""
    return [
        (i, float(row["time_s"]), float(row["absorbance"]))
        for i, row in enumerate(csv.DictReader(text.splitlines()))
    ]


def decay_rate(rows: Sequence[Row]) -> float:
    """k (1/s) from the least-squares slope of ln A against time."""
    t = np.array([r[1] for r in rows])
    ln_a = np.log(np.array([r[2] for r in rows]))
    return float(-np.polyfit(t, ln_a, 1)[0])


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = PouringOperator(lab)
    me.seat(BLANK)
    me.set_wavelength(WAVELENGTH_NM)
    me.press_key("blank")
    me.press_key("log")
    windows: list[tuple[float, float, float]] = []
    for cuvette, vial, base, seconds in RUNS:
        me.seat(cuvette)
        me.take_vial(vial)
        me.pour_into_holder()
        poured = float(lab.state()["time_s"])
        me.return_vial(vial)
        me.go_to_keys()
        lab.wait(max(0.0, poured + seconds - float(lab.state()["time_s"])))
        windows.append((poured + SETTLE_S, poured + seconds, base * BASE_ML / (DYE_ML + BASE_ML)))
    me.press_key("log")
    me.unseat()
    me.clear()
    rows = rows_of(Path(lab.export("logger", LOG_FILE)["file"]).read_text())
    fitted = [[r for r in rows if start <= r[1] <= end and r[2] > MIN_A] for start, end, _ in windows]
    (k_fast, k_slow), (oh_fast, oh_slow) = [decay_rate(run) for run in fitted], [w[2] for w in windows]
    k2 = (k_fast - k_slow) / (oh_fast - oh_slow)
    citations = [
        {"file": LOG_FILE, "row": i, "column": "absorbance", "value": a, "quantity": "k2"}
        for run in fitted
        for i, _, a in run
    ]
    return lab.submit({"k2": k2}, citations)
