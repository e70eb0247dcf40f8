"""Shoes built from convex primitives, ten presets (model ids 0-9), and the shoe mat that shows where and
which way a shoe goes.

Body frame of a shoe: x points from the heel to the toe, y to the shoe's left, z up. The origin is the
centre of the sole's bottom face (halfway between heel and toe, on the support plane), so a shoe standing
on its sole rests with its origin on the table and its orientation is a pure yaw.

Collision pieces, all convex: the sole (a box between a round heel cylinder and a toe piece whose shape is
the preset's: a cylinder for a round toe, a box turned 45° for a pointed one, the box itself for a square
one), and the upper on it (a tall rear quarter ending in a round heel counter, a low vamp ending in a toe
cap of the same shape, and a sloped instep joining them). The sole is always wider than the upper, and the
upper at most 66 mm wide, so the 80 mm gripper closes across it. Visual-only pieces (a dark collar on top
of the quarter, side stripes, a heel tab and a midsole band) make the presets look like shoes and tell
heel from toe; they neither collide nor weigh anything.

Masses are spread over the collision pieces by volume (the sole twice as dense as the upper). The
evaluator-only site ``<name>_grasp`` lies across the quarter above the shoe's centre of mass,
``GRASP_BELOW_TOP`` below the quarter's top: where a gripper closing across the upper holds the shoe level.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from actloop.sim.assets.common import OBJECT_GEOM, free_body, hidden_site, yaw_quat

Toe = Literal["round", "pointed", "square"]

GRASP_BELOW_TOP = 0.026
"""The grasp site sits this far below the top of the quarter (the pads reach 12 mm below it)."""
INSTEP_LENGTH_FRACTION = 0.22
"""Length of the sloped instep as a fraction of the shoe's length."""
INSTEP_THICKNESS = 0.016
QUARTER_FRONT_FRACTION = 0.08
"""Where the quarter ends, ahead of the shoe's middle, as a fraction of its length."""
SOLE_DENSITY_RATIO = 2.0
VISUAL_GEOM = 'contype="0" conaffinity="0" mass="0"'
"""Visual-only pieces: drawn, never colliding, weightless."""
MAX_UPPER_WIDTH = 0.066


@dataclass(frozen=True)
class ShoeModel:
    """Dimensions (metres), mass (kg) and colours (RGBA strings) of one shoe model id."""

    name: str
    length: float
    """Heel to toe, along the sole."""
    sole_width: float
    upper_width: float
    sole_thickness: float
    quarter_height: float
    """Height of the rear upper above the sole's top."""
    vamp_height: float
    """Height of the front upper above the sole's top."""
    toe: Toe
    upper_rgba: str
    sole_rgba: str
    accent_rgba: str
    mass: float

    @property
    def height(self) -> float:
        """Overall height: sole and quarter."""
        return self.sole_thickness + self.quarter_height

    @property
    def heel_x(self) -> float:
        """Centre of the round heel (sole and heel counter) along body x."""
        return -self.length / 2 + self.sole_width / 2

    @property
    def toe_x(self) -> float:
        """Centre of the toe piece along body x (its front reaches ``length / 2``)."""
        return self.length / 2 - self.sole_width / 2

    @property
    def quarter_front_x(self) -> float:
        return QUARTER_FRONT_FRACTION * self.length

    @property
    def instep_front_x(self) -> float:
        return self.quarter_front_x + INSTEP_LENGTH_FRACTION * self.length


