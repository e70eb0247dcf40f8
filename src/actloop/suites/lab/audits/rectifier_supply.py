"""The difficulty audit of #17, the rectifier supply: each module's ripple under one load scaled as 1/R,
against inverse interpolation through the three loads nearest its R_min."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

READINGS = 6
"""Logged rows averaged per circuit (a second and a half at four rows a second)."""
ONE_LOAD = {"F1": "load_470", "F2": "load_470", "F3": "load_180"}
"""The load nearest each module's textbook R_min (V_pk / (2 f C ΔV) with its printed capacitance)."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.rectifier_supply import RIPPLE_METER, RectifierWiring, wiring
    from actloop.suites.lab.reference.rectifier_supply import BRACKETS, LOADS, MODULES, interpolate

    def ripple(instance: Instance, wires: RectifierWiring, module: str, load: str) -> float:
        meter = Meter(RIPPLE_METER, instance.noise_key)
        true = wires.ripple(f"filter_{module}", LOADS[load])
        return sum(meter.read(true) for _ in range(READINGS)) / READINGS

    def final(instance: Instance, r_min: dict[str, float]) -> str:
        return next((m for m in MODULES if r_min[m] <= instance.public["final_load"]), MODULES[-1])

    def target(instance: Instance) -> Estimate:
        wires = wiring(instance)
        limit = instance.public["ripple_limit"]
        r_min = {m: wires.r_min(f"filter_{m}", limit) for m in MODULES}
        return {**{f"R_min_{m}": r for m, r in r_min.items()}, "final_supply": final(instance, r_min)}

    def naive(instance: Instance) -> Estimate:
        wires, limit = wiring(instance), instance.public["ripple_limit"]
        r_min = {m: LOADS[ONE_LOAD[m]] * ripple(instance, wires, m, ONE_LOAD[m]) / limit for m in MODULES}
        return {**{f"R_min_{m}": r for m, r in r_min.items()}, "final_supply": final(instance, r_min)}

    def standard(instance: Instance) -> Estimate:
        wires, limit = wiring(instance), instance.public["ripple_limit"]
        r_min = {
            m: interpolate([(LOADS[ld], ripple(instance, wires, m, ld)) for ld in BRACKETS[m]], limit)
            for m in MODULES
        }
        return {**{f"R_min_{m}": r for m, r in r_min.items()}, "final_supply": final(instance, r_min)}

    return Plan(
        target,
        Design(
            "one load per module",
            "each module's ripple under the load nearest its textbook R_min, scaled as 1/R to the limit",
            naive,
        ),
        Design(
            "three loads per module",
            "each module's ripple under the three loads nearest its R_min (68/180/470 ohm for F2 and F3, "
            "180/470/1200 ohm for F1), six rows each; R_min by inverse quadratic interpolation of log R "
            "against log ripple; the final module the least capacitance with R_min within the final load",
            standard,
        ),
        "the ripple falls more slowly than 1/R (the mean output rises with the load and the bridge conducts "
        "for shorter), so one load scaled to the limit misses R_min by 0.5-4 %; the modules' capacitances "
        "(printed ±15 %), the winding resistance and the diode drop are hidden, so no R_min follows from "
        "the card",
    )
