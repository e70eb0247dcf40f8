"""The cantilever bench (#15): a metal strip clamped at one end, four knife-edge saddles riding on it at
printed distances, steel weights of 50, 100 and 100 g in a rack, and a digital indicator on a carriage that
clicks into holes along a rail under the strip, reading the strip's height on an LCD (mm to 0.001) with a
ZERO cap that sets the reading to zero where it stands.

Mechanics: what presses on the strip is read from the contact forces on its parts every physics step (a
weight on a saddle's plate presses at the saddle's knife edge; anything else at its contact point, shared
between the two nearest of the strip's nodes by the lever rule). The strip's shape is the closed form of
:mod:`..physics.cantilever` under those loads, reached through a first-order lag of :data:`STRIP_LAG_S`
(the strip's damping; a weight's own inertia rides on it through the contacts, so a load set down rings out
in about a second). The strip and its saddles are kinematic bodies drawn from that shape each step. The
strip bows by itself (a hidden bow, rising as the square of the distance from the clamp), and the rail under
it is tilted (a hidden slope), so the unloaded reading differs from hole to hole; the indicator shows the
strip's height over the rail at the carriage plus a hidden offset until ZERO is pressed. The carriage slides
on the rail with viscous drag and snaps into a hole by a detent spring within :data:`DETENT_CAPTURE_M` of
it, where it comes to rest on the hole's centre.
"""

from __future__ import annotations

import itertools
import math
from typing import ClassVar

import mujoco
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.physics.cantilever import Cantilever
from actloop.suites.lab.physics.linear import exp
from actloop.suites.lab.platforms.base import ReadingSite, published, turn_about_y
from actloop.suites.lab.platforms.display import FACE_DEPTH_M, DisplayFace, FacedPlatform
from actloop.suites.lab.platforms.keys import key_top, key_xml, switched
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part

G = 9.81
# --- the strip (world frame, metres; distances along the strip from the clamp's face) ---
CLAMP_X = -0.17
"""The clamp's face: the strip's root."""
STRIP_Y = 0.14
STRIP_BOTTOM_Z = TABLE_TOP_Z + 0.22
"""The unloaded strip's underside at the root."""
STRIP_LENGTH = 0.42
STRIP_HALF_WIDTH = 0.0125
STRIP_THICKNESS = 0.003
NODES = (0.0, 0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, STRIP_LENGTH)
"""The strip's nodes: where loads act on it (a load between two is shared by the lever rule), and the ends of
the segments it is drawn with."""
SADDLES = (0.10, 0.20, 0.30, 0.40)
SADDLE_NODES = tuple(NODES.index(a) for a in SADDLES)
HOLES = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40)
STRIP_LAG_S = 0.15
REDRAW_M = 1e-7
"""The strip's parts are moved once a node has dropped or risen this far since they were last moved."""
PLUNGER_HALF = 0.02
SADDLE_PLATE_HALF = (0.016, 0.016, 0.002)
SADDLE_PLATE_UP = 0.012
"""A saddle plate's centre above the strip's top (its knife edge stands on the strip below it)."""
# --- the weights ---
WEIGHT_MASSES = (0.05, 0.10, 0.10)
WEIGHT_RADIUS = 0.010
STEEL_DENSITY = 7850.0
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'
"""The grip of the fingers on a weight or the carriage's peg: enough friction, and torsional friction, for
100 g carried on a 2 cm cylinder."""
RACK = ((0.24, -0.07), (0.29, -0.11), (0.34, -0.15))
"""The weights' places in the rack, on a diagonal: neither fixed camera sees one behind another."""
# --- the rail and the carriage ---
RAIL_TOP_Z = TABLE_TOP_Z + 0.012
CARRIAGE_RANGE = (0.03, 0.415)
"""How far along the rail the carriage's centre can go, from the clamp."""
BASE_HALF = (0.06, 0.035, 0.01)
BASE_Y = -0.07
SHOE_HALF = (0.012, 0.025, 0.01)
SHOE_Y = -0.01
"""The carriage's shoe rides on the rail under the column; its base reaches out in front of the rail (its
centre this far in y from the strip's), clear of the clamp's post when the carriage is in the first hole."""
COLUMN_TOP_Z = STRIP_BOTTOM_Z - 0.035
HEAD_HALF = (0.036, 0.008, 0.016)
HEAD_CENTRE = (0.0, -0.024, TABLE_TOP_Z + 0.17)
"""The indicator's head on the column (its centre relative to the carriage's x and the strip's y, and its
world height): the LCD is on its front, clear of the strip above and in front of its edge."""
PEG = (-0.035, -0.09)
ZERO_KEY = (0.045, -0.09)
"""The push peg and the ZERO key on the base's top, relative to the carriage's centre and the strip's y: far
enough apart that fingers opened wide around the peg miss the key."""
PEG_RADIUS = 0.005
PEG_HEIGHT = 0.03
CARRIAGE_MASS = 0.15
CARRIAGE_DAMPING = 6.0
"""N·s/m: the carriage's drag on the rail (it stops where it is let go, unless a hole takes it)."""
DETENT_CAPTURE_M = 0.006
DETENT_STIFFNESS = 300.0
START_HOLE = 0.20
INDICATOR = InstrumentSpec(
    "indicator",
    "mm",
    DigitalDisplay(digits=5, decimals=3, min_digit_px=12.0),
    refresh_hz=4.0,
    time_constant_s=0.2,
    noise_sd=0.0004,
    low=-25.0,
    high=25.0,
)
"""The digital indicator: mm to three decimals, ±25 mm of travel."""
FACE = DisplayFace.of("indicator_lcd", INDICATOR, 0.06, 0.02, sign=True)
LABELS_TEXTURE = "rail_labels"
LABEL_HALF = (0.21, 0.0008, 0.008)
"""The printed plate along the rail's front, under the holes: each hole's distance from the clamp in cm."""


