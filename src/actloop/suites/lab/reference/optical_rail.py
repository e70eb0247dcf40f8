"""The optical rail's operator for reference experimenters: carry an item (a lens, a glass block) between its
stand and a carriage's holder or from one holder into another, push a carriage by its grip block, hold the
screen by its post and drag it to the sharpest image (gradient energy, the focus midway between the
half-maximum crossings), and read an index mark on the scale from a level close-up. Every position comes
from the bench's published layout.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Client, Operator, quaternion
from actloop.suites.lab.reference.ruler import read_ruler

KNOB_ABOVE_CENTRE = 0.005
"""The fingers close on the carriage's grip block this far above its centre."""
SCALE_VIEW_BELOW_EDGE = 0.01
"""A close-up of the scale is level with its marks, this far below its top edge."""
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
LOOK_SEED = (0.28, 0.64, 0.83, -2.34, -2.26, 1.40, 0.25)
"""The arm's posture in a close-up of the scale near x = -0.12 m: the seed its close-ups are solved from
when a hand turning on its way down missed the close-up."""
MISSED_M = 0.005
"""A move that ends farther than this from its goal missed it."""
HOLD_SCREEN = quaternion((-1.0, 0.0, 0.0), (0.0, -1.0, 0.0))
"""Approach along the rail towards the lamp, palm up: the wrist camera, 9 cm above the hand, looks at the
screen's back."""
COARSE_STEP = 0.010
FINE_STEP = 0.001
FINE_HALF = 0.008
MIN_V = 0.08
MAX_SCREEN_X = 0.30
FINE_SCAN = round(2 * FINE_HALF / FINE_STEP) + 1
"""The samples of one of the operator's fine scans."""
FLANK = 0.003
"""The approach to the sharpest image starts this far below it, where the sharpness rises steeply."""
APPROACH_SHORT = (0.0015, 0.0)
"""Each move of the approach stops this short of where the sharpness seen says the sharpest image is: the
first on the steep part of the flank, 1.5 mm below, where the sharpness tells the distance to within
0.1 mm (near the top it changes too little), the second there."""
VIEW_SHIFT = 0.0008
"""A steady reading is the mean of close-ups centred on the mark and this far either side: a reading from
one close-up is off by up to 0.18 mm as the marks fall on the camera's pixels, the mean by a third of
that."""
RELEASE_WIDTH = 0.03
"""The fingers open this wide to let go of the screen's 24 mm post: opened wider at once, they knock the
screen by up to a millimetre (a 3 % error in n) about one time in five; opened this far, by 0.06 mm at
most."""


def _image(seen: dict[str, Any]) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))


def sharpness(image: np.ndarray) -> float:
    """Gradient energy of the centre of a view of the screen, relative to its brightness."""
    grey = image[150:330, 230:410].astype(float).mean(axis=2)
    gx, gy = np.diff(grey, axis=1), np.diff(grey, axis=0)
    return float(((gx * gx).mean() + (gy * gy).mean()) / max(grey.mean(), 1.0) ** 2)


def focus(samples: list[tuple[float, float]], level: float = 0.5) -> float:
    """The screen position midway between where the sharpness crosses ``level`` (a share of its peak, by
    default half) on either side."""
    samples = sorted(samples)
    xs = [x for x, _ in samples]
    ms = [m for _, m in samples]
    peak = int(np.argmax(ms))
    if ms[peak] <= 0.0:
        raise RuntimeError("no image on the screen")
    half = ms[peak] * level

    def crossing(step: int) -> float:
        i = peak
        while 0 <= i + step < len(ms) and ms[i + step] > half:
            i += step
        j = i + step
        if not 0 <= j < len(ms):
            return xs[i]
        return xs[i] + (xs[j] - xs[i]) * (ms[i] - half) / (ms[i] - ms[j])

    return (crossing(-1) + crossing(1)) / 2


