"""#1 Hooke's law: the stiffness of a spring from the extensions it shows under known loads.

A coil spring hangs from a stand and carries a tray with a pointer; slotted weights of printed mass stand
in a rack; a vertical ruler graduated in millimetres stands beside the pointer. Hidden: the stiffness, the
spring's unloaded length and the tray's mass (so the unloaded reading differs per instance), and the
ruler's zero offset. Readings are the pointer's position on the ruler with the tray at rest and untouched.
"""

from __future__ import annotations

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.experiments import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.platforms.spring_stand import SpringStand
from actloop.suites.lab.spec import Parameter, Part, choice, uniform

SPEC = specify(
    "hookes_law",
    question=(
        "Determine the stiffness k of the spring hanging from the stand: the force per unit extension, "
        "in N/m. Take g = 9.81 m/s^2."
    ),
    budget_s=600.0,
    parameters=(
        Parameter("k", "spring stiffness", "N/m", uniform(18.0, 45.0)),
        Parameter("unloaded_length", "length of the spring with the empty tray", "m", uniform(0.12, 0.16)),
        Parameter("tray_mass", "mass of the tray", "kg", uniform(0.015, 0.035)),
        Parameter(
            "ruler_offset", "height of the ruler's zero above its nominal mount", "m", uniform(-0.004, 0.004)
        ),
        Parameter(
            "weight_mass", "printed mass of each slotted weight", "kg", choice(0.02, 0.025, 0.03), public=True
        ),
    ),
    parts=(
        Part("stand", "holds the spring and the ruler", restore="fixed"),
        Part("spring", "hangs from the stand and carries the tray", restore="fixed"),
        Part(
            "tray",
            "hangs from the spring; weights set on it load the spring; "
            "its pointer marks its height on the ruler",
            restore="any",
        ),
        *(
            Part(f"weight_{i}", "a slotted weight of the printed mass; stands in the rack")
            for i in range(1, 6)
        ),
        Part("rack", "holds the five weights", restore="fixed"),
        Part("ruler", "a vertical scale graduated in millimetres beside the pointer", restore="fixed"),
    ),
    rules=(
        "A reading is the pointer's position on the ruler, taken with the tray at rest and untouched "
        "by the robot.",
        "Cite readings at four or more different loads.",
    ),
)


def bench(instance: Instance) -> SpringStand:
    """The spring stand of ``instance``."""
    h, p = instance.hidden, instance.public
    return SpringStand(h["k"], h["unloaded_length"], h["tray_mass"], h["ruler_offset"], p["weight_mass"])


EXPERIMENT = Experiment(SPEC, bench)