SHOE_MODELS: tuple[ShoeModel, ...] = (
    ShoeModel("white sneaker", 0.230, 0.074, 0.062, 0.018, 0.056, 0.034, "round",
              "0.93 0.93 0.91 1", "0.55 0.56 0.58 1", "0.85 0.12 0.1 1", 0.30),
    ShoeModel("black boot", 0.240, 0.076, 0.064, 0.020, 0.074, 0.042, "square",
              "0.1 0.1 0.11 1", "0.42 0.27 0.14 1", "0.6 0.6 0.62 1", 0.40),
    ShoeModel("red running shoe", 0.220, 0.068, 0.058, 0.016, 0.052, 0.031, "pointed",
              "0.82 0.1 0.1 1", "0.95 0.95 0.93 1", "0.1 0.1 0.11 1", 0.26),
    ShoeModel("green trainer", 0.210, 0.070, 0.060, 0.014, 0.055, 0.036, "round",
              "0.12 0.6 0.22 1", "0.95 0.95 0.93 1", "0.95 0.8 0.1 1", 0.27),
    ShoeModel("brown loafer", 0.240, 0.068, 0.058, 0.012, 0.050, 0.030, "pointed",
              "0.48 0.28 0.12 1", "0.12 0.1 0.08 1", "0.85 0.65 0.2 1", 0.30),
    ShoeModel("orange high-top", 0.220, 0.072, 0.062, 0.020, 0.070, 0.040, "round",
              "0.95 0.45 0.05 1", "0.95 0.95 0.93 1", "0.1 0.1 0.11 1", 0.34),
    ShoeModel("purple slip-on", 0.200, 0.066, 0.056, 0.014, 0.050, 0.032, "round",
              "0.5 0.2 0.65 1", "0.7 0.7 0.72 1", "0.95 0.95 0.93 1", 0.22),
    ShoeModel("gray hiking shoe", 0.250, 0.078, 0.066, 0.022, 0.062, 0.042, "square",
              "0.5 0.52 0.54 1", "0.12 0.12 0.13 1", "0.95 0.45 0.05 1", 0.42),
    ShoeModel("teal canvas shoe", 0.210, 0.068, 0.058, 0.012, 0.052, 0.033, "square",
              "0.1 0.6 0.62 1", "0.95 0.95 0.93 1", "0.95 0.95 0.93 1", 0.22),
    ShoeModel("pink sneaker", 0.235, 0.072, 0.060, 0.016, 0.054, 0.032, "pointed",
              "0.95 0.55 0.7 1", "0.95 0.95 0.93 1", "0.45 0.1 0.35 1", 0.28),
)  # fmt: skip


@dataclass(frozen=True)
class _Piece:
    """One collision primitive: MJCF type, size, centre in the body frame, quaternion, volume, sole or not."""

    kind: str
    size: tuple[float, ...]
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float]
    volume: float
    sole: bool


_UNIT = (1.0, 0.0, 0.0, 0.0)
_DIAMOND = (math.cos(math.pi / 8), 0.0, 0.0, math.sin(math.pi / 8))  # 45° about z


def _box(
    half: tuple[float, float, float], x: float, z: float, sole: bool, quat: tuple[float, ...] = _UNIT
) -> _Piece:
    """A box of half sizes ``half`` centred at (x, 0, z)."""
    volume = 8 * half[0] * half[1] * half[2]
    return _Piece("box", half, (x, 0.0, z), (quat[0], quat[1], quat[2], quat[3]), volume, sole)


def _cylinder(radius: float, half_height: float, x: float, z: float, sole: bool) -> _Piece:
    """An upright cylinder centred at (x, 0, z)."""
    return _Piece(
        "cylinder", (radius, half_height), (x, 0.0, z), _UNIT, math.pi * radius**2 * 2 * half_height, sole
    )


def _pieces(m: ShoeModel) -> list[_Piece]:
    """The collision primitives of a shoe: sole (heel, middle, toe), then upper (heel counter, quarter,
    vamp, toe cap, instep)."""
    ts, w, u = m.sole_thickness, m.sole_width, m.upper_width
    hq, hv = m.quarter_height / 2, m.vamp_height / 2
    sole_front = m.length / 2 if m.toe == "square" else m.toe_x
    vamp_front = m.length / 2 - (w - u) / 2 if m.toe == "square" else m.toe_x
    half_s = (sole_front - m.heel_x) / 2
    half_q = (m.quarter_front_x - m.heel_x) / 2
    half_v = (vamp_front - m.quarter_front_x) / 2
    return [
        _cylinder(w / 2, ts / 2, m.heel_x, ts / 2, sole=True),
        _box((half_s, w / 2, ts / 2), m.heel_x + half_s, ts / 2, sole=True),
        *_toe(m, w, ts / 2, ts / 2, sole=True),
        _cylinder(u / 2, hq, m.heel_x, ts + hq, sole=False),
        _box((half_q, u / 2, hq), m.heel_x + half_q, ts + hq, sole=False),
        _box((half_v, u / 2, hv), m.quarter_front_x + half_v, ts + hv, sole=False),
        *_toe(m, u, hv, ts + hv, sole=False),
        _instep(m),
    ]


