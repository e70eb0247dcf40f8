"""The pendulum frame (#2): three pendulums P1–P3 of printed lengths hang from clamps on a frame, each a
brass bob on a V of thin string so it swings in one plane, towards and away from the robot. A light gate
straddles each bob's lowest point, and a timer console shows each gate's timer on an LCD, with a START key
per timer on its top.

A timer's START key clears it and arms it; the next time the bob's centre crosses its gate's beam the timer
starts, and it stops at the crossing that completes :data:`PERIODS` periods (twice that many crossings
later), holding the elapsed time on its LCD, in seconds to the millisecond. Crossings are timed between
physics steps, by interpolating the angle linearly to the beam (the bob crosses it at its fastest, where
the swing's curvature makes an error below a microsecond).

While the robot touches neither a bob nor its string, its pendulum swings as :mod:`..physics.pendulum`
steps it (at any amplitude, in pure Python), written into its hinge each physics step; while the robot
touches it, the physics engine swings it, with the same inertia, gravity and damping. The bench's gravity is
the instance's: the engine's own gravity is set to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.physics.pendulum import Pendulum
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    console_xml,
    front_windows,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch

LENGTHS = (0.30, 0.45, 0.60)
"""P1–P3's printed lengths (m): from the clamp's jaws to the top of the bob."""
PENDULUM_X = (-0.12, 0.04, 0.20)
BOB_Y = -0.05
"""The plane the pendulums hang in (their pivots and bobs at rest)."""
BOB_Z = TABLE_TOP_Z + 0.17
NOMINAL_OFFSET = 0.025
"""Each clamp's jaws stand LENGTHS[i] + NOMINAL_OFFSET above BOB_Z; the bob's centre hangs the printed
length plus the instance's hidden offset below them, so within a few millimetres of BOB_Z."""
BOB_RADIUS = 0.0125
BOB_KG = 0.07
STRING_SPREAD = 0.02
"""The V's strings leave the clamp this far either side of the pivot."""
GATE_HALF_WIDTH = 0.07
"""The gate's arms stand this far either side of the bob's path (clear of open fingers round the bob)."""
BEAM_Z = BOB_Z - 0.006
"""The gates' beams cross the bobs' paths here (through a bob's lower half)."""
FRAME_TOP_Z = BOB_Z + max(LENGTHS) + NOMINAL_OFFSET + 0.03
FRAME_X = (PENDULUM_X[0] - 0.12, PENDULUM_X[-1] + 0.12)
FRAME_Y = BOB_Y + 0.15
"""The frame's posts and beam stand behind the pendulums, out of the arm's way; each clamp hangs from the
beam on a rod and reaches forward on an arm."""
CONSOLE = (0.45, 0.02)
CONSOLE_HALF = (0.075, 0.03, 0.11)
START_KEYS = tuple((CONSOLE[0] + dx, CONSOLE[1]) for dx in (-0.045, 0.0, 0.045))
PERIODS = 10
"""A timing runs over this many periods."""
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'
TIMERS = tuple(
    InstrumentSpec(
        f"timer_{i}", "s", DigitalDisplay(digits=5, decimals=3, min_digit_px=12.0), refresh_hz=240.0
    )
    for i in range(1, len(LENGTHS) + 1)
)
FACES = tuple(DisplayFace.of(f"{spec.name}_lcd", spec, 0.075, 0.022) for spec in TIMERS)
FACE_CENTRES = {
    face.texture: (CONSOLE[0] - 0.01, CONSOLE[1] - CONSOLE_HALF[1] - 0.001, TABLE_TOP_Z + z)
    for face, z in zip(FACES, (0.195, 0.16, 0.125), strict=True)
}


