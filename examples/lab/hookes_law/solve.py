"""Hooke's law on the lab bench: load the hanging tray with slotted weights and read the pointer.

Usage (from the workspace, beside ``lab_client.py``, ``lab.json`` and ``card.md``)::

    python solve.py                    # the experiment
    python solve.py --fabricate-mm 3   # the same, but every cited reading shifted by 3 mm (a
                                       # deliberately false variant that the bench must reject)

Method
------
1. Survey.  The fixed ``front`` and ``side`` cameras, with the poses from ``lab.calibration()``, give
   rough positions of the weights in the rack (yellow blobs, cast onto the table), of the ruler
   (cream strip) and of the tray (light-grey plate).  The wrist camera then measures a weight's
   height and width (its top face seen from two heights), and an oblique look at the tray, fitted
   together with the front view, gives the tray's outline and the height of its top face.
2. Reading the ruler.  The wrist camera is brought 15 cm in front of the ruler and level with the
   pointer (no parallax), the hand kept below the tray.  In the image the centimetre (long) ticks are
   dark rows and the pointer is a red band; the pointer's row between the two centimetre ticks around
   it gives the millimetres.  Which centimetre a tick is comes from geometry: one look at the ruler's
   lower end places its 0 mark in the world, and every tick of a later image is placed in the world
   through the calibrated wrist camera (its depth from the tick spacing).  A reading counts only when
   the tray is at rest: five looks 0.2 s apart agree (height to 0.03 mm, sideways position of the
   pointer to 0.3 px), and agree again after 4 s more (the weights settle a little after the pointer
   looks still); the robot is kept clear of the tray meanwhile.
3. Loads.  The weights are carried one at a time from the rack to the corners of a small square on
   the tray, and a reading is taken at 0, 1, ..., 4 weights.  A straight-line fit of the reading
   against the load (m g per weight, m from the card) gives the extension per newton: k = 1 / slope.
4. Restoring.  The weights are taken off the tray, last one first, and set down on the exact spots
   they were picked from; the gripper is left open and empty.  Then the result is submitted with
   the readings it rests on.

Motion: the bench's IK starts from the current joints, so orientation changes happen at one waypoint
in the open (in front of the stand, above the rack) by a joint move to postures worked out from the
home posture; all other moves are short ones at a fixed orientation: up, across at a safe height, down.
The hand position the bench reports is about 11 cm above the fingertips (found by lowering the open
hand onto the bare table); the grasp heights below rest on that.

Set ``SOLVE_SNAPSHOTS=<folder>`` to keep the three camera images after every stage.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from lab_client import Lab
from PIL import Image
from scipy import ndimage
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

G = 9.81
TABLE_Z = 0.74
FINGER_REACH = 0.112  # reported hand position to fingertips, m
N_LOADS = 4  # weights put on the tray: readings at 0, 1, ..., N_LOADS weights
SAFE_Z = 1.20  # hand height for crossing over the bench
READ_DISTANCE = 0.15  # wrist camera to ruler, m
SETTLE_LOOKS = 5  # looks that must agree before a reading counts...
SETTLE_INTERVAL_S = 0.2  # ...taken this far apart...
SETTLE_SPREAD_MM = 0.03  # ...and agreeing this closely (the pointer's height on the scale)...
SETTLE_SPREAD_PX = 0.3  # ...and this closely (the pointer's sideways position in the image);
SETTLE_MORE_S = 4.0  # then a further wait, and the same again, before the reading counts
HOME = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])

# Hand orientations as (w, x, y, z).  The hand frame: x along the fingers, y the closing direction,
# z the palm side (where the wrist camera sits, 9 cm out, looking along x).
Q_PICK = [math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0]  # pointing down, fingers close along world y
Q_PLACE = [0.5, 0.5, 0.5, -0.5]  # pointing down, fingers close along world x
Q_VIEW = [0.5, -0.5, 0.5, 0.5]  # pointing down, camera on the +y side
Q_LOOK = [math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)]  # pointing along +y, camera above the hand

Ray = tuple[np.ndarray, np.ndarray]


# ==================================================================================================
# Cameras
# ==================================================================================================
@dataclass
class Camera:
    """A pinhole camera in MuJoCo's convention (it looks along its -z, y up, v grows downwards)."""

    position: np.ndarray
    rotation: np.ndarray  # camera-to-world
    fx: float
    fy: float
    cx: float
    cy: float

    def project(self, point: np.ndarray | list[float]) -> np.ndarray:
        c = self.rotation.T @ (np.asarray(point, float) - self.position)
        return np.array([self.cx + self.fx * c[0] / -c[2], self.cy - self.fy * c[1] / -c[2]])

    def ray(self, uv: tuple[float, float]) -> Ray:
        d = self.rotation @ np.array([(uv[0] - self.cx) / self.fx, -(uv[1] - self.cy) / self.fy, -1.0])
        return self.position, d / np.linalg.norm(d)

    def point_at_depth(self, uv: tuple[float, float], depth: float) -> np.ndarray:
        """The world point seen at pixel ``uv``, ``depth`` along the optical axis."""
        c = np.array([(uv[0] - self.cx) / self.fx, -(uv[1] - self.cy) / self.fy, -1.0]) * depth
        return self.position + self.rotation @ c


