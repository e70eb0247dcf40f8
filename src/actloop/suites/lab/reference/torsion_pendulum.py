"""The reference experimenter for the unknown body's moment of inertia, through the public client only.

It starts the logger, then times the turntable empty, with the disc and with the body: for each it frees
the brake, closes its fingers round the handle, twists the turntable by :data:`TWIST_RAD` about its axis,
holds it still, lets go and rises, and leaves it swinging for :data:`RECORD_S`; then it brakes it, and
carries the next load by its knob from its place onto the turntable's centre mark (the last one back to its
place first). From the log, each load's period is the mean of the periods shown from :data:`SETTLE_S`
after letting go (each a free period), read a period apart; I = I_disc (T_body² − T_empty²) /
(T_disc² − T_empty²), I_disc = M R² / 2 from the card. It carries the body back and submits with the rows
of the periods it averaged.

Besides the card it knows the bench's published layout (the turntable's centre and top, the handle, the
loads' places and knobs, the keys).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator

DISC_KG = 0.5
DISC_RADIUS = 0.07
"""The disc's printed mass and radius (the card's)."""
TWIST_RAD = math.radians(15.0)
ARC_STEPS = 5
HOLD_S = 0.5
RECORD_S = 18.0
SETTLE_S = 5.0
"""The periods shown from this long after letting go were timed free (from the third crossing after it:
5/4 of the longest period, 3.2 s)."""
SAFE_Z = 1.06
KNOB_GRIP_BELOW_TOP = 0.012
LET_GO_ABOVE_M = 0.002
HANDLE_OPEN_M = 0.03
KNOB_OPEN_M = 0.04
KEY_PRESS_M = 0.0055
PRESS_CLEARANCE = 0.02
SLOW = 0.3
LOG_FILE = "turntable.csv"
Row = dict[str, float]


def rows_of(text: str) -> list[Row]:
    """The logged rows (a period over the LCD's range, shown as ``OL``, as NaN)."""
    return [
        {k: math.nan if v == "OL" else float(v) for k, v in row.items()}
        for row in csv.DictReader(io.StringIO(text))
    ]


def periods_in(rows: list[Row], start: float, end: float) -> list[int]:
    """Rows between ``start`` and ``end`` (s), a period or more apart, so each shows the period the gate
    timed last by then."""
    picked: list[int] = []
    for i, row in enumerate(rows):
        if not start <= row["time_s"] <= end or math.isnan(row["period"]):
            continue
        if not picked or row["time_s"] - rows[picked[-1]]["time_s"] >= rows[picked[-1]]["period"]:
            picked.append(i)
    return picked


class TurntableOperator(Operator):
    """Works the turntable: its keys, its handle, and the loads by their knobs; keeps the stretches of the
    log it will read."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.windows: list[tuple[float, float]] = []
        """The stretches (s) whose periods were timed free, one for each load."""

    def record(self, settle_s: float = SETTLE_S) -> None:
        """Twist the turntable and let it swing :data:`RECORD_S`; keep the stretch from ``settle_s`` after
        letting go."""
        released = self.twist()
        self.lab.wait(RECORD_S)
        self.windows.append((released + settle_s, float(self.lab.state()["time_s"])))

    def logged_periods(self) -> tuple[list[float], list[dict[str, Any]]]:
        """Each kept stretch's mean period from the exported log, and the rows it rests on as citations."""
        rows = rows_of(Path(self.lab.export("logger", LOG_FILE)["file"]).read_text())
        picked = [periods_in(rows, start, end) for start, end in self.windows]
        if any(len(p) < 3 for p in picked):
            raise RuntimeError(f"too few free periods logged: {[len(p) for p in picked]}")
        means = [sum(rows[i]["period"] for i in p) / len(p) for p in picked]
        citations = [
            {"file": LOG_FILE, "row": i, "column": "period", "value": rows[i]["period"]}
            for p in picked
            for i in p
        ]
        return means, citations

    def to(self, position: list[float]) -> None:
        self.arm.line(position, DOWN)

    def above(self, x: float, y: float) -> None:
        here = self.lab.state()["hand_position"]
        if here[2] < SAFE_Z - 0.02:
            self.to([here[0], here[1], SAFE_Z])
        self.to([x, y, SAFE_Z])

    def press_key(self, key: str) -> None:
        x, y, top = self.layout[key]
        self.above(x, y)
        self.press(x, y, top, KEY_PRESS_M, PRESS_CLEARANCE, DOWN)

    def twist(self) -> float:
        """Twist the turntable by its handle, hold it, let go and rise; the time it was let go (s)."""
        cx, cy, top = self.layout["turntable"]
        hx, hy, height = self.layout["handle"]
        radius = math.hypot(hx, hy)
        start = math.atan2(hy, hx)
        grip = top + height - KNOB_GRIP_BELOW_TOP + GC_OFFSET
        self.lab.gripper(HANDLE_OPEN_M)
        self.above(cx + hx, cy + hy)
        self.to([cx + hx, cy + hy, grip])
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            for k in range(1, ARC_STEPS + 1):
                angle = start + TWIST_RAD * k / ARC_STEPS
                self.to([cx + radius * math.cos(angle), cy + radius * math.sin(angle), grip])
        finally:
            self.arm.speed = speed
        self.lab.wait(HOLD_S)
        self.lab.gripper(HANDLE_OPEN_M)
        released = float(self.lab.state()["time_s"])
        here = self.lab.state()["hand_position"]
        self.to([here[0], here[1], SAFE_Z])
        return released

    def carry(self, load: str, to_turntable: bool) -> None:
        """Carry ``load`` by its knob from its place onto the turntable's centre, or back."""
        place = self.layout[f"{load}_place"]
        cx, cy, top = self.layout["turntable"]
        (knob_top,) = self.layout[f"{load}_grip_top"]
        start, end = (place, [cx, cy, top]) if to_turntable else ([cx, cy, top], place)
        self.lab.gripper(KNOB_OPEN_M)
        self.above(start[0], start[1])
        self.to([start[0], start[1], start[2] + knob_top - KNOB_GRIP_BELOW_TOP + GC_OFFSET])
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            self.to([start[0], start[1], SAFE_Z])
            self.to([end[0], end[1], SAFE_Z])
            self.to([end[0], end[1], end[2] + knob_top - KNOB_GRIP_BELOW_TOP + LET_GO_ABOVE_M + GC_OFFSET])
        finally:
            self.arm.speed = speed
        self.lab.gripper(KNOB_OPEN_M)
        self.to([end[0], end[1], SAFE_Z])


def inertia(empty: float, disc: float, body: float) -> float:
    """The body's moment of inertia from the three periods (s)."""
    disc_inertia = DISC_KG * DISC_RADIUS**2 / 2
    return disc_inertia * (body**2 - empty**2) / (disc**2 - empty**2)


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    table = TurntableOperator(lab)
    table.press_key("log_key")
    for load in (None, "disc", "body"):
        if load is not None:
            table.press_key("brake_key")
            if load == "body":
                table.carry("disc", to_turntable=False)
            table.carry(load, to_turntable=True)
            table.press_key("brake_key")
        table.record()
    table.press_key("brake_key")
    table.carry("body", to_turntable=False)
    table.press_key("brake_key")
    table.to_ready(SAFE_Z)
    means, citations = table.logged_periods()
    return lab.submit({"I": inertia(*means)}, citations)
