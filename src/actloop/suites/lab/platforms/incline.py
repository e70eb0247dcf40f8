"""The incline (#7): a board hinged at its low end, its angle set by a prop carriage that slides along a rail
under it, two sliders of the same material in tracks on the board, a motion sensor at the board's top end
reading how far each slider is from it, an inclinometer on the board, and a meter box showing the angle
and both distances, with a logger (its LOG key on the box) recording them.

The board rests on the prop's roller at a fixed height above the hinge, so its slope is rise over run:
tan θ = :data:`PROP_RISE` / (the carriage's distance from the hinge). Moving the carriage towards the hinge
raises the board. The board is drawn where the carriage puts it (a mocap body); its slope's sine and cosine
come from that geometry by square roots alone.

Each slider rides its track on one degree of freedom (a slide joint down the slope). While the robot does
not touch it, its motion is the stick–slip law of :mod:`..physics.friction` (static and kinetic friction,
hidden), advanced exactly each physics step and written into the joint; while the robot touches it, the
physics engine moves it against a dry friction of μk m g cos θ on the joint (``frictionloss``), so it can be
pushed up its track and let go.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.friction import Friction, G, slide_step, slope_of
from actloop.suites.lab.platforms.base import published, turn_about_y
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    front_windows,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch

HINGE = (-0.30, 0.05, TABLE_TOP_Z + 0.06)
"""The hinge's axis (along y) at the board's low end; the board's top surface passes through it."""
BOARD_LENGTH = 0.56
BOARD_HALF = (BOARD_LENGTH / 2, 0.07, 0.006)
PROP_RISE = 0.10
"""The prop's roller holds the board's top this far above the hinge's axis."""
RUN_RANGE = (0.14, 0.50)
"""The carriage's distance from the hinge (m): the board's slope from 35.5 to 11.3 degrees."""
RUN_START = 0.50
CARRIAGE_DAMPING = 25.0
"""N·s/m: the carriage's drag on its rail (it stays where it is let go)."""
TRACK_Y = (-0.035, 0.035)
"""The two tracks across the board (from its centre line): slider_a's in front, slider_b's behind."""
TOP_U = 0.48
"""The top bumper: a slider against it has its centre this far up the board from the hinge."""
TRACK_M = 0.34
"""How far a slider can slide down from the top bumper to the bottom one."""
SLIDER_HALF = (0.025, 0.018, 0.012)
HANDLE_RADIUS = 0.008
HANDLE_HALF = 0.015
SENSOR_U = TOP_U + SLIDER_HALF[0] + 0.03
"""The motion sensor's face, up the board from the hinge (beyond the top bumper)."""
SENSOR_GAP_M = SENSOR_U - TOP_U - SLIDER_HALF[0]
"""How far a slider against the top bumper stands from the sensor's face."""
PEG_Y = -0.18
"""The carriage's peg, in front of the board (from the board's centre line)."""
PEG_RADIUS = 0.006
PEG_TOP_Z = TABLE_TOP_Z + 0.07
METER_BOX = (0.36, 0.12)
METER_HALF = (0.075, 0.03, 0.08)
LOG_KEY = (METER_BOX[0] + 0.045, METER_BOX[1])
LOG_HZ = 60.0
"""Rows a second: every fourth physics step, so each row holds the sensors at its own time."""
MASSES = (0.2, 0.4)
"""kg: slider_a's and slider_b's masses (the card's)."""
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'

INCLINOMETER = InstrumentSpec(
    "inclinometer",
    "deg",
    DigitalDisplay(digits=4, decimals=2, min_digit_px=12.0),
    refresh_hz=LOG_HZ,
    noise_sd=0.003,
)
DISTANCES = tuple(
    InstrumentSpec(
        f"distance_{name}",
        "mm",
        DigitalDisplay(digits=4, decimals=1, min_digit_px=12.0),
        refresh_hz=LOG_HZ,
        noise_sd=0.04,
    )
    for name in ("a", "b")
)
SLIDERS = ("slider_a", "slider_b")
LOGGER = "logger"
FACES = (
    DisplayFace.of("inclinometer_lcd", INCLINOMETER, 0.066, 0.022),
    *(DisplayFace.of(f"{spec.name}_lcd", spec, 0.066, 0.022) for spec in DISTANCES),
)
FACE_CENTRES = {
    face.texture: (METER_BOX[0] - 0.02, METER_BOX[1] - METER_HALF[1] - 0.001, TABLE_TOP_Z + z)
    for face, z in zip(FACES, (0.14, 0.105, 0.07), strict=True)
}