def quat_matrix(q: list[float]) -> np.ndarray:
    w, x, y, z = q
    return Rotation.from_quat([x, y, z, w]).as_matrix()


def matrix_quat(m: np.ndarray) -> list[float]:
    x, y, z, w = Rotation.from_matrix(m).as_quat()
    return [float(w), float(x), float(y), float(z)]


def quat_angle(a: list[float], b: list[float]) -> float:
    return 2.0 * math.acos(min(1.0, abs(float(np.dot(a, b)))))


def aiming_quat(approach: np.ndarray, palm_hint: list[float]) -> list[float]:
    """Hand orientation with the fingers along ``approach`` and the palm side towards ``palm_hint``."""
    x = np.asarray(approach, float) / np.linalg.norm(approach)
    z = np.asarray(palm_hint, float)
    z = z - x * (z @ x)
    z /= np.linalg.norm(z)
    return matrix_quat(np.stack([x, np.cross(z, x), z], 1))


def fixed_camera(cal: dict[str, Any], name: str) -> Camera:
    i, e = cal[name]["intrinsics"], cal[name]["extrinsics"]
    return Camera(np.array(e["position"]), np.array(e["rotation"]), i["fx"], i["fy"], i["cx"], i["cy"])


def wrist_camera(cal: dict[str, Any], robot: dict[str, Any]) -> Camera:
    i, m = cal["wrist"]["intrinsics"], cal["wrist"]["mount"]
    hand = quat_matrix(robot["hand_quaternion"])
    position = np.array(robot["hand_position"]) + hand @ np.array(m["position"])
    return Camera(position, hand @ np.array(m["rotation_in_hand"]), i["fx"], i["fy"], i["cx"], i["cy"])


def on_plane(ray: Ray, axis: int, value: float) -> np.ndarray:
    """Where ``ray`` meets the plane {coordinate ``axis`` = ``value``}."""
    p, d = ray
    return p + (value - p[axis]) / d[axis] * d


