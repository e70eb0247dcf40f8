"""The difficulty audit of #24, the specific heat: the peak of the water against the cooling correction."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Plan
from actloop.suites.lab.instance import Instance

TRANSIT_S = 10.0
"""The sample's carry from the block to the water, in the air."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.specific_heat import bench
    from actloop.suites.lab.instruments import Instrument
    from actloop.suites.lab.physics.heat import ROOM
    from actloop.suites.lab.platforms.calorimeter import (
        HEATER_THERMOMETER,
        IN_AIR_W_PER_K,
        IN_WATER_W_PER_K,
        LOG_HZ,
        WATER_THERMOMETER,
    )
    from actloop.suites.lab.platforms.thermal_bench import KELVIN, THERMAL_STEPS, steady_block_c
    from actloop.suites.lab.reference.specific_heat import (
        BEFORE_S,
        CUP_J_PER_K,
        HEATER,
        RECORD_S,
        SETPOINT_C,
        WATER,
        WATER_C,
        specific_heat,
    )

    def logged(instance: Instance) -> tuple[list[dict[str, float]], float, float]:
        """The logger's rows of a run: the sample settled in the block at the controller's steady
        temperature, carried through the air for TRANSIT_S, then in the water for RECORD_S; the lift's and
        the mixing's times."""
        room = instance.hidden["room"]
        block_c = steady_block_c(SETPOINT_C, room)
        rig = bench(instance)
        network = rig.network
        network.set_temperature("sample", block_c + KELVIN)  # settled in the block: it holds until lifted
        network.set_link("sample", ROOM, 0.0)
        heater = Instrument(HEATER_THERMOMETER, instance.noise_key)
        water = Instrument(WATER_THERMOMETER, instance.noise_key)
        rows: list[dict[str, float]] = []
        dt = THERMAL_STEPS / 240.0
        lifted, mixed = BEFORE_S, BEFORE_S + TRANSIT_S
        t = 0.0
        while t < mixed + RECORD_S:
            if abs(t - lifted) < dt / 2:  # in the air
                network.set_link("sample", ROOM, IN_AIR_W_PER_K)
            if abs(t - mixed) < dt / 2:  # in the water
                network.set_link("sample", ROOM, 0.0)
                network.set_link("sample", "water", IN_WATER_W_PER_K)
            heater.step(t, block_c)
            water.step(t, network.temperature("water") - KELVIN)
            if round(t * LOG_HZ, 6).is_integer():
                shown = (heater.shown, water.shown)
                rows.append({"time_s": t, HEATER: float(shown[0]), WATER: float(shown[1])})  # type: ignore[arg-type]
            network.step(1)
            t = round(t + dt, 9)
        return rows, lifted, mixed

    def naive(instance: Instance) -> Estimate:
        rows, lifted, mixed = logged(instance)
        sample_0 = next(r[HEATER] for r in reversed(rows) if r["time_s"] <= lifted)
        water_0 = next(r[WATER] for r in reversed(rows) if r["time_s"] <= lifted)
        peak = max(r[WATER] for r in rows if r["time_s"] >= mixed)
        p = instance.public
        water_heat = p["water_mass"] * WATER_C + CUP_J_PER_K
        return {"c_s": water_heat * (peak - water_0) / (sample_0 - peak) / p["sample_mass"]}

    def standard(instance: Instance) -> Estimate:
        rows, lifted, mixed = logged(instance)
        p = instance.public
        return {"c_s": specific_heat(rows, lifted, mixed, p["sample_mass"], p["water_mass"])}

    return Plan(
        lambda i: {"c_s": i.hidden["c_s"]},
        Design(
            "the water's peak",
            "c_s from the water's highest reading after mixing and the block's before it, no loss counted",
            naive,
        ),
        Design(
            "cooling correction",
            "the mixture's late cooling fitted for its rate k; the heat lost since mixing, k (C_s + C_w) "
            "times the integral of the water's excess over the room, put back in the energy balance",
            standard,
        ),
        "the calorimeter loses 0.06-0.15 W/K to the room while the sample warms the water, and at the "
        "water's peak the sample is still warmer than the water: the peak falls short of the lossless "
        "mixture by 1-3 %; the cooling afterwards gives the loss rate, and the energy balance with it the "
        "heat lost",
    )
