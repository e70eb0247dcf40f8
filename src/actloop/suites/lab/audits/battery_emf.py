"""The difficulty audit of #27, the battery's EMF: the open-circuit voltage and one load against a line
through the open circuit and three loads, currents from the ammeter's open-circuit reading."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

ROWS = 12
"""Logged rows per circuit (three seconds at four rows a second)."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.battery_emf import (
        AMMETER,
        LOAD_OHMS,
        LOAD_SOCKET,
        VOLTMETER,
        wiring,
    )
    from actloop.suites.lab.platforms.circuit_board import BoardState
    from actloop.suites.lab.reference.battery_emf import OPEN, cell_of
    from actloop.suites.lab.rig import DT

    def meters(instance: Instance) -> Callable[[str], tuple[float, float]]:
        """Settled (volts, amperes) as the meters show them with a load box in circuit (or OPEN): the
        circuit's steady state (run on for the settling time) read through the instruments."""
        wires = wiring(instance)
        circuit = wires.build(DT)
        volt, amp = Meter(VOLTMETER, instance.noise_key), Meter(AMMETER, instance.noise_key)

        def at(load: str) -> tuple[float, float]:
            box = None if load == OPEN else load
            wires.apply(circuit, BoardState(box is not None, 0.0, {LOAD_SOCKET.name: box}))
            circuit.step(round(15.0 / DT))
            true = wires.true_values(circuit)
            return volt.read(true["voltmeter"]), amp.read(true["ammeter"])

        return at

    def naive(instance: Instance) -> Estimate:
        at = meters(instance)
        (open_volts, _), (volts, amps) = at(OPEN), at("load_1r0")
        return {"E": open_volts, "r": (open_volts - volts) / amps}

    def standard(instance: Instance) -> Estimate:
        at = meters(instance)
        rows = [
            (0, float(k), dict(zip(("voltmeter", "ammeter"), at(load), strict=True)))
            for k, load in enumerate(load for load in (OPEN, *LOAD_OHMS) for _ in range(ROWS))
        ]
        windows = {load: (ROWS * j, ROWS * j + ROWS - 1.0) for j, load in enumerate((OPEN, *LOAD_OHMS))}
        emf, ohms, _ = cell_of(rows, windows, instance.public["voltmeter_resistance"])
        return {"E": emf, "r": ohms}

    return Plan(
        lambda i: {"E": i.hidden["E"], "r": i.hidden["r"]},
        Design(
            "open circuit and one load",
            "E = the settled open-circuit voltage; r = (V_open - V) / I from one settled reading under the "
            "1.0 ohm load, the current as the ammeter shows it",
            naive,
        ),
        Design(
            "line through the open circuit and three loads",
            "twelve settled rows each with the circuit open and under the 1.0, 2.2 and 4.7 ohm loads; "
            "currents from the ammeter's mean open-circuit reading (and the voltmeter's published input "
            "resistance); E and r from the least-squares line V = E - I r",
            standard,
        ),
        "the ammeter's zero error (±20 mA) shifts one current of 0.5-1.1 A by up to 4 %, past 0.5 % on most "
        "instances, so r from one load read against zero misses; the open-circuit reading shows the zero, "
        "and a line with currents taken from it meets both tolerances (the load boxes' 2 % spread defeats "
        "the voltmeter alone with the printed values)",
    )
