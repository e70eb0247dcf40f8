"""The cantilever bench's operator for reference experimenters: slide the carriage by its peg into a hole,
carry a weight between the rack and a saddle's plate, and read the indicator's LCD from a level wrist
close-up once it holds steady. Every position comes from the bench's published layout
(``calibration()["layout"]``); where a loaded saddle's plate stands is the experimenter's own measurement.
"""

from __future__ import annotations

import numpy as np

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator, quaternion

LCD_CELLS = 6
"""The indicator's LCD: a sign and five digits."""
WRIST_UP_M = 0.09
VIEW_FROM = (0.005, -0.148, 0.005)
"""Where the wrist camera looks at the LCD from, relative to its window (level)."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the LCD, palm side up: the wrist camera looks at it upright."""
SAFE_Z = 1.2
"""Above the strip and anything standing on its saddles."""
CARRY_SPEED = 0.35
"""The fraction of its usual speed the arm moves at while it holds a weight or slides the carriage."""
PEG_OPEN_M = 0.025
"""The fingers' opening around the peg (clear of the ZERO key beside it)."""
PEG_HOLD_M = 0.012
"""The fingers close to just over the peg's diameter: they carry it between them without squeezing it, so
opening them pushes it nowhere (the hole's detent takes the last millimetre)."""
PEG_GRIP_BELOW_TOP = 0.012
"""Where the fingers close on the carriage's peg, below its top."""
SETTLE_S = 1.5
"""A first wait after the carriage or a weight is set down: the carriage's rest, the strip's ring and the
indicator's lag die out."""
READS = 8
READ_EVERY_S = 0.3
"""Readings of one state: the LCD's last digit flickers with its noise, so their mean is finer than a
count."""
AGREE_MM = 0.004
"""A state's readings have settled when they spread by no more than this (a few counts of the LCD)."""
MAX_CHECKS = 8
LET_GO_M = 0.001
"""A weight is let go with its foot this far above what it is set on."""