def _toe(m: ShoeModel, width: float, half_height: float, z: float, sole: bool) -> list[_Piece]:
    """The toe piece of the sole or the upper (``width`` across), centred at ``toe_x``: a cylinder for a
    round toe, a square turned 45° (its corner at the front) for a pointed one, none for a square one (the
    boxes run to the front)."""
    if m.toe == "round":
        return [_cylinder(width / 2, half_height, m.toe_x, z, sole)]
    if m.toe == "pointed":
        a = width / (2 * math.sqrt(2))  # a square of half side a turned 45° spans ``width`` across
        return [_box((a, a, half_height), m.toe_x, z, sole, _DIAMOND)]
    return []


def _instep(m: ShoeModel) -> _Piece:
    """A box sloping from the quarter's top down to the vamp's top, its lower part inside them."""
    ts, t = m.sole_thickness, INSTEP_THICKNESS
    x0, z0 = m.quarter_front_x, ts + m.quarter_height
    x1, z1 = m.instep_front_x, ts + m.vamp_height
    slope = math.atan2(z0 - z1, x1 - x0)
    length = math.hypot(x1 - x0, z0 - z1)
    # centre: the middle of the top edge, moved half a thickness down along the box's own z
    cx = (x0 + x1) / 2 - math.sin(slope) * t / 2
    cz = (z0 + z1) / 2 - math.cos(slope) * t / 2
    pitch = (math.cos(slope / 2), 0.0, math.sin(slope / 2), 0.0)  # about +y: the front tips down
    return _box((length / 2, m.upper_width / 2, t / 2), cx, cz, sole=False, quat=pitch)


def _masses(m: ShoeModel, pieces: list[_Piece]) -> list[float]:
    weights = [p.volume * (SOLE_DENSITY_RATIO if p.sole else 1.0) for p in pieces]
    return [m.mass * wt / sum(weights) for wt in weights]


def centre_of_mass_x(m: ShoeModel) -> float:
    """The shoe's centre of mass along body x (the pieces are symmetric about their centres)."""
    pieces = _pieces(m)
    masses = _masses(m, pieces)
    return sum(mass * p.pos[0] for mass, p in zip(masses, pieces, strict=True)) / m.mass


def grasp_point(m: ShoeModel) -> tuple[float, float, float]:
    """The grasp site in the body frame: above the centre of mass, across the quarter."""
    return (centre_of_mass_x(m), 0.0, m.height - GRASP_BELOW_TOP)


def shoe_grasp_site(name: str) -> str:
    return f"{name}_grasp"


def _fmt(values: Sequence[float]) -> str:
    return " ".join(f"{v:.6f}" for v in values)


