"""Reference solutions: scripted experimenters that act only through the public client and read every
value from the instruments, as the seed requires of the solutions that prove each experiment solvable.

Nothing here may import the bench, its physics or its evaluator: only the client, the published
calibration and what any experimenter may know (the card, the bench's visible layout).
"""

from collections.abc import Callable
from typing import Any

Solver = Callable[[Any, dict[str, float]], dict[str, Any]]
"""A reference: given a connected client and the card's public values, solve and submit."""


def reference(experiment: str) -> Solver:
    """The reference experimenter of ``experiment``."""
    from actloop.suites.lab.reference import (
        black_box_resistor,
        dye_absorptivity,
        hookes_law,
        lens_focal_length,
        thermistor_b,
    )

    solvers: dict[str, Solver] = {
        "hookes_law": lambda lab, public: hookes_law.solve(lab, public["weight_mass"]),
        "black_box_resistor": lambda lab, public: black_box_resistor.solve(
            lab, public["voltmeter_resistance"]
        ),
        "dye_absorptivity": lambda lab, public: dye_absorptivity.solve(lab, public["stock_concentration"]),
        "thermistor_b": lambda lab, public: thermistor_b.solve(lab),
        "lens_focal_length": lambda lab, public: lens_focal_length.solve(lab),
    }
    if experiment not in solvers:
        raise KeyError(f"no reference experimenter for {experiment!r}")
    return solvers[experiment]
