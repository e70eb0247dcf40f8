"""The spectrophotometer bench: a single-beam spectrophotometer with a cuvette holder, a row of keys and
two LCDs on its deck, and a rack of cuvettes pre-filled with solutions of printed concentration.

Mechanics: a cuvette is a rigid body (a clear cell with the coloured liquid inside); it is *seated* when it
stands upright on the holder's floor inside the holder's four walls, and only a seated cuvette is in the
beam. The keys are caps on spring-returned vertical slide joints, pressed when pushed past
:data:`~.keys.KEY_PRESSED_M`: ``λ−`` and ``λ+`` step the wavelength by 1 nm per press and repeat while held,
``BLANK`` takes the single-beam reference with whatever stands in the holder.

Physics (:mod:`actloop.suites.lab.physics.spectra`): the absorbance in the beam is Beer–Lambert's over the
seated cuvette's contents plus the cell's own reflection loss; the instrument turns it into the displayed
absorbance with stray light, lamp drift since the blank and signal noise. The two LCDs lie flat on the
deck behind the keys, digits upright for a reader in front: the set wavelength (nm) and the absorbance.

Experiments share the bench by choosing what the cuvettes hold (:class:`Cuvette`); a subclass may make
the contents change in time by overriding :meth:`SpectrophotometerBench.absorbance_in_beam`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.physics.linear import LN10, exp
from actloop.suites.lab.physics.spectra import Band, Dye, Spectrophotometer, absorbance
from actloop.suites.lab.platforms.base import NUMBER_WORDS, ReadingSite, published
from actloop.suites.lab.platforms.display import DisplayFace, FacedPlatform
from actloop.suites.lab.platforms.keys import key_top, key_xml, switched
from actloop.suites.lab.spec import Parameter, Part, uniform

# --- layout (world frame, metres) ---
BODY_CENTRE = (0.0, 0.08)
BODY_HALF = (0.15, 0.11, 0.045)
DECK_Z = TABLE_TOP_Z + 2 * BODY_HALF[2]
"""The spectrophotometer's flat top."""
HOLDER = (0.08, 0.05)
"""The centre of the cuvette holder on the deck."""
HOLDER_INNER_HALF = 0.008
HOLDER_WALL = (0.003, 0.01)
"""The holder's wall: half thickness, half height (its walls stand on the deck)."""
KEYS = (("lambda_down", -0.10), ("lambda_up", -0.06), ("blank", -0.02))
"""The keys (name, x) in a row at :data:`KEY_Y`."""
KEY_Y = 0.02
KEY_COLOURS = {
    "lambda_down": "0.2 0.35 0.7 1",
    "lambda_up": "0.7 0.3 0.2 1",
    "blank": "0.9 0.9 0.9 1",
    "log": "0.25 0.6 0.3 1",
}
REPEAT_DELAY_S = 0.5
REPEAT_S = 0.05
"""A held wavelength key steps again after REPEAT_DELAY_S, then every REPEAT_S (20 nm/s)."""
FACE_HEIGHT_M = 0.016
FACE_X = -0.06
FACE_Y = {"wavelength": 0.11, "absorbance": 0.085}
"""The LCD windows' centres on the deck (they lie flat, upright for a reader in front of the bench)."""
FACE_SURFACE_M = 0.0021
"""An LCD window's surface above the deck."""
RACK_Y = -0.16
RACK_X0 = 0.10
RACK_PITCH = 0.04
RACK_WALL = (0.002, 0.0075)
CUVETTE_HALF = (0.00625, 0.025)
"""A cuvette's outer half width and half height (12.5 mm square, 50 mm tall)."""
CUVETTE_MASS = 0.01
LIQUID_HALF = (0.0045, 0.017)
SEATED_XY_M = 0.003
SEATED_Z_M = 0.002
SEATED_TILT_COS = math.cos(math.radians(6.0))
_SEATED_Z = DECK_Z + CUVETTE_HALF[1]
"""A seated cuvette's centre height."""

