"""The difficulty audit of #9, the black-box resistor: one V/I reading against the slope of several."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.black_box_resistor import BlackBoxWiring
    from actloop.suites.lab.platforms.circuit_board import AMMETER, VOLTMETER
    from actloop.suites.lab.reference.black_box_resistor import fit_resistance
    from actloop.suites.lab.rig import DT

    def meters(instance: Instance) -> Callable[[float], tuple[float, float]]:
        h = instance.hidden
        wiring = BlackBoxWiring(h["R"], h["voltmeter_zero"], h["ammeter_zero"])
        circuit = wiring.build(DT)
        circuit.set_switch("power", True)
        circuit.set_switch("contacts", True)
        volt, amp = Meter(VOLTMETER, instance.noise_key), Meter(AMMETER, instance.noise_key)

        def at(setting: float) -> tuple[float, float]:
            circuit.set_source("supply", volts=setting)
            true = wiring.true_values(circuit)
            return volt.read(true["voltmeter"]), amp.read(true["ammeter"])

        return at

    def naive(instance: Instance) -> Estimate:
        volts, milliamps = meters(instance)(10.0)
        return {"R": 1000.0 * volts / milliamps}

    def standard(instance: Instance) -> Estimate:
        at = meters(instance)
        points = [at(float(setting)) for setting in (2, 4, 6, 8, 10) for _ in range(3)]
        return {"R": fit_resistance(points, instance.public["voltmeter_resistance"])}

    return Plan(
        lambda i: {"R": i.hidden["R"]},
        Design("one reading at 10 V", "R = V / I from one voltmeter and ammeter reading at 10 V", naive),
        Design(
            "slope of five settings",
            "three readings at each of 2, 4, 6, 8, 10 V; R from the least-squares slope of I against V "
            "(less the voltmeter's published conductance)",
            standard,
        ),
        "the meters' zero errors (±0.2 V, ±0.2 mA) move one reading at 10 V by up to 2 % in voltage and "
        "0.1-10 % in current, far past 0.3 %; a slope over several settings drops them",
    )
