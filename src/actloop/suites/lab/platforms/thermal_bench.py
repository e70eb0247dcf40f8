"""The thermal bench: a heated aluminium block with a well, a holder beside it, a heater controller with a
rocker power switch and setpoint keys, and a meter panel (:class:`HeatedBlockBench`, the kit); for the
thermistor's B (:class:`ThermalBench`) a thermistor probe stands in the holder and the panel shows the
block's temperature and the probe's resistance.

The heat model (:mod:`..physics.heat`) is a lumped network stepped every :data:`THERMAL_STEPS` physics
steps: the block exchanges heat with the room and is heated by the controller (proportional to the
setpoint's excess over the block, up to its maximum power, while the switch is on); the thermistor bead
exchanges heat with the block while the probe's stem is in the well, with the room otherwise, and is heated
by the ohmmeter's test current. The probe is a two-wire one: its two thin leads of resistance wire (their
resistance drawn per instance, the same at any temperature) run from the handle to the ohmmeter, which
reads them in series with the thermistor. The switch is a bistable rocker (a hinge held at either end of
its travel: front half down is on); each key is a sprung slide joint that counts one press each time it is
pushed past its threshold.

The kit's standard parts (:func:`bench_parts` and its pieces) carry the card's texts, generated from the
constants here; its published layout (:meth:`HeatedBlockBench.layout`) says where a hand or a camera finds
them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.physics.heat import ROOM, ThermalNetwork
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    front_windows,
)
from actloop.suites.lab.platforms.wells import Well, well_xml
from actloop.suites.lab.spec import Part

KELVIN = 273.15
THERMAL_STEPS = 24
"""Physics steps per step of the heat model (0.1 s)."""
BLOCK = (0.15, 0.06)
BLOCK_HALF = (0.04, 0.04, 0.03)
HOLDER = (0.15, -0.07)
HOLDER_HALF = (0.02, 0.02, 0.025)
WELL_HALF = 0.005
"""Half the width of the square wells of the block and the holder (the stem leans a few degrees in them)."""
FUNNEL_HEIGHT = 0.008
"""Each well's mouth opens into a funnel rising this far at 45 degrees: it guides a stem a few millimetres
off into the well."""
WELL_DEPTH = 0.04
WELL = Well(WELL_HALF, WELL_DEPTH, FUNNEL_HEIGHT)
STEM_RADIUS = 0.003
STEM_LENGTH = 0.05
HANDLE_RADIUS = 0.008
HANDLE_LENGTH = 0.05
PROBE_MASS = 0.04
CONTROLLER = (0.36, 0.04)
CONTROLLER_HALF = (0.06, 0.05, 0.03)
SWITCH_X = CONTROLLER[0] - 0.03
KEYS_X = (CONTROLLER[0] + 0.012, CONTROLLER[0] + 0.042)
"""The down key and the up key, on the controller's top."""
PANEL = (-0.08, 0.04)
PANEL_HALF = (0.07, 0.02, 0.09)
"""A tall panel: its LCDs stand above where a level wrist camera can be held over the table."""
ROCKER_THROW_RAD = 0.2
ROCKER_PIVOT_M = 0.008
"""The rocker's pivot above the controller's top: either end clears the top at full throw."""
ROCKER_STIFFNESS = 0.05
"""N·m/rad towards the end of travel the rocker is nearer to."""
KEY_CAP_HALF = (0.009, 0.009, 0.005)
KEY_CAP_Z = 0.004
"""A key's cap: its half size and its centre above the key's origin (on the controller's top)."""
KEY_TRAVEL = 0.004
KEY_PRESSED = 0.0028
KEY_RELEASED = 0.0012
SETPOINT_STEP = 5.0
SETPOINT_RANGE = (25.0, 80.0)
BLOCK_CAPACITY = 100.0
"""J/K: an aluminium block of about 110 g."""
BLOCK_LOSS = 0.4
"""W/K to the room."""
HEATER_MAX_W = 60.0
GAIN_W_PER_K = 25.0
BEAD_CAPACITY = 0.04
WELL_CONDUCTANCE = 0.005
AIR_CONDUCTANCE = 0.0015
TEST_CURRENT = 50e-6
"""A: the ohmmeter's test current through the thermistor."""
LEAD_LENGTH_M = 1.0
"""The probe's lead, handle to meter: two cores of thin constantan wire."""
IN_WELL_M = 0.004
"""The stem's tip is in a well when it is within this of the well's axis and below half its depth."""

