"""The titration bench's operator for reference experimenters: carry a beaker from its spot into the
stirrer's ring and back, hang the electrode in the sleeve and return it to its storage well (both taken from
the side, fingers pointing away from the robot, so the hand stays in front of the burette), turn the
stopcock with the fingers straddling its peg, press the LOG key, and read the logger's file. Every position
comes from the bench's published layout (``calibration()["layout"]``).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator, quaternion

SIDE = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Fingers pointing away from the robot, closing along world x, palm side up."""
SAFE_Z = 1.05
CARRY_ABOVE_PLATE = 0.012
"""A beaker is carried into the ring with its bottom this far above the stirrer's plate (its rim under the
burette's tip and the sleeve)."""
LIFT_ABOVE_PLATE = 0.08
"""Elsewhere it is carried with its bottom this high, the palm over the other beakers."""
BEAKER_GRIP_UP = 0.045
"""The finger pads close this far above a beaker's bottom (its rim is 60 mm up)."""
BEAKER_PADS_BEYOND = 0.01
"""The finger pads close this far beyond a beaker's axis: the fingers' thicker roots then hold its near
side, and it sits in the fingers where it stood."""
ELECTRODE_GRIP_UP = 0.03
"""The finger pads close this far above the electrode handle's bottom."""
BACK_OFF = 0.07
"""The hand comes in to what it takes (and leaves it) along its fingers from this far back."""
ELECTRODE_CLEAR = 0.02
"""The electrode is carried with its tip this far above the sleeve's funnel and the storage well's."""
HANG_DROP_M = 0.004
"""The electrode is let go with its handle this far above where it comes to rest."""
FORK_GAP = 0.016
"""The fingers' opening around the stopcock's peg."""
TURN_STEP_RAD = 0.3
QUARTER_TURN = math.pi / 2
FORK_ABOVE = 0.05
FRONT_OF_HINGE = 0.12
"""The hand comes down to the peg from FORK_ABOVE over it, after coming in this far in front of the
hinge."""
PRESS_M = 0.0045
PRESS_CLEARANCE = 0.02


OPEN_RAD = 1.5708
"""A quarter turn: the stopcock fully open (the lever stops there)."""
CLOSE_RAD = -0.1
"""Closing aims past the lever's stop, so the fingers' play around the peg cannot leave it ajar."""
DRIP_RAD = 0.36
"""The stopcock turned this far drips a drop every few seconds."""
SETTLE_S = 8.0
STREAM_DROPS_S = 8.0
TRICKLE_RAD = 0.8
TRICKLE_DROPS_S = 2.0
"""First guesses at how fast the wide-open stopcock and one turned TRICKLE_RAD deliver (drops/s); each
addition measures them."""
STREAM_ABOVE_ML = 4.0
"""Additions larger than this go by the stream, smaller ones by the trickle (its turns let less through)."""
MAX_DRIP_S = 300.0
DRIP_CHECK_S = 5.0
DROP_ML = 0.05
"""The card's drop volume."""


@dataclass(frozen=True)
class Row:
    """One logged row: its index, time (s), the pH shown and the drop count."""

    index: int
    time_s: float
    ph: float
    drops: int


def rows_of(text: str) -> list[Row]:
    """Every row of the logger's file with both values shown."""
    rows = []
    for i, row in enumerate(csv.DictReader(text.splitlines())):
        if row["ph"] and row["drops"]:
            rows.append(Row(i, float(row["time_s"]), float(row["ph"]), int(float(row["drops"]))))
    return rows


