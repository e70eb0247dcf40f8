"""The reference experimenter for the coupled gliders' normal modes, through the public client only.

It starts the logger, closes the fingers round glider_a's handle, slides it :data:`PULL_M` towards the left
post, opens the fingers without a push and lifts the hand clear: both modes are going (the pull is no mode
shape). It lets the gliders move untouched for :data:`RECORD_S`, exports the log, fits two damped normal
modes to both gliders' positions over the free stretch (:mod:`.modes`) and submits their undamped angular
frequencies with the rows they rest on. The robot ends holding nothing, back in its starting posture (the
gliders may be anywhere).

Besides the card it knows the track's published layout (the gliders' rests, their handles, the LOG key).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.modes import fit_modes, undamped
from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator

PULL_M = 0.04
SAFE_Z = 1.1
HANDLE_OPEN_M = 0.035
HANDLE_HOLD_M = 0.0
HANDLE_GRIP_BELOW_TOP = 0.01
LIFT_M = 0.08
SLOW = 0.3
"""The fraction of its usual speed the arm moves at while it holds the glider."""
AFTER_LET_GO_S = 0.5
RECORD_S = 60.0
LOG_FILE = "gliders.csv"
COLUMNS = ("position_a", "position_b")
CITE_EVERY = 12
"""Every twelfth row of the free stretch is cited (ten a second), both columns."""


def rows_of(text: str) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


class TrackOperator(Operator):
    """Works the air track: a glider by its handle, the keys."""

    def above(self, x: float, y: float) -> None:
        here = self.lab.state()["hand_position"]
        self.arm.line([here[0], here[1], max(SAFE_Z, here[2])])
        self.arm.line([x, y, SAFE_Z])

    def press_key(self, key: str) -> None:
        """Press the key the layout names ``key`` (e.g. ``log_key``)."""
        x, y, top = self.layout[key]
        self.above(x, y)
        self.press(x, y, top, 0.006, 0.02, DOWN)

    def hold(self, glider: int) -> list[float]:
        """Close the fingers round glider ``glider``'s handle (0: glider_a) at its rest; returns the hand's
        position."""
        (y,) = self.layout["track_y"]
        (top,) = self.layout["track_top"]
        (handle_top,) = self.layout["glider_handle_top"]
        x = self.layout["glider_rest"][glider]
        hand = [x, y, top + handle_top - HANDLE_GRIP_BELOW_TOP + GC_OFFSET]
        self.lab.gripper(HANDLE_OPEN_M)
        self.above(x, y)
        self.arm.line(hand)
        self.lab.gripper(HANDLE_HOLD_M)
        return hand

    def pull_and_let_go(self, pull_m: float) -> float:
        """Take glider_a by its handle at rest, slide it ``pull_m`` along the track (negative: to the left),
        let go without a push and lift the hand clear; returns when the fingers opened (s)."""
        x, y, z = self.hold(0)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            self.arm.line([x + pull_m, y, z])
        finally:
            self.arm.speed = speed
        let_go = float(self.lab.state()["time_s"])
        self.lab.gripper(HANDLE_OPEN_M)
        self.arm.line([x + pull_m, y, z + LIFT_M])
        return let_go


def free_rows(rows: list[dict[str, float]], start_s: float, end_s: float) -> list[int]:
    return [i for i, row in enumerate(rows) if start_s <= row["time_s"] <= end_s]


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    track = TrackOperator(lab)
    track.press_key("log_key")
    let_go = track.pull_and_let_go(-PULL_M)
    track.to_ready(SAFE_Z)
    lab.wait(max(0.0, let_go + AFTER_LET_GO_S + RECORD_S - float(lab.state()["time_s"])))
    rows = rows_of(Path(lab.export("logger", LOG_FILE)["file"]).read_text())
    # the hand is clear of the glider within a second of the fingers opening
    inside = free_rows(rows, let_go + 1.0 + AFTER_LET_GO_S, rows[-1]["time_s"])
    mode_1, mode_2 = fit_modes(
        [rows[i]["time_s"] for i in inside], *([rows[i][c] for i in inside] for c in COLUMNS)
    )
    citations = [
        {"file": LOG_FILE, "row": i, "column": column, "value": rows[i][column]}
        for i in inside[::CITE_EVERY]
        for column in COLUMNS
    ]
    return lab.submit({"omega_1": undamped(mode_1), "omega_2": undamped(mode_2)}, citations)
