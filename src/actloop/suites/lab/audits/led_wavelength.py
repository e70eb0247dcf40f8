"""The difficulty audit of #10, the LED wavelength: λ = hc/(qV) from the unknown's voltage alone, against the
line of V against 1/λ through the four known LEDs."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

SETTING = 5.0
"""The supply's setting of both designs (the reference's)."""
READINGS = 3
SETTLE_DT = 0.5
"""The step of the settling run: the heat is exact at any step, the power taken where each step starts."""
SETTLE_STEPS = 50
"""25 s, past the card's settling time."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.led_wavelength import UNKNOWN, VOLTMETER, LedWiring
    from actloop.suites.lab.physics.circuits import ELEMENTARY_CHARGE, LIGHT_SPEED, PLANCK
    from actloop.suites.lab.reference.led_wavelength import KNOWN, wavelength

    def voltages(instance: Instance) -> Callable[[str], float]:
        wiring = LedWiring(instance.hidden, instance.public)
        network = wiring.build(SETTLE_DT)
        meter = Meter(VOLTMETER, instance.noise_key)

        def settled(box: str) -> float:
            network.set(True, SETTING, box)
            network.step(SETTLE_STEPS)
            true = wiring.true_values(network)["voltmeter"]
            return sum(meter.read(true) for _ in range(READINGS)) / READINGS

        return settled

    def naive(instance: Instance) -> Estimate:
        return {"lambda_peak": 1e9 * PLANCK * LIGHT_SPEED / (ELEMENTARY_CHARGE * voltages(instance)(UNKNOWN))}

    def standard(instance: Instance) -> Estimate:
        settled = voltages(instance)
        known = [(instance.public[f"lambda_{c}"], settled(f"led_{c}")) for c in KNOWN]
        return {"lambda_peak": wavelength(known, settled(UNKNOWN))}

    return Plan(
        lambda i: {"lambda_peak": i.hidden["lambda_peak"]},
        Design(
            "photon energy from one voltage",
            f"the unknown LED settled at {SETTING:g} V, three readings; lambda = hc / (q V)",
            naive,
        ),
        Design(
            "calibration line of four known LEDs",
            f"each LED settled at {SETTING:g} V, three readings each; the least-squares line of V against "
            "1/lambda through the four known LEDs, the unknown read off it",
            standard,
        ),
        "the family's offset (0.15-0.45 V below the photon energy at 1 mA), the current's share of V "
        "(n V_T ln(I / 1 mA), 0.08-0.12 V at 5 V), the junction's warming and the voltmeter's zero error "
        "move V by -0.4 to +0.03 V, so hc/(qV) misses by 2-23 %; they are common to the family and "
        "nearly linear in V, so the known LEDs' line absorbs them",
    )