def bench_parts() -> tuple[Part, ...]:
    """Every part of the pendulum frame, in the card's order."""
    pendulums = tuple(
        Part(
            f"bob_{i}",
            f"P{i}'s bob, a brass sphere of {2000 * BOB_RADIUS:g} mm on a V of thin string from its clamp "
            f"(printed length {1000 * length:g} mm, from the clamp's jaws to the top of the bob); it swings "
            "towards and away from the robot",
            restore="any",
        )
        for i, length in enumerate(LENGTHS, 1)
    )
    return (
        Part("frame", "holds the three pendulums' clamps, P1 on the left", restore="fixed"),
        *pendulums,
        *(
            Part(f"gate_{i}", f"a light gate straddling P{i}'s bob at its lowest point", restore="fixed")
            for i in range(1, len(LENGTHS) + 1)
        ),
        Part(
            "timer",
            f"a console whose LCDs (P1 at the top) show each gate's timer in seconds: a timer starts when "
            f"its bob's centre next crosses the gate's beam after its START key is pressed, and stops "
            f"{PERIODS} periods later ({2 * PERIODS} crossings), holding the time",
            restore="fixed",
        ),
        *(
            Part(
                f"start_{i}",
                f"P{i}'s START key on the console's top (P1's on the left): clears and arms it",
                "any",
            )
            for i in range(1, len(LENGTHS) + 1)
        ),
    )


@dataclass
class GateTimer:
    """One gate's timer: armed by its START key, running from the bob's next crossing, stopped after
    :data:`PERIODS` periods. ``disturbed``: the robot touched the pendulum while it ran."""

    state: str = "idle"
    start_s: float = 0.0
    stop_s: float = 0.0
    crossings: int = 0
    disturbed: bool = False

    def arm(self) -> None:
        self.state, self.start_s, self.stop_s, self.crossings, self.disturbed = "armed", 0.0, 0.0, 0, False

    def cross(self, time_s: float) -> None:
        """The bob's centre crossed the beam at ``time_s``."""
        if self.state == "armed":
            self.state, self.start_s = "running", time_s
        elif self.state == "running":
            self.crossings += 1
            if self.crossings == 2 * PERIODS:
                self.state, self.stop_s = "done", time_s

    def elapsed(self, time_s: float) -> float:
        """What the timer shows at ``time_s`` (s)."""
        if self.state == "running":
            return time_s - self.start_s
        return self.stop_s - self.start_s

    @property
    def completed(self) -> bool:
        """Stopped after its periods with the pendulum untouched throughout."""
        return self.state == "done" and not self.disturbed


