"""The air track: a level track along x on the bench with an end post at each end, two gliders riding it
on air (no friction) on slide joints, each with a handle on top to take it by, and a meter box at the right
with a LOG key for its logger. :class:`GliderTrack` is what every air-track bench shares: while the robot
touches neither glider, an exact law written into the gliders' joints moves them; while it touches either,
the physics engine moves both, and the exact law takes over from the engine's state when the robot lets go.

:class:`AirTrack` is the coupled oscillators' (#3) bench: the gliders A and B joined post—k1—A—kc—B—k2—post
by springs, moved by the exactly stepped :class:`~..physics.coupled.CoupledGliders`. In the engine, each
outer spring is a joint stiffness and the coupling spring a fixed tendon's (the same equilibrium); the engine
moves the gliders too whenever the exact law would carry one past its stop (the stops are the engine's joint
limits). The springs are drawn as tendons (they carry no force of their own). A position sensor reads each
glider's position along the track, shown on an LCD of the meter box, and the logger records both 120 times
a second: every second physics step, so each row holds the gliders where they were at the row's time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.coupled import CoupledGliders
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    front_windows,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch

TRACK_Y = 0.05
TRACK_ENDS = (-0.34, 0.26)
"""The track's ends along x; an end post stands at each, its spring hooked at the post's inner face."""
TRACK_TOP_Z = TABLE_TOP_Z + 0.04
TRACK_HALF_WIDTH = 0.025
GLIDERS = ("glider_a", "glider_b")
REST_X = (-0.14, 0.06)
"""Each glider's centre at rest (the springs' equilibrium)."""
TRAVEL_M = 0.09
"""How far a glider can move either way from its rest before its stop."""
GLIDER_HALF = (0.03, 0.03, 0.012)
HANDLE_RADIUS = 0.008
HANDLE_HALF = 0.015
HANDLE_KG = 0.01
SPRING_Z = 0.008
"""The springs' height above the track's top."""
METER_BOX = (0.38, 0.12)
METER_HALF = (0.075, 0.03, 0.07)
LOG_KEY = (METER_BOX[0] + 0.045, METER_BOX[1])
LOG_HZ = 120.0
"""Rows a second: every second physics step, so each row holds the gliders at its own time."""
GLIDER_RGBA = "0.75 0.4 0.2 1"
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'
POSITIONS = tuple(
    InstrumentSpec(
        f"position_{name}",
        "mm",
        DigitalDisplay(digits=5, decimals=2, min_digit_px=12.0),
        refresh_hz=LOG_HZ,
        noise_sd=0.003,
    )
    for name in ("a", "b")
)
"""Each glider's position along the track from its sensor's zero near the left post, in mm to 0.01."""
LOGGER = "logger"
FACES = tuple(DisplayFace.of(f"{spec.name}_lcd", spec, 0.07, 0.02) for spec in POSITIONS)
FACE_CENTRES = {
    face.texture: (METER_BOX[0] - 0.02, METER_BOX[1] - METER_HALF[1] - 0.001, TABLE_TOP_Z + z)
    for face, z in zip(FACES, (0.1, 0.065), strict=True)
}


def track_xml(track_extra: str = "") -> str:
    """The track (``track_extra``: more geoms on its body, e.g. a sensor head) and its two end posts, each
    with a spring hook on its inner face."""
    z = TABLE_TOP_Z
    left, right = TRACK_ENDS
    half = (right - left) / 2
    track_half_z = (TRACK_TOP_Z - z) / 2
    posts = "\n".join(
        f"""<body name="post_{side}" pos="{x + sign * 0.01:.4f} {TRACK_Y} {TRACK_TOP_Z}">
  <geom name="post_{side}" type="box" size="0.01 0.03 0.03" pos="0 0 0.03" rgba="0.3 0.3 0.34 1"
        {WORLD_GEOM}/>
  <site name="hook_{side}" pos="{-sign * 0.01:.4f} 0 {SPRING_Z}" size="0.003"/>
</body>"""
        for side, x, sign in (("left", left, -1), ("right", right, 1))
    )
    return f"""
<body name="track" pos="{left + half:.4f} {TRACK_Y} {z + track_half_z:.4f}">
  <geom name="track" type="box" size="{half:.4f} {TRACK_HALF_WIDTH} {track_half_z:.4f}"
        rgba="0.62 0.64 0.68 1" {WORLD_GEOM}/>{track_extra}
