"""The thermal bench's operator for reference experimenters: carry the probe by its handle between the
holder and the block's well, rock the heater switch on or off, step the setpoint with its keys, and read the
meter panel's LCDs from a level wrist close-up once they hold steady. Every position of the bench comes from
its published layout (``calibration()["layout"]``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from actloop.suites.lab.reference.display import Camera
from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, PAD_HALF, Client, Operator, quaternion

HOLDER = "holder_well"
BLOCK = "block_well"
"""The wells the probe stands in, by their names in the layout."""
LET_GO_M = 0.003
"""The probe is let go with its tip this far above the well's floor."""
GRIP_UP_HANDLE = 0.029
"""Where the fingers close on the handle, above its bottom (on a short handle, with the pads just under its
top)."""
ROCKER_ARM = 0.013
"""How far from the pivot the fingertips press the rocker (its front half, towards the robot, is on)."""
ROCKER_PRESS_TOP = 0.002
"""How far above the pivot the fingertips stop: the rocker's top there is past its middle, so it snaps
over."""
KEY_PRESS_M = 0.0055
PRESS_CLEARANCE = 0.02
"""A press starts and ends this far above what it presses."""
"""A little past a key's 4 mm travel, so it bottoms out."""
FIRST_SETPOINT = 25
STEP_C = 5
"""The setpoint at the start and each key press's step (the card's)."""
LCD_CELLS = {"thermometer": 4, "ohmmeter": 5, "setpoint": 2}
"""Each LCD's character cells."""
WRIST_UP_M = 0.09
VIEW_FROM = (0.005, -0.148, 0.005)
"""Where the wrist camera looks at the panel from, relative to the thermometer's window (level, the hand
clear of the table)."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the panel, palm side up: the wrist camera looks at the LCDs upright."""
GRASP = quaternion((0.0, 0.0, -1.0), (0.0, 1.0, 0.0))
"""Fingertips down, closing along y: the probe comes out of a well hanging above where it stood (closing
along x, it comes out a few millimetres towards the back)."""
SAFE_Z = 1.05
HEAT_S = 60.0
"""A first wait after raising the setpoint (the block heats at about half a degree a second)."""
CHECK_S = 10.0
STEADY = {"thermometer": (0.02, 0.0), "ohmmeter": (0.0015, 3e-4)}
"""Two readings of a meter agree within an amount or a fraction of the reading, whichever is larger (for
the ohmmeter, about one count of its LCD)."""
MAX_CHECKS = 30


