"""The spring launcher (#14): a spring gun on the bench throws a steel ball from a cup at its muzzle, its
barrel set at a printed elevation, along a sand tray towards the far end of the bench. A latch lever on the
gun's side, slid along its slot, catches the spring at one of the notches 1..N, each compressing it by a
printed amount; the FIRE key on the console beside it releases the spring when the latch sits in a notch
and the ball is in the cup. A landing strip under the sand reads where the ball lands, and the console's
RANGE LCD shows the last landing's distance (mm, along the tray from the point under the muzzle's cup to
the ball's centre); its NOTCH LCD shows the notch the latch sits in (0 between notches).

The ball's flight is :mod:`..physics.launcher`'s closed-form parabola from the moment of release, written into
its free joint each physics step while the robot does not touch it; while the robot touches it, the physics
engine moves it, and when the robot lets go its flight goes on in closed form from where and how fast it was
left. It comes to rest where it lands (the sand holds it) and after :data:`RETURN_S` the tray's return chute
puts it back in the cup (the return is not drawn: the ball reappears in the cup), unless the robot holds it.
The cup holds a loaded ball still until the robot takes it; a ball the robot puts back within
:data:`CUP_CATCH_M` of the cup is loaded again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.physics.launcher import Flight, direction, muzzle_speed_squared
from actloop.suites.lab.platforms.base import ReadingSite, published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    console_xml,
    front_windows,
    upright_reading_sites,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch

ELEVATION_DEG = 35.0
"""The barrel's elevation (printed)."""
COMPRESSIONS_MM = (8.0, 12.0, 16.0, 20.0, 24.0, 28.0)
"""How far notches 1..N compress the spring (mm, printed)."""
NOTCH_PITCH = 0.015
"""The latch's travel from one notch to the next along its slot (m)."""
NOTCH_CATCH = 0.006
"""The latch's pawl drops into a notch within this distance of it once the robot lets go of the knob (the
latch then sits exactly in the notch); farther from every notch it sits between notches."""
BALL_RADIUS = 0.0085
BALL_KG = 0.0202
"""A steel ball of 17 mm (printed mass)."""
LAUNCHER = (0.36, 0.12)
"""The gun's base centre (x, y); it fires towards −x, along y = LAUNCHER[1]."""
MUZZLE = (0.27, LAUNCHER[1], TABLE_TOP_Z + 0.14)
"""The ball's centre in the cup (x, y, z): where every shot starts."""
SAND_Z = TABLE_TOP_Z + 0.02
"""The sand's surface: a ball lands when its centre comes down to SAND_Z + BALL_RADIUS."""
LAND_Z = SAND_Z + BALL_RADIUS
TRAY_X = (-0.70, 0.25)
"""The sand tray's ends along the bench."""
TRAY_HALF_Y = 0.06
LATCH_Y = LAUNCHER[1] - 0.045
"""The latch's slot runs along the gun's side facing the robot."""
LATCH_X0 = 0.33
"""The latch knob's centre at notch 1; notch n is (n − 1)·NOTCH_PITCH further along +x."""
LATCH_Z = TABLE_TOP_Z + 0.085
KNOB_HALF = (0.008, 0.012, 0.014)
RETURN_S = 1.0
"""How long a landed ball rests in the sand before the return chute puts it back in the cup."""
CUP_CATCH_M = 0.01
CONSOLE = (0.42, -0.12)
CONSOLE_HALF = (0.06, 0.03, 0.14)
FIRE_KEY = (CONSOLE[0] + 0.025, CONSOLE[1])
RANGE = InstrumentSpec(
    "range", "mm", DigitalDisplay(digits=4, decimals=0, min_digit_px=12.0), refresh_hz=10.0, noise_sd=0.6
)
NOTCH = InstrumentSpec("notch", "", DigitalDisplay(digits=1, decimals=0, min_digit_px=12.0), refresh_hz=10.0)
FACES = (DisplayFace.of("range_lcd", RANGE, 0.06, 0.022), DisplayFace.of("notch_lcd", NOTCH, 0.015, 0.022))
FACE_CENTRES = {
    "range_lcd": (CONSOLE[0] - 0.02, CONSOLE[1] - CONSOLE_HALF[1] - 0.001, TABLE_TOP_Z + 0.24),
    "notch_lcd": (CONSOLE[0] + 0.038, CONSOLE[1] - CONSOLE_HALF[1] - 0.001, TABLE_TOP_Z + 0.24),
}
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'
LAUNCHER_BODIES = ("launcher", "latch")


