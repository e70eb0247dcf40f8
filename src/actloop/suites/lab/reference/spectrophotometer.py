"""The spectrophotometer's operator for reference experimenters: press its keys (a held wavelength key
repeats), read both LCDs from the wrist camera over the keys, step or sweep the wavelength, and carry a
cuvette between its rack slot and the holder. Every position comes from the bench's published layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import GC_OFFSET, PAD_HALF, Client, Operator, quaternion

LCD_CELLS = {"wavelength": 3, "absorbance": 5}
"""Each LCD's character cells (the absorbance's include its sign)."""
PRESS = quaternion((0.0, 0.0, -1.0), (-1.0, 0.0, 0.0))
"""Fingertips down, palm side away from the robot: the wrist camera looks down on the LCDs behind the
keys while a fingertip presses one."""
GRIP_BELOW_TOP = 0.012
SAFE_Z = 1.0
HOVER_M = 0.006
PRESS_DEPTH_M = 0.0045
REFRESH_S = 0.5
PRESS_S = 0.12
REPEAT_DELAY_S = 0.5
REPEAT_S = 0.05
"""A held wavelength key repeats after 0.5 s, then every 0.05 s (from the card)."""


@dataclass(frozen=True)
class Reading:
    """Both LCDs in one observation: the wavelength (nm) and the absorbance (NaN for OL)."""

    observation_id: str
    wavelength: float
    absorbance: float

    def citation(self, quantity: str, cuvette: int) -> dict[str, Any]:
        return {
            "observation_id": self.observation_id,
            "instrument": "absorbance",
            "value": self.absorbance,
            "quantity": quantity,
            "note": f"cuvette_{cuvette} at {self.wavelength:.0f} nm",
        }


def corrected(sample: Sequence[Reading], baseline: Sequence[Reading]) -> list[tuple[float, float]]:
    """(wavelength, absorbance) of the sample less the blank's baseline interpolated at its wavelength."""
    base = sorted((r.wavelength, r.absorbance) for r in baseline if math.isfinite(r.absorbance))
    xs, ys = [b[0] for b in base], [b[1] for b in base]
    return [
        (r.wavelength, r.absorbance - float(np.interp(r.wavelength, xs, ys)))
        for r in sample
        if math.isfinite(r.absorbance) and xs[0] <= r.wavelength <= xs[-1]
    ]


def coarse_peak(points: Sequence[tuple[float, float]]) -> tuple[int, float]:
    """The wavelength (whole nm) and absorbance of the highest point, refined by a parabola through it and
    its neighbours."""
    points = sorted(points)
    k = max(range(len(points)), key=lambda i: points[i][1])
    k = min(max(k, 1), len(points) - 2)
    (x0, y0), (x1, y1), (x2, y2) = points[k - 1 : k + 2]
    coeffs = np.polyfit([x0 - x1, 0.0, x2 - x1], [y0, y1, y2], 2)
    vertex = x1 - coeffs[1] / (2 * coeffs[0]) if coeffs[0] < 0 else x1
    return round(min(max(vertex, x0), x2)), max(y0, y1, y2)


