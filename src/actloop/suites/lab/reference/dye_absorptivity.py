"""The reference experimenter for dye absorptivity, through the public client only.

With a dilute cuvette seated it sweeps the wavelength in coarse steps (holding λ+), then with the solvent
blank seated the same sweep gives the lamp's baseline: their difference locates the band. It zeroes on
the blank at the coarse peak, records the blank's baseline and the dye's absorbance at every nanometre
around it, and takes λmax from a quartic fitted to the difference. At the wavelength nearest λmax it reads
the dye cuvettes whose absorbance lies on the straight part of the instrument's response, fits ε through
the origin by Beer–Lambert (1 cm), puts every cuvette back and submits with the readings it rests on.

What it knows besides the card is the bench's visible layout (where the rack, the holder, the keys and the
LCDs are); every value comes from images of the LCDs.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.reference.motion import GC_OFFSET, Arm, Client, quaternion

TABLE_Z = 0.74
DECK_Z = 0.83
RACK = [(0.10 + 0.04 * i, -0.16) for i in range(7)]
HOLDER = (0.08, 0.05)
CUVETTE_HEIGHT = 0.05
KEYS = {"lambda_down": (-0.10, 0.02), "lambda_up": (-0.06, 0.02), "blank": (-0.02, 0.02)}
KEY_TOP_Z = DECK_Z + 0.014
"""The key caps' tops at rest; a key switches 3 mm down and stops 5 mm down."""


@dataclass(frozen=True)
class Face:
    """An LCD lying flat on the deck, digits upright for a reader in front (its window's centre and size)."""

    centre: tuple[float, float, float]
    width: float
    height: float
    cells: int