THERMOMETER = InstrumentSpec(
    "thermometer",
    "degC",
    DigitalDisplay(digits=4, decimals=2, min_digit_px=12.0),
    refresh_hz=2.0,
    time_constant_s=3.0,
    noise_sd=0.003,
)
OHMMETER = InstrumentSpec(
    "ohmmeter",
    "kohm",
    DigitalDisplay(digits=5, decimals=3, min_digit_px=12.0),
    refresh_hz=2.0,
    time_constant_s=0.5,
    noise_sd=0.0002,
)
SETPOINT = InstrumentSpec("setpoint", "degC", DigitalDisplay(digits=2, decimals=0, min_digit_px=10.0), 10.0)
FACES = (
    DisplayFace.of("thermometer_lcd", THERMOMETER, 0.066, 0.022),
    DisplayFace.of("ohmmeter_lcd", OHMMETER, 0.08, 0.022),
    DisplayFace.of("setpoint_lcd", SETPOINT, 0.03, 0.02),
)
FACE_CENTRES = {
    "thermometer_lcd": (PANEL[0] - 0.02, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.15),
    "ohmmeter_lcd": (PANEL[0] - 0.013, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.11),
    "setpoint_lcd": (CONTROLLER[0], CONTROLLER[1] - CONTROLLER_HALF[1] - 0.001, TABLE_TOP_Z + 0.03),
}
"""Window centres of the faces (world), each facing −y (towards the robot)."""


def rocker_xml(name: str, x: float, y: float, pivot_z: float) -> str:
    """A bistable rocker ``name`` (body, hinge about x, cap and a red mark on its front half) pivoting at
    (x, y, ``pivot_z``); :func:`snap_rocker` holds it at either end of its travel."""
    return f"""<body name="{name}" pos="{x} {y} {pivot_z}">
  <joint name="{name}" type="hinge" axis="1 0 0" range="{-ROCKER_THROW_RAD} {ROCKER_THROW_RAD}"
         damping="0.002" solreflimit="0.005 1"/>
  <geom name="{name}_cap" type="box" size="0.01 0.016 0.004" rgba="0.1 0.1 0.1 1" mass="0.03"
        solref="0.005 1" {WORLD_GEOM}/>
  <geom name="{name}_mark" type="box" size="0.006 0.003 0.0005" pos="0 -0.01 0.004" rgba="0.9 0.1 0.1 1"
        contype="0" conaffinity="0" mass="0"/>
</body>"""


def snap_rocker(data: mujoco.MjData, qpos_adr: int, dof_adr: int) -> bool:
    """Pull a rocker towards the end of its travel it is nearer to; whether its front half is down."""
    q = float(data.qpos[qpos_adr])
    end = ROCKER_THROW_RAD if q > 0 else -ROCKER_THROW_RAD
    data.qfrc_applied[dof_adr] = -ROCKER_STIFFNESS * (q - end)
    return q > 0.0


def block_part() -> Part:
    return Part("block", "an aluminium block with a well in its top; the heater warms it", restore="fixed")


def probe_parts() -> tuple[Part, ...]:
    """The two-wire thermistor probe and its holder."""
    return (
        Part(
            "probe",
            "a two-wire thermistor probe: the thermistor in the tip of a thin stem below a handle, joined to "
            f"the ohmmeter by a {LEAD_LENGTH_M:g} m lead of two thin constantan wires; rests in its holder",
        ),
        Part("holder", "holds the probe upright by its stem beside the block", restore="fixed"),
    )


def heater_parts() -> tuple[Part, ...]:
    """The heater controller's rocker switch and setpoint keys (with its setpoint display)."""
    low, high = SETPOINT_RANGE
    return (
        Part(
            "heater_switch",
            "a rocker on the controller's top: front half pressed down turns the heater on, back half off",
            restore="off",
        ),
        Part(
            "setpoint_keys",
            f"two keys on the controller's top: the left one lowers the setpoint by {SETPOINT_STEP:g} degC, "
            f"the right one raises it by {SETPOINT_STEP:g} degC ({low:g} to {high:g} degC); the "
            "controller's display shows the setpoint",
            restore="any",
        ),
    )