class PendulumFrame(FacedPlatform):
    """The pendulum frame of one instance: ``gravity`` (m/s²), the bobs' centres ``offset`` (m) further
    below their clamps' jaws than the printed lengths, damped at ``damping_ratio``."""

    face_centres = FACE_CENTRES

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "frame": ("frame", "clamp_1", "clamp_2", "clamp_3"),
        **{f"bob_{i}": (f"bob_{i}",) for i in range(1, len(LENGTHS) + 1)},
        **{f"start_{i}": (f"key_start_{i}",) for i in range(1, len(LENGTHS) + 1)},
        "timer": ("console", *(face.texture for face in FACES)),
    }

    def __init__(self, gravity: float, offset: float, damping_ratio: float) -> None:
        self.gravity = gravity
        self.offset = offset
        self.pendulums = tuple(
            Pendulum(gravity, length + offset, BOB_RADIUS, damping_ratio, DT) for length in LENGTHS
        )
        self.swings = [[0.0, 0.0] for _ in LENGTHS]
        """Each pendulum's (θ, θ'): its angle from the vertical (positive away from the robot) and rate."""
        self.touched = [False for _ in LENGTHS]
        self.timers = [GateTimer() for _ in LENGTHS]
        self._starts = [PressEdge() for _ in LENGTHS]
        self._steps = 0
        self._ids: dict[str, int] = {}
        self._bob_geoms: list[frozenset[int]] = []

    @staticmethod
    def jaws_z(i: int) -> float:
        """Height of pendulum ``i``'s (0-based) clamp's jaws: its pivot."""
        return BOB_Z + LENGTHS[i] + NOMINAL_OFFSET

    # --- MJCF ---
    def bodies_xml(self) -> str:
        z = TABLE_TOP_Z
        left, right = FRAME_X
        post_half = (FRAME_TOP_Z - z) / 2
        pendulums = "\n".join(self._pendulum_xml(i) for i in range(len(LENGTHS)))
        gates = "\n".join(self._gate_xml(i) for i in range(len(LENGTHS)))
        console = console_xml((*CONSOLE, z), CONSOLE_HALF, FACES, FACE_CENTRES)
        keys = "\n".join(
            key_xml(f"start_{i}", x, y, z + 2 * CONSOLE_HALF[2], "0.85 0.2 0.15 1")
            for i, (x, y) in enumerate(START_KEYS, 1)
        )
        return f"""
<body name="frame" pos="0 {FRAME_Y} {z}">
  <geom name="frame_foot_left" type="box" size="0.05 0.08 0.01" pos="{left} 0 0.01" rgba="0.25 0.25 0.28 1"
        {WORLD_GEOM}/>
  <geom name="frame_foot_right" type="box" size="0.05 0.08 0.01" pos="{right} 0 0.01"
        rgba="0.25 0.25 0.28 1" {WORLD_GEOM}/>
  <geom name="frame_post_left" type="box" size="0.01 0.01 {post_half:.4f}" pos="{left} 0 {post_half:.4f}"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="frame_post_right" type="box" size="0.01 0.01 {post_half:.4f}" pos="{right} 0 {post_half:.4f}"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="frame_beam" type="box" size="{(right - left) / 2 + 0.01:.4f} 0.01 0.01"
        pos="{(left + right) / 2:.4f} 0 {FRAME_TOP_Z - z:.4f}" rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
</body>
{pendulums}
{gates}
{console}
{keys}"""

    def _pendulum_xml(self, i: int) -> str:
        n = i + 1
        x, jaws = PENDULUM_X[i], self.jaws_z(i)
        pendulum = self.pendulums[i]
        drop = pendulum.length
        knot = drop - BOB_RADIUS
        inertia = BOB_KG * drop * pendulum.equivalent_length
        damping = 2 * pendulum.damping_ratio * pendulum.omega0 * inertia
        hanger_half = (FRAME_TOP_Z - jaws) / 2
        arm_half = (FRAME_Y - BOB_Y) / 2
        strings = "\n".join(
            f'  <geom name="string_{n}{side}" type="capsule" fromto="{dx} 0 0 0 0 {-knot:.6f}" size="0.0006" '
            f'rgba="0.9 0.9 0.85 1" contype="0" conaffinity="0" mass="0"/>'
            for side, dx in (("a", -STRING_SPREAD), ("b", STRING_SPREAD))
        )
        return f"""<body name="clamp_{n}" pos="{x} {BOB_Y} {jaws!r}">
  <geom name="clamp_{n}" type="box" size="0.03 0.008 0.008" pos="0 0 0.008" rgba="0.2 0.2 0.22 1"
        {WORLD_GEOM}/>
  <geom name="clamp_{n}_arm" type="box" size="0.005 {arm_half:.4f} 0.005" pos="0 {arm_half:.4f} 0.01"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="hanger_{n}" type="box" size="0.005 0.005 {hanger_half:.4f}"
        pos="0 {FRAME_Y - BOB_Y:.4f} {hanger_half:.4f}" rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
</body>
<body name="pendulum_{n}" pos="{x} {BOB_Y} {jaws!r}">
  <joint name="pendulum_{n}" type="hinge" axis="1 0 0" damping="{damping!r}"/>
{strings}
  <geom name="bob_{n}" type="sphere" size="{BOB_RADIUS}" pos="0 0 {-drop!r}" mass="{BOB_KG}"
        rgba="0.78 0.62 0.25 1" {GRIP_CONTACT} {WORLD_GEOM}/>
</body>"""

    def _gate_xml(self, i: int) -> str:
        n = i + 1
        x = PENDULUM_X[i]
        arm_half = (BEAM_Z + 0.006 - TABLE_TOP_Z) / 2
        arms = "\n".join(
            f'  <geom name="gate_{n}_{side}" type="box" size="0.006 0.012 {arm_half:.4f}" '
            f'pos="{dx} 0 {arm_half:.4f}" rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>'
            for side, dx in (("left", -GATE_HALF_WIDTH), ("right", GATE_HALF_WIDTH))
        )
        return f"""<body name="gate_{n}" pos="{x} {BOB_Y} {TABLE_TOP_Z}">
  <geom name="gate_{n}" type="box" size="{GATE_HALF_WIDTH + 0.006} 0.012 0.006" pos="0 0 0.006"
        rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>
{arms}
  <geom name="gate_{n}_beam" type="cylinder" size="0.0008 {GATE_HALF_WIDTH:.4f}"
        pos="0 0 {BEAM_Z - TABLE_TOP_Z:.4f}" euler="0 1.5708 0" rgba="0.9 0.1 0.1 1" contype="0"
        conaffinity="0" mass="0"/>
</body>"""

    def sections_xml(self) -> str:
        pairs = [(f"key_start_{i}", "console") for i in range(1, len(LENGTHS) + 1)]
        pairs += [(f"pendulum_{i}", f"clamp_{i}") for i in range(1, len(LENGTHS) + 1)]
        excluded = "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs)
        return f"<contact>{excluded}</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        model.opt.gravity[:] = (0.0, 0.0, -self.gravity)
        for n in range(1, len(LENGTHS) + 1):
            joint = model.joint(f"pendulum_{n}")
            self._ids[f"q{n}"] = int(joint.qposadr[0])
            self._ids[f"v{n}"] = int(joint.dofadr[0])
            self._ids[f"key{n}"] = int(model.joint(f"key_start_{n}").qposadr[0])
        self._contacts = ContactWatch(model)
        self._bob_geoms = [
            self._contacts.geoms_of_bodies(f"pendulum_{n}") for n in range(1, len(LENGTHS) + 1)
        ]

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Arm the timers whose START key went down; swing each pendulum a step (exactly while untouched);
        time its crossings of the gate's beam."""
        self._steps += 1
        now = self._steps * DT
        touched = self._touched_pendulums(data)
        for i, pendulum in enumerate(self.pendulums):
            n, timer = i + 1, self.timers[i]
            if self._starts[i].pressed(-float(data.qpos[self._ids[f"key{n}"]])):
                timer.arm()
            q, v = self._ids[f"q{n}"], self._ids[f"v{n}"]
            before = self.swings[i][0]
            self.touched[i] = touched[i]
            if self.touched[i]:
                self.swings[i] = [float(data.qpos[q]), float(data.qvel[v])]
                if timer.state == "running":
                    timer.disturbed = True
            else:
                theta, rate = self.swings[i]
                if theta != 0.0 or rate != 0.0:
                    self.swings[i] = list(pendulum.step(theta, rate))
                data.qpos[q], data.qvel[v] = self.swings[i]
            after = self.swings[i][0]
            if (before >= 0.0) != (after >= 0.0):
                timer.cross(now - DT * after / (after - before))

    def _touched_pendulums(self, data: mujoco.MjData) -> list[bool]:
        touched = self._contacts.touched(data)
        return [not geoms.isdisjoint(touched) for geoms in self._bob_geoms]

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """Each clamp's jaws (the pivot, its x, y and height), each bob's nominal rest centre (its height
        within a few millimetres), the bob's diameter, each gate's beam (its centre) and its arms'
        half-spacing, each LCD's window (centre, width and height) and each START key (its centre and the
        top of its cap)."""
        windows = front_windows(FACES, FACE_CENTRES)
        key_z = key_top(TABLE_TOP_Z + 2 * CONSOLE_HALF[2])
        positions: dict[str, list[float]] = {}
        for i, x in enumerate(PENDULUM_X):
            n = i + 1
            positions[f"clamp_{n}"] = [x, BOB_Y, self.jaws_z(i)]
            positions[f"bob_{n}"] = [x, BOB_Y, BOB_Z]
            positions[f"gate_{n}_beam"] = [x, BOB_Y, BEAM_Z]
            positions[f"start_{n}"] = [*START_KEYS[i], key_z]
        return published(
            {
                **positions,
                "bob_diameter": [2 * BOB_RADIUS],
                "gate_half_width": [GATE_HALF_WIDTH],
                **windows,
            }
        )

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def instruments(self) -> list[InstrumentSpec]:
        return list(TIMERS)

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        now = self._steps * DT
        return {spec.name: timer.elapsed(now) for spec, timer in zip(TIMERS, self.timers, strict=True)}
