"""The reference experimenter for the lens focal length, through the public client only.

It carries the lens from its stand into the lens carriage's holder and pushes the carriage by its grip
block to a first distance from the slide; it holds the screen by the post behind it, watching the screen's
back through the wrist camera, and drags the screen along the rail to find the sharpest image (gradient
energy, coarse steps then fine ones, the focus taken midway between the half-maximum crossings); it lets
go and reads the object, lens and screen index marks on the rail's scale from level close-ups. From the
first focal length it sets the lens's index mark 2.5f and 2f from the slide's and focuses again. The card
says the lens's principal plane is not marked: the distances u and v read from the lens's index mark are
u + δ and v − δ about it for an unknown δ, so it fits f and δ to the conjugate pairs together
(1 / (u + δ) + 1 / (v − δ) = 1 / f at each), sets the lens once more where the fit puts its principal plane
just beyond 2f (near u = v a pair fixes f whatever δ: there (u + δ)(v − δ) / (u + v) changes little with δ),
focuses, fits the four pairs, puts the lens back in its stand and submits with the readings.

What it knows besides the card is the bench's visible layout (where the rail, its scale, the lamp, the
stand and the carriages stand), as any experimenter at the bench would; every value comes from the images.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Arm, Client, quaternion
from actloop.suites.lab.reference.ruler import read_ruler

OBJECT_X = -0.25
LENS_START_X = -0.05
SCREEN_START_X = 0.25
STAND = (0.50, -0.10)
STAND_FLOOR_Z = 0.80
AXIS_Z = 1.07
LENS_HALF = 0.025
GRIP_ABOVE_CENTRE = 0.037
"""Where the fingers close on the lens's grip, above the lens's centre."""
RAIL_Y = 0.0
KNOB_Y = RAIL_Y - 0.07
KNOB_Z = 0.935
"""The lens carriage's grip block in front of the rail (where the fingers close on it)."""
SCALE_FACE_Y = RAIL_Y - 0.023
SCALE_VIEW_Z = 0.888
"""Level with the scale's marks, a little below its top edge."""
POST_BEHIND = 0.04
POST_GRIP_Z = AXIS_Z - 0.09
WRIST_UP_M = 0.09
VIEW_DISTANCE = 0.11
SAFE_Z = 1.24
CARRY_Y = -0.15
"""Carried, the lens goes round the screen in front of the rail."""
FRONT_Y = -0.22
CROP = (slice(120, 360), slice(160, 480))
"""The band of a level close-up holding the scale and the index mark above it (not the table below)."""
LOOK_SCALE = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the scale, palm up: the wrist camera, 9 cm above the hand, looks at the scale level."""
HOLD_SCREEN = quaternion((-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))
"""Approach along the rail towards the lamp, palm up: the wrist camera, 9 cm above the hand, looks at the
screen's back."""
COARSE_STEP = 0.010
FINE_STEP = 0.001
FINE_HALF = 0.008
MIN_V = 0.08
MAX_SCREEN_X = 0.30
DELTA_RANGE = 0.03
LENS_AT = (2.5, 2.0)
"""After the first pair, the lens's index mark is set these multiples of the first focal length from the
slide's: magnifications from about 0.7 to 1."""
LAST_AT = 2.05
"""The last pair's principal plane (as the first three pairs' fit puts it) this multiple of their f from the
slide: a magnification just under 1, where the focus search is as sharp as at the others."""
"""The principal plane's offset from the index mark is sought within ±3 cm."""


def fit_focal_length(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """(f, δ) from conjugate pairs (u, v) read from the lens's index mark (m): the offset δ of the lens's
    principal plane (towards the screen) that makes f = (u + δ)(v − δ) / (u + v) agree best over the pairs
    (least squares), and their mean f there. One pair gives δ = 0."""

    def focals(delta: float) -> list[float]:
        return [(u + delta) * (v - delta) / (u + v) for u, v in pairs]

    def spread(delta: float) -> float:
        values = focals(delta)
        mean = sum(values) / len(values)
        return sum((x - mean) ** 2 for x in values)

    delta = 0.0
    if len(pairs) > 1:
        delta = min((DELTA_RANGE * (k / 300 - 1) for k in range(601)), key=spread)
        low, high = delta - DELTA_RANGE / 300, delta + DELTA_RANGE / 300
        for _ in range(60):  # the spread is smooth and single-welled near the grid's best
            a, b = low + (high - low) / 3, high - (high - low) / 3
            low, high = (low, b) if spread(a) < spread(b) else (a, high)
        delta = (low + high) / 2
    values = focals(delta)
    return sum(values) / len(values), delta


def _image(seen: dict[str, Any]) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))


def sharpness(image: np.ndarray) -> float:
    """Gradient energy of the centre of a view of the screen, relative to its brightness."""
    grey = image[150:330, 230:410].astype(float).mean(axis=2)
    gx, gy = np.diff(grey, axis=1), np.diff(grey, axis=0)
    return float(((gx * gx).mean() + (gy * gy).mean()) / max(grey.mean(), 1.0) ** 2)