def meter_parts() -> tuple[Part, ...]:
    """The meter panel's thermometer and ohmmeter."""
    return (
        Part("thermometer", f"shows the block's temperature in {THERMOMETER.unit}", restore="fixed"),
        Part(
            "ohmmeter",
            "shows the resistance between the two wires of the probe's lead at its terminals, in "
            f"{OHMMETER.unit}",
            restore="fixed",
        ),
    )


def bench_parts() -> tuple[Part, ...]:
    """Every part of the bench, in the card's order."""
    return (block_part(), *probe_parts(), *heater_parts(), *meter_parts())


class HeatedBlockBench(FacedPlatform):
    """The thermal bench's fixed kit: the heated block and the holder with their wells, the heater controller
    (its rocker and setpoint keys) and the meter panel, with the block's lumped heat model and the
    controller's loop. An experiment's bench adds its item (what stands in the holder, drawn by
    :meth:`item_xml`), its faces, what it couples into the heat model each step (:meth:`couple`) and what
    else stands on the bench (:meth:`extra_xml`)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {"heater_switch": ("rocker",), "setpoint_keys": ("key",)}
    """Window centres of the bench's faces (world), each facing −y (towards the robot)."""
    well: ClassVar[Well] = WELL
    """The bore of the block's and the holder's wells (the item's stem fits it)."""

    def __init__(self, room_c: float) -> None:
        self.room_c = room_c
        self.network = ThermalNetwork(THERMAL_STEPS / 240.0, room_c + KELVIN)
        self.network.add_body("block", BLOCK_CAPACITY, room_c + KELVIN)
        self.network.set_link("block", ROOM, BLOCK_LOSS)
        self.network.add_heater("heater", "block", 0.0)
        self.setpoint = SETPOINT_RANGE[0]
        self._steps = 0
        self._ids: dict[str, int] = {}
        self._key_down = [False, False]

    # --- MJCF ---
    def item_xml(self) -> str:
        """The item standing in the holder at the start."""
        return ""

    def extra_xml(self) -> str:
        """What else stands on the bench."""
        return ""

    def stage_xml(self) -> str:
        """The heated block and the holder, with their wells."""
        return f"""{well_xml("block", BLOCK, BLOCK_HALF, "0.75 0.76 0.78 1", self.well)}
{well_xml("holder", HOLDER, HOLDER_HALF, "0.3 0.3 0.33 1", self.well)}"""

    def panel_xml(self) -> str:
        """The meter panel the faces stand on."""
        px, py = PANEL
        return f"""<body name="panel" pos="{px} {py} {TABLE_TOP_Z}">
  <geom name="panel_case" type="box" size="{PANEL_HALF[0]} {PANEL_HALF[1]} {PANEL_HALF[2]}"
        pos="0 0 {PANEL_HALF[2]}" rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>"""

    def bodies_xml(self) -> str:
        z = TABLE_TOP_Z
        faces = "\n".join(
            face.geom_xml(" ".join(map(str, self.face_centres[face.texture]))) for face in self.faces()
        )
        cx, cy = CONTROLLER
        top = z + 2 * CONTROLLER_HALF[2]
        cap = " ".join(map(str, KEY_CAP_HALF))
        keys = "\n".join(
            f"""<body name="key_{i}" pos="{x} {cy} {top}">
  <joint name="key_{i}" type="slide" axis="0 0 1" range="{-KEY_TRAVEL} 0" stiffness="100" springref="0.006"
         damping="1.5" solreflimit="0.005 1"/>
  <geom name="key_{i}_cap" type="box" size="{cap}" pos="0 0 {KEY_CAP_Z}" rgba="{rgba}" mass="0.03"
        solref="0.005 1" {WORLD_GEOM}/>
</body>"""
            for i, (x, rgba) in enumerate(zip(KEYS_X, ("0.2 0.3 0.7 1", "0.75 0.25 0.2 1"), strict=True))
        )
        return f"""
{self.stage_xml()}
{self.item_xml()}
{self.panel_xml()}
<body name="controller" pos="{cx} {cy} {z}">
  <geom name="controller_case" type="box" size="{" ".join(map(str, CONTROLLER_HALF))}"
        pos="0 0 {CONTROLLER_HALF[2]}" rgba="0.3 0.32 0.36 1" {WORLD_GEOM}/>
</body>
{rocker_xml("rocker", SWITCH_X, cy, top + ROCKER_PIVOT_M)}
<body name="faces">
{faces}
</body>
{keys}{self.extra_xml()}"""

    def sections_xml(self) -> str:
        # the keys and the rocker sink into the controller's top through their slots
        pairs = ("key_0", "key_1", "rocker")
        excluded = "".join(f'<exclude body1="{body}" body2="controller"/>' for body in pairs)
        return f"<contact>{excluded}</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        rocker = model.joint("rocker")
        self._ids = {
            "rocker_q": int(rocker.qposadr[0]),
            "rocker_v": int(rocker.dofadr[0]),
            "key_0": int(model.joint("key_0").qposadr[0]),
            "key_1": int(model.joint("key_1").qposadr[0]),
        }
        data.qpos[self._ids["rocker_q"]] = -ROCKER_THROW_RAD  # off: the back half down

    def heater_on(self, data: mujoco.MjData) -> bool:
        """The rocker's front half is down."""
        return float(data.qpos[self._ids["rocker_q"]]) > 0.0

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        snap_rocker(data, self._ids["rocker_q"], self._ids["rocker_v"])
        for i in range(2):
            depth = -float(data.qpos[self._ids[f"key_{i}"]])
            if not self._key_down[i] and depth >= KEY_PRESSED:
                self._key_down[i] = True
                change = SETPOINT_STEP if i == 1 else -SETPOINT_STEP
                self.setpoint = min(SETPOINT_RANGE[1], max(SETPOINT_RANGE[0], self.setpoint + change))
            elif self._key_down[i] and depth <= KEY_RELEASED:
                self._key_down[i] = False
        self._steps += 1
        if self._steps % THERMAL_STEPS == 0:
            self._advance(data)

    def couple(self, data: mujoco.MjData) -> None:
        """Set the heat model's links from where the bench's items are now (each step of the heat model)."""

    def _advance(self, data: mujoco.MjData) -> None:
        """One step of the heat model under the present switch, setpoint and items' positions."""
        self.couple(data)
        self.heat(self.heater_on(data))

    def heat(self, on: bool) -> None:
        """One step of the heat model with the heater ``on`` or off under the present setpoint."""
        block_c = self.network.temperature("block") - KELVIN
        power = min(HEATER_MAX_W, max(0.0, GAIN_W_PER_K * (self.setpoint - block_c)))
        self.network.set_heater("heater", on=on, watts=power)
        self.network.step(1)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """Each well's axis (x, y) and the top of its box (z), the wells' depth, and the controls
        (:meth:`controls_layout`)."""
        wells = {
            "block_well": [*BLOCK, TABLE_TOP_Z + 2 * BLOCK_HALF[2]],
            "holder_well": [*HOLDER, TABLE_TOP_Z + 2 * HOLDER_HALF[2]],
            "well_depth": [self.well.depth],
        }
        return {**published(wells), **self.controls_layout()}

    def controls_layout(self) -> dict[str, list[float]]:
        """The rocker's pivot, each key's centre and the top of its cap, and each LCD's window (the centre of
        its face, and its width and height)."""
        top = TABLE_TOP_Z + 2 * CONTROLLER_HALF[2]
        cap_top = top + KEY_CAP_Z + KEY_CAP_HALF[2]
        keys = {
            f"{name}_key": [x, CONTROLLER[1], cap_top] for name, x in zip(("down", "up"), KEYS_X, strict=True)
        }
        windows = front_windows(self.faces(), self.face_centres)
        return published({"rocker_pivot": [SWITCH_X, CONTROLLER[1], top + ROCKER_PIVOT_M], **keys, **windows})


