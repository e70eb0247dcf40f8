"""The reference experimenter for strong-acid titration, through the public client only.

It stands beaker_1 in the stirrer's ring, hangs the electrode in it and starts the logger. From the
sample's own pH and the pH after each addition it predicts the equivalence volume (the excess acid falls
by the ratio the pH rise gives, so the electrode's offset cancels) and adds about two thirds of what is
left at a time with the stopcock wide open, reading the settled pH after each. Within a millilitre of the
prediction it sets the stopcock to a slow drip and lets single drops fall, each settling for seconds, until
the pH has leapt past neutral and on to 10. The equivalence point is the middle of the drop after which
the settled pH rose most. It closes the stopcock, returns the electrode and the beaker, and submits
``c = c_NaOH V_eq / V_sample`` citing the logged rows of the drip.

What it knows besides the card is the bench's published layout; every value comes from the logger file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.titration import (
    TitrationOperator,
    per_drop,
    ratio_equivalence,
    settled,
    steepest_rise,
)

TITRANT_M = 0.2000
DROP_ML = 0.05
"""The card's titrant concentration and drop volume."""
BEAKER = "beaker_1"
OPEN_RAD = 1.5708
CLOSE_RAD = -0.1
"""Closing aims past the lever's stop, so the fingers' play around the peg cannot leave it ajar."""
DRIP_RAD = 0.36
"""The stopcock turned this far drips a drop every few seconds."""
SETTLE_S = 8.0
FIRST_SHARE = 0.5
"""The first addition: half the equivalence volume the sample's own pH suggests (the electrode's error
makes that guess good to a few tens of per cent only)."""
STREAM_DROPS_S = 8.0
TRICKLE_RAD = 0.8
TRICKLE_DROPS_S = 2.0
"""First guesses at how fast the wide-open stopcock and one turned TRICKLE_RAD deliver (drops/s); each
addition measures them."""
STREAM_ABOVE_ML = 4.0
"""Additions larger than this go by the stream, smaller ones by the trickle (its turns let less through)."""
SHARE = 0.7
"""Each addition after the first aims at this share of what is predicted to be left before the drip: the
electrode's slope error makes early predictions a few per cent long."""
NEAR_ML = 1.0
"""Each later addition aims this far short of the predicted equivalence volume; the drip starts once the
prediction lies within NEAR_ML + DRIP_AFTER_ML."""
DRIP_AFTER_ML = 0.6
END_PH = 10.5
"""The drip ends once the pH shows this much (a few drops past the equivalence point)."""
MAX_DRIP_S = 300.0


@dataclass
class Flow:
    """What one stopcock setting delivers: drops/s while it stands there, and the drops the turns to it and
    back let through besides (measured on the logger at each addition)."""

    angle: float
    rate: float
    extra: float = 0.0


def add(me: TitrationOperator, lab: Client, millilitres: float, flow: Flow) -> None:
    """Turn the stopcock to ``flow``'s setting for as long as ``millilitres`` take at its rate, less the
    drops its turns let through, and close it; update ``flow`` from the logger (the rows while the stopcock
    stood there, and all it delivered)."""
    before = settled(me.logged(), 0.0).drops
    me.turn_stopcock(flow.angle)
    opened = float(lab.state()["time_s"])
    lab.wait(max(0.5, (millilitres / DROP_ML - flow.extra) / flow.rate))
    closing = float(lab.state()["time_s"])
    me.turn_stopcock(CLOSE_RAD)
    lab.wait(SETTLE_S)
    rows = me.logged()
    steady = [r for r in rows if opened <= r.time_s <= closing]
    if len(steady) >= 2 and steady[-1].drops > steady[0].drops:
        flow.rate = (steady[-1].drops - steady[0].drops) / (steady[-1].time_s - steady[0].time_s)
    flow.extra = max(0.0, settled(rows, 0.0).drops - before - flow.rate * (closing - opened))


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    sample_ml = float(public["sample_ml"])
    me = TitrationOperator(lab)
    me.beaker_to_stirrer(BEAKER)
    me.electrode_to_sleeve()
    me.press_log()
    lab.wait(SETTLE_S)
    first = settled(me.logged(), 0.0)
    stream, trickle = Flow(OPEN_RAD, STREAM_DROPS_S), Flow(TRICKLE_RAD, TRICKLE_DROPS_S)
    volume = first.drops * DROP_ML
    aim = FIRST_SHARE * 10.0**-first.ph * sample_ml / TITRANT_M
    while True:
        add(me, lab, aim, stream if aim > STREAM_ABOVE_ML else trickle)
        row = settled(me.logged(), 0.0)
        volume = row.drops * DROP_ML
        predicted = ratio_equivalence(first.drops * DROP_ML, first.ph, volume, row.ph, sample_ml)
        if predicted - volume <= NEAR_ML + DRIP_AFTER_ML:
            break
        aim = SHARE * (predicted - NEAR_ML - volume)
    drip_start = float(lab.state()["time_s"])
    me.turn_stopcock(DRIP_RAD)
    me.stopcock_hand_away()
    while float(lab.state()["time_s"]) - drip_start < MAX_DRIP_S:
        lab.wait(5.0)
        if settled(me.logged(), 0.0).ph > END_PH:
            break
    me.turn_stopcock(CLOSE_RAD)
    me.press_log()
    me.electrode_home()
    me.beaker_home(BEAKER)
    rows = [r for r in me.logged() if r.time_s >= drip_start]
    points = per_drop(rows)
    jump = steepest_rise([(drops, row.ph) for drops, row in points])
    v_eq = (jump - 0.5) * DROP_ML
    c = TITRANT_M * v_eq / sample_ml
    citations = [
        {"file": me.log_file, "row": row.index, "column": "ph", "value": row.ph, "quantity": "c_HCl"}
        for _, row in points
    ]
    return lab.submit({"c_HCl": c}, citations)