class CantileverOperator(Operator):
    """Works the cantilever bench of a connected client."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        (self.hole,) = self.layout["carriage_start"]
        """The hole the carriage stands in (its distance from the clamp, m)."""
        self.root = self.layout["strip_root"]
        self.at_lcd = False
        self.look: np.ndarray | None = None
        """The posture in front of the LCD, turned towards it, as first reached from the start."""

    def to(self, x: float, y: float, z: float, orientation: list[float] = DOWN) -> None:
        self.arm.line([x, y, z], orientation)

    def above(self, x: float, y: float) -> None:
        """Rise to the safe height fingertips down (from the LCD through the starting posture), then cross
        to above (x, y)."""
        if self.at_lcd:
            here = self.lab.state()["hand_position"]
            self.arm.line([here[0], here[1] - 0.05, here[2]], LOOK)
            self.arm.joints_to(self.ready)
            self.at_lcd = False
        here = self.lab.state()["hand_position"]
        self.to(here[0], here[1], max(SAFE_Z, here[2]))
        self.to(x, y, SAFE_Z)

    # --- the carriage ---
    def on_carriage(self, name: str, hole: float) -> tuple[float, float, float]:
        """The world position of a fixture of the carriage (``peg``, ``zero_key``, ``indicator_lcd``) with
        the carriage in ``hole``."""
        dx, dy, z = self.layout[f"{name}_on_carriage"]
        return (self.root[0] + hole + dx, self.root[1] + dy, z)

    def carriage_to(self, hole: float) -> None:
        """Close the fingers around the carriage's peg, slide it to ``hole`` and let go (the hole's detent
        centres it)."""
        if abs(hole - self.hole) < 1e-9:
            return
        x, y, top = self.on_carriage("peg", self.hole)
        grip = top - PEG_GRIP_BELOW_TOP + GC_OFFSET
        self.lab.gripper(PEG_OPEN_M)
        self.above(x, y)
        self.to(x, y, grip)
        self.lab.gripper(PEG_HOLD_M)
        speed = self.arm.speed
        self.arm.speed = speed * CARRY_SPEED
        try:
            self.to(x + hole - self.hole, y, grip)
        finally:
            self.arm.speed = speed
        self.lab.gripper(PEG_OPEN_M)
        self.to(x + hole - self.hole, y, SAFE_Z)
        self.hole = hole

    # --- the weights ---
    def carry(
        self, start: tuple[float, float, float], end: tuple[float, float, float], height: float
    ) -> None:
        """Pick the weight whose foot stands at ``start`` and set it down with its foot at ``end`` (the
        fingers close on its upper half), slowly while it is held."""
        lift = height * 0.7 + GC_OFFSET
        self.lab.gripper(0.035)
        self.above(start[0], start[1])
        self.to(start[0], start[1], start[2] + lift)
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * CARRY_SPEED
        try:
            self.to(start[0], start[1], SAFE_Z)
            self.to(end[0], end[1], SAFE_Z)
            self.to(end[0], end[1], end[2] + LET_GO_M + lift)
        finally:
            self.arm.speed = speed
        self.lab.gripper(0.035)
        self.to(end[0], end[1], SAFE_Z)

    def place(self, weight: int) -> tuple[float, float, float]:
        """Where weight ``weight``'s foot stands in the rack."""
        x, y, z = self.layout[f"weight_{weight}_place"]
        return (x, y, z)

    def plate(self, saddle: int, drop_m: float = 0.0) -> tuple[float, float, float]:
        """The top of saddle ``saddle``'s plate, lowered by ``drop_m`` (its strip's measured drop)."""
        x, y, z = self.layout[f"saddle_{saddle}_plate"]
        return (x, y, z - drop_m)

    def load(self, weight: int, saddle: int, drop_m: float = 0.0) -> None:
        """Carry ``weight`` from the rack onto ``saddle``'s plate (standing ``drop_m`` below its unloaded
        height)."""
        self.carry(self.place(weight), self.plate(saddle, drop_m), self.layout[f"weight_{weight}_size"][1])

    def unload(self, weight: int, saddle: int, drop_m: float) -> None:
        """Carry ``weight`` from ``saddle``'s plate (``drop_m`` below its unloaded height) to the rack."""
        self.carry(self.plate(saddle, drop_m), self.place(weight), self.layout[f"weight_{weight}_size"][1])

    # --- the indicator ---
    def face_lcd(self) -> None:
        """Hold the wrist camera level in front of the LCD, coming through the starting posture."""
        x, y, z = self.on_carriage("indicator_lcd", self.hole)
        view = (x + VIEW_FROM[0], y + VIEW_FROM[1], z + VIEW_FROM[2] - WRIST_UP_M)
        if self.at_lcd:
            self.to(*view, LOOK)
            return
        self.to_ready(SAFE_Z)
        if self.look is None:  # from the starting posture the bench's IK turns the wrist the short way
            self.to(view[0], view[1], SAFE_Z - WRIST_UP_M, LOOK)
            self.look = np.array(self.lab.state()["joints"])
        else:  # the same way every time
            self.arm.joints_to(self.look)
        self.to(*view, LOOK)
        self.at_lcd = True

    def read(self) -> tuple[str, float]:
        """(observation id, the LCD's value in mm) from one close-up."""
        observation, image, camera = self.close_up()
        window = self.on_carriage("indicator_lcd", self.hole)
        return observation, float(self.read_window(image, camera, "indicator_lcd", LCD_CELLS, centre=window))

    def settled_readings(self) -> list[tuple[str, float]]:
        """:data:`READS` readings, :data:`READ_EVERY_S` apart, in front of the LCD once the carriage, the
        strip and the indicator have settled (their spread within :data:`AGREE_MM`, else read again)."""
        self.face_lcd()
        self.lab.wait(SETTLE_S)
        for _ in range(MAX_CHECKS):
            readings = []
            for _ in range(READS):
                self.lab.wait(READ_EVERY_S)
                readings.append(self.read())
            values = [value for _, value in readings]
            if max(values) - min(values) <= AGREE_MM:
                return readings
        raise RuntimeError("the indicator never held steady")
