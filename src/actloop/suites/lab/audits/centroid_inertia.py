"""The difficulty audit of #13, centroid and inertia: the bar's middle taken for its centre of mass against
two holes and the references."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

HOLES = (0.075, 0.165)
"""The holes the standard design mounts the bar by (m from its left end)."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.centroid_inertia import BAR_KG, BAR_LENGTH, bench
    from actloop.suites.lab.platforms.turntable import PERIOD

    def moments(instance: Instance) -> dict[str, float]:
        """The moment of inertia turning on the wire: empty, with the disc, with the bar on each hole."""
        table = bench(instance)
        disc, bar = table.loads
        x_com = instance.hidden["x_com"] / 1000
        out = {"empty": table.own_inertia, "disc": table.own_inertia + disc.inertia}
        for hole in HOLES:
            out[f"{hole:g}"] = table.own_inertia + bar.inertia + BAR_KG * (hole - x_com) ** 2
        return out

    def squared(instance: Instance) -> dict[str, float]:
        """Each period the photogate shows, squared, times κ / 4π² (so in kg m²) with κ from the disc."""
        wire = bench(instance).wire
        shown = {}
        for name, moment in moments(instance).items():
            omega = math.sqrt(wire.stiffness / moment - (wire.damping / (2 * moment)) ** 2)
            shown[name] = Meter(PERIOD, instance.noise_key).read(2 * math.pi / omega) ** 2
        disc_inertia = bench(instance).loads[0].inertia
        scale = disc_inertia / (shown["disc"] - shown["empty"])
        return {name: scale * (value - shown["empty"]) for name, value in shown.items()}

    def naive(instance: Instance) -> Estimate:
        added = squared(instance)[f"{HOLES[0]:g}"]
        middle = BAR_LENGTH / 2
        return {"x_com": 1000 * middle, "I_com": added - BAR_KG * (HOLES[0] - middle) ** 2}

    def standard(instance: Instance) -> Estimate:
        added = squared(instance)
        (x1, i1), (x2, i2) = ((x, added[f"{x:g}"]) for x in HOLES)
        x_com = (x1 + x2) / 2 - (i1 - i2) / (2 * BAR_KG * (x1 - x2))
        return {"x_com": 1000 * x_com, "I_com": i1 - BAR_KG * (x1 - x_com) ** 2}

    return Plan(
        lambda i: {"x_com": i.hidden["x_com"], "I_com": i.hidden["I_com"]},
        Design(
            "the middle for the centre of mass",
            "x_com = the bar's middle; I_com = the bar's added moment on one hole − m (x_h − x_com)²",
            naive,
        ),
        Design(
            "references and two holes",
            "the empty turntable and the disc calibrate the wire; the bar on the holes at 75 and 165 mm; "
            "x_com from the difference of the two added moments, I_com from either",
            standard,
        ),
        "the bar is loaded unevenly: its centre of mass lies up to 20 mm from its middle, and I_com taken "
        "with the middle for it is off by m δ (2 d − δ), several per cent; two holes identify both",
    )
