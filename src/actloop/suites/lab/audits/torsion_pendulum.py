"""The difficulty audit of #5, torsion pendulum: the body's period against the disc's alone, against the three
periods (empty, disc, body)."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.torsion_pendulum import bench
    from actloop.suites.lab.platforms.turntable import PERIOD

    def timed(instance: Instance, load: str | None) -> float:
        """The period the photogate shows with ``load`` alone centred on the turntable (or none)."""
        table = bench(instance)
        inertia = table.own_inertia + sum(x.inertia for x in table.loads if x.name == load)
        wire = table.wire
        omega = math.sqrt(wire.stiffness / inertia - (wire.damping / (2 * inertia)) ** 2)
        return Meter(PERIOD, instance.noise_key).read(2 * math.pi / omega)

    def disc_inertia(instance: Instance) -> float:
        return next(x.inertia for x in bench(instance).loads if x.name == "disc")

    def naive(instance: Instance) -> Estimate:
        ratio = (timed(instance, "body") / timed(instance, "disc")) ** 2
        return {"I": disc_inertia(instance) * ratio}

    def standard(instance: Instance) -> Estimate:
        empty, disc, body = (timed(instance, load) ** 2 for load in (None, "disc", "body"))
        return {"I": disc_inertia(instance) * (body - empty) / (disc - empty)}

    return Plan(
        lambda i: {"I": i.hidden["I"]},
        Design("the body against the disc", "I = I_disc T_body² / T_disc²", naive),
        Design(
            "empty, disc and body",
            "each load centred and the turntable timed over a period; "
            "I = I_disc (T_body² − T_empty²) / (T_disc² − T_empty²)",
            standard,
        ),
        "the turntable's own moment of inertia (2.0-3.5 g m², more than either load's) swings in every "
        "period, so the ratio of the body's to the disc's period squared misses by up to 40 % (it holds only "
        "for a body within a few per cent of the disc's); the empty turntable's period takes it out",
    )
