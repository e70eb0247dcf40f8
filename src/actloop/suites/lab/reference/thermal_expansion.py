"""The reference experimenter for the rod's expansion coefficient, through the public client only.

It lowers the dial's spindle onto the rod with the lever, reads the dial and the water's thermometer
together from one level wrist close-up (four observations, averaged) at the room's temperature, then
switches the heater on and does the same at setpoints of 50 and 80 degC: each time it waits for the
thermometer to hold steady and then :data:`ROD_SETTLE_S` more, for the rod to take up the water's
temperature (the dial creeps on after the thermometer has stopped). α is the least-squares slope of the dial
against the thermometer over the readings, over the rod's length. It then switches the heater off, lifts
the spindle and submits with every reading it rests on.

Besides the card it knows the bench's published layout (where the rocker, the keys, the lift lever, the LCD
windows and the dial are) through the rig's operator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.dial import DialGeometry, read_dial
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.thermal_bench import ThermalOperator

ROD_LENGTH_MM = 600.0
"""The rod's length at 20 degC (the card's)."""
TURN_MM = 0.2
COUNTER_TURNS = 10
"""The dial's long pointer reads 0.2 mm a turn; its counter counts 10 turns (the card's)."""
SETPOINTS = (50, 80)
ROD_SETTLE_S = 300.0
"""How long the dial is left to creep after the thermometer holds steady."""
LOOKS = 4
LOOK_GAP_S = 1.0
VIEW_FROM = (0.042, -0.148, -0.025)
"""Where the wrist camera looks from, relative to the thermometer's window: between it and the dial."""


class RigOperator(ThermalOperator):
    """Works the expansion rig: the kit's controller, the lift lever, and the dial with the thermometer
    read from one close-up."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab, item="", top_lcd="thermometer_lcd", view_from=VIEW_FROM)
        layout = self.layout
        self.dial = DialGeometry(
            layout["dial_centre"],
            layout["dial_counter_centre"],
            layout["dial_graduation_radius"][0],
            layout["dial_counter_radius"][0],
        )

    def spindle(self, down: bool) -> None:
        """Lower the dial's spindle onto the rod (the lever's front half) or lift it (its back half)."""
        self.rock("lift_lever_pivot", front_down=down)

    def read_rig(self) -> tuple[str, dict[str, float]]:
        """(observation id, the thermometer's and the dial's values) from one close-up of both."""
        self.face_panel()
        observation, image, camera = self.close_up()
        values = self.read_lcds(image, camera, ("thermometer",))
        values["dial"] = round(read_dial(image, camera, self.dial, TURN_MM, COUNTER_TURNS), 5)
        return observation, values


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    rig = RigOperator(lab)
    rig.face_panel()  # first from the start
    rig.spindle(down=True)
    citations: list[dict[str, Any]] = []
    points: list[tuple[float, float]] = []

    def read_state() -> None:
        for _ in range(LOOKS):
            observation, shown = rig.read_rig()
            citations.extend(
                {"observation_id": observation, "instrument": m, "value": shown[m]}
                for m in ("thermometer", "dial")
            )
            points.append((shown["thermometer"], shown["dial"]))
            lab.wait(LOOK_GAP_S)

    read_state()
    rig.heater(on=True)
    for celsius in SETPOINTS:
        rig.set_to(celsius)
        rig.face_panel()
        rig.settled_reading(("thermometer",))
        lab.wait(ROD_SETTLE_S)
        read_state()
    rig.heater(on=False)
    rig.spindle(down=False)
    mm_per_kelvin, _ = line(points)
    return lab.submit({"alpha": mm_per_kelvin / ROD_LENGTH_MM}, citations)