class TitrationOperator(Operator):
    """Works the titration bench of a connected client."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.stopcock_rad = 0.0
        """Where this operator last left the stopcock (it starts closed)."""
        self.exports = 0
        self.log_file = ""

    # --- beakers ---
    def _beaker_pads(self, x: float, y: float, bottom_z: float) -> list[float]:
        return [x, y + BEAKER_PADS_BEYOND, bottom_z + BEAKER_GRIP_UP]

    def _side_hand(self, pads: list[float]) -> list[float]:
        """The hand's position with the finger pads at ``pads`` (fingers along +y)."""
        return [pads[0], pads[1] - GC_OFFSET, pads[2]]

    def _come_in(self, pads: list[float], opening: float) -> None:
        """From the starting posture, across at the safe height, straight down behind ``pads``, and in along
        the fingers to them with the fingers open."""
        self.lab.gripper(opening)
        self.to_ready(SAFE_Z)
        self.arm.line([pads[0], pads[1] - GC_OFFSET - BACK_OFF, SAFE_Z], SIDE)
        self.arm.line([pads[0], pads[1] - GC_OFFSET - BACK_OFF, pads[2]], SIDE)
        self.arm.line(self._side_hand(pads), SIDE)

    def _go_out(self, pads: list[float], opening: float) -> None:
        """Open the fingers, back out along them, and return to the starting posture."""
        self.lab.gripper(opening)
        self.arm.line([pads[0], pads[1] - GC_OFFSET - BACK_OFF, pads[2]], SIDE)
        self.to_ready(SAFE_Z)

    def _beaker_opening(self) -> float:
        return self.layout["beaker_size"][0] + 0.014

    def _beaker_path(self, beaker: str) -> list[list[float]]:
        """The finger pads' way from ``beaker``'s spot to the stirrer's ring: up high enough for the palm to
        pass over the other beakers, across in front of the stirrer, down below the burette's tip, and in."""
        x, y, stand = self.layout[f"{beaker}_spot"]
        rx, ry, plate = self.layout["stirrer_ring"]
        high, carry = plate + LIFT_ABOVE_PLATE, plate + CARRY_ABOVE_PLATE
        ways = [(x, y, stand), (x, y, high), (rx, y, high), (rx, y, carry), (rx, ry, carry), (rx, ry, plate)]
        return [self._beaker_pads(*way) for way in ways]

    def _carry(self, pads: list[list[float]]) -> None:
        self._come_in(pads[0], self._beaker_opening())
        self.lab.gripper(0.0)
        for way in pads[1:-1]:
            self.arm.line(self._side_hand(way), SIDE)
        end = [pads[-1][0], pads[-1][1], pads[-1][2] + 0.001]
        self.arm.line(self._side_hand(end), SIDE)
        self._go_out(end, self._beaker_opening())

    def beaker_to_stirrer(self, beaker: str) -> None:
        """Take ``beaker`` from its spot and stand it in the stirrer's ring."""
        self._carry(self._beaker_path(beaker))

    def beaker_home(self, beaker: str) -> None:
        """Take the beaker in the stirrer's ring back to ``beaker``'s spot."""
        self._carry(self._beaker_path(beaker)[::-1])

    # --- the electrode ---
    def _electrode_pads(self, x: float, y: float, tip_z: float) -> list[float]:
        return [x, y, tip_z + self.layout["electrode_handle"][0] + ELECTRODE_GRIP_UP]

    def _move_electrode(self, source: str, target: str, target_tip_z: float) -> None:
        sx, sy, source_top = self.layout[source]
        tx, ty, target_top = self.layout[target]
        tip_now = self._tip_in(source)
        opening = 0.03
        self._come_in(self._electrode_pads(sx, sy, tip_now), opening)
        self.lab.gripper(0.0)
        high = max(source_top, target_top) + ELECTRODE_CLEAR + 0.01
        for x, y, tip in ((sx, sy, high), (tx, ty, high), (tx, ty, target_tip_z + HANG_DROP_M)):
            self.arm.line(self._side_hand(self._electrode_pads(x, y, tip)), SIDE)
        self._go_out(self._electrode_pads(tx, ty, target_tip_z + HANG_DROP_M), opening)

    def _tip_in(self, place: str) -> float:
        """Where the electrode's tip rests in ``place``: on the storage well's floor, or hung in the
        sleeve."""
        return self.layout["electrode_hung_tip" if place == "sleeve" else "storage_well_floor"][0]

    def electrode_to_sleeve(self) -> None:
        self._move_electrode("storage_well", "sleeve", self._tip_in("sleeve"))

    def electrode_home(self) -> None:
        self._move_electrode("sleeve", "storage_well", self._tip_in("storage_well"))

    # --- the stopcock ---
    def _peg(self, angle: float) -> tuple[list[float], list[float]]:
        """The hand's position with the pads around the peg at lever ``angle`` (rad from closed, the lever
        pointing to +x; opening turns it towards −y), and its orientation: fingertips down, closing across
        the lever."""
        hx, hy, hz = self.layout["stopcock_hinge"]
        length, peg_height = self.layout["stopcock_lever"]
        x, y = hx + length * math.cos(angle), hy - length * math.sin(angle)
        across = (math.sin(angle), math.cos(angle), 0.0)
        return [x, y, hz + peg_height / 2 + GC_OFFSET], quaternion((0.0, 0.0, -1.0), across)

    def turn_stopcock(self, angle: float) -> None:
        """Straddle the peg from above and swing the lever to ``angle`` (rad from closed), then lift off.
        The hand comes in over the front of the bench, so the arm never reaches over the burette."""
        start, turn = self.stopcock_rad, angle - self.stopcock_rad
        position, orientation = self._peg(start)
        self.lab.gripper(FORK_GAP)
        above = [position[0], position[1], position[2] + FORK_ABOVE]
        self.arm.line(
            [above[0], min(above[1], self.layout["stopcock_hinge"][1] - FRONT_OF_HINGE), above[2]],
            orientation,
        )
        self.arm.line(above, orientation)
        self.arm.line(position, orientation)
        steps = max(1, math.ceil(abs(turn) / TURN_STEP_RAD))
        for i in range(1, steps + 1):
            self.arm.line(*self._peg(start + turn * i / steps))
        self.stopcock_rad = min(max(angle, 0.0), QUARTER_TURN)  # the lever stops at either end
        position, orientation = self._peg(angle)
        self.arm.line([position[0], position[1], position[2] + FORK_ABOVE], orientation)

    def stopcock_hand_away(self) -> None:
        """Back to the starting posture from above the stopcock."""
        self.to_ready(SAFE_Z)

    # --- the logger ---
    def press_log(self) -> None:
        x, y, top = self.layout["key_log"]
        self.to_ready(SAFE_Z)
        self.press(x, y, top, PRESS_M, PRESS_CLEARANCE, DOWN)
        self.to_ready(SAFE_Z)

    def logged(self) -> list[Row]:
        """Every row the logger has recorded so far (exported to a new file each time: the last one's name
        is :attr:`log_file`)."""
        self.exports += 1
        self.log_file = f"titration_{self.exports}.csv"
        return rows_of(Path(self.lab.export("logger", self.log_file)["file"]).read_text())