def steady_block_c(setpoint_c: float, room_c: float) -> float:
    """Where the proportional controller holds the block (degC) once nothing else draws heat from it: its
    gain's pull to the setpoint balances the loss to the room, a little under the setpoint."""
    return (GAIN_W_PER_K * setpoint_c + BLOCK_LOSS * room_c) / (GAIN_W_PER_K + BLOCK_LOSS)


def tip_in_well(tip: np.ndarray, centre: tuple[float, float], top_z: float, well: Well = WELL) -> bool:
    """Whether a stem's tip at ``tip`` is inside ``well`` at ``centre`` whose box top is at ``top_z``: near
    its axis and below half its depth."""
    x, y, z = (float(v) for v in tip)
    return math.hypot(x - centre[0], y - centre[1]) <= IN_WELL_M and z <= top_z - well.depth / 2


class ThermalBench(HeatedBlockBench):
    """The apparatus of one thermistor instance (see the module docstring)."""

    face_centres = FACE_CENTRES

    def __init__(self, b_constant: float, r25: float, room_c: float, lead_ohms: float = 0.0) -> None:
        super().__init__(room_c)
        self.b_constant = b_constant
        self.r25 = r25
        self.lead_ohms = lead_ohms
        self.network.add_thermistor(
            "bead",
            "block",
            r25=r25,
            b_constant=b_constant,
            heat_capacity=BEAD_CAPACITY,
            conductance=0.0,
            lead_resistance=lead_ohms,
        )
        self.network.set_link("bead", "block", 0.0)
        self.network.set_link("bead", ROOM, AIR_CONDUCTANCE)
        self.network.set_test_current("bead", TEST_CURRENT)
        self.in_well = False

    def item_xml(self) -> str:
        probe_z = TABLE_TOP_Z + 2 * HOLDER_HALF[2] - WELL_DEPTH + 0.0005
        return f"""<body name="probe" pos="{HOLDER[0]} {HOLDER[1]} {probe_z:.5f}">
  <freejoint name="probe_free"/>
  <geom name="probe_stem" type="capsule" fromto="0 0 {STEM_RADIUS} 0 0 {STEM_LENGTH}" size="{STEM_RADIUS}"
        rgba="0.8 0.8 0.82 1" mass="{PROBE_MASS / 4}" friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="probe_handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_LENGTH / 2}"
        pos="0 0 {STEM_LENGTH + HANDLE_LENGTH / 2}" rgba="0.15 0.2 0.5 1" mass="{3 * PROBE_MASS / 4}"
        friction="1.2 0.005 0.0001" {WORLD_GEOM}/>
</body>"""

    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        self._ids["probe"] = model.body("probe").id

    def probe_tip(self, data: mujoco.MjData) -> np.ndarray:
        """World position of the stem's tip (the probe body's origin)."""
        return np.array(data.xpos[self._ids["probe"]])

    def probe_in_well(self, data: mujoco.MjData) -> bool:
        return tip_in_well(self.probe_tip(data), BLOCK, TABLE_TOP_Z + 2 * BLOCK_HALF[2])

    def probe_in_holder(self, data: mujoco.MjData) -> bool:
        return tip_in_well(self.probe_tip(data), HOLDER, TABLE_TOP_Z + 2 * HOLDER_HALF[2])

    def couple(self, data: mujoco.MjData) -> None:
        """The bead exchanges heat with the block while the probe's stem is in its well, else with the air."""
        in_well = self.probe_in_well(data)
        if in_well != self.in_well:
            self.in_well = in_well
            self.network.set_link("bead", "block", WELL_CONDUCTANCE if in_well else 0.0)
            self.network.set_link("bead", ROOM, 0.0 if in_well else AIR_CONDUCTANCE)

    def temperatures_k(self) -> tuple[float, float]:
        """The block's and the thermistor bead's temperatures (K)."""
        return self.network.temperature("block"), self.network.temperature("bead")

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The kit's layout (:meth:`HeatedBlockBench.layout`) and the probe's handle (its bottom and top above
        the stem's tip)."""
        return {**super().layout(), **published({"probe_handle": [STEM_LENGTH, STEM_LENGTH + HANDLE_LENGTH]})}

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [THERMOMETER, OHMMETER, SETPOINT]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {
            "thermometer": self.network.temperature("block") - KELVIN,
            "ohmmeter": self.network.resistance("bead") / 1000.0,
            "setpoint": self.setpoint,
        }