class RailOperator(Operator):
    """Works the optical rail of a connected client: its items and their stands, the holder carriages and
    the screen."""

    focus_level = 0.5
    """The share of the sharpness's peak whose crossings either side of it bracket the focus."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        layout = self.layout
        self.intrinsics = self.calibration["wrist"]["intrinsics"]
        self.object_x, self.rail_y, self.axis_z = layout["slide"]
        self.carriage_x = {
            name.removesuffix("_carriage"): at[0] for name, at in layout.items() if name.endswith("_carriage")
        }
        """Where each holder carriage's index is (world x), as last set or read."""
        self.screen_x = self.carriage_x.pop("screen")
        _, self.knob_y, knob_z = layout[f"{next(iter(self.carriage_x))}_grip"]
        self.knob_z = knob_z + KNOB_ABOVE_CENTRE
        self.scale_face_y, scale_edge_z = layout["scale_face"]
        self.scale_view_z = scale_edge_z - SCALE_VIEW_BELOW_EDGE
        self.post_behind = layout["screen_post_behind"][0]
        self.post_grip_z = self.axis_z - WRIST_UP_M

    # --- reading the scale ---
    def _look_at_scale(self, x: float) -> dict[str, Any]:
        """A level close-up of the scale centred on ``x``: the hand turns on its way down to the open space
        in front of the rail, comes in under the scale and backs out the same way."""
        hand_z = self.scale_view_z - WRIST_UP_M
        above = [x, FRONT_Y, hand_z + 0.1]
        self._to_ready()
        if (
            self.arm.line(above, LOOK_SCALE) > MISSED_M
            or self.arm.line([x, FRONT_Y, hand_z], LOOK_SCALE) > MISSED_M
        ):
            self._come_down_palm_up(above)
            if self.arm.line([x, FRONT_Y, hand_z], LOOK_SCALE) > MISSED_M:
                raise RuntimeError(f"the hand cannot reach the close-up of the scale at x = {x:.3f} m")
        return self._in_and_out(x, hand_z)

    def _in_and_out(self, x: float, hand_z: float) -> dict[str, Any]:
        """From in front of the rail at ``x``, in under the scale, a view, and back out the same way."""
        self.arm.line([x, self.scale_face_y - VIEW_DISTANCE, hand_z], LOOK_SCALE)
        seen = self.lab.observe()
        self.arm.line([x, FRONT_Y, hand_z], LOOK_SCALE)
        return seen

    def _come_down_palm_up(self, above: list[float]) -> None:
        """From the starting posture up over ``above``, turned there into the close-up's posture solved from
        :data:`LOOK_SEED` (the turn on the way down can end in another branch of the arm's solutions), and
        down to ``above``."""
        self._to_ready()
        high = [above[0], FRONT_Y, SAFE_Z]
        self.arm.line(high)
        solved = self.lab.ik(high, LOOK_SCALE, list(LOOK_SEED))
        self.arm.joints_to(np.array(solved["joints"]))
        self.arm.line(above, LOOK_SCALE)

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
        """Up to the rail's safe height, then the starting posture (every action leaves the hand where
        nothing is above it)."""
        self.to_ready(SAFE_Z)

    def _grip_item(self, item: str, x: float, y: float, centre_z: float) -> None:
        self._to_ready()
        self.lab.gripper(0.045)
        self.arm.line([x, y, SAFE_Z], DOWN)
        self.arm.line([x, y, centre_z + self.layout[f"{item}_grip_above_centre"][0] + GC_OFFSET])
        self.lab.gripper(0.0)

    def _let_go(self) -> None:
        self.lab.gripper(0.045)
        here = self.lab.state()["hand_position"]
        self.arm.line([here[0], here[1], SAFE_Z])

    def seat(self, item: str, carriage: str) -> None:
        """Carry ``item`` from its stand into the holder of ``carriage``."""
        sx, sy, floor = self.layout[f"{item}_stand"]
        x = self.carriage_x[carriage]
        self._grip_item(item, sx, sy, floor + self.layout[f"{item}_size"][2] / 2)
        self.arm.line([sx, sy, SAFE_Z])
        self.arm.line([x, CARRY_Y, SAFE_Z])
        self._lower_into(item, carriage)

    def transfer(self, item: str, source: str, target: str) -> None:
        """Carry ``item`` from the holder of carriage ``source`` into the holder of carriage ``target``, above
        the rail (nothing seated between them)."""
        self._grip_item(item, self.carriage_x[source], self.rail_y, self.axis_z)
        self.arm.line([self.carriage_x[source], self.rail_y, SAFE_Z])
        self._lower_into(item, target)

    def _lower_into(self, item: str, carriage: str) -> None:
        """Over the holder of ``carriage`` at the safe height, down until ``item`` sits in it; let go."""
        x = self.carriage_x[carriage]
        self.arm.line([x, self.rail_y, SAFE_Z])
        above = self.layout[f"{item}_grip_above_centre"][0]
        self.arm.line([x, self.rail_y, self.axis_z + above + GC_OFFSET + 0.001])
        self._let_go()

    def move_carriage(self, carriage: str, x: float) -> None:
        """Push ``carriage`` by its grip block to ``x``; a seated item rides in its holder."""
        start = self.carriage_x[carriage]
        self._to_ready()
        self.lab.gripper(0.045)
        self.arm.line([start, self.knob_y, SAFE_Z], DOWN)
        self.arm.line([start, self.knob_y, self.knob_z + GC_OFFSET])
        self.lab.gripper(0.0)
        self.arm.line([x, self.knob_y, self.knob_z + GC_OFFSET], DOWN)
        self.carriage_x[carriage] = x
        self._let_go()

    def unseat(self, item: str, carriage: str) -> None:
        """Put ``item`` back from the holder of ``carriage`` into its stand."""
        sx, sy, floor = self.layout[f"{item}_stand"]
        x, rail_y = self.carriage_x[carriage], self.rail_y
        self._grip_item(item, x, rail_y, self.axis_z)
        self.arm.line([x, rail_y, SAFE_Z])
        self.arm.line([x, CARRY_Y, SAFE_Z])
        self.arm.line([sx, sy, SAFE_Z])
        centre_z = floor + self.layout[f"{item}_size"][2] / 2
        self.arm.line([sx, sy, centre_z + self.layout[f"{item}_grip_above_centre"][0] + GC_OFFSET + 0.002])
        self._let_go()
        self._to_ready()

    # --- the screen ---
    def _hold_point(self, x: float) -> list[float]:
        return [x + self.post_behind + GC_OFFSET, self.rail_y, self.post_grip_z]

    def grip_screen(self) -> None:
        self._to_ready()
        self.lab.gripper(0.05)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, self.rail_y, self.post_grip_z + 0.06], HOLD_SCREEN)
        self.arm.line([grip[0] + 0.08, self.rail_y, self.post_grip_z], HOLD_SCREEN)
        self.arm.line(grip, HOLD_SCREEN)
        self.lab.gripper(0.0)

    def release_screen(self) -> None:
        self.lab.gripper(0.05)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, self.rail_y, self.post_grip_z], HOLD_SCREEN)
        self._to_ready()

    def sharpness_at(self, x: float) -> float:
        self.arm.line(self._hold_point(x), HOLD_SCREEN)
        self.screen_x = x
        return sharpness(_image(self.lab.observe()))

    def find_focus(self, guess: float | None) -> float:
        """The screen position of the sharpest image (coarse steps out from the last holder carriage unless
        a guess is given, then fine steps around the best, recentred on the best up to three times), with
        the screen left there. Every fine step and the last move go the same way along the rail, so the
        fingers' play on the post is always taken up alike."""
        if guess is None:
            coarse: list[tuple[float, float]] = []
            x = max(self.carriage_x.values()) + MIN_V
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
        best = focus(fine, self.focus_level)
        self.sharpness_at(best - 0.004)
        self.arm.line(self._hold_point(best), HOLD_SCREEN)
        self.screen_x = best
        return best