class SpectroOperator(Operator):
    """Works the spectrophotometer bench of a connected client."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self._poses: dict[tuple[str, str], np.ndarray] = {}
        self.seated: int | None = None
        """The cuvette :meth:`seat` last stood in the holder (None once it went back)."""

    # --- the keys and the LCDs ---
    def _key_pose(self, key: str, pressed: bool) -> np.ndarray:
        """Joint angles with the fingertips just above ``key`` or pressing it (solved once each)."""
        if (key, str(pressed)) not in self._poses:
            x, y, top = self.layout[f"key_{key}"]
            z = top + (-PRESS_DEPTH_M if pressed else HOVER_M) + GC_OFFSET + PAD_HALF
            solved = self.lab.ik([x, y, z], PRESS)
            self._poses[key, str(pressed)] = np.array(solved["joints"])
        return self._poses[key, str(pressed)]

    def go_to_keys(self, key: str = "lambda_up") -> None:
        """Bring the closed hand over the keys from above."""
        x, y, top = self.layout[f"key_{key}"]
        self.lab.gripper(0.0)
        self.arm.line([x, y - 0.04, SAFE_Z], PRESS)
        self.arm.line([x, y, top + HOVER_M + GC_OFFSET + PAD_HALF], PRESS)
        self.arm.joints_to(self._key_pose(key, False))

    def _ease(self, target: np.ndarray, seconds: float = PRESS_S) -> None:
        """A gentle joint move to ``target`` over ``seconds`` (a fingertip on a key must not bounce)."""
        current = np.array(self.lab.state()["joints"])
        steps = max(2, round(seconds / self.arm.dt))
        ramp = [0.5 - 0.5 * math.cos(math.pi * i / steps) for i in range(1, steps + 1)]
        self.lab.move_joints([(current + (target - current) * r).tolist() for r in ramp])

    def press_key(self, key: str, hold_s: float = 0.1) -> None:
        """Push ``key`` down, hold it ``hold_s`` seconds, let it up (the hand over it)."""
        self.arm.joints_to(self._key_pose(key, False))
        self._ease(self._key_pose(key, True))
        self.lab.wait(hold_s)
        self._ease(self._key_pose(key, False))

    def read(self, wait_s: float = 1.2 * REFRESH_S) -> Reading:
        """Observe after ``wait_s`` (the displays refresh every 0.5 s) and read both LCDs from the wrist
        camera (the hand over or on the λ+ key, the camera centred on them)."""
        self.lab.wait(wait_s)
        observation, image, camera = self.close_up()
        texts = {
            name: self.read_window(image, camera, f"{name}_lcd", cells, up=(0.0, 1.0, 0.0))
            for name, cells in LCD_CELLS.items()
        }
        absorbance = math.nan if texts["absorbance"] == "OL" else float(texts["absorbance"])
        return Reading(observation, float(texts["wavelength"]), absorbance)

    def set_wavelength(self, target: int) -> Reading:
        """Step the wavelength to ``target`` nm (holding a key for long moves), reading it back."""
        self.arm.joints_to(self._key_pose("lambda_up", False))
        now = self.read(0.0)
        while now.wavelength != target:
            steps = round(abs(target - now.wavelength))
            key = "lambda_up" if target > now.wavelength else "lambda_down"
            # held past the repeat delay a key makes 2 steps, then one more every 0.05 s: aim short
            hold = 0.1 if steps < 4 else REPEAT_DELAY_S + (steps - 3) * REPEAT_S - 0.1
            self.press_key(key, hold)
            self.arm.joints_to(self._key_pose("lambda_up", False))
            now = self.read()
        return now

    def read_at(self, nm: int) -> Reading:
        """Set ``nm`` and read both LCDs after the display's next refresh; RuntimeError when it shows
        another wavelength or an overload."""
        self.set_wavelength(nm)
        reading = self.read()
        if reading.wavelength != nm or not math.isfinite(reading.absorbance):
            raise RuntimeError(f"read {reading} where {nm} nm was set")
        return reading

    def sweep(self, stop: int) -> list[Reading]:
        """Hold λ+ from the set wavelength up to ``stop`` nm, reading both LCDs at every refresh."""
        self.arm.joints_to(self._key_pose("lambda_up", False))
        self._ease(self._key_pose("lambda_up", True))
        readings: list[Reading] = []
        while not readings or readings[-1].wavelength < stop:
            readings.append(self.read(REFRESH_S))
        self._ease(self._key_pose("lambda_up", False))
        return readings

    def step_through(self, wavelengths: Sequence[int]) -> list[Reading]:
        """Read at each of consecutive ``wavelengths`` (1 nm apart, the first already set)."""
        readings = [self.read()]
        for nm in wavelengths[1:]:
            self.press_key("lambda_up" if nm > readings[-1].wavelength else "lambda_down")
            self.arm.joints_to(self._key_pose("lambda_up", False))
            readings.append(self.read())
            if readings[-1].wavelength != nm:
                raise RuntimeError(f"the wavelength stepped to {readings[-1].wavelength}, not {nm} nm")
        return readings

    # --- the cuvettes ---
    def carry(self, start: Sequence[float], end: Sequence[float]) -> None:
        """Lift the cuvette standing on the floor at ``start`` (x, y, floor z) and stand it at ``end``."""
        height = self.layout["cuvette_size"][2]
        top = start[2] + height
        self.lab.gripper(0.03)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([start[0], start[1], top + 0.03 + GC_OFFSET], PRESS)
        self.arm.line([start[0], start[1], top - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.0)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)
        drop = end[2] + height + 0.002
        self.arm.line([end[0], end[1], drop + 0.03 - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.arm.line([end[0], end[1], drop - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.03)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)

    def cuvette(self, i: int, into_holder: bool) -> None:
        """Carry cuvette ``i`` from its rack slot into the holder, or back."""
        rack, holder = self.layout[f"cuvette_{i}_slot"], self.layout["holder"]
        self.carry(*((rack, holder) if into_holder else (holder, rack)))

    def seat(self, i: int) -> None:
        """Stand cuvette ``i`` in the holder (the one seated there first back in its slot), then bring the
        hand over the keys."""
        if self.seated != i:
            self.unseat()
            self.cuvette(i, into_holder=True)
            self.seated = i
        self.go_to_keys()

    def unseat(self) -> None:
        """Put the cuvette :meth:`seat` stood in the holder back in its slot."""
        if self.seated is not None:
            self.cuvette(self.seated, into_holder=False)
            self.seated = None

    def scan(self, i: int, start: int, stop: int) -> list[Reading]:
        """Seat cuvette ``i`` and sweep from ``start`` to ``stop`` nm (it stays seated)."""
        self.seat(i)
        self.set_wavelength(start)
        return self.sweep(stop)

    def clear(self) -> None:
        """Let go and lift the open hand clear of everything."""
        here = self.lab.state()["hand_position"]
        self.lab.gripper(0.03)
        self.arm.line([here[0], here[1], SAFE_Z], PRESS)
