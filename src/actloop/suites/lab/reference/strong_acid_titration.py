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
    TitrationOperator,
    add,
    drip_and_restore,
    ratio_equivalence,
    settled,
)

TITRANT_M = 0.2000
"""The card's titrant concentration."""
BEAKER = "beaker_1"
FIRST_SHARE = 0.5
"""The first addition: half the equivalence volume the sample's own pH suggests (the electrode's error
makes that guess good to a few tens of per cent only)."""
SHARE = 0.7
"""Each addition after the first aims at this share of what is predicted to be left before the drip: the
electrode's slope error makes early predictions a few per cent long."""
NEAR_ML = 1.0
"""Each later addition aims this far short of the predicted equivalence volume; the drip starts once the
prediction lies within NEAR_ML + DRIP_AFTER_ML."""
DRIP_AFTER_ML = 0.6
END_PH = 10.5
"""The drip ends once the pH shows this much (a few drops past the equivalence point)."""


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
    points, jump = drip_and_restore(me, lab, BEAKER, END_PH)
    v_eq = (jump - 0.5) * DROP_ML
    c = TITRANT_M * v_eq / sample_ml
    citations = [
        {"file": me.log_file, "row": row.index, "column": "ph", "value": row.ph, "quantity": "c_HCl"}
        for _, row in points
    ]
    return lab.submit({"c_HCl": c}, citations)