def notch_position(n: int) -> float:
    """The latch joint's position at notch ``n`` (m along its slot from notch 1)."""
    return (n - 1) * NOTCH_PITCH


def notch_at(position: float) -> int:
    """The notch the latch sits in at ``position`` (0: between notches)."""
    n = round(position / NOTCH_PITCH) + 1
    return n if 1 <= n <= len(COMPRESSIONS_MM) and abs(position - notch_position(n)) <= NOTCH_CATCH else 0


def launcher_parts() -> tuple[Part, ...]:
    """Every part of the spring launcher, in the card's order."""
    notches = ", ".join(f"{n}: {x:g} mm" for n, x in enumerate(COMPRESSIONS_MM, 1))
    return (
        Part(
            "launcher",
            f"a spring gun whose barrel is set at {ELEVATION_DEG:g} degrees above the horizontal; it fires "
            "the ball from the cup at its muzzle along the sand tray, away from its base",
            restore="fixed",
        ),
        Part(
            "latch",
            f"the latch lever's knob in the slot on the gun's side, slid along the slot to a notch; notch 1 "
            f"nearest the muzzle, each {1000 * NOTCH_PITCH:g} mm further back; the notches compress the "
            f"spring by {notches}",
            restore="any",
        ),
        Part(
            "ball",
            f"a steel ball of {2000 * BALL_RADIUS:g} mm and {1000 * BALL_KG:g} g, loaded in the cup at the "
            f"muzzle; after a shot it rests where it landed and the tray's return chute puts it back in the "
            f"cup {RETURN_S:g} s later (unless the robot holds it)",
            restore="place",
        ),
        Part(
            "tray",
            "a sand tray along the line of fire with a landing strip under the sand that reads where the "
            "ball lands",
            restore="fixed",
        ),
        Part(
            "console",
            "shows the landing strip's RANGE LCD (the last landing's distance along the tray, in mm, from "
            "the point under the centre of the ball in the cup to where the ball's centre came down) and the "
            "NOTCH LCD (the notch the latch sits in; 0 between notches)",
            restore="fixed",
        ),
        Part(
            "fire",
            "the FIRE key on the console's top: releases the spring when the latch sits in a notch and the "
            "ball is in the cup",
            restore="any",
        ),
    )


@dataclass
class Shot:
    """One shot: fired at ``fired_s`` from ``notch``; ``disturbed`` when the robot touched the ball or the
    launcher before it landed; ``range_m`` along the tray from under the cup, set when it lands."""

    notch: int
    fired_s: float
    disturbed: bool = False
    landed_s: float | None = None
    range_m: float = 0.0

    @property
    def complete(self) -> bool:
        """Landed with the robot touching neither the ball nor the launcher from firing to landing."""
        return self.landed_s is not None and not self.disturbed


