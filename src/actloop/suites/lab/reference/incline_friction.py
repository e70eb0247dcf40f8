"""The reference experimenter for the sliders' friction coefficients, through the public client only.

It closes the fingers round the prop carriage's peg and slides the carriage towards the hinge: quickly to a
slope of :data:`FAST_TO_DEG`, below any slider's slip, then starts the logger and raises the board by
:data:`STEP_DEG` at a time, exporting the log after each step, until both sliders have started to slip.
They slide freely down their tracks to the bottom bumpers. From the log, for each slider: μs is tan θ at
its last row at rest; μk comes from its free slide once the board has stopped moving, as
μk = tan θ − a / (g cos θ), a the least-squares parabola's acceleration through its distances. It then lowers
the board to its starting slope, pushes each slider by its handle back up against its top bumper, and
submits both coefficients (each the mean over the two sliders) with the rows they rest on.

Besides the card it knows the bench's published layout (the hinge, the prop's rise, the carriage's peg, the
tracks, the sliders' size, the LOG key).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator

G = 9.81
FAST_TO_DEG = 18.5
STEP_DEG = 0.2
MAX_DEG = 36.0
"""The board's steepest slope (the carriage against its rail's end near the hinge)."""
SETTLE_S = 0.25
"""The wait after each step before the log is looked at."""
SLIDE_S = 2.0
"""The wait once the sliders slip: they reach the bottom bumpers in about a second."""
MOVED_MM = 0.3
"""A slider has started to slip once its distance is this much over its distance at rest."""
STILL_DEG = 0.02
"""The free slide's rows count once the slope is within this of its final value."""
BUMPER_MM = 5.0
"""...and while the slider is this far short of the bottom bumper."""
LOG_FILE = "incline.csv"
"""The log the result rests on (each look at the log during the raise goes to a file of its own)."""
COLUMNS = ("distance_a", "distance_b")
SAFE_Z = 1.1
PEG_OPEN_M = 0.03
PEG_HOLD_M = 0.014
PEG_GRIP_BELOW_TOP = 0.012
HANDLE_OPEN_M = 0.035
HANDLE_HOLD_M = 0.0
HANDLE_GRIP_BELOW_TOP = 0.01
SLOW = 0.3
"""The fraction of its usual speed the arm moves at while it holds the carriage or a slider."""
PUSH_PAST_M = 0.003
"""A slider is pushed this far past its top bumper's position (the bumper stops it there)."""
Row = dict[str, float]


def rows_of(text: str) -> list[Row]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def slip_start(rows: Sequence[Row], column: str) -> int | None:
    """The index of a slider's first row moving (its distance MOVED_MM over its first row's)."""
    rest = rows[0][column]
    return next((i for i, row in enumerate(rows) if row[column] > rest + MOVED_MM), None)


def free_slide(rows: Sequence[Row], column: str, start: int) -> list[int]:
    """The rows of a slider's free slide after its start: the slope still, short of the bottom bumper."""
    last = max(range(start, len(rows)), key=lambda i: rows[i][column])
    final = rows[last]["inclinometer"]
    end_mm = rows[last][column] - BUMPER_MM
    return [
        i
        for i in range(start, last)
        if abs(rows[i]["inclinometer"] - final) <= STILL_DEG and rows[i][column] < end_mm
    ]


def coefficients(rows: Sequence[Row], column: str) -> tuple[float, float, int, list[int]]:
    """(μs, μk, the slip's row, the free slide's rows) of one slider from the log."""
    start = slip_start(rows, column)
    if start is None or start == 0:
        raise ValueError(f"{column}: no slip from rest in the log")
    mu_s = math.tan(math.radians(rows[start - 1]["inclinometer"]))
    window = free_slide(rows, column, start)
    if len(window) < 8:
        raise ValueError(f"{column}: too short a free slide on a still board ({len(window)} rows)")
    t = np.array([rows[i]["time_s"] for i in window])
    d = np.array([rows[i][column] for i in window]) / 1000.0
    t0 = float(t.mean())
    curve = np.polyfit(t - t0, d, 2)
    a = 2.0 * float(curve[0])
    theta = math.radians(float(np.mean([rows[i]["inclinometer"] for i in window])))
    mu_k = math.tan(theta) - a / (G * math.cos(theta))
    return mu_s, mu_k, start, window