def focus(samples: list[tuple[float, float]]) -> float:
    """The screen position midway between where the sharpness crosses half its peak on either side."""
    samples = sorted(samples)
    xs = [x for x, _ in samples]
    ms = [m for _, m in samples]
    peak = int(np.argmax(ms))
    if ms[peak] <= 0.0:
        raise RuntimeError("no image on the screen")
    half = ms[peak] / 2

    def crossing(step: int) -> float:
        i = peak
        while 0 <= i + step < len(ms) and ms[i + step] > half:
            i += step
        j = i + step
        if not 0 <= j < len(ms):
            return xs[i]
        return xs[i] + (xs[j] - xs[i]) * (ms[i] - half) / (ms[i] - ms[j])

    return (crossing(-1) + crossing(1)) / 2


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.intrinsics = lab.calibration()["wrist"]["intrinsics"]
        self.ready = np.array(lab.state()["joints"])
        self.lens_x = LENS_START_X
        self.screen_x = SCREEN_START_X

    # --- reading the scale ---
    def _look_at_scale(self, x: float) -> dict[str, Any]:
        """A level close-up of the scale centred on ``x``: the hand turns on its way down to the open space
        in front of the rail, comes in under the scale and backs out the same way."""
        hand_z = SCALE_VIEW_Z - WRIST_UP_M
        self._to_ready()
        self.arm.line([x, FRONT_Y, hand_z + 0.1], LOOK_SCALE)
        self.arm.line([x, FRONT_Y, hand_z], LOOK_SCALE)
        self.arm.line([x, SCALE_FACE_Y - VIEW_DISTANCE, hand_z], LOOK_SCALE)
        seen = self.lab.observe()
        self.arm.line([x, FRONT_Y, hand_z], LOOK_SCALE)
        return seen

    def _pointer_x(self, band: np.ndarray, row: float) -> float:
        """World x of the index mark seen at ``row`` of the turned band (the camera's x is the hand's)."""
        column = CROP[1].start + (band.shape[0] - 1 - row)  # the band was turned a quarter left
        offset = (column - self.intrinsics["cx"]) / self.intrinsics["fx"] * VIEW_DISTANCE
        return float(self.lab.state()["hand_position"][0]) + offset

    def read(self, x: float) -> tuple[str, float, float]:
        """Read the index mark near ``x`` from a close-up centred on it: (observation, reading mm, mark x)."""
        for _ in range(3):
            seen = self._look_at_scale(x)
            band = np.ascontiguousarray(np.rot90(_image(seen)[CROP], 1))  # the scale's numbers read upright
            reading = read_ruler(band)
            found = self._pointer_x(band, reading.pointer_row)
            if abs(found - x) < 0.002:
                return str(seen["observation_id"]), round(reading.value_mm, 1), found
            x = found
        return str(seen["observation_id"]), round(reading.value_mm, 1), found

    # --- moving the lens ---
    def _to_ready(self) -> None:
        """Straight up to the safe height, then the starting posture (every action leaves the hand where
        nothing is above it)."""
        here = self.lab.state()
        if here["hand_position"][2] < SAFE_Z - 0.02:
            self.arm.line([*here["hand_position"][:2], SAFE_Z], here["hand_quaternion"])
        self.arm.joints_to(self.ready)

    def _grip_lens(self, x: float, y: float, centre_z: float) -> None:
        self._to_ready()
        self.lab.gripper(0.045)
        self.arm.line([x, y, SAFE_Z], DOWN)
        self.arm.line([x, y, centre_z + GRIP_ABOVE_CENTRE + GC_OFFSET])
        self.lab.gripper(0.0)

    def _let_go(self) -> None:
        self.lab.gripper(0.045)
        here = self.lab.state()["hand_position"]
        self.arm.line([here[0], here[1], SAFE_Z])

    def seat_lens(self) -> None:
        """Carry the lens from its stand into the holder of the lens carriage."""
        self._grip_lens(STAND[0], STAND[1], STAND_FLOOR_Z + LENS_HALF)
        self.arm.line([STAND[0], STAND[1], SAFE_Z])
        self.arm.line([self.lens_x, CARRY_Y, SAFE_Z])
        self.arm.line([self.lens_x, RAIL_Y, SAFE_Z])
        self.arm.line([self.lens_x, RAIL_Y, AXIS_Z + GRIP_ABOVE_CENTRE + GC_OFFSET + 0.001])
        self._let_go()

    def move_lens(self, x: float) -> None:
        """Push the lens carriage by its grip block to ``x``; the seated lens rides in its holder."""
        self._to_ready()
        self.lab.gripper(0.045)
        self.arm.line([self.lens_x, KNOB_Y, SAFE_Z], DOWN)
        self.arm.line([self.lens_x, KNOB_Y, KNOB_Z + GC_OFFSET])
        self.lab.gripper(0.0)
        self.arm.line([x, KNOB_Y, KNOB_Z + GC_OFFSET], DOWN)
        self.lens_x = x
        self._let_go()

    def stand_lens(self) -> None:
        """Put the lens back in its stand."""
        self._grip_lens(self.lens_x, RAIL_Y, AXIS_Z)
        self.arm.line([self.lens_x, RAIL_Y, SAFE_Z])
        self.arm.line([self.lens_x, CARRY_Y, SAFE_Z])
        self.arm.line([STAND[0], STAND[1], SAFE_Z])
        self.arm.line([STAND[0], STAND[1], STAND_FLOOR_Z + LENS_HALF + GRIP_ABOVE_CENTRE + GC_OFFSET + 0.002])
        self._let_go()
        self._to_ready()

    # --- the screen ---
    def _hold_point(self, x: float) -> list[float]:
        return [x + POST_BEHIND + GC_OFFSET, RAIL_Y, POST_GRIP_Z]

    def grip_screen(self) -> None:
        self._to_ready()
        self.lab.gripper(0.05)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, RAIL_Y, POST_GRIP_Z + 0.06], HOLD_SCREEN)
        self.arm.line([grip[0] + 0.08, RAIL_Y, POST_GRIP_Z], HOLD_SCREEN)
        self.arm.line(grip, HOLD_SCREEN)
        self.lab.gripper(0.0)

    def release_screen(self) -> None:
        self.lab.gripper(0.05)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, RAIL_Y, POST_GRIP_Z], HOLD_SCREEN)
        self._to_ready()

    def sharpness_at(self, x: float) -> float:
        self.arm.line(self._hold_point(x), HOLD_SCREEN)
        self.screen_x = x
        return sharpness(_image(self.lab.observe()))

    def find_focus(self, guess: float | None) -> float:
        """The screen position of the sharpest image (coarse steps out from the lens unless a guess is
        given, then fine steps around the best, recentred on the best up to three times), with the screen
        left there. Every fine step and the last
        move go the same way along the rail, so the fingers' play on the post is always taken up alike."""
        if guess is None:
            coarse: list[tuple[float, float]] = []
            x = self.lens_x + MIN_V
            while x <= MAX_SCREEN_X:
                coarse.append((x, self.sharpness_at(x)))
                best = max(m for _, m in coarse)
                if best > 3 * coarse[0][1] and coarse[-1][1] < 0.3 * best:
                    break
                x += COARSE_STEP
            guess = max(coarse, key=lambda s: s[1])[0]
        for _ in range(3):
            self.sharpness_at(guess - FINE_HALF - 0.004)
            steps = np.arange(-FINE_HALF, FINE_HALF + 1e-9, FINE_STEP) + guess
            fine = [(float(x), self.sharpness_at(float(x))) for x in steps]
            peak = max(fine, key=lambda s: s[1])[0]
            if abs(peak - guess) < 1.5 * FINE_STEP:  # centred on the peak: its half-maximum flanks in view
                break
            guess = peak
        best = focus(fine)
        self.sharpness_at(best - 0.004)
        self.arm.line(self._hold_point(best), HOLD_SCREEN)
        self.screen_x = best
        return best


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = Experimenter(lab)
    citations: list[dict[str, Any]] = []
    pairs: list[tuple[float, float]] = []
    f_first = math.nan
    object_mm: float | None = None
    u = 0.20
    for k in range(len(LENS_AT) + 2):  # 0.20 m, the LENS_AT multiples, the fitted last
        target = OBJECT_X + u
        if k == 0:
            me.seat_lens()
        me.move_lens(target)
        me.grip_screen()
        v_guess = None
        if k > 0:  # where the image should be: from the first pair, then from the first three's fit
            f_fit, delta = fit_focal_length(pairs) if len(pairs) >= 3 else (f_first, 0.0)
            v_guess = OBJECT_X + u + delta + (u + delta) * f_fit / (u + delta - f_fit)
        me.find_focus(v_guess)
        me.release_screen()
        if object_mm is None:
            seen, object_mm, _ = me.read(OBJECT_X)
            citations.append({"observation_id": seen, "instrument": "object_index", "value": object_mm})
        seen_lens, lens_mm, me.lens_x = me.read(me.lens_x)
        seen_screen, screen_mm, me.screen_x = me.read(me.screen_x)
        citations.append({"observation_id": seen_lens, "instrument": "lens_index", "value": lens_mm})
        citations.append({"observation_id": seen_screen, "instrument": "screen_index", "value": screen_mm})
        u_mm, v_mm = lens_mm - object_mm, screen_mm - lens_mm
        pairs.append((u_mm / 1000.0, v_mm / 1000.0))
        if k == 0:
            f_first = u_mm * v_mm / (u_mm + v_mm) / 1000.0
        if k < len(LENS_AT):
            u = LENS_AT[k] * f_first
        elif k == len(LENS_AT):
            f_fit, delta = fit_focal_length(pairs)
            u = LAST_AT * f_fit - delta
    me.stand_lens()
    f = fit_focal_length(pairs)[0]
    if not math.isfinite(f):
        raise RuntimeError("the readings give no focal length")
    return lab.submit({"f": f}, citations)