# --- the instrument ---
START_WAVELENGTH_NM = 500.0
CELL_ABSORBANCE = 0.04
"""A filled cell's own loss (reflections at its walls): what blanking on the solvent cancels."""
OVER_RANGE = 4.0
REFRESH_HZ = 2.0
WAVELENGTH = InstrumentSpec(
    "wavelength", "nm", DigitalDisplay(3, 0, min_digit_px=14.0), refresh_hz=REFRESH_HZ
)
ABSORBANCE = InstrumentSpec(
    "absorbance", "A", DigitalDisplay(4, 3, min_digit_px=14.0), refresh_hz=REFRESH_HZ, high=OVER_RANGE
)
"""The absorbance LCD: 0.001 A, ``OL`` above :data:`OVER_RANGE`; readable when a digit is 14 px tall."""
FACES = (
    DisplayFace.of("wavelength_lcd", WAVELENGTH, 3 * 0.55 * FACE_HEIGHT_M, FACE_HEIGHT_M),
    DisplayFace.of("absorbance_lcd", ABSORBANCE, 5 * 0.55 * FACE_HEIGHT_M, FACE_HEIGHT_M, sign=True),
)
_OVER = 10.0 * OVER_RANGE
"""What the instrument's true value is when the detector sees no light (shown as ``OL``)."""


SEATED_RULE = "A reading counts only while a cuvette stands seated in the holder, untouched by the robot."
"""The card's rule for every reading of the spectrophotometer's absorbance."""


def instrument_parts() -> tuple[Part, ...]:
    """The spectrophotometer, its holder and its keys, as the card describes them."""
    repeat = f"held for {REPEAT_DELAY_S:g} s it repeats every {REPEAT_S:g} s"
    return (
        Part(
            "spectrophotometer",
            "single-beam: the beam passes through the cuvette seated in its holder; the LCDs on its deck "
            "show the set wavelength (nm) and the absorbance relative to the last blank",
            restore="fixed",
        ),
        Part("holder", "a square well on the deck; a cuvette standing on its floor is in the beam", "fixed"),
        *(
            Part(f"key_lambda_{way}", f"push key: the wavelength {way} 1 nm per press; {repeat}", "fixed")
            for way in ("down", "up")
        ),
        Part(
            "key_blank", "push key: takes the reference (absorbance zero) with what is in the holder", "fixed"
        ),
    )


def rack_part(cuvettes: int) -> Part:
    """The rack of ``cuvettes`` slots in front of the instrument."""
    return Part(
        "rack",
        f"{NUMBER_WORDS[cuvettes]} slots in a row in front of the instrument, cuvette_0 at the left",
        "fixed",
    )


def dye_parameters(
    prefix: str = "",
    whose: str = "the dye's",
    centre: tuple[float, float] | None = (490.0, 630.0),
    epsilon: tuple[float, float] = (2e4, 9e4),
) -> tuple[Parameter, ...]:
    """The hidden parameters of a dye's spectrum (names starting with ``prefix``): a main Gaussian band
    centred in ``centre`` (nm; None: the experiment places it by a parameter of its own), a weaker shoulder
    on its blue side of the same width, and the molar absorptivity at the peak in ``epsilon``
    (L mol⁻¹ cm⁻¹)."""
    main = f"centre of {whose} main absorption band"
    placed = [] if centre is None else [Parameter(f"{prefix}band_center", main, "nm", uniform(*centre))]
    return (
        *placed,
        Parameter(f"{prefix}band_width", f"standard deviation of {whose} bands", "nm", uniform(18.0, 32.0)),
        Parameter(
            f"{prefix}shoulder_height",
            f"height of {whose} shoulder band relative to its main band",
            "",
            uniform(0.15, 0.35),
        ),
        Parameter(
            f"{prefix}shoulder_offset",
            f"distance of {whose} shoulder to the blue of its main band",
            "band widths",
            uniform(1.0, 1.6),
        ),
        Parameter(
            f"{prefix}epsilon", f"{whose} molar absorptivity at its peak", "L/(mol cm)", uniform(*epsilon)
        ),
    )