def weight_name(i: int) -> str:
    return f"weight_{i}"


def weight_height(mass: float) -> float:
    """The height of a steel weight of ``mass`` kg and radius :data:`WEIGHT_RADIUS`."""
    return mass / (STEEL_DENSITY * math.pi * WEIGHT_RADIUS**2)


def bench_parts() -> tuple[Part, ...]:
    """Every part of the bench, in the card's order."""
    grams = [round(1000 * m) for m in WEIGHT_MASSES]
    return (
        Part("clamp", "holds the strip's root; it turns a little in proportion to the moment on it", "fixed"),
        Part("strip", f"a metal strip sticking out {100 * STRIP_LENGTH:g} cm from the clamp", "fixed"),
        *(
            Part(
                f"saddle_{i}",
                f"a knife-edge saddle on the strip {100 * a:g} cm from the clamp; a weight standing on its "
                "plate presses on the strip at its knife edge",
                "fixed",
            )
            for i, a in enumerate(SADDLES, 1)
        ),
        *(
            Part(weight_name(i), f"a steel weight of {g} g; stands in the rack")
            for i, g in enumerate(grams, 1)
        ),
        Part("rack", "holds the three weights", "fixed"),
        Part(
            "rail",
            f"a rail under the strip with holes at {', '.join(f'{100 * h:g}' for h in HOLES)} cm from the "
            "clamp, each printed with its distance",
            "fixed",
        ),
        Part(
            "carriage",
            "carries the indicator along the rail and clicks into a hole; must stand in a hole at the end",
            "any",
        ),
        Part("carriage_peg", "a peg on the carriage's base to move the carriage by", "any"),
        Part(
            "indicator",
            "its plunger touches the strip's underside; its LCD shows the strip's height in mm to three "
            "decimals",
            "any",
        ),
        Part("zero_cap", "a key on the carriage: pressing it sets the indicator's reading to zero", "any"),
    )


def rail_labels_texture(px_per_cm: int = 40, height_px: int = 72) -> np.ndarray:
    """The plate along the rail: a tick under each hole and its distance from the clamp in cm."""
    left = CLAMP_X + 0.5 * (CARRIAGE_RANGE[0] + CARRIAGE_RANGE[1]) - LABEL_HALF[0]
    width = round(2 * LABEL_HALF[0] * 100 * px_per_cm)
    image = Image.new("RGB", (width, height_px), (226, 224, 214))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=round(0.55 * height_px))
    for hole in HOLES:
        x = round((CLAMP_X + hole - left) * 100 * px_per_cm)
        draw.line([(x, 0), (x, round(0.25 * height_px))], fill=(0, 0, 0), width=3)
        text = f"{100 * hole:g}"
        draw.text(
            (x - draw.textlength(text, font=font) / 2, 0.3 * height_px), text, fill=(0, 0, 0), font=font
        )
    return np.asarray(image)