# ==================================================================================================
# Images
# ==================================================================================================
def rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def channels(im: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return im[..., 0], im[..., 1], im[..., 2]


def yellow_mask(im: np.ndarray) -> np.ndarray:
    r, g, b = channels(im)
    return (r > 120) & (g > 90) & (b < 0.5 * g) & (r - b > 80)


def lit_top_mask(im: np.ndarray) -> np.ndarray:
    """The sunlit top face of a weight seen from above (its sides are darker)."""
    r, g, b = channels(im)
    return (r > 200) & (g > 190) & (b < 160)


def ruler_mask(im: np.ndarray) -> np.ndarray:
    r, g, b = channels(im)
    return (r > 200) & (r - g >= 0) & (r - g <= 10) & (g - b >= 25)


def tray_mask(im: np.ndarray) -> np.ndarray:
    r, g, b = channels(im)
    return (np.abs(r - g) < 5) & (r > 185) & (r < 235) & (b - r >= 3) & (b - r <= 12)


def red_mask(im: np.ndarray) -> np.ndarray:
    r, g, b = channels(im)
    return (r > 120) & (r - g > 80) & (r - b > 80)


def ink_mask(im: np.ndarray) -> np.ndarray:
    """Tick marks and digits: dark and grey, not red."""
    r, g, b = channels(im)
    return (r + g + b < 480) & (np.abs(r - g) < 40)


def components(mask: np.ndarray, min_pixels: int) -> list[np.ndarray]:
    """Pixel coordinates (u, v) of each connected component of at least ``min_pixels``."""
    labels, n = ndimage.label(mask)
    out = []
    for k in range(1, n + 1):
        vs, us = np.nonzero(labels == k)
        if len(us) >= min_pixels:
            out.append(np.stack([us, vs], 1).astype(float))
    return out


def pixels_to_mask(pixels: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[pixels[:, 1].astype(int), pixels[:, 0].astype(int)] = True
    return mask


def centroid_runs(profile: np.ndarray) -> list[float]:
    """Weighted centres (in pixel coordinates) of the runs of positive values of ``profile``."""
    centres, v = [], 0
    while v < len(profile):
        if profile[v] > 0:
            start = v
            while v < len(profile) and profile[v] > 0:
                v += 1
            rows = np.arange(start, v)
            centres.append(float((rows * profile[rows]).sum() / profile[rows].sum()) + 0.5)
        v += 1
    return centres


# ==================================================================================================
# The ruler
# ==================================================================================================
@dataclass
class RulerView:
    """What a close look at the ruler shows."""

    ticks_v: np.ndarray  # image rows of the centimetre ticks, top to bottom
    ticks_z: np.ndarray  # their heights in the world
    pointer_v: float | None  # image row of the pointer's centre line, if it is on the ruler
    pointer_u: float | None  # mean image column of the pointer (it shifts if the tray sways)
    bottom_v: float | None  # image row of the ruler's lower end, if in view


def parse_ruler(im: np.ndarray, cam: Camera) -> RulerView:
    """Find the centimetre ticks, the pointer and the lower end of the ruler in a wrist image."""
    cream = ruler_mask(im)
    columns = np.nonzero(cream.sum(0) > 0.25 * cream.sum(0).max())[0]
    if len(columns) < 10:
        raise RuntimeError("the ruler is not in view")
    runs = np.split(columns, np.nonzero(np.diff(columns) > 1)[0] + 1)
    strip = max(runs, key=len)
    left, width = int(strip[0]), int(strip[-1] - strip[0] + 1)
    rows = np.nonzero(cream[:, left + width // 2 - 3 : left + width // 2 + 3].any(1))[0]
    bottom_v = float(rows.max()) + 1.0 if rows.max() < im.shape[0] - 2 else None
    # the long ticks reach past a quarter of the ruler's width, the 5 mm ticks do not
    zone = im[:, left + int(0.25 * width) : left + int(0.31 * width) + 1]
    ink = (765 - zone.sum(2)).clip(0).mean(1) * (ink_mask(zone).mean(1) > 0.5)
    ink[: max(0, rows.min() - 1)] = 0
    ink[rows.max() + 2 :] = 0
    ticks_v = np.array(centroid_runs(ink))
    red = red_mask(im[:, left : left + int(0.2 * width)]).sum(1)
    red_rows = np.nonzero(red >= 3)[0]
    pointer_v = float((red_rows * red[red_rows]).sum() / red[red_rows].sum()) + 0.5 if len(red_rows) else None
    reds = np.nonzero(red_mask(im))[1]
    pointer_u = float(reds.mean()) if len(reds) else None
    ticks_z = np.array([])
    if len(ticks_v) >= 2:
        depth = cam.fy * 0.01 / np.median(np.diff(ticks_v))  # ticks are 1 cm apart
        u = left + 0.3 * width
        ticks_z = np.array([cam.point_at_depth((u, v), depth)[2] for v in ticks_v])
    return RulerView(ticks_v, ticks_z, pointer_v, pointer_u, bottom_v)


def reading_mm(view: RulerView, zero_z: float) -> float:
    """The pointer's position on the scale in millimetres, interpolated between centimetre ticks."""
    if view.pointer_v is None or len(view.ticks_v) < 2:
        raise RuntimeError("pointer or ticks not found")
    labels = np.round((view.ticks_z - zero_z) / 0.01).astype(int)  # the centimetre of each tick
    v = view.ticks_v
    below, above = np.nonzero(v > view.pointer_v)[0], np.nonzero(v < view.pointer_v)[0]
    if len(below) and len(above):
        i, j = below[0], above[-1]
    else:  # pointer beyond the outermost ticks in view: extrapolate from the nearest two
        i, j = (0, 1) if len(above) == 0 else (len(v) - 2, len(v) - 1)
    px_per_mm = (v[i] - v[j]) / (10.0 * (labels[j] - labels[i]))
    return float(10.0 * labels[i] + (v[i] - view.pointer_v) / px_per_mm)


# ==================================================================================================
# Survey with the fixed cameras and the tray's outline
# ==================================================================================================
@dataclass
class Survey:
    weights: list[np.ndarray]  # rough rack spots (x, y), left to right
    ruler: np.ndarray  # (x, y, z of the upper end) of the ruler's front face
    ruler_bottom_z: float
    front_tray: np.ndarray  # tray pixels in the front image


def survey_fixed(cal: dict[str, Any], images: dict[str, bytes]) -> Survey:
    """Rough positions of the weights and the ruler from the front and side cameras."""
    front, side = fixed_camera(cal, "front"), fixed_camera(cal, "side")
    f_im, s_im = rgb(images["front"]), rgb(images["side"])
    blobs = sorted(components(yellow_mask(f_im), 60), key=lambda c: c[:, 0].mean())
    weights = [on_plane(front.ray(tuple(c.mean(0))), 2, TABLE_Z + 0.013)[:2] for c in blobs]
    strips = []
    for im in (f_im, s_im):
        m = ruler_mask(im)
        m[im.shape[0] // 2 + 40 :] = False  # below the horizon the table has a similar colour
        strips.append(max(components(m, 50), key=len))
    # x from the front view, y from the side view (an end may be hidden in one of them)
    fu, su = strips[0][:, 0].mean(), strips[1][:, 0].mean()
    x = y = 0.0
    for _ in range(5):
        y = float(on_plane(side.ray((su, 240.0)), 0, x)[1])
        x = float(on_plane(front.ray((fu, 240.0)), 1, y)[0])
    top = on_plane(front.ray((fu, strips[0][:, 1].min())), 1, y)[2]
    bottom = on_plane(front.ray((fu, strips[0][:, 1].max() + 1)), 1, y)[2]
    tray = max(components(tray_mask(f_im), 100), key=len)
    return Survey(weights, np.array([x, y, top]), float(bottom), tray)


def fit_box_top(views: list[tuple[Camera, np.ndarray, np.ndarray | None]], guess: list[float]) -> np.ndarray:
    """The level rectangle (z, x0, x1, y0, y1) whose projections best match the given masks.

    ``views`` holds (camera, mask, ignore), ``ignore`` marking pixels hidden by other things.  Only
    a box around each mask is compared."""
    prepared = []
    for cam, mask, ignore in views:
        vs, us = np.nonzero(mask)
        v0, v1 = max(0, vs.min() - 40), min(mask.shape[0], vs.max() + 41)
        u0, u1 = max(0, us.min() - 40), min(mask.shape[1], us.max() + 41)
        gv, gu = np.mgrid[v0:v1, u0:u1]
        pix = np.stack([gu.ravel() + 0.5, gv.ravel() + 0.5], 1)
        keep = np.ones(len(pix), bool) if ignore is None else ~ignore[v0:v1, u0:u1].ravel()
        prepared.append((cam, pix[keep], mask[v0:v1, u0:u1].ravel()[keep]))

    def inside(cam: Camera, p: np.ndarray, pix: np.ndarray) -> np.ndarray:
        z, x0, x1, y0, y1 = p
        corners = np.array([cam.project([x, y, z]) for x, y in [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]])
        sides = np.array(
            [
                (b[0] - a[0]) * (pix[:, 1] - a[1]) - (b[1] - a[1]) * (pix[:, 0] - a[0])
                for a, b in zip(corners, np.roll(corners, -1, 0), strict=True)
            ]
        )
        return (sides >= 0).all(0) | (sides <= 0).all(0)

    def mismatch(p: np.ndarray) -> float:
        return float(sum((inside(cam, p, pix) ^ mask).sum() for cam, pix, mask in prepared))

    p = np.array(guess, float)
    for _ in range(2):
        p = minimize(
            mismatch, p, method="Nelder-Mead", options={"xatol": 1e-5, "fatol": 0.5, "maxiter": 3000}
        ).x
    return p


def stiffness(readings: list[dict[str, Any]], mass: float) -> tuple[float, float]:
    """k (N/m) from a straight-line fit of the reading against the load; and the fit's rms (m)."""
    load = np.array([r["load"] * mass * G for r in readings])
    value = np.array([r["value"] / 1000.0 for r in readings])
    slope, intercept = np.polyfit(load, value, 1)
    rms = float(np.sqrt(np.mean((value - (slope * load + intercept)) ** 2)))
    return float(-1.0 / slope), rms  # the scale grows upwards: the reading falls as the load grows


# ==================================================================================================
# The robot
# ==================================================================================================
class Robot:
    """Joint-space moves to hand poses through the bench's IK, corrected for controller lag."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.calibration = lab.calibration()
        robot = self.calibration["robot"]
        self.max_speed = np.array(robot["max_joint_speed_rad_s"])
        self.dt = robot["physics_dt_s"]
        limits = np.array(robot["joint_limits_rad"])
        self.lower, self.upper = limits[:, 0] + 1e-3, limits[:, 1] - 1e-3

    def state(self) -> dict[str, Any]:
        return self.lab.state()

    def hand(self) -> np.ndarray:
        return np.array(self.state()["hand_position"])

    def quat(self) -> list[float]:
        return list(self.state()["hand_quaternion"])

    def move_joints(self, target: np.ndarray, speed: float) -> None:
        """A smooth (cubic) joint move at ``speed`` times the joint speed limits."""
        start = np.clip(np.array(self.state()["joints"]), self.lower, self.upper)
        target = np.clip(target, self.lower, self.upper)
        duration = (np.abs(target - start) / (self.max_speed * speed)).max() * 1.5  # cubic peak = 1.5 x mean
        steps = max(2, math.ceil(duration / self.dt))
        s = np.linspace(0.0, 1.0, steps + 1)[1:]
        s = 3 * s**2 - 2 * s**3
        self.lab.move_joints([(start + (target - start) * t).tolist() for t in s])

    @staticmethod
    def usual_branch(joints: np.ndarray) -> bool:
        """Shoulder and upper arm turned towards the work, not wrapped round."""
        return abs(joints[0]) < 1.3 and abs(joints[2]) < 1.3

    def move_to(
        self,
        position: list[float] | np.ndarray,
        quat: list[float],
        speed: float = 0.4,
        tolerance: float = 0.0015,
    ) -> None:
        """Bring the hand to ``position`` with orientation ``quat``; if the arm stops short (it sags a
        little under load), aim past the goal by the remaining error, up to three times."""
        goal = np.asarray(position, float)
        aim = goal.copy()
        for attempt in range(4):
            joints = np.array(self.lab.ik(aim.tolist(), quat)["joints"])
            if not self.usual_branch(joints):
                print("  (the IK found another branch: passing through the home posture)", flush=True)
                self.move_joints(HOME, 0.4)
                joints = np.array(self.lab.ik(aim.tolist(), quat)["joints"])
            self.move_joints(joints, speed if attempt == 0 else 0.1)
            error = goal - self.hand()
            if np.linalg.norm(error) < tolerance:
                return
            aim = aim + error

    def gripper(self, width: float) -> None:
        self.lab.gripper(width)

    def gripper_width(self) -> float:
        return float(self.state()["gripper_width"])


# ==================================================================================================
# The experiment
# ==================================================================================================
class Experiment:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.robot = Robot(lab)
        self.cal = self.robot.calibration
        self.mount = np.array(self.cal["wrist"]["mount"]["position"])
        self.readings: list[dict[str, Any]] = []  # {"load", "value" (mm), "observation_id"}
        self.last_reading = 0.0
        self.pad_offset = (
            0.01  # finger pads stand proud of what the width reports; measured at the first grasp
        )
        self.snapshots = 0
        self.started = time.time()

    # ---------------------------------------------------------------- bookkeeping
    def log(self, *items: Any) -> None:
        sim = self.robot.state()["time_s"]
        print(f"[{time.time() - self.started:6.1f} s wall, {sim:6.1f} s sim]", *items, flush=True)

    def snapshot(self, tag: str) -> None:
        folder = os.environ.get("SOLVE_SNAPSHOTS")
        if not folder:
            return
        os.makedirs(folder, exist_ok=True)
        self.snapshots += 1
        for name, png in self.lab.observe()["images"].items():
            with open(os.path.join(folder, f"{self.snapshots:02d}_{tag}_{name}.png"), "wb") as f:
                f.write(png)

    def look(self) -> tuple[dict[str, Any], np.ndarray, Camera]:
        """An observation, its wrist image and the wrist camera it was taken with."""
        seen = self.lab.observe()
        return seen, rgb(seen["images"]["wrist"]), wrist_camera(self.cal, seen["robot"])

    # ---------------------------------------------------------------- moving about
    def waypoint(self) -> np.ndarray:
        """In the open, in front of the stand, above the rack: where the hand changes orientation."""
        r = self.survey.ruler
        return np.array([r[0] + 0.045, r[1] - READ_DISTANCE - 0.1, SAFE_Z])

    def turn(self, quat: list[float]) -> None:
        """Go to the waypoint and take up orientation ``quat`` there by a joint move to a posture
        worked out from the home posture (so that no branch change sweeps the arm over the bench)."""
        here = self.robot.hand()
        if here[2] < SAFE_Z - 0.005:
            self.robot.move_to([here[0], here[1], SAFE_Z], self.robot.quat(), speed=0.3)
        self.robot.move_to(self.waypoint(), self.robot.quat())
        self.robot.move_joints(self.postures[tuple(quat)], 0.4)

    def over(self, xy: np.ndarray, quat: list[float]) -> None:
        """Rise straight up to the safe height and cross over to ``xy`` there, turned to ``quat``."""
        if quat_angle(self.robot.quat(), quat) > 0.1:
            self.turn(quat)
        here = self.robot.hand()
        if here[2] < SAFE_Z - 0.005:
            self.robot.move_to([here[0], here[1], SAFE_Z], self.robot.quat(), speed=0.3)
        self.robot.move_to([xy[0], xy[1], SAFE_Z], quat)

    def descend(self, xy: np.ndarray, z: float, quat: list[float]) -> None:
        """Straight down to ``z``: briskly to 4 cm above it, then slowly."""
        self.robot.move_to([xy[0], xy[1], z + 0.04], quat)
        self.robot.move_to([xy[0], xy[1], z], quat, speed=0.08, tolerance=0.001)

    def camera_above(self, xy: np.ndarray, camera_z: float) -> None:
        """The wrist camera straight above ``xy``, looking down; the hand hangs on the robot's side."""
        offset = quat_matrix(Q_VIEW) @ self.mount
        self.over(xy - offset[:2], Q_VIEW)
        self.robot.move_to([xy[0] - offset[0], xy[1] - offset[1], camera_z - offset[2]], Q_VIEW)

    # ---------------------------------------------------------------- survey
    def take_survey(self) -> None:
        self.survey = survey_fixed(self.cal, self.lab.observe()["images"])
        self.weights_home = list(self.survey.weights)
        self.log("weights (rough):", [np.round(w, 3).tolist() for w in self.weights_home])
        self.log(
            "ruler:",
            np.round(self.survey.ruler, 3).tolist(),
            "lower end z",
            round(self.survey.ruler_bottom_z, 3),
        )
        # the robot is in its home posture now: work out the postures at the waypoint from here
        self.postures = {
            tuple(q): np.array(self.lab.ik(self.waypoint().tolist(), q)["joints"])
            for q in (Q_PICK, Q_PLACE, Q_LOOK, Q_VIEW)
        }
        self.measure_weight()
        self.locate_tray()

    def top_face_below(self, im: np.ndarray, cam: Camera) -> np.ndarray:
        faces = components(lit_top_mask(im), 100)
        return min(faces, key=lambda c: np.linalg.norm(c.mean(0) - [cam.cx, cam.cy]))

    def measure_weight(self) -> None:
        """Height of a weight's top and its diameter, from its top face seen from two heights."""
        sizes = []
        for camera_z in (0.95, 1.03):
            self.camera_above(self.weights_home[0], camera_z)
            _, im, cam = self.look()
            face = self.top_face_below(im, cam)
            sizes.append((cam.position[2], 2 * math.sqrt(len(face) / math.pi)))
        (h1, d1), (h2, d2) = sizes
        self.weight_top = float(np.clip((d1 * h1 - d2 * h2) / (d1 - d2), TABLE_Z + 0.01, TABLE_Z + 0.06))
        self.weight_diameter = d1 * (h1 - self.weight_top) / self.cal["wrist"]["intrinsics"]["fx"]
        self.log(f"weight: top at z {self.weight_top:.4f}, diameter {self.weight_diameter:.4f}")

    def locate_weight(self, index: int) -> np.ndarray:
        """The weight's exact spot in the rack, from straight above."""
        self.camera_above(self.weights_home[index], 0.95)
        _, im, cam = self.look()
        face = self.top_face_below(im, cam)
        self.weights_home[index] = on_plane(cam.ray(tuple(face.mean(0) + 0.5)), 2, self.weight_top)[:2]
        return self.weights_home[index]

    def locate_tray(self) -> None:
        """An oblique wrist-camera look at the tray, fitted together with the front view."""
        r = self.survey.ruler
        target = np.array([r[0] - 0.07, r[1] - 0.09, r[2] - 0.18])
        camera_at = target + np.array([0.0, -0.23, 0.23])
        q = aiming_quat(target - camera_at, [0, 1, 1])
        self.turn(Q_LOOK)
        self.robot.move_to(camera_at - quat_matrix(q) @ self.mount, q)
        _, im, cam = self.look()
        front = fixed_camera(self.cal, "front")
        hidden = np.zeros(im.shape[:2], bool)
        hidden[:, int(front.project(r)[0]) - 10 :] = True  # the ruler stands in front of the tray
        views = [
            (cam, pixels_to_mask(max(components(tray_mask(im), 100), key=len), im.shape[:2]), None),
            (front, pixels_to_mask(self.survey.front_tray, im.shape[:2]), hidden),
        ]
        p = fit_box_top(views, [r[2] - 0.18, r[0] - 0.12, r[0] - 0.01, r[1] - 0.12, r[1] - 0.04])
        self.tray_top = float(p[0])
        self.tray_center = np.array([(p[1] + p[2]) / 2, (p[3] + p[4]) / 2])
        self.tray_half = np.array([(p[2] - p[1]) / 2, (p[4] - p[3]) / 2])
        self.log(
            f"tray: top at z {self.tray_top:.4f}, centre {np.round(self.tray_center, 4).tolist()}, "
            f"half sizes {np.round(self.tray_half, 4).tolist()}"
        )
        self.turn(Q_LOOK)

    # ---------------------------------------------------------------- readings
    def reading_pose(self, camera_z: float) -> None:
        """The wrist camera ``READ_DISTANCE`` in front of the ruler at height ``camera_z``.

        The hand may tilt a little under its own weight, and the camera sits 9 cm from the hand, so
        the camera's own height is checked and the hand moved again until it is right."""
        r = self.survey.ruler
        offset = quat_matrix(Q_LOOK) @ self.mount
        x = r[0] + 0.045 - offset[0]
        y_read, y_back = r[1] - READ_DISTANCE - offset[1], r[1] - READ_DISTANCE - 0.1
        z = camera_z - offset[2]
        here = self.robot.hand()
        if abs(here[1] - y_read) > 0.01 or abs(here[2] - z) > 0.02:
            if here[1] > y_back + 0.05:
                self.robot.move_to([x, y_back, here[2]], Q_LOOK)
            self.robot.move_to([x, y_back, z], Q_LOOK)
        for _ in range(4):
            self.robot.move_to([x, y_read, z], Q_LOOK, speed=0.1, tolerance=0.0005)
            error = camera_z - wrist_camera(self.cal, self.robot.state()).position[2]
            if abs(error) < 0.0003:
                break
            z += error

    def leave_ruler(self, quat: list[float]) -> None:
        here = self.robot.hand()
        y_back = self.waypoint()[1]
        self.robot.move_to([here[0], y_back, here[2]], Q_LOOK, speed=0.3)
        self.turn(quat)

    def find_zero(self) -> None:
        """World height of the ruler's 0 mark: the long tick at its lower end."""
        self.turn(Q_LOOK)
        self.reading_pose(self.survey.ruler_bottom_z + 0.04)
        _, im, cam = self.look()
        view = parse_ruler(im, cam)
        lowest = int(np.argmax(view.ticks_v))
        if view.bottom_v is None or abs(view.ticks_v[lowest] - view.bottom_v) > 4:
            raise RuntimeError("no centimetre tick at the ruler's lower end")
        self.zero_z = float(view.ticks_z[lowest])
        self.log(f"ruler: 0 mark at z {self.zero_z:.4f}")

    def take_reading(self, load: int, camera_z: float) -> None:
        """Level the camera with the pointer, wait for the tray to be at rest, record the reading.

        At rest: the pointer neither bobs nor sways over five looks; then, since the tray and the
        weights on it can keep moving a little after that (the bench said so when readings were taken
        at once), a further ``SETTLE_MORE_S`` and the same test again."""
        self.reading_pose(camera_z)
        recent: list[tuple[float, float]] = []
        levelled, waited = 0, False
        for _ in range(150):
            seen, im, cam = self.look()
            view = parse_ruler(im, cam)
            value = reading_mm(view, self.zero_z)
            pointer_z = self.zero_z + value / 1000.0
            if abs(cam.position[2] - pointer_z) > 0.001 and levelled < 3:
                self.reading_pose(pointer_z)
                recent, levelled = [], levelled + 1
                continue
            recent = [*recent, (value, view.pointer_u or 0.0)][-SETTLE_LOOKS:]
            spread = np.ptp(np.array(recent), axis=0)
            if len(recent) == SETTLE_LOOKS and spread[0] < SETTLE_SPREAD_MM and spread[1] < SETTLE_SPREAD_PX:
                if not waited:
                    self.lab.wait(SETTLE_MORE_S)
                    recent, waited = [], True
                    continue
                self.readings.append(
                    {"load": load, "value": round(value, 2), "observation_id": seen["observation_id"]}
                )
                self.last_reading = round(value, 2)
                self.log(
                    f"load {load}: reading {value:.2f} mm (observation {seen['observation_id']}, "
                    f"camera {1000 * (cam.position[2] - pointer_z):+.1f} mm from level)"
                )
                return
            self.lab.wait(SETTLE_INTERVAL_S)
        raise RuntimeError("the pointer does not come to rest")

    # ---------------------------------------------------------------- carrying weights
    def grasp_z(self) -> float:
        """Hand height that puts the finger pads round the lower part of a standing weight."""
        return self.weight_top - 0.020 + FINGER_REACH

    def open_width(self, clearance: float) -> float:
        """Gripper setting that leaves ``clearance`` either side of a weight."""
        return self.weight_diameter - self.pad_offset + 2 * clearance

    def close_on_weight(self) -> None:
        self.robot.gripper(0.0)
        width = self.robot.gripper_width()
        if width < 0.004:
            raise RuntimeError(f"missed the weight (the gripper closed to {width:.4f} m)")
        self.pad_offset = self.weight_diameter - width

    def tray_top_now(self) -> float:
        """The tray has moved down as far as the pointer has since the first reading."""
        return self.tray_top - (self.readings[0]["value"] - self.last_reading) / 1000.0

    def tray_spot(self, n: int) -> np.ndarray:
        """Place of the n-th weight on the tray: corners of a square, the diagonal first."""
        dx = min(0.030, self.tray_half[0] - self.weight_diameter / 2 - 0.008)
        dy = min(0.020, self.tray_half[1] - self.weight_diameter / 2 - 0.008)
        sx, sy = [(-1, -1), (1, 1), (1, -1), (-1, 1)][n]
        return self.tray_center + np.array([sx * dx, sy * dy])

    def pick_from_rack(self, index: int) -> None:
        xy = self.locate_weight(index)
        self.robot.gripper(self.open_width(0.012))
        self.robot.move_to([xy[0], xy[1], self.grasp_z() + 0.09], Q_PICK)
        self.descend(xy, self.grasp_z(), Q_PICK)
        self.close_on_weight()
        self.over(xy, Q_PICK)

    def place_on_tray(self, n: int) -> None:
        xy = self.tray_spot(n)
        self.over(xy, Q_PLACE)
        self.descend(xy, self.tray_top_now() + 0.004 + (self.grasp_z() - TABLE_Z), Q_PLACE)
        self.robot.gripper(self.open_width(0.006))
        self.over(xy, Q_PLACE)

    def take_from_tray(self, n: int) -> None:
        xy = self.tray_spot(n)
        self.over(xy, Q_PLACE)
        self.robot.gripper(self.open_width(0.006))
        self.descend(xy, self.tray_top_now() + (self.grasp_z() - TABLE_Z), Q_PLACE)
        self.close_on_weight()
        self.over(xy, Q_PLACE)

    def return_to_rack(self, index: int) -> None:
        xy = self.weights_home[index]
        self.over(xy, Q_PICK)
        self.descend(xy, self.grasp_z() + 0.003, Q_PICK)
        self.robot.gripper(self.open_width(0.012))
        self.over(xy, Q_PICK)

    # ---------------------------------------------------------------- the run
    def run(self, mass: float, fabricate_mm: float = 0.0) -> dict[str, Any]:
        self.take_survey()
        self.find_zero()
        self.take_reading(0, self.tray_top + 0.02)  # the pointer is about 2 cm above the tray
        drop = 0.008  # first guess of the fall per weight
        for n in range(N_LOADS):
            self.leave_ruler(Q_PICK)
            self.pick_from_rack(n)
            self.snapshot(f"picked{n}")
            self.place_on_tray(n)
            self.snapshot(f"placed{n}")
            self.turn(Q_LOOK)
            self.take_reading(n + 1, self.zero_z + self.last_reading / 1000.0 - drop)
            drop = (self.readings[0]["value"] - self.last_reading) / 1000.0 / (n + 1)
        self.leave_ruler(Q_PLACE)
        for n in reversed(range(N_LOADS)):
            self.take_from_tray(n)
            self.return_to_rack(n)
            self.snapshot(f"returned{n}")
        self.robot.gripper(0.08)
        self.over(self.waypoint()[:2], Q_PICK)
        k, rms = stiffness(self.readings, mass)
        self.log(f"k = {k:.3f} N/m (fit rms {rms * 1000:.3f} mm)")
        citations = [
            {
                "observation_id": r["observation_id"],
                "instrument": "ruler",
                "value": round(r["value"] + fabricate_mm, 2),
            }
            for r in self.readings
        ]
        answer = self.lab.submit({"k": round(k, 3)}, citations)
        self.log("submitted:", answer)
        return answer


def printed_mass(card_path: str = "card.md") -> float:
    """The printed mass of a slotted weight, from the task card."""
    with open(card_path) as f:
        found = re.search(r"`weight_mass`\)\s*:\s*([0-9.]+)\s*kg", f.read())
    if not found:
        raise RuntimeError("no weight_mass on the card")
    return float(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description="Hooke's law on the lab bench.")
    parser.add_argument(
        "--fabricate-mm",
        type=float,
        default=0.0,
        help="shift every cited reading by this many mm (a deliberately false variant)",
    )
    args = parser.parse_args()
    Experiment(Lab()).run(printed_mass(), args.fabricate_mm)


if __name__ == "__main__":
    main()
