"""Pouring a vial into the cuvette in the spectrophotometer's holder, for reference experimenters.

The hand takes a vial from the side (fingers horizontal, closing across the rack, palm up), lifts it,
brings it beside the holder already leaning short of pouring, and turns it about the fingers' axis until
its mouth points past horizontal: the turn keeps the finger pads where they are, so the vial's rim swings
down to a lip over the cuvette's mouth, and the vial empties into it. It then turns back, and the vial
goes home upright. Every position comes from the published layout and sizes.
"""

from __future__ import annotations

import math

import numpy as np

from actloop.suites.lab.reference.motion import GC_OFFSET, quaternion
from actloop.suites.lab.reference.spectrophotometer import SAFE_Z, SpectroOperator

SIDE = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Fingers pointing away from the robot, closing along world x, palm side up: a vial taken from the side
(the arm's last joint then keeps the range the roll of a pour needs)."""
GRIP_ABOVE_CENTRE = 0.01
"""The finger pads close this far above the vial's centre."""
BACK_OFF = 0.06
"""The hand comes in to the vial (and leaves it) along its fingers from this far back."""
POUR_DEG = 100.0
LEVEL_DEG = 90.0
CARRY_DEG = 60.0
"""The vial leans this far while it is brought over the holder (1 mL starts to pour past 80 degrees)."""
LIP_ABOVE_RIM = 0.06
"""The vial's lip stands this far above the cuvette's mouth while it pours: high enough that the hand's
palm, turned on edge with the vial, clears the instrument's top."""
POUR_S = 1.0
POUR_SEED = (0.21, 0.08, 0.24, -2.43, -2.6, 2.12, -1.28)
"""Joint angles near the pour over the holder. The arm's solutions for a hand held sideways fall into
branches; the pour, the carry and the grasp are solved in a chain from this one, so that straight moves
between them never leave it (another branch runs the last joint out of range mid-pour)."""


def rolled(degrees: float) -> list[float]:
    """:data:`SIDE` turned by ``degrees`` about the fingers' axis, the vial's top leaning towards −x."""
    a = math.radians(degrees)
    return quaternion((0.0, 1.0, 0.0), (-math.cos(a), 0.0, -math.sin(a)))


class PouringOperator(SpectroOperator):
    """The spectrophotometer's operator, also taking vials and pouring them into the seated cuvette."""

    def _pour_pads(self) -> list[float]:
        """Where the finger pads hold the vial while it pours: the lip over the middle of the holder when the
        vial lies level (:data:`LEVEL_DEG`), the lean at which it pours fastest; from the onset of pouring to
        the end of the turn the lip stays within 2 mm of there."""
        radius, height = self._vial()  # the outer radius: the wall's 1.5 mm moves the lip by 0.3 mm
        rim = height / 2 - GRIP_ABOVE_CENTRE  # the rim above the pads along the vial's axis
        a = math.radians(LEVEL_DEG)
        lip_x = rim * math.sin(a) + radius * math.cos(a)  # the lowest point of the rim, from the pads
        lip_z = rim * math.cos(a) - radius * math.sin(a)
        hx, hy, deck = self.layout["holder"]
        mouth = deck + self.layout["cuvette_size"][2] + LIP_ABOVE_RIM
        return [hx + lip_x, hy, mouth - lip_z]

    def _sideways_above(self, vial: str) -> np.ndarray:
        """Joint angles with the hand sideways at the safe height behind ``vial``, solved in a chain from
        :data:`POUR_SEED` through the pour, the carry and the lift."""
        pads, slot = self._pour_pads(), self._pads_in_slot(vial)
        chain = [
            (self._hand(pads), rolled(POUR_DEG)),
            (self._hand(pads), rolled(CARRY_DEG)),
            (self._hand([pads[0], pads[1], SAFE_Z]), rolled(CARRY_DEG)),
            (self._hand([slot[0], slot[1], SAFE_Z]), SIDE),
            ([slot[0], slot[1] - GC_OFFSET - BACK_OFF, SAFE_Z], SIDE),
        ]
        joints = list(POUR_SEED)
        for position, orientation in chain:
            joints = self.lab.ik(position, orientation, joints)["joints"]
        return np.array(joints)

    def _vial(self) -> tuple[float, float]:
        """The vial's outer radius and height."""
        diameter, _, height = self.layout["vial_size"]
        return diameter / 2, height

    def _pads_in_slot(self, vial: str) -> list[float]:
        x, y, floor = self.layout[f"{vial}_slot"]
        return [x, y, floor + self._vial()[1] / 2 + GRIP_ABOVE_CENTRE]

    def _hand(self, pads: list[float]) -> list[float]:
        """The hand's position with the finger pads at ``pads`` (fingers along +y)."""
        return [pads[0], pads[1] - GC_OFFSET, pads[2]]

    def take_vial(self, vial: str) -> None:
        """Come in from behind the vial along its fingers, close on it, and lift it clear."""
        pads = self._pads_in_slot(vial)
        self.lab.gripper(0.03)
        self.to_ready(SAFE_Z)
        self.arm.joints_to(self._sideways_above(vial))
        self.arm.line([pads[0], pads[1] - GC_OFFSET - BACK_OFF, pads[2]], SIDE)
        self.arm.line(self._hand(pads), SIDE)
        self.lab.gripper(0.0)
        self.arm.line(self._hand([pads[0], pads[1], SAFE_Z]), SIDE)

    def pour_into_holder(self) -> None:
        """Pour the held vial into the cuvette in the holder and turn it back to the carrying lean."""
        pads = self._pour_pads()
        self.arm.line(self._hand([pads[0], pads[1], SAFE_Z]), rolled(CARRY_DEG))
        self.arm.line(self._hand(pads), rolled(CARRY_DEG))
        self.arm.line(self._hand(pads), rolled(POUR_DEG))
        self.lab.wait(POUR_S)
        self.arm.line(self._hand(pads), rolled(CARRY_DEG))
        self.arm.line(self._hand([pads[0], pads[1], SAFE_Z]), rolled(CARRY_DEG))

    def return_vial(self, vial: str) -> None:
        """Stand the held vial back in its slot and withdraw along the fingers."""
        pads = self._pads_in_slot(vial)
        self.arm.line(self._hand([pads[0], pads[1], SAFE_Z]), SIDE)
        self.arm.line(self._hand([pads[0], pads[1], pads[2] + 0.002]), SIDE)
        self.lab.gripper(0.03)
        self.arm.line([pads[0], pads[1] - GC_OFFSET - BACK_OFF, pads[2] + 0.002], SIDE)
        self.to_ready(SAFE_Z)