def bench_parts() -> tuple[Part, ...]:
    """Every part of the incline, in the card's order."""
    low, high = (math.degrees(math.atan2(PROP_RISE, run)) for run in (RUN_RANGE[1], RUN_RANGE[0]))
    return (
        Part(
            "board",
            f"a board hinged at its low (left) end; it rests on the prop carriage's roller, so it tilts from "
            f"about {low:.0f} to {high:.0f} degrees as the carriage moves towards the hinge",
            restore="fixed",
        ),
        Part(
            "carriage",
            "the prop carriage on a rail under the board; moving it towards the hinge raises the board",
            restore="any",
        ),
        Part("carriage_peg", "a peg on an arm of the carriage, in front of the board, to move it by", "any"),
        *(
            Part(
                name,
                f"a slider of {mass:g} kg in its own track on the board (both of the same material), with a "
                "handle on top; it starts against the track's top bumper",
            )
            for name, mass in zip(SLIDERS, MASSES, strict=True)
        ),
        Part(
            "motion_sensor",
            "at the board's top end: reads each slider's distance from it along its track, in mm",
            restore="fixed",
        ),
        Part("inclinometer", "on the board: reads its tilt in degrees", restore="fixed"),
        Part(
            "log_key",
            f"a key on the meter box's top: starts and stops the logger, which records the tilt and both "
            f"distances {LOG_HZ:g} times a second",
            restore="any",
        ),
    )


