"""The reference experimenter for the unknown cart's mass, through the public client only.

It starts the logger and presses LAUNCH (the timer is armed from the start, cart_b at rest between the gates),
goes back to its starting posture and waits until gate 1's second LCD shows cart_a's passage back (checking
the log every :data:`POLL_S`). From the last logged row, with every LCD settled, it takes cart_a's times in
and back through gate 1 and cart_b's through gate 2 and submits m_b = m_a t_b (1/t_in + 1/t_back): the
momentum balance with each velocity the flag's length over its time (the length cancels), cart_a coming back.
It cites that row's three times. The robot ends holding nothing (the carts may be anywhere).

Besides the card it knows the console's published layout (its keys).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from actloop.suites.lab.reference.coupled_oscillators import SAFE_Z, TrackOperator
from actloop.suites.lab.reference.motion import Client

CART_A_KG = 0.15
"""cart_a's printed mass (the card's)."""
LOG_FILE = "collision_{}.csv"
"""The log is exported afresh at each look (each export needs its own name)."""
IN, BACK, OUT = "gate1_first", "gate1_second", "gate2_first"
POLL_S = 4.0
PATIENCE_S = 60.0
"""How long it waits for cart_a to come back before giving up."""


def unknown_mass(m_a: float, t_in: float, t_back: float, t_b: float) -> float:
    """cart_b's mass from cart_a's ``m_a`` and the blocked times (any one unit): momentum kept,
    m_a v_in = −m_a v_back + m_b v_b with each v = flag / t (cart_a back to the left)."""
    return m_a * t_b * (1.0 / t_in + 1.0 / t_back)


def last_row(lab: Client, look: int) -> tuple[str, int, dict[str, float]]:
    """The log exported for look number ``look``: its file, and the index and values of its last row."""
    name = LOG_FILE.format(look)
    rows = list(csv.DictReader(io.StringIO(Path(lab.export("logger", name)["file"]).read_text())))
    return name, len(rows) - 1, {k: float(v) for k, v in rows[-1].items()}


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Launch, time the collision and submit; returns the submission's answer."""
    track = TrackOperator(lab)
    track.press_key("log_key")
    track.press_key("launch_key")
    track.to_ready(SAFE_Z)
    looks = 0
    row = {BACK: 0.0}
    while row[BACK] == 0.0:
        if looks * POLL_S >= PATIENCE_S:
            raise RuntimeError(f"cart_a did not come back through gate 1 within {PATIENCE_S:g} s")
        lab.wait(POLL_S)
        looks += 1
        name, index, row = last_row(lab, looks)
    lab.wait(POLL_S)  # the timing is judged clean once cart_a's passage back ended: cite a later row
    name, index, row = last_row(lab, looks + 1)
    citations = [{"file": name, "row": index, "column": c, "value": row[c]} for c in (IN, BACK, OUT)]
    return lab.submit({"m_unknown": unknown_mass(CART_A_KG, row[IN], row[BACK], row[OUT])}, citations)