class SpringLauncher(FacedPlatform):
    """The spring launcher of one instance: its spring's ``spring_k`` (N/m), the piston's ``piston_kg`` moving
    with the ball and the barrel's dry ``friction_n`` (N)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "launcher": ("launcher",),
        "latch": ("latch",),
        "ball": ("ball",),
        "tray": ("tray",),
        "console": ("console", *(face.texture for face in FACES)),
        "fire": ("key_fire",),
    }

    def __init__(self, spring_k: float, piston_kg: float, friction_n: float) -> None:
        self.spring_k = spring_k
        self.piston_kg = piston_kg
        self.friction_n = friction_n
        self.elevation = math.radians(ELEVATION_DEG)
        self.state = "loaded"
        """loaded (in the cup), flight (closed form), held (the engine's, the robot touching it), resting."""
        self.flight: Flight | None = None
        self.rest_since = 0.0
        self.rest_at = MUZZLE
        self.shots: list[Shot] = []
        self.launcher_touched = False
        self.ball_touched = False
        self._fire = PressEdge()
        self._steps = 0
        self._ids: dict[str, int] = {}

    # --- physics ---
    def muzzle_speed(self, notch: int) -> float:
        """The ball's speed leaving the muzzle from ``notch`` (m/s)."""
        v2 = muzzle_speed_squared(
            COMPRESSIONS_MM[notch - 1] / 1000,
            self.spring_k,
            BALL_KG,
            self.piston_kg,
            self.friction_n,
            self.elevation,
        )
        return math.sqrt(v2)

    def launch(self, notch: int, time_s: float) -> Flight:
        """The flight of a shot from ``notch`` fired at ``time_s``."""
        v = self.muzzle_speed(notch)
        cos_e, sin_e = direction(self.elevation)
        velocity = (-v * cos_e, 0.0, v * sin_e)
        return Flight(time_s, MUZZLE, velocity, LAND_Z)

    def fire(self, notch: int, time_s: float) -> bool:
        """Fire from ``notch`` when the ball is loaded; whether it went."""
        if self.state != "loaded" or notch == 0:
            return False
        self.flight = self.launch(notch, time_s)
        self.state = "flight"
        self.shots.append(Shot(notch, time_s))
        return True

    @property
    def now(self) -> float:
        return self._steps * DT

    # --- MJCF ---
    def bodies_xml(self) -> str:
        z = TABLE_TOP_Z
        lx, ly = LAUNCHER
        mx, _, mz = MUZZLE
        barrel_len = 0.16
        cos_e, sin_e = direction(self.elevation)
        bx = mx + barrel_len / 2 * cos_e - lx
        bz = mz - z - BALL_RADIUS - 0.006 - barrel_len / 2 * sin_e
        tray_len = (TRAY_X[1] - TRAY_X[0]) / 2
        tray_cx = (TRAY_X[0] + TRAY_X[1]) / 2
        ticks = "\n".join(
            f'  <geom name="tray_tick_{i}" type="box" size="0.001 {TRAY_HALF_Y - 0.005} 0.0005" '
            f'pos="{mx - 0.1 * i - tray_cx:.4f} 0 {SAND_Z - z + 0.0005:.4f}" rgba="0.2 0.2 0.2 1" '
            f'contype="0" conaffinity="0" mass="0"/>'
            for i in range(1, 10)
        )
        notch_marks = "\n".join(
            f'  <geom name="notch_mark_{n}" type="box" size="0.001 0.0005 0.006" '
            f'pos="{LATCH_X0 + notch_position(n) - lx:.4f} {LATCH_Y - ly - KNOB_HALF[1] + 0.003:.4f} '
            f'{LATCH_Z - z + KNOB_HALF[2] + 0.01:.4f}" rgba="0.95 0.95 0.9 1" contype="0" conaffinity="0" '
            f'mass="0"/>'
            for n in range(1, len(COMPRESSIONS_MM) + 1)
        )
        console = console_xml((*CONSOLE, z), CONSOLE_HALF, FACES, FACE_CENTRES)
        fire = key_xml("fire", *FIRE_KEY, z + 2 * CONSOLE_HALF[2], "0.85 0.15 0.1 1")
        plate_y = LATCH_Y - ly + KNOB_HALF[1] + 0.004
        slot_half = (notch_position(len(COMPRESSIONS_MM)) + 0.03) / 2
        return f"""
<body name="launcher" pos="{lx} {ly} {z}">
  <geom name="launcher" type="box" size="0.07 0.04 0.035" pos="0 0 0.035" rgba="0.3 0.34 0.4 1"
        {WORLD_GEOM}/>
  <geom name="launcher_plate" type="box" size="{slot_half:.4f} 0.004 0.03"
        pos="{LATCH_X0 + slot_half - 0.015 - lx:.4f} {plate_y:.4f} {LATCH_Z - z:.4f}"
        rgba="0.35 0.38 0.42 1" {WORLD_GEOM}/>
  <geom name="launcher_barrel" type="capsule" size="0.014 {barrel_len / 2:.4f}" pos="{bx:.4f} 0 {bz:.4f}"
        euler="0 {math.radians(ELEVATION_DEG - 90):.6f} 0" rgba="0.55 0.57 0.6 1" {WORLD_GEOM}/>
  <geom name="launcher_cup" type="cylinder" size="0.012 0.003"
        pos="{mx - lx:.4f} 0 {mz - z - BALL_RADIUS - 0.003:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
{notch_marks}
</body>
<body name="latch" pos="{LATCH_X0} {LATCH_Y} {LATCH_Z}">
  <joint name="latch" type="slide" axis="1 0 0" range="-0.004 {notch_position(len(COMPRESSIONS_MM)) + 0.004}"
         damping="4" frictionloss="2"/>
  <geom name="latch" type="box" size="{" ".join(map(str, KNOB_HALF))}" mass="0.05" rgba="0.9 0.55 0.1 1"
        {GRIP_CONTACT} {WORLD_GEOM}/>
</body>
<body name="tray" pos="{tray_cx} {ly} {z}">
  <geom name="tray" type="box" size="{tray_len:.4f} {TRAY_HALF_Y} {(SAND_Z - z) / 2:.4f}"
        pos="0 0 {(SAND_Z - z) / 2:.4f}" rgba="0.86 0.78 0.55 1" {WORLD_GEOM}/>
{ticks}
</body>
<body name="ball" pos="{mx} {MUZZLE[1]} {mz}">
  <freejoint name="ball"/>
  <geom name="ball" type="sphere" size="{BALL_RADIUS}" mass="{BALL_KG}" rgba="0.75 0.76 0.8 1"
        {GRIP_CONTACT} {WORLD_GEOM}/>
</body>
{console}
{fire}"""

    def sections_xml(self) -> str:
        pairs = [("key_fire", "console"), ("latch", "launcher"), ("ball", "launcher"), ("ball", "tray")]
        excluded = "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs)
        return f"<contact>{excluded}</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        joint = model.joint("ball")
        self._ids["ball_q"], self._ids["ball_v"] = int(joint.qposadr[0]), int(joint.dofadr[0])
        latch = model.joint("latch")
        self._ids["latch"], self._ids["latch_v"] = int(latch.qposadr[0]), int(latch.dofadr[0])
        self._ids["fire"] = int(model.joint("key_fire").qposadr[0])
        self._contacts = ContactWatch(model)
        self._ball_geoms = self._contacts.geoms_of_bodies("ball")
        self._launcher_geoms = self._contacts.geoms_of_bodies(*LAUNCHER_BODIES)
        self._latch_geoms = self._contacts.geoms_of_bodies("latch")

    def notch(self, data: mujoco.MjData) -> int:
        """The notch the latch sits in (0: between notches)."""
        return notch_at(float(data.qpos[self._ids["latch"]]))

    def set_latch(self, data: mujoco.MjData, notch: int) -> None:
        """Put the latch at ``notch`` (the evaluator's continuation run sets it so)."""
        data.qpos[self._ids["latch"]] = notch_position(notch)
        data.qvel[self._ids["latch_v"]] = 0.0

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Fire when the FIRE key goes down; move the ball (in closed form unless the robot touches it); land
        and return it."""
        self._steps += 1
        now = self.now
        touched = self._contacts.touched(data)
        self.ball_touched = not self._ball_geoms.isdisjoint(touched)
        self.launcher_touched = not self._launcher_geoms.isdisjoint(touched)
        if self._latch_geoms.isdisjoint(touched) and (notch := self.notch(data)):
            self.set_latch(data, notch)
        if self._fire.pressed(-float(data.qpos[self._ids["fire"]])):
            self.fire(self.notch(data), now)
        shot = self.shots[-1] if self.shots else None
        if shot is not None and shot.landed_s is None and (self.ball_touched or self.launcher_touched):
            shot.disturbed = True
        q, v = self._ids["ball_q"], self._ids["ball_v"]
        if self.ball_touched:
            self.state, self.flight = "held", None
            return
        if self.state == "held":
            self._let_go(data, now)
        if self.state == "flight" and self.flight is not None:
            position, velocity = self.flight.at(now)
            if self.flight.landed(now):
                self._land(now)
        elif self.state == "resting" and now - self.rest_since >= RETURN_S - 1e-9:
            self.state = "loaded"
        if self.state == "loaded":
            position, velocity = MUZZLE, (0.0, 0.0, 0.0)
        elif self.state == "resting":
            position, velocity = self.rest_at, (0.0, 0.0, 0.0)
        data.qpos[q : q + 3] = position
        data.qpos[q + 3 : q + 7] = (1.0, 0.0, 0.0, 0.0)
        data.qvel[v : v + 3] = velocity
        data.qvel[v + 3 : v + 6] = 0.0

    def _let_go(self, data: mujoco.MjData, now: float) -> None:
        """The robot let go of the ball: back in the cup when it is there, else its flight from here."""
        q, v = self._ids["ball_q"], self._ids["ball_v"]
        position = tuple(float(x) for x in data.qpos[q : q + 3])
        if math.dist(position, MUZZLE) <= CUP_CATCH_M:
            self.state = "loaded"
            return
        velocity = tuple(float(x) for x in data.qvel[v : v + 3])
        self.flight = Flight(now, position, velocity, LAND_Z)  # type: ignore[arg-type]
        self.state = "flight"

    def _land(self, now: float) -> None:
        assert self.flight is not None
        self.state, self.rest_since, self.rest_at = "resting", now, self.flight.landing
        shot = self.shots[-1] if self.shots else None
        if shot is not None and shot.landed_s is None:
            shot.landed_s = self.flight.t0 + self.flight.duration
            shot.range_m = MUZZLE[0] - self.flight.landing[0]
        self.flight = None

    def last_landed(self) -> Shot | None:
        """The last shot that landed (the one the RANGE LCD shows)."""
        return next((s for s in reversed(self.shots) if s.landed_s is not None), None)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The ball's centre in the cup (the muzzle), the sand's surface height, the latch knob's centre at
        each notch and its half sizes, the FIRE key (its centre and the top of its cap) and each LCD's window
        (centre, width and height)."""
        notches = {
            f"latch_notch_{n}": [LATCH_X0 + notch_position(n), LATCH_Y, LATCH_Z]
            for n in range(1, len(COMPRESSIONS_MM) + 1)
        }
        return published(
            {
                "muzzle": list(MUZZLE),
                "sand_z": [SAND_Z],
                **notches,
                "latch_half": list(KNOB_HALF),
                "fire": [*FIRE_KEY, key_top(TABLE_TOP_Z + 2 * CONSOLE_HALF[2])],
                **front_windows(FACES, FACE_CENTRES),
            }
        )

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        return upright_reading_sites(FACES, FACE_CENTRES)

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def instruments(self) -> list[InstrumentSpec]:
        return [RANGE, NOTCH]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        shot = self.last_landed()
        return {"range": 1000 * shot.range_m if shot else 0.0, "notch": float(self.notch(data))}