class ThermalOperator(Operator):
    """Works the thermal bench of a connected client: its item is what stands in the holder (``probe`` or
    ``sample``), its panel is looked at level with the LCD ``top_lcd``."""

    def __init__(
        self,
        lab: Client,
        item: str = "probe",
        top_lcd: str = "thermometer_lcd",
        view_from: tuple[float, float, float] = VIEW_FROM,
    ) -> None:
        super().__init__(lab)
        self.item = item
        self.setpoint = FIRST_SETPOINT
        x, y, z = self.layout[top_lcd]
        self.view = (x + view_from[0], y + view_from[1], z + view_from[2])
        self.at_panel = False
        self.look: np.ndarray | None = None
        """The posture high in front of the panel, turned towards it, as first reached from the start."""

    def to(self, x: float, y: float, z: float, orientation: list[float] = DOWN) -> None:
        self.arm.line([x, y, z], orientation)

    def above(self, x: float, y: float) -> None:
        """Rise to the safe height fingertips down (from the panel through the starting posture), then
        cross to above (x, y)."""
        if self.at_panel:
            self.arm.line([*self.view[:2], SAFE_Z - WRIST_UP_M], LOOK)
            self.arm.joints_to(self.ready)
            self.at_panel = False
        here = self.lab.state()["hand_position"]
        self.to(here[0], here[1], max(SAFE_Z, here[2]))
        self.to(x, y, SAFE_Z)

    # --- the item ---
    def carry(self, start: str, end: str) -> None:
        """Lift the item by its handle out of the well ``start`` (:data:`HOLDER`, :data:`BLOCK`, another
        well of the layout) and lower it into the well ``end`` (a funnel guides a stem a few millimetres
        off)."""
        (sx, sy, s_top), (ex, ey, e_top) = self.layout[start], self.layout[end]
        (depth,) = self.layout["well_depth"]
        bottom, top = self.layout[f"{self.item}_handle"]
        grip = bottom + min(GRIP_UP_HANDLE, top - bottom - PAD_HALF) + GC_OFFSET
        self.lab.gripper(0.04)
        self.above(sx, sy)
        self.to(sx, sy, SAFE_Z, GRASP)
        self.to(sx, sy, s_top - depth + grip + 0.0005, GRASP)
        self.lab.gripper(0.0)
        self.to(sx, sy, SAFE_Z, GRASP)
        self.to(ex, ey, SAFE_Z, GRASP)
        self.to(ex, ey, e_top - depth + LET_GO_M + grip, GRASP)
        self.lab.gripper(0.04)
        self.to(ex, ey, SAFE_Z, GRASP)

    # --- the controller ---
    def heater(self, on: bool) -> None:
        """Rock the heater switch on (its front half down) or off."""
        self.rock("rocker_pivot", front_down=on)

    def rock(self, pivot: str, front_down: bool) -> None:
        """Press the front (towards the robot) or the back half of the rocker pivoting at ``pivot`` (its
        name in the layout)."""
        x, y, z = self.layout[pivot]
        self.above(x, y)
        self.press(
            x,
            y + (-ROCKER_ARM if front_down else ROCKER_ARM),
            z + ROCKER_PRESS_TOP,
            0.0,
            PRESS_CLEARANCE,
            DOWN,
        )

    def set_to(self, celsius: int) -> None:
        """Step the setpoint to ``celsius`` with the up or the down key."""
        step = STEP_C if celsius > self.setpoint else -STEP_C
        x, y, z = self.layout["up_key" if step > 0 else "down_key"]
        if self.setpoint != celsius:
            self.above(x, y)
        while self.setpoint != celsius:
            self.press(x, y, z, KEY_PRESS_M, PRESS_CLEARANCE, DOWN)
            self.setpoint += step

    # --- the meters ---
    def face_panel(self) -> None:
        """Hold the wrist camera level in front of the panel, coming from the starting posture."""
        if self.at_panel:
            return
        x, y, z = self.view
        if self.look is None:  # from the start, where the bench's IK turns the wrist the short way
            self.to(x, y, SAFE_Z - WRIST_UP_M, LOOK)
            self.look = np.array(self.lab.state()["joints"])
        else:  # the same way every time, through the starting posture
            self.above(x, y)
            self.arm.joints_to(self.ready)
            self.arm.joints_to(self.look)
        self.to(x, y, z - WRIST_UP_M, LOOK)
        self.at_panel = True

    def read_lcds(self, image: np.ndarray, camera: Camera, meters: Sequence[str]) -> dict[str, float]:
        """Each meter's value on its LCD in ``image``."""
        return {
            name: float(self.read_window(image, camera, f"{name}_lcd", LCD_CELLS[name])) for name in meters
        }

    def read(self, meters: Sequence[str]) -> tuple[str, dict[str, float]]:
        """(observation id, each meter's value) from one close-up of their LCDs."""
        observation, image, camera = self.close_up()
        return observation, self.read_lcds(image, camera, meters)

    def settled_reading(self, meters: Sequence[str]) -> tuple[str, dict[str, float]]:
        """A reading once two in a row, :data:`CHECK_S` apart, agree (the block and probe settled)."""
        self.lab.wait(HEAT_S)
        _, last = self.read(meters)
        for _ in range(MAX_CHECKS):
            self.lab.wait(CHECK_S)
            observation, now = self.read(meters)
            if all(steady(name, last[name], now[name]) for name in meters):
                return observation, now
            last = now
        raise RuntimeError("the meters never settled")


def steady(meter: str, last: float, now: float) -> bool:
    """Whether two successive readings of ``meter`` agree (:data:`STEADY`)."""
    amount, fraction = STEADY[meter]
    return abs(now - last) <= max(fraction * now, amount)