def shouldered_dye(
    hidden: Mapping[str, float], prefix: str = "", name: str = "dye", centre: float | None = None
) -> Dye:
    """The dye drawn by :func:`dye_parameters` with ``prefix``: its main band (centred at ``centre`` nm
    when given, else at its drawn centre) and the shoulder."""
    width = hidden[f"{prefix}band_width"]
    centre = hidden[f"{prefix}band_center"] if centre is None else centre
    bands = (
        Band(centre, width),
        Band(centre - hidden[f"{prefix}shoulder_offset"] * width, width, hidden[f"{prefix}shoulder_height"]),
    )
    return Dye(name, bands, hidden[f"{prefix}epsilon"])


@dataclass(frozen=True)
class Cuvette:
    """A filled cuvette: its name and what it holds, (dye, mol/L) pairs (nothing for the solvent blank)."""

    name: str
    contents: tuple[tuple[Dye, float], ...] = ()


def _steps_due(held_s: float) -> int:
    """Wavelength steps a key held for ``held_s`` seconds has made: one at the press, then auto-repeat."""
    if held_s < REPEAT_DELAY_S:
        return 1
    return 2 + math.floor((held_s - REPEAT_DELAY_S) / REPEAT_S + 1e-9)


def rack_xml(
    body: str,
    prefix: str,
    slots: int,
    first: Sequence[float],
    half: float,
    floor_z: float = TABLE_TOP_Z,
) -> str:
    """A rack of ``slots`` square slots RACK_PITCH apart along x, the first centred at ``first`` (x, y),
    each ``2 half`` wide, standing on ``floor_z``: a front and a back wall joined by bars between the
    slots."""
    t, h = RACK_WALL
    z = floor_z + h
    x0, y = first[0] - RACK_PITCH / 2, first[1]
    x1 = x0 + slots * RACK_PITCH
    half_x, mid_x = (x1 - x0) / 2, (x1 + x0) / 2
    geoms = [
        f'<geom name="{prefix}_{side}" type="box" size="{half_x:.4f} {t} {h}" '
        f'pos="{mid_x:.4f} {y + sign * (half + t):.4f} {z}" rgba="0.35 0.3 0.25 1" {WORLD_GEOM}/>'
        for side, sign in (("front", -1), ("back", 1))
    ]
    bar = f"{RACK_PITCH / 2 - half:.4f} {half} {h}"
    for i in range(slots + 1):
        geoms.append(
            f'<geom name="{prefix}_bar_{i}" type="box" size="{bar}" pos="{x0 + i * RACK_PITCH:.4f} {y} {z}" '
            f'rgba="0.35 0.3 0.25 1" {WORLD_GEOM}/>'
        )
    return f'<body name="{body}">\n  ' + "\n  ".join(geoms) + "\n</body>"


def rack_slot(i: int) -> tuple[float, float, float]:
    """Where cuvette ``i`` stands in the rack (its centre), metres."""
    return (RACK_X0 + i * RACK_PITCH, RACK_Y, TABLE_TOP_Z + CUVETTE_HALF[1])


def liquid_rgb(contents: Sequence[tuple[Dye, float]]) -> tuple[float, float, float]:
    """The colour of the solution through a 1 cm cell: its transmittance in the red, green and blue."""
    return tuple(  # type: ignore[return-value]
        min(1.0, exp(-LN10 * absorbance(contents, nm))) for nm in (610.0, 545.0, 465.0)
    )


