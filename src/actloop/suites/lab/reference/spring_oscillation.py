"""The reference experimenter for the spring's stiffness from oscillation, through the public client only.

It starts the logger, then for one to four weights: finds the tray by its pointer on the ruler, sets the next
weight on it (which starts the tray swinging about its new rest), steps back and lets it swing untouched for
:data:`RECORD_S` and die down for :data:`DECAY_S`. From the log, each load's free swing is fitted as a damped
oscillation (:mod:`.oscillation`), and k is 1 / the least-squares slope of 1/ω0² against the weights' printed
mass (the tray's and the spring's own share only shift the line). It then carries the weights back to the
rack, letting the tray die down before each, and submits with the rows it fitted.

Besides the card it knows the bench's published layout, through the stand's operator.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.motion import DOWN, Client
from actloop.suites.lab.reference.oscillation import fit_damped, undamped
from actloop.suites.lab.reference.spring_stand import FRONT_Y, SAFE_Z, StandOperator

LOADS = 4
AFTER_LET_GO_S = 0.5
RECORD_S = 5.0
DECAY_S = 10.0
LOG_FILE = "encoder.csv"
CITE_EVERY = 2


def rows_of(text: str) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def press_log(stand: StandOperator) -> None:
    x, y, top = stand.layout["log_key"]
    stand.arm.joints_to(stand.ready)
    stand.arm.line([x, FRONT_Y, SAFE_Z])
    stand.arm.line([x, y, SAFE_Z])
    stand.press(x, y, top, 0.006, 0.02, DOWN)
    stand.arm.line([x, FRONT_Y, SAFE_Z])


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    weight_mass = public["weight_mass"]
    stand = StandOperator(lab)
    press_log(stand)
    windows = []
    for n in range(1, LOADS + 1):
        stand.read()
        stand.put_on_tray(n)
        stand.step_back()
        start = float(lab.state()["time_s"]) + AFTER_LET_GO_S
        lab.wait(AFTER_LET_GO_S + RECORD_S)
        windows.append((n, start, start + RECORD_S))
        lab.wait(DECAY_S)
    rows = rows_of(Path(lab.export("logger", LOG_FILE)["file"]).read_text())
    points, citations = [], []
    for n, start, end in windows:
        inside = [i for i, row in enumerate(rows) if start <= row["time_s"] <= end]
        fit = fit_damped([rows[i]["time_s"] for i in inside], [rows[i]["encoder"] for i in inside])
        points.append((n * weight_mass, 1.0 / undamped(fit) ** 2))
        citations += [
            {"file": LOG_FILE, "row": i, "column": "encoder", "value": rows[i]["encoder"]}
            for i in inside[::CITE_EVERY]
        ]
    slope, _ = line(points)
    for n in range(LOADS, 0, -1):
        stand.back_to_rack(n)
        stand.step_back()
        lab.wait(DECAY_S)
    return lab.submit({"k": 1.0 / slope}, citations)