def settled(rows: list[Row], since_s: float) -> Row:
    """The last row logged (after ``since_s``)."""
    after = [r for r in rows if r.time_s >= since_s]
    if not after:
        raise ValueError(f"no row logged after {since_s} s")
    return after[-1]


def ratio_equivalence(v0: float, ph0: float, v1: float, ph1: float, sample_ml: float) -> float:
    """The equivalence volume (mL) a strong acid's two pH readings before it imply: the excess acid falls
    by 10^(ph1 − ph0) from v0 to v1 (the electrode's offset cancels), diluted by the added volume."""
    ratio = 10.0 ** (ph1 - ph0)
    # n − c v0 = r (n − c v1) (V + v0) / (V + v1) with n the acid (in titrant mL): solve for n
    k = ratio * (sample_ml + v0) / (sample_ml + v1)
    return float((v0 - k * v1) / (1.0 - k)) if k != 1.0 else math.inf


def steepest_rise(points: list[tuple[int, float]]) -> int:
    """The drop count after which the pH rose most (points: (drops, settled pH), in order)."""
    rises = [(points[i + 1][1] - points[i][1], points[i + 1][0]) for i in range(len(points) - 1)]
    return int(max(rises)[1])


def per_drop(rows: list[Row]) -> list[tuple[int, Row]]:
    """The last row logged at each drop count (the most settled reading before the next drop)."""
    last: dict[int, Row] = {}
    for r in rows:
        last[r.drops] = r
    return sorted(last.items())


@dataclass
class Flow:
    """What one stopcock setting delivers: drops/s while it stands there, and the drops the turns to it and
    back let through besides (measured on the logger at each addition)."""

    angle: float
    rate: float
    extra: float = 0.0


def add(me: TitrationOperator, lab: Client, millilitres: float, flow: Flow) -> None:
    """Turn the stopcock to ``flow``'s setting for as long as ``millilitres`` take at its rate, less the
    drops its turns let through, and close it; update ``flow`` from the logger (the rows while the stopcock
    stood there, and all it delivered)."""
    before = settled(me.logged(), 0.0).drops
    me.turn_stopcock(flow.angle)
    opened = float(lab.state()["time_s"])
    lab.wait(max(0.5, (millilitres / DROP_ML - flow.extra) / flow.rate))
    closing = float(lab.state()["time_s"])
    me.turn_stopcock(CLOSE_RAD)
    lab.wait(SETTLE_S)
    rows = me.logged()
    steady = [r for r in rows if opened <= r.time_s <= closing]
    if len(steady) >= 2 and steady[-1].drops > steady[0].drops:
        flow.rate = (steady[-1].drops - steady[0].drops) / (steady[-1].time_s - steady[0].time_s)
    flow.extra = max(0.0, settled(rows, 0.0).drops - before - flow.rate * (closing - opened))


def drip_and_restore(
    me: TitrationOperator, lab: Client, beaker: str, end_ph: float
) -> tuple[list[tuple[int, Row]], int]:
    """Drip until the pH shows ``end_ph``, close the stopcock, stop the logger and put the electrode and
    ``beaker`` back; the drip's last row at each drop count and the drop after which the pH rose most."""
    start = float(lab.state()["time_s"])
    me.turn_stopcock(DRIP_RAD)
    me.stopcock_hand_away()
    while float(lab.state()["time_s"]) - start < MAX_DRIP_S:
        lab.wait(DRIP_CHECK_S)
        if settled(me.logged(), 0.0).ph > end_ph:
            break
    me.turn_stopcock(CLOSE_RAD)
    points = per_drop([r for r in me.logged() if r.time_s >= start])
    me.press_log()
    me.electrode_home()
    me.beaker_home(beaker)
    return points, steepest_rise([(drops, row.ph) for drops, row in points])