</body>
{posts}"""


def glider_xml(
    name: str,
    x: float,
    mass: float,
    travel: tuple[float, float] = (-TRAVEL_M, TRAVEL_M),
    joint: str = "",
    extra: str = "",
    rgba: str = GLIDER_RGBA,
) -> str:
    """A glider ``name`` of ``mass`` (kg, its handle's included) centred at ``x`` on the track: its slide
    joint (its range ``travel`` from ``x``; ``joint``: more attributes, e.g. a stiffness), box, handle and
    spring sites, and ``extra`` geoms on its body."""
    gx, gy, gz = GLIDER_HALF
    return f"""<body name="{name}" pos="{x} {TRACK_Y} {TRACK_TOP_Z + gz}">
  <joint name="{name}" type="slide" axis="1 0 0" range="{travel[0]} {travel[1]}" limited="true"{joint}/>
  <geom name="{name}" type="box" size="{gx} {gy} {gz}" rgba="{rgba}" mass="{mass - HANDLE_KG!r}"
        {WORLD_GEOM}/>
  <geom name="{name}_handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_HALF}" pos="0 0 {gz + HANDLE_HALF}"
        rgba="0.15 0.15 0.15 1" mass="{HANDLE_KG}" {GRIP_CONTACT} {WORLD_GEOM}/>
  <site name="{name}_left" pos="{-gx} 0 {SPRING_Z - gz}" size="0.003"/>
  <site name="{name}_right" pos="{gx} 0 {SPRING_Z - gz}" size="0.003"/>{extra}
</body>"""


def track_parts() -> tuple[Part, ...]:
    """Every part of the coupled oscillators' air track, in the card's order."""
    return (
        Part(
            "air_track",
            "a level air track along the bench with an end post at each end; the gliders ride it without "
            "friction",
            restore="fixed",
        ),
        Part(
            "springs",
            "three springs in a line: left post to glider_a, glider_a to glider_b, glider_b to right post",
            restore="fixed",
        ),
        *(
            Part(
                name,
                f"a glider on the track with a handle on top; it can move {100 * TRAVEL_M:.0f} cm either way "
                "from its rest before a stop",
                restore="any",
            )
            for name in GLIDERS
        ),
        Part(
            "position_sensor",
            "reads each glider's position along the track from its zero near the left post, in mm (shown on "
            f"the meter box's LCDs {LOG_HZ:g} times a second)",
            restore="fixed",
        ),
        Part(
            "log_key",
            "a key on the meter box's top: starts and stops the logger, which records both gliders' "
            f"positions {LOG_HZ:g} times a second",
            restore="any",
        ),
    )


class GliderTrack(FacedPlatform):
    """Two gliders on the air track and the LOG key: ``state`` (x_1, x_2, v_1, v_2), each glider's
    displacement from where its body stands (its joint's zero) and its velocity, is written into the
    joints each step the robot touches neither glider (:meth:`write_joints`) and read from them while it
    touches either (:meth:`joint_state`)."""

    gliders: ClassVar[tuple[str, str]]

    def __init__(self) -> None:
        self.state = [0.0, 0.0, 0.0, 0.0]
        self.touched = False
        """Whether the robot touches either glider (the engine moves them)."""
        self.logging = False
        self._log_key = PressEdge()
        self._ids: dict[str, int] = {}
        self._glider_geoms: frozenset[int] = frozenset()

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._ids = {"key_log": int(model.joint("key_log").qposadr[0])}
        for name in self.gliders:
            joint = model.joint(name)
            self._ids[f"{name}_q"] = int(joint.qposadr[0])
            self._ids[f"{name}_v"] = int(joint.dofadr[0])
        self._contacts = ContactWatch(model)
        self._glider_geoms = self._contacts.geoms_of_bodies(*self.gliders)
        self.write_joints(data)

    def write_joints(self, data: mujoco.MjData) -> None:
        """``state`` into the gliders' joints."""
        for i, name in enumerate(self.gliders):
            data.qpos[self._ids[f"{name}_q"]] = self.state[i]
            data.qvel[self._ids[f"{name}_v"]] = self.state[2 + i]

    def joint_state(self, data: mujoco.MjData) -> list[float]:
        """The gliders' state as the engine left it."""
        return [float(data.qpos[self._ids[f"{n}_q"]]) for n in self.gliders] + [
            float(data.qvel[self._ids[f"{n}_v"]]) for n in self.gliders
        ]

    def watch_controls(self, data: mujoco.MjData) -> None:
        """Toggle the logger on a press of LOG; note whether the robot touches a glider."""
        if self._log_key.pressed(-float(data.qpos[self._ids["key_log"]])):
            self.logging = not self.logging
        self.touched = not self._glider_geoms.isdisjoint(self._contacts.touched(data))

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()


class AirTrack(GliderTrack):
    """The coupled oscillators' air track of one instance: ``motion`` the gliders' exact law (its masses
    those of the gliders with their handles), ``zeros`` each position sensor's zero (m along x)."""

    face_centres = FACE_CENTRES
    gliders = GLIDERS

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "air_track": ("track", "post_left", "post_right"),
        "springs": ("spring",),
        "position_sensor": ("sensor_head", "position_a_lcd", "position_b_lcd"),
        "log_key": ("key_log",),
    }

    def __init__(self, motion: CoupledGliders, zeros: tuple[float, float]) -> None:
        super().__init__()
        self.motion = motion
        self.zeros = zeros

    # --- MJCF ---
    def bodies_xml(self) -> str:
        z = TABLE_TOP_Z
        half = (TRACK_ENDS[1] - TRACK_ENDS[0]) / 2
        sensor_head = f"""
  <geom name="sensor_head" type="box" size="0.008 0.02 0.015" pos="{-half + 0.008:.4f} -0.045 0"
        rgba="0.2 0.22 0.26 1" contype="0" conaffinity="0" mass="0"/>"""
        gliders = "\n".join(
            glider_xml(name, x, mass, joint=f' stiffness="{stiffness!r}" damping="{damping!r}"')
            for name, x, mass, stiffness, damping in zip(
                GLIDERS,
                REST_X,
                (self.motion.mass_a, self.motion.mass_b),
                (self.motion.k1, self.motion.k2),
                (self.motion.damping_a, self.motion.damping_b),
                strict=True,
            )
        )
        faces = "\n".join(face.geom_xml(" ".join(map(str, FACE_CENTRES[face.texture]))) for face in FACES)
        mx, my = METER_BOX
        return f"""{track_xml(sensor_head)}
{gliders}
<body name="meter_box" pos="{mx} {my} {z}">
  <geom name="meter_box" type="box" size="{" ".join(map(str, METER_HALF))}" pos="0 0 {METER_HALF[2]}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{faces}
</body>
{key_xml("log", LOG_KEY[0], LOG_KEY[1], z + 2 * METER_HALF[2], "0.2 0.6 0.3 1")}"""

    def sections_xml(self) -> str:
        pairs = [("key_log", "meter_box"), *((name, "track") for name in GLIDERS)]
        excluded = "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs)
        springs = "".join(
            f'<spatial name="spring_{i}" width="0.004" rgba="0.2 0.2 0.22 1">'
            f'<site site="{a}"/><site site="{b}"/></spatial>'
            for i, (a, b) in enumerate(
                (
                    ("hook_left", "glider_a_left"),
                    ("glider_a_right", "glider_b_left"),
                    ("glider_b_right", "hook_right"),
                )
            )
        )
        coupling = (
            f'<fixed name="coupling" stiffness="{self.motion.kc!r}">'
            '<joint joint="glider_b" coef="1"/><joint joint="glider_a" coef="-1"/></fixed>'
        )
        return f"<contact>{excluded}</contact><tendon>{springs}{coupling}</tendon>"

    # --- state ---
    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.watch_controls(data)
        exact = None if self.touched else self.motion.step(self.state)
        if exact is None or max(abs(exact[0]), abs(exact[1])) > TRAVEL_M:
            # the engine moves them (touched, or a glider at its stop); the exact law takes over from there
            self.state = self.joint_state(data)
            return
        self.state = exact
        self.write_joints(data)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The track's ends along x, its y and the top of its rail, each glider's rest (x), how far a glider
        can move either way, a glider's half size and its handle's top above the track, each LCD's window
        (centre, width and height) and the LOG key (its centre and the top of its cap)."""
        return published(
            {
                "track_ends": list(TRACK_ENDS),
                "track_y": [TRACK_Y],
                "track_top": [TRACK_TOP_Z],
                "glider_rest": list(REST_X),
                "glider_travel": [TRAVEL_M],
                "glider_half": list(GLIDER_HALF),
                "glider_handle_top": [2 * GLIDER_HALF[2] + 2 * HANDLE_HALF],
                **front_windows(FACES, FACE_CENTRES),
                "log_key": [*LOG_KEY, key_top(TABLE_TOP_Z + 2 * METER_HALF[2])],
            }
        )

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def instruments(self) -> list[InstrumentSpec]:
        return list(POSITIONS)

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, tuple(p.name for p in POSITIONS), LOG_HZ)]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {
            spec.name: 1000.0 * (rest + x - zero)
            for spec, rest, x, zero in zip(POSITIONS, REST_X, self.state[:2], self.zeros, strict=True)
        }