class SteadyFocusOperator(RailOperator):
    """The rail's operator with every view of the held screen kept, an approach to the sharpest image only
    upwards, letting go of the screen gently, and index marks read as the mean of three close-ups."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.samples: list[tuple[float, float]] = []
        """(screen x, sharpness) of every view of the screen since it was last gripped."""

    def release_screen(self) -> None:
        self.lab.gripper(RELEASE_WIDTH)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, self.rail_y, self.post_grip_z], HOLD_SCREEN)
        self._to_ready()

    def sharpness_at(self, x: float) -> float:
        """The operator's sharpness with the screen held at ``x``, each sample kept."""
        sharpness = super().sharpness_at(x)
        self.samples.append((x, sharpness))
        return sharpness

    def approach(self, best: float) -> None:
        """Bring the screen to the sharpest image from below, where the last fine scan put it (``best``):
        the fingers on the post slip by 0.1-0.4 mm each time the hand turns back along the rail, so after
        one turn (to FLANK below ``best``) the screen goes on only upwards, each move the distance the
        scan's rising flank gives for the sharpness seen there."""
        scan = self.samples[-FINE_SCAN - 1 : -1]  # the last fine scan (then the operator's turn below best)
        peak = max(range(len(scan)), key=lambda i: scan[i][1])
        flank = sorted((m, x - best) for x, m in scan[: peak + 1])
        values, offsets = [m for m, _ in flank], [o for _, o in flank]
        x = best - FLANK
        for aim in APPROACH_SHORT:
            offset = float(np.interp(self.sharpness_at(x), values, offsets))
            x += max(0.0, -offset - aim)
        self.arm.line(self._hold_point(x), HOLD_SCREEN)
        self.screen_x = x

    def read_steadily(self, x: float) -> tuple[list[tuple[str, float]], float, float]:
        """The index mark near ``x`` read from close-ups centred on it and VIEW_SHIFT either side: each
        (observation, reading mm), their mean (mm) and the mark's x as the first found it."""
        seen, value, found = self.read(x)
        views = [(seen, value)]
        for shift in (-VIEW_SHIFT, VIEW_SHIFT):
            seen, value, _ = self.read(found + shift)
            views.append((seen, value))
        return views, sum(value for _, value in views) / len(views), found

    def coarse_focus(self) -> float | None:
        """Where a search with no guess starts its fine steps; None: from the operator's own coarse steps
        out from the last holder carriage."""
        return None

    def focus_steadily(self, guess: float | None) -> None:
        """Grip the screen, find the sharpest image (from ``guess``, or a coarse search), approach it from
        below and let go gently."""
        self.grip_screen()
        self.samples = []
        self.approach(self.find_focus(self.coarse_focus() if guess is None else guess))
        self.release_screen()
