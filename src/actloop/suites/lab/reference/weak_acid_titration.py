"""The reference experimenter for weak-acid titration, through the public client only.

It stands beaker_1 in the stirrer's ring, hangs the electrode in it and starts the logger. It adds 5 mL
of titrant twice, then about two thirds of what the acid's equilibrium predicts is left before the
equivalence point (two readings in the buffer region give the acid's amount and Ka through the charge
balance), until it is within a millilitre and a half. It lets single drops fall across the leap, as for a
strong acid: the equivalence point is the middle of the drop after which the pH rose most, and gives c.
The pKa is the mean, over the settled readings with a fifth to four fifths of the acid neutralised, of
what each pH implies through the charge balance with that c. It returns the electrode and the beaker and
submits, citing the buffer region's rows and the drip's.

What it knows besides the card is the bench's published layout; every value comes from the logger file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.titration import (
    DROP_ML,
    OPEN_RAD,
    SETTLE_S,
    STREAM_ABOVE_ML,
    STREAM_DROPS_S,
    TRICKLE_DROPS_S,
    TRICKLE_RAD,
    Flow,
    Row,
    TitrationOperator,
    add,
    drip_and_restore,
    settled,
)

TITRANT_M = 0.0100
KW = 1.0e-14
"""The card's titrant concentration and water's ion product."""
BEAKER = "beaker_1"
FIRST_ML = 5.0
"""The first two additions: both short of any equivalence volume the burette can reach twice over."""
SHARE = 0.7
NEAR_ML = 1.0
DRIP_AFTER_ML = 0.5
END_PH = 10.0
"""The drip ends once the pH shows this much (a few drops past the equivalence point)."""
REGION = (0.2, 0.8)
"""The pKa is fitted over readings with this share of the acid neutralised."""


def acid_and_ka(
    sample_ml: float, first: tuple[float, float], second: tuple[float, float]
) -> tuple[float, float]:
    """(the sample's acid as titrant volume in mL, Ka) from two (titrant mL, pH) readings in its buffer
    region: each gives ``c V_s = P (1 + [H⁺] / Ka)`` with ``P = c_b v + (V_s + v)([H⁺] − Kw/[H⁺])`` (the
    charge balance, [A⁻] = [Na⁺] + [H⁺] − [OH⁻]); the two together give 1/Ka and then c."""
    (v1, ph1), (v2, ph2) = first, second
    h1, h2 = 10.0**-ph1, 10.0**-ph2
    p1 = TITRANT_M * v1 + (sample_ml + v1) * (h1 - KW / h1)
    p2 = TITRANT_M * v2 + (sample_ml + v2) * (h2 - KW / h2)
    inverse_ka = (p2 - p1) / (p1 * h1 - p2 * h2)
    return p1 * (1.0 + h1 * inverse_ka) / TITRANT_M, 1.0 / inverse_ka


def pka_at(sample_ml: float, c: float, ml: float, ph: float) -> float:
    """The pKa a pH after ``ml`` of titrant implies, given the acid's concentration ``c``."""
    h = 10.0**-ph
    total = c * sample_ml / (sample_ml + ml)
    base = TITRANT_M * ml / (sample_ml + ml) + h - KW / h  # [A⁻]
    return -math.log10(h * base / (total - base))


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    sample_ml = float(public["sample_ml"])
    me = TitrationOperator(lab)
    me.beaker_to_stirrer(BEAKER)
    me.electrode_to_sleeve()
    me.press_log()
    lab.wait(SETTLE_S)
    start = settled(me.logged(), 0.0).drops
    stream, trickle = Flow(OPEN_RAD, STREAM_DROPS_S), Flow(TRICKLE_RAD, TRICKLE_DROPS_S)
    readings: list[Row] = []
    aim = FIRST_ML
    while True:
        add(me, lab, aim, stream if aim > STREAM_ABOVE_ML else trickle)
        readings.append(settled(me.logged(), 0.0))
        volume = (readings[-1].drops - start) * DROP_ML
        if len(readings) < 2:
            continue
        ends = [((r.drops - start) * DROP_ML, r.ph) for r in (readings[0], readings[-1])]
        predicted = acid_and_ka(sample_ml, ends[0], ends[1])[0]
        if predicted - volume <= NEAR_ML + DRIP_AFTER_ML:
            break
        aim = SHARE * (predicted - NEAR_ML - volume)
    points, jump = drip_and_restore(me, lab, BEAKER, END_PH)
    v_eq = (jump - start - 0.5) * DROP_ML
    c = TITRANT_M * v_eq / sample_ml
    region = [r for r in readings if REGION[0] <= (r.drops - start) * DROP_ML / v_eq <= REGION[1]]
    pkas = [pka_at(sample_ml, c, (r.drops - start) * DROP_ML, r.ph) for r in region]
    cited = [(row, "pKa") for row in region] + [(row, "c_HA") for _, row in points]
    citations = [
        {"file": me.log_file, "row": row.index, "column": "ph", "value": row.ph, "quantity": quantity}
        for row, quantity in cited
    ]
    return lab.submit({"c_HA": c, "pKa": sum(pkas) / len(pkas)}, citations)
