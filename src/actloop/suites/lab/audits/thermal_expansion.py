"""The difficulty audit of #29, thermal expansion: a hot reading as soon as the thermometer holds steady
against readings after the dial has settled too."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan, read_scale, slope
from actloop.suites.lab.instance import Instance

HOT_C = 80.0
STEADY_C = 0.02
STEADY_S = 10.0
"""The thermometer holds steady: the water changed by less than STEADY_C over the last STEADY_S."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.thermal_expansion import bench
    from actloop.suites.lab.platforms.expansion_rig import DIAL, ROD_LENGTH_MM, ExpansionRig
    from actloop.suites.lab.platforms.thermal_bench import THERMAL_STEPS, THERMOMETER, steady_block_c

    step_s = THERMAL_STEPS / 240.0
    window = round(STEADY_S / step_s)

    def dial_at(rig: ExpansionRig, rod_c: float) -> float:
        """The dial read to half a graduation with the rod at ``rod_c``."""
        growth = ROD_LENGTH_MM * rig.alpha * (rod_c - 20.0)
        return read_scale(rig.preload_mm + growth, DIAL.resolution)

    def readings(
        instance: Instance, rod_and_water: Sequence[tuple[float, float]]
    ) -> list[tuple[float, float]]:
        """(thermometer degC, dial mm) with the rod and the water at each pair of temperatures."""
        rig, thermometer = bench(instance), Meter(THERMOMETER, instance.noise_key)
        return [(thermometer.read(water), dial_at(rig, rod)) for rod, water in rod_and_water]

    def steady_on_heating(instance: Instance) -> tuple[float, float]:
        """(rod, water) in degC once the water, heated from the room towards HOT_C, holds steady on the
        thermometer: the rod is still catching up."""
        rig = bench(instance)
        rig.setpoint = HOT_C
        history = [rig.jacket_c()]
        while len(history) <= window or abs(history[-1] - history[-1 - window]) >= STEADY_C:
            rig.heat(True)
            history.append(rig.jacket_c())
        return rig.rod_c(), rig.jacket_c()

    def naive(instance: Instance) -> Estimate:
        room = instance.hidden["room"]
        (t0, d0), (t1, d1) = readings(instance, [(room, room), steady_on_heating(instance)])
        return {"alpha": (d1 - d0) / (t1 - t0) / ROD_LENGTH_MM}

    def standard(instance: Instance) -> Estimate:
        room = instance.hidden["room"]
        settled = [room, *(steady_block_c(c, room) for c in (50.0, HOT_C))]
        b, _ = slope(readings(instance, [(t, t) for t in settled]))
        return {"alpha": b / ROD_LENGTH_MM}

    return Plan(
        lambda i: {"alpha": i.hidden["alpha"]},
        Design(
            "read once the thermometer holds steady",
            "dial and thermometer at the room and once the water, heated towards "
            f"{HOT_C:g} degC, has changed by less than {STEADY_C:g} degC over {STEADY_S:g} s; "
            "α = Δdial / (L Δthermometer)",
            naive,
        ),
        Design(
            "dial settled at three temperatures",
            "dial (to half a graduation) and thermometer at the room and at setpoints of 50 and 80 degC once "
            "the rod has taken up the water's temperature; α = least-squares slope / L",
            standard,
        ),
        "the thermometer reads the water, and the rod follows it with a 20-40 s time constant: when the "
        "water holds steady the rod is still 0.6-2.5 degC behind, so the dial is short of its final reading "
        "and α comes out 1-4 % low; readings once the dial has stopped creeping are exact to the dial's "
        "half graduation (0.001 mm on 0.25-0.8 mm of growth)",
    )