class Incline(FacedPlatform):
    """The incline of one instance (see the module docstring)."""

    face_centres = FACE_CENTRES

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "inclinometer": ("inclinometer", "inclinometer_lcd"),
        "motion_sensor": ("motion_sensor", "distance_a_lcd", "distance_b_lcd"),
        "log_key": ("key_log",),
    }

    def __init__(self, friction: Friction) -> None:
        self.friction = friction
        self._weights: list[float] = []
        self.slides = [[0.0, 0.0] for _ in SLIDERS]
        """Each slider's (s, v): its distance down the track from the top bumper and its rate."""
        self.touched = [False for _ in SLIDERS]
        self.logging = False
        self._log_key = PressEdge()
        self._ids: dict[str, int] = {}
        self._slider_geoms: list[frozenset[int]] = []

    # --- MJCF ---
    def bodies_xml(self) -> str:
        hx, hy, hz = HINGE
        bx, by, bz = BOARD_HALF
        z = TABLE_TOP_Z
        sliders = "\n".join(
            self._slider_xml(name, y, mass) for name, y, mass in zip(SLIDERS, TRACK_Y, MASSES, strict=True)
        )
        bumpers = "\n".join(
            f'  <geom name="bumper_{end}_{i}" type="box" size="0.004 0.02 0.01" pos="{u:.4f} {y} 0.01" '
            f'rgba="0.15 0.15 0.15 1" contype="0" conaffinity="0" mass="0"/>'
            for i, y in enumerate(TRACK_Y)
            for end, u in (
                ("top", TOP_U + SLIDER_HALF[0] + 0.004),
                ("bottom", TOP_U - TRACK_M - SLIDER_HALF[0] - 0.004),
            )
        )
        rail_x = hx + (RUN_RANGE[0] + RUN_RANGE[1]) / 2
        rail_half = (RUN_RANGE[1] - RUN_RANGE[0]) / 2 + 0.03
        faces = "\n".join(face.geom_xml(" ".join(map(str, FACE_CENTRES[face.texture]))) for face in FACES)
        mx, my = METER_BOX
        quat = " ".join(map(repr, turn_about_y(PROP_RISE, RUN_START)))
        return f"""
<body name="hinge_block" pos="{hx} {hy} {z}">
  <geom name="hinge_block" type="box" size="0.02 {by} {(hz - z) / 2:.4f}" pos="-0.02 0 {(hz - z) / 2:.4f}"
        rgba="0.25 0.25 0.28 1" {WORLD_GEOM}/>
</body>
<body name="rail" pos="{rail_x:.4f} {hy} {z + 0.005}">
  <geom name="rail" type="box" size="{rail_half:.4f} 0.02 0.005" rgba="0.5 0.5 0.52 1" {WORLD_GEOM}/>
</body>
{self._carriage_xml()}
<body name="board" mocap="true" pos="{hx} {hy} {hz}" quat="{quat}">
  <geom name="board" type="box" size="{bx} {by} {bz}" pos="{bx} 0 {-bz}" rgba="0.72 0.6 0.45 1"
        {WORLD_GEOM}/>
{bumpers}
  <geom name="motion_sensor" type="box" size="0.01 0.06 0.02" pos="{SENSOR_U + 0.01:.4f} 0 0.02"
        rgba="0.2 0.22 0.26 1" contype="0" conaffinity="0" mass="0"/>
  <geom name="inclinometer" type="box" size="0.03 0.012 0.012" pos="{BOARD_LENGTH - 0.05} 0 0.012"
        rgba="0.85 0.75 0.2 1" contype="0" conaffinity="0" mass="0"/>
{sliders}
</body>
<body name="meter_box" pos="{mx} {my} {z}">
  <geom name="meter_box" type="box" size="{" ".join(map(str, METER_HALF))}" pos="0 0 {METER_HALF[2]}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{faces}
</body>
{key_xml("log", LOG_KEY[0], LOG_KEY[1], z + 2 * METER_HALF[2], "0.2 0.6 0.3 1")}"""

    def _carriage_xml(self) -> str:
        hx, hy, hz = HINGE
        z = TABLE_TOP_Z + 0.02
        post_top = hz + PROP_RISE - 2 * BOARD_HALF[2] - 0.008
        post_half = (post_top - z) / 2
        arm_half = (-PEG_Y) / 2
        return f"""<body name="carriage" pos="{hx} {hy} {z}">
  <joint name="carriage" type="slide" axis="1 0 0" range="{RUN_RANGE[0]} {RUN_RANGE[1]}"
         damping="{CARRIAGE_DAMPING}"/>
  <geom name="carriage_base" type="box" size="0.03 0.03 0.01" rgba="0.2 0.36 0.55 1" mass="0.3" {WORLD_GEOM}/>
  <geom name="carriage_post" type="box" size="0.008 0.008 {post_half:.4f}" pos="0 0 {post_half:.4f}"
        rgba="0.6 0.6 0.62 1" mass="0" {WORLD_GEOM}/>
  <geom name="carriage_roller" type="cylinder" size="0.008 0.03" pos="0 0 {post_top - z:.4f}"
        euler="1.5708 0 0" rgba="0.3 0.3 0.32 1" mass="0" contype="0" conaffinity="0"/>
  <geom name="carriage_arm" type="box" size="0.008 {arm_half:.4f} 0.006" pos="0 {-arm_half:.4f} 0"
        rgba="0.2 0.36 0.55 1" mass="0" {WORLD_GEOM}/>
  <geom name="carriage_peg" type="cylinder" size="{PEG_RADIUS} {(PEG_TOP_Z - z) / 2:.4f}"
        pos="0 {PEG_Y} {(PEG_TOP_Z - z) / 2:.4f}" rgba="0.15 0.15 0.15 1" mass="0" {GRIP_CONTACT}
        {WORLD_GEOM}/>
</body>"""

    def _slider_xml(self, name: str, y: float, mass: float) -> str:
        sx, sy, sz = SLIDER_HALF
        return f"""  <body name="{name}" pos="{TOP_U} {y} {sz}">
    <joint name="{name}" type="slide" axis="-1 0 0" range="0 {TRACK_M}"/>
    <geom name="{name}" type="box" size="{sx} {sy} {sz}" rgba="0.3 0.45 0.3 1" mass="{mass}" {WORLD_GEOM}/>
    <geom name="{name}_handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_HALF}"
          pos="0 0 {sz + HANDLE_HALF}" rgba="0.15 0.15 0.15 1" mass="0.01" {GRIP_CONTACT} {WORLD_GEOM}/>
  </body>"""

    def sections_xml(self) -> str:
        pairs = [("carriage", "rail"), ("carriage", "hinge_block"), ("key_log", "meter_box")]
        pairs += [(slider, "board") for slider in SLIDERS]
        excluded = "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs)
        return f"<contact>{excluded}</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        carriage = model.joint("carriage")
        self._ids = {
            "carriage_q": int(carriage.qposadr[0]),
            "board": int(model.body("board").mocapid[0]),
            "key_log": int(model.joint("key_log").qposadr[0]),
        }
        for name in SLIDERS:
            joint = model.joint(name)
            self._ids[f"{name}_q"] = int(joint.qposadr[0])
            self._ids[f"{name}_v"] = int(joint.dofadr[0])
        self._contacts = ContactWatch(model)
        self._slider_geoms = [self._contacts.geoms_of_bodies(name) for name in SLIDERS]
        data.qpos[self._ids["carriage_q"]] = RUN_START
        self._slope = slope_of(PROP_RISE, RUN_START)
        for i, name in enumerate(SLIDERS):
            s, v = self.slides[i]
            data.qpos[self._ids[f"{name}_q"]] = s
            data.qvel[self._ids[f"{name}_v"]] = v
        self._weights = [float(model.body_subtreemass[model.body(name).id]) * G for name in SLIDERS]

    def run(self, data: mujoco.MjData) -> float:
        """The carriage's distance from the hinge (m)."""
        return float(data.qpos[self._ids["carriage_q"]])

    def slope(self) -> tuple[float, float]:
        """The board's (sin θ, cos θ) now."""
        return self._slope

    def angle_deg(self) -> float:
        sin_t, cos_t = self._slope
        return math.degrees(math.atan2(sin_t, cos_t))

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        if self._log_key.pressed(-float(data.qpos[self._ids["key_log"]])):
            self.logging = not self.logging
        run = self.run(data)
        self._slope = slope_of(PROP_RISE, run)
        data.mocap_quat[self._ids["board"]] = turn_about_y(PROP_RISE, run)
        sin_t, cos_t = self._slope
        touched = self._touched_sliders(data)
        for i, name in enumerate(SLIDERS):
            q, v = self._ids[f"{name}_q"], self._ids[f"{name}_v"]
            self.touched[i] = touched[i]
            if touched[i]:  # the engine moves it, against kinetic friction on its joint
                model.dof_frictionloss[v] = (
                    self.friction.kinetic * float(model.body_mass[model.body(name).id]) * G * cos_t
                )
                self.slides[i] = [float(data.qpos[q]), float(data.qvel[v])]
                continue
            model.dof_frictionloss[v] = 0.0
            s, rate = self.slides[i]
            s, rate = slide_step(s, rate, DT, sin_t, cos_t, self.friction, (0.0, TRACK_M))
            self.slides[i] = [s, rate]
            data.qpos[q] = s
            data.qvel[v] = rate

    def _touched_sliders(self, data: mujoco.MjData) -> list[bool]:
        touched = self._contacts.touched(data)
        return [not geoms.isdisjoint(touched) for geoms in self._slider_geoms]

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The hinge's axis point (its y the board's centre line), the prop's rise, the carriage's run at
        the start and its range, the carriage's peg (its y from the board's centre line and the top of it),
        the board's length, each track's y (from the board's centre line), the top bumper's and the track's
        distances for a slider's centre (up the board from the hinge, and down from the top bumper), a
        slider's half size and its handle's top above the board, each LCD's window (centre, width and
        height) and the LOG key (its centre and the top of its cap)."""
        windows = front_windows(FACES, FACE_CENTRES)
        return published(
            {
                "hinge": list(HINGE),
                "prop_rise": [PROP_RISE],
                "carriage_run": [RUN_START, *RUN_RANGE],
                "carriage_peg": [PEG_Y, PEG_TOP_Z],
                "board_length": [BOARD_LENGTH],
                "track_y": list(TRACK_Y),
                "slider_top_u": [TOP_U],
                "track_length": [TRACK_M],
                "slider_half": list(SLIDER_HALF),
                "slider_handle_top": [2 * SLIDER_HALF[2] + 2 * HANDLE_HALF],
                **windows,
                "log_key": [*LOG_KEY, key_top(TABLE_TOP_Z + 2 * METER_HALF[2])],
            }
        )

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def instruments(self) -> list[InstrumentSpec]:
        return [INCLINOMETER, *DISTANCES]

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, (INCLINOMETER.name, *(d.name for d in DISTANCES)), LOG_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        values = {INCLINOMETER.name: self.angle_deg()}
        for spec, (s, _) in zip(DISTANCES, self.slides, strict=True):
            values[spec.name] = 1000.0 * (SENSOR_GAP_M + s)
        return values