def _visuals(name: str, m: ShoeModel) -> list[str]:
    """Weightless, non-colliding decoration: collar, side stripes, heel tab, midsole band."""
    top = m.height
    u, ts = m.upper_width, m.sole_thickness
    collar_half = (m.quarter_front_x - 0.012 - m.heel_x) / 2
    stripe_half = (m.instep_front_x - m.heel_x) / 2 - 0.01
    stripe_z = ts + 0.45 * m.vamp_height
    midsole_half = (m.toe_x - m.heel_x) / 2
    out = [
        f'<geom name="{name}_collar" type="box" size="{_fmt((collar_half, u / 2 - 0.008, 0.0012))}" '
        f'pos="{_fmt((m.heel_x + collar_half, 0.0, top))}" rgba="0.08 0.08 0.09 1" {VISUAL_GEOM}/>',
        f'<geom name="{name}_collar_heel" type="cylinder" size="{_fmt((u / 2 - 0.008, 0.0012))}" '
        f'pos="{_fmt((m.heel_x, 0.0, top))}" rgba="0.08 0.08 0.09 1" {VISUAL_GEOM}/>',
        f'<geom name="{name}_heel_tab" type="box" size="{_fmt((0.004, 0.012, 0.012))}" '
        f'pos="{_fmt((m.heel_x - u / 2 - 0.001, 0.0, top - 0.008))}" rgba="{m.accent_rgba}" {VISUAL_GEOM}/>',
        f'<geom name="{name}_midsole" type="box" '
        f'size="{_fmt((midsole_half, m.sole_width / 2 + 0.0006, 0.002))}" '
        f'pos="{_fmt((m.heel_x + midsole_half, 0.0, ts - 0.003))}" rgba="{m.accent_rgba}" {VISUAL_GEOM}/>',
    ]
    for side, sign in (("left", 1.0), ("right", -1.0)):
        out.append(
            f'<geom name="{name}_stripe_{side}" type="box" size="{_fmt((stripe_half, 0.0008, 0.005))}" '
            f'pos="{_fmt((m.heel_x + 0.01 + stripe_half, sign * (u / 2 + 0.0004), stripe_z))}" '
            f'rgba="{m.accent_rgba}" {VISUAL_GEOM}/>'
        )
    return out


def shoe(name: str, xy: Sequence[float], table_z: float, yaw_rad: float, model_id: int) -> str:
    """Shoe ``model_id`` standing on its sole at ``xy`` with its toe at heading ``yaw_rad`` from world x;
    collision geoms ``<name>_c<i>``."""
    m = SHOE_MODELS[model_id]
    pieces = _pieces(m)
    geoms = []
    for i, (piece, mass) in enumerate(zip(pieces, _masses(m, pieces), strict=True)):
        color = m.sole_rgba if piece.sole else m.upper_rgba
        geoms.append(
            f'<geom name="{name}_c{i}" type="{piece.kind}" size="{_fmt(piece.size)}" pos="{_fmt(piece.pos)}" '
            f'quat="{_fmt(piece.quat)}" mass="{mass:.6f}" rgba="{color}" {OBJECT_GEOM}/>'
        )
    geoms.extend(_visuals(name, m))
    geoms.append(hidden_site(shoe_grasp_site(name), grasp_point(m)))
    return free_body(name, (xy[0], xy[1], table_z), yaw_quat(yaw_rad), "\n  ".join(geoms))


MAT_HALF = (0.13, 0.05)
"""Half length (along world x) and half width of the shoe mat (the paper's target box)."""
MAT_TOE_BAND = 0.025
"""Width of the yellow band at the mat's toe end (-x)."""
MAT_RGBA = "0.12 0.3 0.85 1"
MAT_TOE_RGBA = "0.95 0.8 0.1 1"


def shoe_mat(name: str, xy: Sequence[float], table_z: float) -> str:
    """A blue mat printed on the table at ``xy``, long along world x, with a yellow band across its -x end
    (the robot's left) marking where the toe goes. It is a fixed body of visual-only geoms 1 mm thick: a
    shoe on it rests on the table, and nothing can push it."""
    hx, hy = MAT_HALF
    band_x = -(hx - MAT_TOE_BAND / 2)
    return f"""
<body name="{name}" pos="{xy[0]:.6f} {xy[1]:.6f} {table_z:.6f}">
  <geom name="{name}_geom" type="box" size="{hx} {hy} 0.0005" pos="0 0 0.0005" rgba="{MAT_RGBA}"
        {VISUAL_GEOM}/>
  <geom name="{name}_toe_band" type="box" size="{MAT_TOE_BAND / 2} {hy} 0.0005" pos="{band_x} 0 0.0006"
        rgba="{MAT_TOE_RGBA}" {VISUAL_GEOM}/>
</body>"""