FACES = {
    "wavelength": Face((-0.06, 0.11, DECK_Z + 0.0021), 3 * 0.55 * 0.016, 0.016, 3),
    "absorbance": Face((-0.06, 0.085, DECK_Z + 0.0021), 5 * 0.55 * 0.016, 0.016, 5),
}
PAD_HALF = 0.012
"""The fingertips reach this far beyond the pads' centre."""
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


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self._poses: dict[tuple[str, str], np.ndarray] = {}

    # --- the keys and the LCDs ---
    def _key_pose(self, key: str, pressed: bool) -> np.ndarray:
        """Joint angles with the fingertips just above ``key`` or pressing it (solved once each)."""
        if (key, str(pressed)) not in self._poses:
            x, y = KEYS[key]
            z = KEY_TOP_Z + (-PRESS_DEPTH_M if pressed else HOVER_M) + GC_OFFSET + PAD_HALF
            solved = self.lab.ik([x, y, z], PRESS)
            self._poses[key, str(pressed)] = np.array(solved["joints"])
        return self._poses[key, str(pressed)]

    def go_to_keys(self, key: str = "lambda_up") -> None:
        """Bring the closed hand over the keys from above."""
        x, y = KEYS[key]
        self.lab.gripper(0.0)
        self.arm.line([x, y - 0.04, SAFE_Z], PRESS)
        self.arm.line([x, y, KEY_TOP_Z + HOVER_M + GC_OFFSET + PAD_HALF], PRESS)
        self.arm.joints_to(self._key_pose(key, False))

    def _ease(self, target: np.ndarray, seconds: float = PRESS_S) -> None:
        """A gentle joint move to ``target`` over ``seconds`` (a fingertip on a key must not bounce)."""
        current = np.array(self.lab.state()["joints"])
        steps = max(2, round(seconds / self.arm.dt))
        ramp = [0.5 - 0.5 * math.cos(math.pi * i / steps) for i in range(1, steps + 1)]
        self.lab.move_joints([(current + (target - current) * r).tolist() for r in ramp])

    def press(self, key: str, hold_s: float = 0.1) -> None:
        """Push ``key`` down, hold it ``hold_s`` seconds, let it up (the hand over it)."""
        self.arm.joints_to(self._key_pose(key, False))
        self._ease(self._key_pose(key, True))
        self.lab.wait(hold_s)
        self._ease(self._key_pose(key, False))

    def read(self, wait_s: float = 1.2 * REFRESH_S) -> Reading:
        """Observe after ``wait_s`` (the displays refresh every 0.5 s) and read both LCDs from the wrist
        camera (the hand over or on the λ+ key, the camera centred on them)."""
        self.lab.wait(wait_s)
        seen = self.lab.observe()
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        texts = {}
        for name, face in FACES.items():
            corners = window_corners(face.centre, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), face.width, face.height)
            texts[name] = read_display(image, project(corners, camera), face.cells)
        absorbance = math.nan if texts["absorbance"] == "OL" else float(texts["absorbance"])
        return Reading(str(seen["observation_id"]), float(texts["wavelength"]), absorbance)

    def set_wavelength(self, target: int) -> Reading:
        """Step the wavelength to ``target`` nm (holding a key for long moves), reading it back."""
        self.arm.joints_to(self._key_pose("lambda_up", False))
        now = self.read(0.0)
        while now.wavelength != target:
            steps = round(abs(target - now.wavelength))
            key = "lambda_up" if target > now.wavelength else "lambda_down"
            # held past the repeat delay a key makes 2 steps, then one more every 0.05 s: aim short
            hold = 0.1 if steps < 4 else REPEAT_DELAY_S + (steps - 3) * REPEAT_S - 0.1
            self.press(key, hold)
            self.arm.joints_to(self._key_pose("lambda_up", False))
            now = self.read()
        return now

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
            self.press("lambda_up" if nm > readings[-1].wavelength else "lambda_down")
            self.arm.joints_to(self._key_pose("lambda_up", False))
            readings.append(self.read())
            if readings[-1].wavelength != nm:
                raise RuntimeError(f"the wavelength stepped to {readings[-1].wavelength}, not {nm} nm")
        return readings

    # --- the cuvettes ---
    def carry(self, start: tuple[float, float, float], end: tuple[float, float, float]) -> None:
        """Lift the cuvette standing on the floor at ``start`` (x, y, floor z) and stand it at ``end``."""
        top = start[2] + CUVETTE_HEIGHT
        self.lab.gripper(0.03)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([start[0], start[1], top + 0.03 + GC_OFFSET], PRESS)
        self.arm.line([start[0], start[1], top - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.0)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)
        drop = end[2] + CUVETTE_HEIGHT + 0.002
        self.arm.line([end[0], end[1], drop + 0.03 - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.arm.line([end[0], end[1], drop - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.03)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)

    def cuvette(self, i: int, into_holder: bool) -> None:
        """Carry cuvette ``i`` from its rack slot into the holder, or back."""
        rack, holder = (*RACK[i], TABLE_Z), (*HOLDER, DECK_Z)
        self.carry(*((rack, holder) if into_holder else (holder, rack)))

    def clear(self) -> None:
        """Let go and lift the open hand clear of everything."""
        here = self.lab.state()["hand_position"]
        self.lab.gripper(0.03)
        self.arm.line([here[0], here[1], SAFE_Z], PRESS)


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


def fine_peak(points: Sequence[tuple[float, float]]) -> float:
    """λmax from a quartic fitted to the points around the peak: the stationary point nearest the
    highest point."""
    xs = np.array([p[0] for p in points])
    ys = np.array([p[1] for p in points])
    centre = float(xs[np.argmax(ys)])
    coeffs = np.polyfit(xs - centre, ys, 4)
    roots = np.roots(np.polyder(coeffs))
    real = roots[np.abs(roots.imag) < 1e-9].real
    return centre + float(real[np.argmin(np.abs(real))])


def fit_epsilon(points: Sequence[tuple[float, float]], path_cm: float = 1.0) -> float:
    """ε (L mol⁻¹ cm⁻¹) from (concentration in mol/L, absorbance) by least squares through the origin."""
    return sum(c * a for c, a in points) / (path_cm * sum(c * c for c, _ in points))


COARSE = (460, 660)
FINE_HALF = 15
LINEAR_A = (0.15, 1.0)
"""Absorbances read on the straight part of the response: above the display's resolution mattering,
below where stray light bends it."""
SCAN_CUVETTE = 5
BLANK = 0


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    stock_concentration = public["stock_concentration"]
    me = Experimenter(lab)
    me.cuvette(SCAN_CUVETTE, into_holder=True)
    me.go_to_keys()
    me.set_wavelength(COARSE[0])
    sample = me.sweep(COARSE[1])
    me.cuvette(SCAN_CUVETTE, into_holder=False)
    me.cuvette(BLANK, into_holder=True)
    me.go_to_keys()
    me.set_wavelength(COARSE[0])
    peak, height = coarse_peak(corrected(sample, me.sweep(COARSE[1])))
    me.set_wavelength(peak)
    me.press("blank")
    me.set_wavelength(peak - FINE_HALF)
    span = list(range(peak - FINE_HALF, peak + FINE_HALF + 1))
    baseline = me.step_through(span)
    scanned = SCAN_CUVETTE - 1 if height < 0.35 else SCAN_CUVETTE
    me.cuvette(BLANK, into_holder=False)
    me.cuvette(scanned, into_holder=True)
    me.go_to_keys()
    spectrum = me.step_through(span[::-1])
    lambda_max = fine_peak(corrected(spectrum, baseline))
    at = round(lambda_max)
    base = next(r for r in baseline if r.wavelength == at)
    chosen = [i for i in range(1, 7) if LINEAR_A[0] <= height * 2 ** (SCAN_CUVETTE - i) <= LINEAR_A[1]]
    citations = [r.citation("lambda_max", BLANK) for r in baseline]
    citations += [r.citation("lambda_max", scanned) for r in spectrum]
    points = []
    me.set_wavelength(at)
    current = scanned
    for i in chosen:
        if i != current:
            me.cuvette(current, into_holder=False)
            me.cuvette(i, into_holder=True)
            me.go_to_keys()
            current = i
        for _ in range(2):
            reading = me.read()
            citations.append(reading.citation("epsilon", i))
            points.append((stock_concentration / 2 ** (i - 1), reading.absorbance - base.absorbance))
    me.cuvette(current, into_holder=False)
    me.clear()
    epsilon = fit_epsilon(points)
    if not (math.isfinite(epsilon) and math.isfinite(lambda_max)):
        raise RuntimeError("the readings give no result")
    return lab.submit({"lambda_max": lambda_max, "epsilon": epsilon}, citations)
