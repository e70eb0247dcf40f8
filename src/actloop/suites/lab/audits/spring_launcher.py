"""The difficulty audit of #14, the spring launcher: one shot's range scaled by the compressions' squares
against v² = a x² − b x fitted to four notches' ranges.

A predict objective: y* is the set notch's range in closed form (where the continuation run's shot
lands)."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.spring_launcher import bench
    from actloop.suites.lab.physics.launcher import ballistic_range
    from actloop.suites.lab.platforms.launcher import COMPRESSIONS_MM, LAND_Z, MUZZLE, RANGE
    from actloop.suites.lab.reference.spring_launcher import predict, shot_notches

    height = MUZZLE[2] - LAND_Z

    def true_range(instance: Instance, notch: int) -> float:
        launcher = bench(instance)
        return ballistic_range(launcher.muzzle_speed(notch), launcher.elevation, height)

    def shown(instance: Instance, notches: list[int]) -> dict[int, float]:
        """The RANGE LCD after a shot from each of ``notches`` in turn (m)."""
        meter = Meter(RANGE, instance.noise_key)
        return {n: meter.read(1000 * true_range(instance, n)) / 1000 for n in notches}

    def set_notch(instance: Instance) -> int:
        return round(instance.public["notch"])

    def naive(instance: Instance) -> Estimate:
        n = set_notch(instance)
        below = n - 1
        scale = (COMPRESSIONS_MM[n - 1] / COMPRESSIONS_MM[below - 1]) ** 2
        return {"range": shown(instance, [below])[below] * scale}

    def standard(instance: Instance) -> Estimate:
        n = set_notch(instance)
        return {"range": predict(shown(instance, shot_notches(n)), n, height)}

    return Plan(
        lambda i: {"range": true_range(i, set_notch(i))},
        Design(
            "one shot scaled by the spring's energy",
            "the range of one shot at the notch below the set one, scaled by the ratio of the two "
            "compressions squared (the spring's stored energy)",
            naive,
        ),
        Design(
            "v² fitted against the compression",
            "shots at four other notches; each range turned into v² with the elevation and the muzzle's "
            "height above the landing plane; v² = a x² − b x fitted by least squares; the set notch's range "
            "from its v²",
            standard,
        ),
        "the climb up the barrel and its friction take a share of the spring's energy growing only as the "
        "compression (v² = a x² − b x), and the muzzle stands above the sand, so the range is not in "
        "proportion to the compression squared: one shot scaled so misses by 7-16 %",
    )
