"""The difficulty audit of #16, the three-terminal box: the delta network taken for granted against the
network identified from every pair's logged transient."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Plan
from actloop.suites.lab.instance import Instance

LOGGER_HZ = 4


def plan() -> Plan:
    from actloop.suites.lab.experiments.three_terminal_box import (
        BOX,
        SOCKET_WN,
        TerminalState,
        network_of,
        wiring,
    )
    from actloop.suites.lab.instruments import Instrument
    from actloop.suites.lab.platforms.circuit_board import AMMETER, VOLTMETER
    from actloop.suites.lab.reference.three_terminal_box import (
        LOG_S,
        SKIP_S,
        TURNS,
        VOLTS,
        Row,
        identify,
        pair_fit,
        parallel,
    )
    from actloop.suites.lab.rig import DT, PHYSICS_HZ

    def logged(instance: Instance) -> dict[str, list[Row]]:
        """The logger's rows of each pair driven in turn at VOLTS from the switch-on, as the reference
        takes them (the box carried out and turned between pairs with the supply off)."""
        wires = wiring(instance)
        circuit = wires.build(DT)
        volt = Instrument(VOLTMETER, instance.noise_key)
        amp = Instrument(AMMETER, instance.noise_key)
        time_s = 0.0
        rows: dict[str, list[Row]] = {}
        for pair, quarters in TURNS.items():
            wires.apply(circuit, TerminalState(True, float(VOLTS), {SOCKET_WN.name: BOX.name}, quarters))
            start, rows[pair] = time_s, []
            for i in range(round(LOG_S * LOGGER_HZ)):
                circuit.step(PHYSICS_HZ // LOGGER_HZ)
                time_s += 1.0 / LOGGER_HZ
                true = wires.true_values(circuit)
                volt.step(time_s, true["voltmeter"])
                amp.step(time_s, true["ammeter"])
                if time_s - start >= SKIP_S:
                    rows[pair].append((i, time_s, float(volt.shown), float(amp.shown)))  # type: ignore[arg-type]
            wires.apply(circuit, TerminalState(False, float(VOLTS), {SOCKET_WN.name: None}, None))
            circuit.step(20 * PHYSICS_HZ)
            time_s += 20.0
        return rows

    def naive(instance: Instance) -> Estimate:
        fits = {pair: pair_fit(r) for pair, r in logged(instance).items()}
        ohms = {p: 1000.0 * f["volts"] / f["milliamps"] for p, f in fits.items()}
        c1 = fits["CA"]["tau"] / parallel(ohms["CA"], instance.public["series_resistance"])
        return {"topology": "delta", "R1": ohms["AB"], "R2": ohms["BC"], "C1": c1}

    def standard(instance: Instance) -> Estimate:
        fits = {pair: pair_fit(r) for pair, r in logged(instance).items()}
        return identify(fits, instance.public["series_resistance"])

    return Plan(
        lambda i: {
            "topology": network_of(i),
            "R1": i.hidden["R1"],
            "R2": i.hidden["R2"],
            "C1": i.hidden["C1"],
        },
        Design(
            "the delta taken for granted",
            "every pair logged; R1 and R2 from the A-B and B-C DC resistances and C1 from the C-A transient, "
            "as the first candidate (delta) would have them",
            naive,
        ),
        Design(
            "every pair identified",
            "every pair logged for 150 s after switching on at 10 V; the network named by which pairs "
            "conduct at DC, which show a transient and which resistance sums the others; C1 from the "
            "slowest transient with the resistance the capacitor sees there",
            standard,
        ),
        "the network is drawn from four candidates: one taken for granted is right a quarter of the time, "
        "and its formulas then read the other networks' resistances and time constants wrongly",
    )