class CantileverBench(FacedPlatform):
    """The cantilever bench of one instance (see the module docstring)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {"zero_cap": ("key_zero",)}

    def __init__(self, ei: float, k_theta: float, offset_mm: float, tilt: float, bow_m: float) -> None:
        self.strip = Cantilever(ei, k_theta)
        self.zero_mm = offset_mm
        """What the indicator adds to the strip's height over the rail (mm): the hidden offset, then what
        ZERO sets."""
        self.tilt = tilt
        self.bow_m = bow_m
        self.node_loads = [0.0] * len(NODES)
        """The loads on the strip's nodes (N, downward), as the strip has taken them up (lagged)."""
        self._influence = [[self.strip.influence(x, a) for a in NODES] for x in NODES]
        self._lag = 1.0 - exp(-DT / STRIP_LAG_S)
        self._zero_down = False
        self._ids: dict[str, int] = {}
        self._saddle_of: dict[int, int] = {}
        self._strip_geoms: frozenset[int] = frozenset()
        self._force = np.zeros(6)
        self._drawn: list[float] = []
        self._plunger_at = math.nan

    # --- geometry ---
    def bow(self, d: float) -> float:
        """The unloaded strip's rise at ``d`` from the clamp (m)."""
        u = d / STRIP_LENGTH
        return self.bow_m * u * u

    def deflection(self, d: float) -> float:
        """How far the strip has dropped at ``d`` under the loads it has taken up (m)."""
        return self.strip.deflection(d, [(p, a) for p, a in zip(self.node_loads, NODES, strict=True) if p])

    def node_deflections(self) -> list[float]:
        """How far the strip has dropped at each node (m)."""
        loaded = [(p, k) for k, p in enumerate(self.node_loads) if p]
        return [sum(p * row[k] for p, k in loaded) for row in self._influence]

    def strip_height_mm(self, d: float) -> float:
        """The strip's height over the rail at ``d`` relative to the unloaded, untilted root (mm)."""
        return 1000.0 * (self.bow(d) - self.deflection(d) - self.tilt * d)

    # --- MJCF (the strip's parts drawn straight; :meth:`attach` draws them to its shape) ---
    def bodies_xml(self) -> str:
        middle = STRIP_BOTTOM_Z + STRIP_THICKNESS / 2
        segments = "\n".join(
            f"""<body name="strip_{k}" mocap="true" pos="{CLAMP_X + (a + b) / 2!r} {STRIP_Y} {middle!r}">
  <geom name="strip_{k}" type="box" size="{(b - a) / 2 + 0.0005!r} {STRIP_HALF_WIDTH} {STRIP_THICKNESS / 2}"
        rgba="0.72 0.74 0.78 1" {WORLD_GEOM}/>
</body>"""
            for k, (a, b) in enumerate(itertools.pairwise(NODES))
        )
        saddles = "\n".join(self._saddle_xml(i, a) for i, a in enumerate(SADDLES, 1))
        weights = "\n".join(self._weight_xml(i) for i in range(1, len(WEIGHT_MASSES) + 1))
        clamp_height = STRIP_BOTTOM_Z + 0.02 - TABLE_TOP_Z
        jaw_z = STRIP_BOTTOM_Z + STRIP_THICKNESS + 0.006 - TABLE_TOP_Z
        rail_half = (CARRIAGE_RANGE[1] - CARRIAGE_RANGE[0]) / 2 + 0.03
        rail_x = CLAMP_X + (CARRIAGE_RANGE[0] + CARRIAGE_RANGE[1]) / 2
        holes = "\n".join(
            f'  <geom name="rail_hole_{k}" type="cylinder" size="0.003 0.0002" pos="{CLAMP_X + h - rail_x!r} '
            f'0 {RAIL_TOP_Z - TABLE_TOP_Z:.4f}" rgba="0.05 0.05 0.05 1" contype="0" conaffinity="0"/>'
            for k, h in enumerate(HOLES)
        )
        pads = "\n".join(
            f'  <geom name="rack_pad_{i}" type="cylinder" size="0.018 0.0008" pos="{x - RACK[1][0]!r} '
            f'{y - RACK[1][1]!r} 0.0008" rgba="0.35 0.22 0.12 1" contype="0" conaffinity="0"/>'
            for i, (x, y) in enumerate(RACK, 1)
        )
        return f"""
<body name="clamp" pos="{CLAMP_X - 0.03} {STRIP_Y} {TABLE_TOP_Z}">
  <geom name="clamp_post" type="box" size="0.03 0.03 {clamp_height / 2:.4f}" pos="0 0 {clamp_height / 2:.4f}"
        rgba="0.25 0.27 0.3 1" {WORLD_GEOM}/>
  <geom name="clamp_jaw" type="box" size="0.032 0.022 0.006" pos="0 0 {jaw_z:.4f}"
        rgba="0.35 0.37 0.4 1" {WORLD_GEOM}/>
</body>
{segments}
{saddles}
<body name="rail" pos="{rail_x!r} {STRIP_Y} {TABLE_TOP_Z}">
  <geom name="rail_bar" type="box" size="{rail_half:.4f} 0.012 {(RAIL_TOP_Z - TABLE_TOP_Z) / 2:.4f}"
        pos="0 0 {(RAIL_TOP_Z - TABLE_TOP_Z) / 2:.4f}" rgba="0.45 0.46 0.5 1" {WORLD_GEOM}/>
{holes}
  <geom name="rail_labels" type="box" size="{LABEL_HALF[0]} {LABEL_HALF[1]} {LABEL_HALF[2]}"
        pos="0 {BASE_Y - BASE_HALF[1] - 0.006:.4f} {LABEL_HALF[2]}" euler="-0.6 0 0"
        material="rail_labels_mat"
        contype="0" conaffinity="0"/>
</body>
{self._carriage_xml()}
<body name="indicator_plunger" mocap="true"
      pos="{CLAMP_X + START_HOLE!r} {STRIP_Y} {STRIP_BOTTOM_Z - PLUNGER_HALF!r}">
  <geom name="indicator_plunger" type="cylinder" size="0.002 {PLUNGER_HALF}" rgba="0.8 0.8 0.82 1" contype="0"
        conaffinity="0"/>
</body>
<body name="rack" pos="{RACK[1][0]!r} {RACK[1][1]!r} {TABLE_TOP_Z}">
{pads}
</body>
{weights}"""

    def _top(self, d: float) -> float:
        """The unloaded strip's top at ``d`` from the clamp (world z)."""
        return STRIP_BOTTOM_Z + STRIP_THICKNESS + self.bow(d)

    def _saddle_xml(self, i: int, a: float) -> str:
        plate_z = STRIP_BOTTOM_Z + STRIP_THICKNESS + SADDLE_PLATE_UP  # drawn to the strip's shape on attach
        hx, hy, hz = SADDLE_PLATE_HALF
        knife = (SADDLE_PLATE_UP - hz) / 2
        return f"""<body name="saddle_{i}" mocap="true" pos="{CLAMP_X + a!r} {STRIP_Y} {plate_z!r}">
  <geom name="saddle_{i}_plate" type="box" size="{hx} {hy} {hz}" rgba="0.55 0.42 0.2 1" {WORLD_GEOM}/>
  <geom name="saddle_{i}_knife" type="box" size="0.0015 {STRIP_HALF_WIDTH + 0.002} {knife!r}"
        pos="0 0 {-hz - knife!r}" rgba="0.4 0.3 0.15 1" {WORLD_GEOM}/>
</body>"""

    def _carriage_xml(self) -> str:
        base_z = RAIL_TOP_Z + BASE_HALF[2]
        column_half = (COLUMN_TOP_Z - base_z - BASE_HALF[2]) / 2
        hx, hy, hz = HEAD_CENTRE
        face_y = hy - HEAD_HALF[1] - FACE_DEPTH_M
        top = BASE_HALF[2]
        return f"""<body name="carriage" pos="{CLAMP_X!r} {STRIP_Y} {base_z!r}">
  <joint name="carriage" type="slide" axis="1 0 0" range="{CARRIAGE_RANGE[0]} {CARRIAGE_RANGE[1]}"
         damping="{CARRIAGE_DAMPING}"/>
  <geom name="carriage_base" type="box" size="{BASE_HALF[0]} {BASE_HALF[1]} {BASE_HALF[2]}" pos="0 {BASE_Y} 0"
        mass="{CARRIAGE_MASS}" rgba="0.2 0.36 0.55 1" {WORLD_GEOM}/>
  <geom name="carriage_shoe" type="box" size="{SHOE_HALF[0]} {SHOE_HALF[1]} {SHOE_HALF[2]}" pos="0 {SHOE_Y} 0"
        mass="0" rgba="0.2 0.36 0.55 1" {WORLD_GEOM}/>
  <geom name="carriage_column" type="box" size="0.008 0.008 {column_half:.5f}"
        pos="0 0 {BASE_HALF[2] + column_half:.5f}" mass="0" rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="carriage_peg" type="cylinder" size="{PEG_RADIUS} {PEG_HEIGHT / 2}"
        pos="{PEG[0]} {PEG[1]} {top + PEG_HEIGHT / 2}" mass="0" rgba="0.15 0.15 0.15 1" {GRIP_CONTACT}
        {WORLD_GEOM}/>
  <body name="indicator" pos="{hx} {hy} {hz - base_z:.5f}">
    <geom name="indicator_head" type="box" size="{HEAD_HALF[0]} {HEAD_HALF[1]} {HEAD_HALF[2]}" mass="0"
          rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
    {FACE.geom_xml(f"0 {face_y - hy:.4f} 0")}
  </body>
  {key_xml("zero", ZERO_KEY[0], ZERO_KEY[1], top, "0.8 0.2 0.15 1")}
</body>"""

    def _weight_xml(self, i: int) -> str:
        x, y, z = self.rack_position(i)
        mass = WEIGHT_MASSES[i - 1]
        return f"""<body name="{weight_name(i)}" pos="{x!r} {y} {z + 0.0005:.5f}">
  <freejoint name="{weight_name(i)}_free"/>
  <geom name="{weight_name(i)}" type="cylinder" size="{WEIGHT_RADIUS} {weight_height(mass) / 2:.6f}"
        mass="{mass!r}" rgba="0.62 0.63 0.66 1" {GRIP_CONTACT} {WORLD_GEOM}/>
</body>"""

    def rack_position(self, i: int) -> tuple[float, float, float]:
        """Where weight ``i`` stands in the rack (its centre)."""
        x, y = RACK[i - 1]
        return (x, y, TABLE_TOP_Z + weight_height(WEIGHT_MASSES[i - 1]) / 2)

    def sections_xml(self) -> str:
        excluded = "".join(
            f'<exclude body1="carriage" body2="{other}"/>' for other in ("rail", "key_zero", "indicator")
        )
        return f"<contact>{excluded}</contact>"

    def assets_xml(self) -> str:
        return f'{super().assets_xml()}\n<material name="rail_labels_mat" texture="{LABELS_TEXTURE}"/>'

    def textures(self) -> dict[str, np.ndarray]:
        return {**super().textures(), LABELS_TEXTURE: rail_labels_texture()}

    def faces(self) -> tuple[DisplayFace, ...]:
        return (FACE,)

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        joint = model.joint("carriage")
        self._ids = {
            "carriage_q": int(joint.qposadr[0]),
            "carriage_v": int(joint.dofadr[0]),
            "key": int(model.joint("key_zero").qposadr[0]),
            "plunger": int(model.body("indicator_plunger").mocapid[0]),
        }
        self._segments = [int(model.body(f"strip_{k}").mocapid[0]) for k in range(len(NODES) - 1)]
        self._saddles = [int(model.body(f"saddle_{i}").mocapid[0]) for i in range(1, len(SADDLES) + 1)]
        strip = set()
        for g in range(model.ngeom):
            body = model.body(int(model.geom_bodyid[g])).name
            if body.startswith("strip_"):
                strip.add(g)
            elif body.startswith("saddle_"):
                strip.add(g)
                self._saddle_of[g] = int(body.split("_")[1])
        self._strip_geoms = frozenset(strip)
        data.qpos[self._ids["carriage_q"]] = START_HOLE
        self._draw(data)
        self._draw_plunger(data, START_HOLE)

    def carriage_at(self, data: mujoco.MjData) -> float:
        """The carriage's distance from the clamp (m)."""
        return float(data.qpos[self._ids["carriage_q"]])

    def carriage_speed(self, data: mujoco.MjData) -> float:
        return abs(float(data.qvel[self._ids["carriage_v"]]))

    def pressing(self, model: mujoco.MjModel, data: mujoco.MjData) -> list[float]:
        """What presses down on each of the strip's nodes now (N): contact forces on the strip and its
        saddles, a saddle's at its knife edge, the rest shared between the two nodes around the contact."""
        loads = [0.0] * len(NODES)
        if data.ncon == 0:
            return loads
        contacts = data.contact
        first, second = contacts.geom1.tolist(), contacts.geom2.tolist()
        strip = self._strip_geoms
        touching = [
            c for c, (a, b) in enumerate(zip(first, second, strict=True)) if (a in strip) != (b in strip)
        ]
        if not touching:
            return loads
        frames, points = contacts.frame, contacts.pos
        force = self._force
        for c in touching:
            mujoco.mj_contactForce(model, data, c, force)
            normal, tangent, other = force[:3].tolist()
            frame = frames[c].tolist()
            # the force on geom2 (from geom1), upward in the world: the contact frame's rows are its axes
            up = frame[2] * normal + frame[5] * tangent + frame[8] * other
            g2 = second[c]
            on_strip = g2 if g2 in strip else first[c]
            down = -up if on_strip == g2 else up
            saddle = self._saddle_of.get(on_strip)
            if saddle:
                loads[SADDLE_NODES[saddle - 1]] += down
            else:
                _share(loads, min(max(float(points[c][0]) - CLAMP_X, 0.0), STRIP_LENGTH), down)
        return loads

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        d = self.carriage_at(data)
        self._detent(data, d)
        self._zero_key(data, d)
        pressing = self.pressing(model, data)
        if any(pressing) or any(self.node_loads):  # an unloaded strip at rest stays as it is
            lag = self._lag
            self.node_loads = [p + lag * (q - p) for p, q in zip(self.node_loads, pressing, strict=True)]
            self._draw(data)
            self._draw_plunger(data, d)
        elif d != self._plunger_at:
            self._draw_plunger(data, d)

    def _detent(self, data: mujoco.MjData, d: float) -> None:
        offset = d - nearest_hole(d)
        force = -DETENT_STIFFNESS * offset if abs(offset) < DETENT_CAPTURE_M else 0.0
        data.qfrc_applied[self._ids["carriage_v"]] = force

    def _zero_key(self, data: mujoco.MjData, d: float) -> None:
        down = switched(self._zero_down, -float(data.qpos[self._ids["key"]]))
        if down and not self._zero_down:
            self.zero_mm = -self.strip_height_mm(d)
        self._zero_down = down

    def _draw(self, data: mujoco.MjData) -> None:
        """Move the strip's segments and its saddles to the strip's shape now, once any node
        has moved by :data:`REDRAW_M` since they were last moved."""
        drop = self.node_deflections()
        if self._drawn and all(abs(a - b) <= REDRAW_M for a, b in zip(drop, self._drawn, strict=True)):
            return
        self._drawn = drop
        tops = [self._top(d) - w for d, w in zip(NODES, drop, strict=True)]
        for k, mocap in enumerate(self._segments):
            a, b = NODES[k], NODES[k + 1]
            middle = (tops[k] + tops[k + 1]) / 2 - STRIP_THICKNESS / 2
            data.mocap_pos[mocap] = (CLAMP_X + (a + b) / 2, STRIP_Y, middle)
            data.mocap_quat[mocap] = turn_about_y(tops[k + 1] - tops[k], b - a)
        for mocap, a, node in zip(self._saddles, SADDLES, SADDLE_NODES, strict=True):
            data.mocap_pos[mocap] = (CLAMP_X + a, STRIP_Y, tops[node] + SADDLE_PLATE_UP)

    def _draw_plunger(self, data: mujoco.MjData, d: float) -> None:
        """Stand the plunger under the strip where the carriage is (``d`` from the clamp)."""
        self._plunger_at = d
        bottom = self._top(d) - STRIP_THICKNESS - self.deflection(d)
        data.mocap_pos[self._ids["plunger"]] = (CLAMP_X + d, STRIP_Y, bottom - PLUNGER_HALF)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The strip's root (its top there, unloaded) and its size; the top of each saddle's plate (its
        centre, the strip unloaded and nominally straight) and the plate's size; each weight's place in the
        rack (the centre of its foot), its diameter and height; each hole (x on the strip's line, the rail's
        top); the carriage's peg and ZERO key (their tops) and the LCD's window (its centre) relative to the
        carriage's hole in x and to the strip's line in y, and the window's size; the starting hole."""
        root_top = STRIP_BOTTOM_Z + STRIP_THICKNESS
        base_top = RAIL_TOP_Z + 2 * BASE_HALF[2]
        positions: dict[str, list[float]] = {
            "strip_root": [CLAMP_X, STRIP_Y, root_top],
            "strip_size": [STRIP_LENGTH, 2 * STRIP_HALF_WIDTH, STRIP_THICKNESS],
            **{
                f"saddle_{i}_plate": [CLAMP_X + a, STRIP_Y, root_top + SADDLE_PLATE_UP + SADDLE_PLATE_HALF[2]]
                for i, a in enumerate(SADDLES, 1)
            },
            "saddle_plate_size": [2 * SADDLE_PLATE_HALF[0], 2 * SADDLE_PLATE_HALF[1]],
            **{f"hole_{round(100 * h)}": [CLAMP_X + h, STRIP_Y, RAIL_TOP_Z] for h in HOLES},
            "peg_on_carriage": [PEG[0], PEG[1], base_top + PEG_HEIGHT],
            "zero_key_on_carriage": [ZERO_KEY[0], ZERO_KEY[1], key_top(base_top)],
            "indicator_lcd_on_carriage": [
                HEAD_CENTRE[0],
                HEAD_CENTRE[1] - HEAD_HALF[1] - 2 * FACE_DEPTH_M,
                HEAD_CENTRE[2],
            ],
            "indicator_lcd_size": [FACE.width_m, FACE.height_m],
            "carriage_start": [START_HOLE],
        }
        for i, mass in enumerate(WEIGHT_MASSES, 1):
            x, y, _ = self.rack_position(i)
            positions[f"{weight_name(i)}_place"] = [x, y, TABLE_TOP_Z]
            positions[f"{weight_name(i)}_size"] = [2 * WEIGHT_RADIUS, weight_height(mass)]
        return published(positions)

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [INDICATOR]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {INDICATOR.name: self.zero_mm + self.strip_height_mm(self.carriage_at(data))}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        x = CLAMP_X + self.carriage_at(data)
        centre = np.array(
            [x + HEAD_CENTRE[0], STRIP_Y + HEAD_CENTRE[1] - HEAD_HALF[1] - FACE_DEPTH_M, HEAD_CENTRE[2]]
        )
        return {INDICATOR.name: FACE.reading_site(centre, np.array([0.0, 0.0, 1.0]))}


def nearest_hole(d: float) -> float:
    """The hole nearest ``d`` from the clamp (the holes are evenly spaced)."""
    pitch = HOLES[1] - HOLES[0]
    return HOLES[min(len(HOLES) - 1, max(0, round((d - HOLES[0]) / pitch)))]


def _share(loads: list[float], at: float, force: float) -> None:
    """Add ``force`` at ``at`` to the two nodes around it, by the lever rule."""
    k = next(i for i in range(1, len(NODES)) if at <= NODES[i] or i == len(NODES) - 1)
    a, b = NODES[k - 1], NODES[k]
    t = (at - a) / (b - a)
    loads[k - 1] += force * (1.0 - t)
    loads[k] += force * t