class InclineOperator(Operator):
    """Works the incline: the carriage by its peg, the sliders by their handles, the LOG key."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.hinge = self.layout["hinge"]
        (self.rise,) = self.layout["prop_rise"]
        self.run = self.layout["carriage_run"][0]
        self.holding = False

    def to(self, position: Sequence[float], orientation: list[float] = DOWN) -> None:
        self.arm.line(list(position), orientation)

    def above(self, x: float, y: float) -> None:
        here = self.lab.state()["hand_position"]
        self.to([here[0], here[1], max(SAFE_Z, here[2])])
        self.to([x, y, SAFE_Z])

    def press_log(self) -> None:
        x, y, top = self.layout["log_key"]
        self.above(x, y)
        self.press(x, y, top, 0.006, 0.02, DOWN)

    # --- the carriage ---
    def _peg(self) -> tuple[float, float, float]:
        peg_y, peg_top = self.layout["carriage_peg"]
        return self.hinge[0] + self.run, self.hinge[1] + peg_y, peg_top - PEG_GRIP_BELOW_TOP + GC_OFFSET

    def hold_carriage(self) -> None:
        x, y, z = self._peg()
        self.lab.gripper(PEG_OPEN_M)
        self.above(x, y)
        self.to([x, y, z])
        self.lab.gripper(PEG_HOLD_M)
        self.holding = True

    def release_carriage(self) -> None:
        x, y, _ = self._peg()
        self.lab.gripper(PEG_OPEN_M)
        self.to([x, y, SAFE_Z])
        self.holding = False

    def slope_to(self, degrees: float) -> None:
        """Slide the held carriage to the run giving ``degrees`` of slope."""
        self.run = self.rise / math.tan(math.radians(degrees))
        x, y, z = self._peg()
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            self.to([x, y, z])
        finally:
            self.arm.speed = speed

    # --- the sliders ---
    def push_home(self, slider: int, down_m: float, degrees: float) -> None:
        """Take slider ``slider`` (0 or 1) by its handle ``down_m`` down its track and push it up against
        its top bumper, on a board at ``degrees``."""
        (top_u,) = self.layout["slider_top_u"]
        (handle_top,) = self.layout["slider_handle_top"]
        theta = math.radians(degrees)
        up = np.array([math.cos(theta), 0.0, math.sin(theta)])
        normal = np.array([-math.sin(theta), 0.0, math.cos(theta)])
        y = self.hinge[1] + self.layout["track_y"][slider]
        hinge = np.array([self.hinge[0], y, self.hinge[2]])
        grip = hinge + (top_u - down_m) * up + (handle_top - HANDLE_GRIP_BELOW_TOP) * normal
        hand = grip + np.array([0.0, 0.0, GC_OFFSET])
        self.lab.gripper(HANDLE_OPEN_M)
        self.above(hand[0], hand[1])
        self.to(hand)
        self.lab.gripper(HANDLE_HOLD_M)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            self.to(hand + (down_m + PUSH_PAST_M) * up)
        finally:
            self.arm.speed = speed
        self.lab.gripper(HANDLE_OPEN_M)
        self.to(hand + (down_m + PUSH_PAST_M) * up + np.array([0.0, 0.0, 0.08]))


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    incline = InclineOperator(lab)
    start_deg = math.degrees(math.atan2(incline.rise, incline.run))
    incline.press_log()
    incline.hold_carriage()
    incline.slope_to(FAST_TO_DEG)
    degrees = FAST_TO_DEG
    for check in itertools.count():
        degrees += STEP_DEG
        incline.slope_to(degrees)
        lab.wait(SETTLE_S)
        rows = rows_of(Path(lab.export("logger", f"check_{check}.csv")["file"]).read_text())
        if all(slip_start(rows, c) is not None for c in COLUMNS):
            break
        if degrees > MAX_DEG:
            raise RuntimeError(f"no slip below {MAX_DEG:g} degrees")
    lab.wait(SLIDE_S)
    rows = rows_of(Path(lab.export("logger", LOG_FILE)["file"]).read_text())
    found = [coefficients(rows, c) for c in COLUMNS]
    incline.slope_to(start_deg)
    incline.release_carriage()
    for slider, column in enumerate(COLUMNS):
        down_m = (max(r[column] for r in rows) - rows[0][column]) / 1000.0
        incline.push_home(slider, down_m, start_deg)
    cited: set[tuple[int, str]] = set()
    for column, (_, _, start, window) in zip(COLUMNS, found, strict=True):
        for i in {*range(max(0, start - 10), start + 1), *window}:
            cited |= {(i, column), (i, "inclinometer")}
    citations = [
        {"file": LOG_FILE, "row": i, "column": column, "value": rows[i][column]}
        for i, column in sorted(cited)
    ]
    answer = {
        "mu_s": sum(f[0] for f in found) / len(found),
        "mu_k": sum(f[1] for f in found) / len(found),
    }
    return lab.submit(answer, citations)
