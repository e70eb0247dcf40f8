"""The reference experimenter for the sample's specific heat, through the public client only.

It starts the logger, switches the heater on at 80 degC, stands the sample in the block's well and leaves
it there a dozen of its own time constants, carries it quickly into the calorimeter and lets the logger
record the mixture for seven and a half minutes; then it switches the heater off, puts the sample back in
its holder and exports the log. From the rows: the sample's starting temperature is the block's just
before it was lifted, the room's the water's then; the mixture cools as one body at a rate k fitted to its
late readings, so the heat lost since mixing is k (C_s + C_w) times the integral of the water's excess
over the room, and the energy balance C_s (T_s0 - T) = C_w (T - T_w0) + k (C_s + C_w) I at the last
reading gives C_s.

Besides the card it knows the bench's published layout, through the bench's operator.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.motion import DOWN, Client
from actloop.suites.lab.reference.thermal_bench import BLOCK, HOLDER, PRESS_CLEARANCE, ThermalOperator

WATER_C = 4186.0
CUP_J_PER_K = 25.0
"""The card's water's specific heat and the calorimeter's cup and stirrer."""
CALORIMETER = "calorimeter_well"
SETPOINT_C = 80
SOAK_S = 660.0
"""Twelve time constants of the heaviest sample in the block's well (about 55 s)."""
RECORD_S = 450.0
BEFORE_S = 10.0
"""The rows averaged for the temperatures before the transfer."""
LATE_S = 200.0
"""The mixture's readings from this long after mixing on fit its cooling (the sample has caught up)."""
LOG_PRESS_M = 0.0045
HEATER, WATER = "heater_thermometer", "water_thermometer"
LOG_FILE = "calorimetry.csv"
CITE_EVERY = 4
"""After mixing, every fourth row is cited (every row before it that is used)."""


def rows_of(text: str) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def specific_heat(
    rows: Sequence[Mapping[str, float]], lifted_s: float, mixed_s: float, sample_kg: float, water_kg: float
) -> float:
    """c_s (J/(kg K)) from the logged rows, the time the sample was lifted from the block and the time it
    stood in the water (see the module docstring)."""
    before = [r for r in rows if lifted_s - BEFORE_S <= r["time_s"] <= lifted_s]
    if not before:
        raise ValueError("no logged rows just before the sample was lifted")
    sample_0 = sum(r[HEATER] for r in before) / len(before)
    water_0 = sum(r[WATER] for r in before) / len(before)
    after = [r for r in rows if r["time_s"] >= mixed_s]
    late = [r for r in after if r["time_s"] >= mixed_s + LATE_S and r[WATER] > water_0]
    if len(late) < 10:
        raise ValueError("too few logged rows of the cooling mixture")
    xs = [r["time_s"] for r in late]
    ys = [math.log(r[WATER] - water_0) for r in late]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    k = -slope
    end = xs[-1]
    water_end = water_0 + math.exp(my + slope * (end - mx))
    excess = sum(
        (b["time_s"] - a["time_s"]) * ((a[WATER] - water_0) + (b[WATER] - water_0)) / 2
        for a, b in itertools.pairwise(after)
    )
    lost = k * excess
    water_heat = water_kg * WATER_C + CUP_J_PER_K
    sample_heat = water_heat * (water_end - water_0 + lost) / (sample_0 - water_end - lost)
    return sample_heat / sample_kg


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    bench = ThermalOperator(lab, item="sample", top_lcd="heater_lcd")
    x, y, top = bench.layout["log_key"]
    bench.above(x, y)
    bench.press(x, y, top, LOG_PRESS_M, PRESS_CLEARANCE, DOWN)
    bench.heater(on=True)
    bench.set_to(SETPOINT_C)
    bench.carry(HOLDER, BLOCK)
    lab.wait(SOAK_S)
    lifted = float(lab.state()["time_s"])
    bench.carry(BLOCK, CALORIMETER)
    mixed = float(lab.state()["time_s"])
    lab.wait(RECORD_S)
    bench.heater(on=False)
    bench.carry(CALORIMETER, HOLDER)
    rows = rows_of(Path(lab.export("logger", LOG_FILE)["file"]).read_text())
    c_s = specific_heat(rows, lifted, mixed, public["sample_mass"], public["water_mass"])
    citations = []
    for i, row in enumerate(rows):
        t = row["time_s"]
        columns: tuple[str, ...]
        if lifted - BEFORE_S <= t <= lifted:
            columns = (HEATER, WATER)
        elif t >= mixed and (i % CITE_EVERY == 0):
            columns = (WATER,)
        else:
            continue
        citations += [{"file": LOG_FILE, "row": i, "column": c, "value": row[c]} for c in columns]
    return lab.submit({"c_s": c_s}, citations)
