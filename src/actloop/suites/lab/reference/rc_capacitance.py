"""The reference experimenter for the RC capacitance, through the public client only.

With the supply still off it raises the setting to 10 V (so the box later sees one clean step), carries the
box from its pad into the socket, starts the logger with the REC key and switches the supply on; the box
charges through the series resistor while the logger records both meters for LOG_S (over three time
constants at the largest capacitance the card allows). It then switches the supply off, stops the logger,
exports its rows and fits the charging curve: V(t) = a_V + b_V e^(−t/τ) and I(t) = a_I + b_I e^(−t/τ)
share τ, the meters' zero errors only shift a_V and a_I, and the ratio of the amplitudes −b_V / b_I is the
series resistor's true resistance R (whatever its print says). Then C = τ (1/R + 1/R_V), R_V the voltmeter's
published input resistance. The box goes back on its pad (it stays charged, which the card allows) and C is
submitted with every logged row the fit rests on.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from actloop.suites.lab.reference.circuit_board import BoardOperator, fit_exponentials
from actloop.suites.lab.reference.motion import Client

VOLTS = 10
LOG_S = 150.0
SWITCHED_ON_MA = 0.1
"""The first row whose current exceeds the first row's by this much is the first after switching on."""
SKIP_ROWS = 2
"""Rows after the switch-on row skipped: the card's quarter second (and a row to spare)."""
METERS = ("voltmeter", "ammeter")

Row = tuple[int, float, float, float]
"""(row index, time s, volts, milliamperes)."""


def fit_charge(rows: list[Row], voltmeter_ohms: float) -> tuple[float, float, float]:
    """(C in F, τ in s, R in ohm) from rows of one charging (or discharging) curve: both meters' curves
    fitted as exponentials with one τ, and R the ratio of their amplitudes, −b_V / b_I."""
    t = np.array([r[1] for r in rows])
    volts, amps = np.array([r[2] for r in rows]), np.array([r[3] for r in rows]) / 1000.0
    tau, ((_, b_volts), (_, b_amps)) = fit_exponentials(t, [volts, amps])
    ohms = -b_volts / b_amps
    return tau * (1.0 / ohms + 1.0 / voltmeter_ohms), tau, ohms


def read_rows(text: str) -> list[Row]:
    """Every row of a logger file's text."""
    return [
        (i, float(row["time_s"]), float(row["voltmeter"]), float(row["ammeter"]))
        for i, row in enumerate(csv.DictReader(text.splitlines()))
    ]


def charging(rows: list[Row], until_s: float) -> list[Row]:
    """The rows of the charge: from SKIP_ROWS after the first row with the supply on, to ``until_s``."""
    on = next(i for i, r in enumerate(rows) if r[3] - rows[0][3] > SWITCHED_ON_MA)
    return [r for r in rows[on + SKIP_ROWS :] if r[1] <= until_s]


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    board = BoardOperator(lab, {})
    board.set_to(VOLTS)
    board.carry_box("capacitor_box_pad", "socket")
    board.press_rec()
    board.rocker(on=True)
    lab.wait(LOG_S)
    until = float(lab.state()["time_s"])
    board.rocker(on=False)
    board.press_rec()
    file = "charge.csv"
    rows = charging(read_rows(Path(lab.export("logger", file)["file"]).read_text()), until)
    farads, _, _ = fit_charge(rows, public["voltmeter_resistance"])
    board.carry_box("socket", "capacitor_box_pad")
    board.rise()
    if not math.isfinite(farads) or farads <= 0:
        raise RuntimeError("the logged charge gives no capacitance")
    citations = [
        {"file": file, "row": i, "column": name, "value": value}
        for i, _, volts, milliamps in rows
        for name, value in zip(METERS, (volts, milliamps), strict=True)
    ]
    return lab.submit({"C": farads}, citations)
