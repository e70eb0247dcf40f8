"""The reference experimenter for the three-terminal box, through the public client only.

With the supply at 10 V and the logger on, it sets the box into the socket turned so each pair of terminals
meets the contacts in turn (A-B as it stands, B-C a quarter turn counter-clockwise, C-A a half turn),
switches the supply on, logs LOG_S of the transient and switches off. From the exported rows it fits, per
pair, V(t) and I(t) as a + b e^(−t/τ) with one τ: the asymptotes give the pair's DC resistance (or an open
circuit), the amplitude whether the capacitor takes part. The pattern (does A-B show a transient; is B-C
open; which pair's resistance is the sum of the other two) names the network, and the largest time constant
with the resistance the capacitor sees there gives C1. It puts the box back and submits with every row.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from actloop.suites.lab.reference.circuit_board import HAND, SAFE_Z, BoardOperator, fit_exponentials
from actloop.suites.lab.reference.motion import GC_OFFSET, PAD_HALF, Client

VOLTS = 10
LOG_S = 150.0
"""Seven of the longest time constants the card's ranges allow (C1 (R + R_s) ≤ 20 s)."""
SKIP_S = 0.6
"""Rows from this long after switching on (the card's half second and a margin)."""
TURNS = {"AB": 0, "BC": 1, "CA": 2}
OPEN_MA = 0.05
"""A pair whose settled current is below this conducts nothing at DC."""
STILL_MA = 0.05
"""A pair whose current moves by less than this shows no transient."""
METERS = ("voltmeter", "ammeter")

Row = tuple[int, float, float, float]
"""(row index, time s, volts, milliamperes)."""


def parallel(*ohms: float) -> float:
    return 1.0 / sum(1.0 / r for r in ohms)


def turned(quaternion: list[float], quarters: int) -> list[float]:
    """``quaternion`` turned about the vertical by ``quarters`` quarter turns counter-clockwise."""
    half = quarters * math.pi / 4
    w, x, y, z = quaternion
    c, s = math.cos(half), math.sin(half)
    return [c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w]


class TurningOperator(BoardOperator):
    """The board's operator that also turns a box about the vertical while carrying it."""

    def carry_turned(self, start: str, end: str, quarters: int) -> None:
        """Carry the box from layout place ``start`` to ``end``, turning it by ``quarters`` on the way."""
        (sx, sy, sz), (ex, ey, ez) = self.layout[start], self.layout[end]
        grip = self.layout["box_size"][2] - PAD_HALF + GC_OFFSET
        hand = turned(HAND, quarters)
        self.lab.gripper(0.055)
        self.above(sx, sy)
        self.to(sx, sy, sz + grip)
        self.lab.gripper(0.0)
        self.to(sx, sy, SAFE_Z)
        self.arm.line([ex, ey, SAFE_Z], hand)
        self.arm.line([ex, ey, ez + 0.0015 + grip], hand)
        self.lab.gripper(0.055)
        self.arm.line([ex, ey, SAFE_Z], hand)
        self.arm.line([ex, ey, SAFE_Z], HAND)


def pair_fit(rows: list[Row]) -> dict[str, float]:
    """A pair's settled volts and milliamperes and its transient (how far the current moved in mA, τ in s;
    without a transient, the means and no τ)."""
    t = np.array([r[1] for r in rows])
    volts, milliamps = np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
    moved = float(np.ptp(milliamps))
    if moved <= STILL_MA:
        return {
            "volts": float(np.mean(volts)),
            "milliamps": float(np.mean(milliamps)),
            "moved": moved,
            "tau": 0,
        }
    tau, ((a_v, _), (a_i, _)) = fit_exponentials(t, [volts, milliamps])
    return {"volts": a_v, "milliamps": a_i, "moved": moved, "tau": tau}


def identify(fits: Mapping[str, dict[str, float]], series_ohms: float) -> dict[str, Any]:
    """The network and R1, R2, C1 from each pair's fit (see the module docstring)."""
    ohms = {p: 1000.0 * f["volts"] / f["milliamps"] if abs(f["milliamps"]) > OPEN_MA else math.inf
            for p, f in fits.items()}  # fmt: skip
    transient = {p: f["moved"] > STILL_MA for p, f in fits.items()}
    tau = {p: f["tau"] for p, f in fits.items()}
    rs = series_ohms
    if not transient["AB"]:
        if math.isinf(ohms["BC"]):  # star: A-B through R1 and R2; C1 charges through R2 or R1 and R_s
            c1 = (tau["BC"] + tau["CA"]) / (ohms["AB"] + 2 * rs)
            return {"topology": "star", "R1": tau["CA"] / c1 - rs, "R2": tau["BC"] / c1 - rs, "C1": c1}
        r1, r2 = ohms["AB"], ohms["BC"]
        return {"topology": "parallel", "R1": r1, "R2": r2, "C1": tau["CA"] / parallel(r2, r1 + rs)}
    delta_gap = abs(ohms["CA"] - ohms["AB"] - ohms["BC"])
    tee_gap = abs(ohms["BC"] - ohms["AB"] - ohms["CA"])
    if delta_gap < tee_gap:  # delta: C1 across C-A; it sees R2 + R1 ∥ R_s driving A-B
        r1, r2 = ohms["AB"], ohms["BC"]
        seen = {"AB": r2 + parallel(r1, rs), "BC": r1 + parallel(r2, rs)}
        topology = "delta"
    else:  # tee: C1 across B-C
        r1, r2 = ohms["AB"], ohms["CA"]
        seen = {"AB": r2 + parallel(r1, rs), "CA": r1 + parallel(r2, rs)}
        topology = "tee"
    slowest = max(seen, key=lambda p: tau[p])
    return {"topology": topology, "R1": r1, "R2": r2, "C1": tau[slowest] / seen[slowest]}


def read_rows(path: Path) -> list[Row]:
    with path.open() as handle:
        return [
            (i, float(row["time_s"]), float(row["voltmeter"]), float(row["ammeter"]))
            for i, row in enumerate(csv.DictReader(handle))
        ]


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    board = TurningOperator(lab, {})
    board.set_to(VOLTS)
    board.press_rec()
    windows, facing = {}, 0
    for pair, quarters in TURNS.items():
        board.carry_turned("terminal_box_pad", "socket", quarters - facing)
        facing = quarters
        board.rocker(on=True)
        start = float(lab.state()["time_s"])
        lab.wait(LOG_S)
        windows[pair] = (start + SKIP_S, float(lab.state()["time_s"]))
        board.rocker(on=False)
        board.carry_box("socket", "terminal_box_pad")
    board.rise()
    file = "pairs.csv"
    rows = read_rows(Path(lab.export("logger", file)["file"]))
    logged = {pair: [r for r in rows if start <= r[1] <= end] for pair, (start, end) in windows.items()}
    found = identify({pair: pair_fit(r) for pair, r in logged.items()}, public["series_resistance"])
    citations = [
        {"file": file, "row": i, "column": name, "value": value}
        for pair_rows in logged.values()
        for i, _, volts, milliamps in pair_rows
        for name, value in zip(METERS, (volts, milliamps), strict=True)
    ]
    return lab.submit(found, citations)