class SpectrophotometerBench(FacedPlatform):
    """The spectrophotometer with its holder, keys and LCDs, and a rack of ``cuvettes`` (slot i holds
    cuvette i); ``seed`` (the instance's noise key) keys the instrument's noise and drift."""

    keys: ClassVar[tuple[tuple[str, float], ...]] = KEYS
    """The keys on the deck (name, x), in a row at :data:`KEY_Y`."""

    def __init__(self, cuvettes: Sequence[Cuvette], seed: int | str) -> None:
        self.cuvettes = tuple(cuvettes)
        self.meter = Spectrophotometer("absorbance", seed)
        self.meter.set_wavelength(START_WAVELENGTH_NM)
        self._key_joints: dict[str, int] = {}
        self._dt = 1.0
        self._cuvette_bodies: list[int] = []
        self.down = {name: False for name, _ in self.keys}
        """Which keys are switched on."""
        self._held: dict[str, tuple[float, int]] = {}
        """Wavelength keys held down: (when the press began, steps it has made)."""
        self.in_holder: int | None = None
        """The index of the cuvette seated in the holder, if any (updated every step)."""
        self._last: tuple[tuple[int, float, int | None, int] | None, float] = (None, 0.0)
        """The state the displayed absorbance was last computed for, and that value."""
        self.blanks: list[tuple[float, float, int | None]] = []
        """Every blank taken: (time, wavelength, cuvette in the holder)."""

    # --- scene ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def bodies_xml(self) -> str:
        bx, by = BODY_CENTRE
        hx, hy, hz = BODY_HALF
        faces = "\n  ".join(
            face.geom_xml(f"{FACE_X - bx} {FACE_Y[face.instrument] - by} {hz + 0.0011}", "-1.5707963 0 0")
            for face in FACES
        )
        keys = "\n".join(key_xml(name, x, KEY_Y, DECK_Z, KEY_COLOURS[name]) for name, x in self.keys)
        cuvettes = "\n".join(self._cuvette_xml(i, c) for i, c in enumerate(self.cuvettes))
        return f"""
<body name="spectrophotometer" pos="{bx} {by} {TABLE_TOP_Z + hz}">
  <geom name="spectro_body" type="box" size="{hx} {hy} {hz}" rgba="0.86 0.87 0.84 1" {WORLD_GEOM}/>
  <geom name="spectro_panel" type="box" size="0.05 0.035 0.0005" pos="{FACE_X - bx} {0.0975 - by} {hz}"
        rgba="0.2 0.22 0.25 1" contype="0" conaffinity="0"/>
  {faces}
  {self._holder_xml()}
</body>
{keys}
{self._rack_xml()}
{cuvettes}"""

    @staticmethod
    def _holder_xml() -> str:
        bx, by = BODY_CENTRE
        cx, cy = HOLDER[0] - bx, HOLDER[1] - by
        t, h = HOLDER_WALL
        z = BODY_HALF[2] + h
        reach = HOLDER_INNER_HALF + t
        walls = [
            ("n", cx, cy + reach, reach + t, t),
            ("s", cx, cy - reach, reach + t, t),
            ("e", cx + reach, cy, t, HOLDER_INNER_HALF),
            ("w", cx - reach, cy, t, HOLDER_INNER_HALF),
        ]
        return "\n  ".join(
            f'<geom name="holder_{n}" type="box" size="{sx} {sy} {h}" pos="{x:.4f} {y:.4f} {z}" '
            f'rgba="0.15 0.15 0.17 1" {WORLD_GEOM}/>'
            for n, x, y, sx, sy in walls
        )

    def _rack_xml(self) -> str:
        return rack_xml("cuvette_rack", "rack", len(self.cuvettes), rack_slot(0)[:2], HOLDER_INNER_HALF)

    @staticmethod
    def _cuvette_xml(i: int, cuvette: Cuvette) -> str:
        x, y, z = rack_slot(i)
        r, g, b = liquid_rgb(cuvette.contents)
        w, h = CUVETTE_HALF
        lw, lh = LIQUID_HALF
        return f"""
<body name="{cuvette.name}" pos="{x:.4f} {y} {z + 0.0005:.5f}">
  <freejoint name="{cuvette.name}_free"/>
  <geom name="{cuvette.name}" type="box" size="{w} {w} {h}" mass="{CUVETTE_MASS}" rgba="0.9 0.94 0.97 0.35"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="{cuvette.name}_liquid" type="box" size="{lw} {lw} {lh}" pos="0 0 {lh - h + 0.002:.4f}"
        rgba="{r:.3f} {g:.3f} {b:.3f} 1" contype="0" conaffinity="0" mass="0"/>
</body>"""

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._key_joints = {
            name: int(model.jnt_qposadr[model.joint(f"key_{name}").id]) for name, _ in self.keys
        }
        self._cuvette_bodies = [model.body(c.name).id for c in self.cuvettes]
        self._dt = float(model.opt.timestep)
        self.in_holder = self.seated(data)

    def _switch_keys(self, data: mujoco.MjData) -> None:
        """Update which keys are down, with the switches' hysteresis."""
        for key, address in self._key_joints.items():
            travel = -float(data.qpos[address])
            self.down[key] = switched(self.down[key], travel)

    def seated(self, data: mujoco.MjData) -> int | None:
        """The cuvette standing upright on the holder's floor, if any (checked every step: a loop over a
        few bodies, cheaper than array arithmetic)."""
        xpos, xmat = data.xpos, data.xmat
        for i, body in enumerate(self._cuvette_bodies):
            x, y, z = xpos[body].tolist()
            if (
                abs(x - HOLDER[0]) <= SEATED_XY_M
                and abs(y - HOLDER[1]) <= SEATED_XY_M
                and abs(z - _SEATED_Z) <= SEATED_Z_M
                and float(xmat[body, 8]) >= SEATED_TILT_COS
            ):
                return i
        return None

    def absorbance_in_beam(self, time_s: float) -> float:
        """The true absorbance in the beam at the set wavelength: the seated cuvette's, or none."""
        if self.in_holder is None:
            return 0.0
        contents = self.cuvettes[self.in_holder].contents
        return CELL_ABSORBANCE + absorbance(contents, self.meter.wavelength)

    def _now(self, data: mujoco.MjData) -> float:
        """Simulated time as whole physics steps (MuJoCo's running sum of steps drifts below it, which
        would put the display's refreshes a step late)."""
        return round(float(data.time) / self._dt) * self._dt

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        time_s = self._now(data)
        self.in_holder = self.seated(data)
        blank_was_down = self.down["blank"]
        self._switch_keys(data)
        for key, step in (("lambda_down", -1.0), ("lambda_up", 1.0)):
            if not self.down[key]:
                self._held.pop(key, None)
                continue
            since, done = self._held.get(key, (time_s, 0))
            due = _steps_due(time_s - since)
            for _ in range(due - done):
                self.meter.set_wavelength(self.meter.wavelength + step * self.meter.wavelength_step)
            self._held[key] = (since, due)
        if self.down["blank"] and not blank_was_down:
            self.meter.blank(time_s, self.absorbance_in_beam(time_s))
            self.blanks.append((time_s, self.meter.wavelength, self.in_holder))

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The holder's floor, each cuvette's place in the rack (the floor under its centre), each key
        cap's top at rest and each LCD window's surface centre; the sizes a hand needs (a cuvette; each
        LCD window, width and height)."""
        positions = {
            "holder": [*HOLDER, DECK_Z],
            **{f"{c.name}_slot": [*rack_slot(i)[:2], TABLE_TOP_Z] for i, c in enumerate(self.cuvettes)},
            **{f"key_{name}": [x, KEY_Y, key_top(DECK_Z)] for name, x in self.keys},
            **{f"{f.instrument}_lcd": [FACE_X, FACE_Y[f.instrument], DECK_Z + FACE_SURFACE_M] for f in FACES},
            **{f"{f.instrument}_lcd_size": [f.width_m, f.height_m] for f in FACES},
            "cuvette_size": [2 * CUVETTE_HALF[0], 2 * CUVETTE_HALF[0], 2 * CUVETTE_HALF[1]],
        }
        return published(positions)

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [WAVELENGTH, ABSORBANCE]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        time_s = self._now(data)
        state = (
            math.floor(time_s / self.meter.refresh),
            self.meter.wavelength,
            self.in_holder,
            len(self.blanks),
        )
        if state != self._last[0]:  # the reading is the same until a refresh or a change in the beam
            shown = self.meter.read(time_s, self.absorbance_in_beam(time_s))
            self._last = (state, shown if math.isfinite(shown) else _OVER)
        return {"wavelength": self.meter.wavelength, "absorbance": self._last[1]}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        up = np.array([0.0, 1.0, 0.0])
        return {
            face.instrument: face.reading_site(
                np.array([FACE_X, FACE_Y[face.instrument], DECK_Z + FACE_SURFACE_M]), up
            )
            for face in FACES
        }
