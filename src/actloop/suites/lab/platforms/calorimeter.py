"""The thermal bench set for calorimetry (#24): the heated block of the kit (:class:`HeatedBlockBench`) with
a wide well, a metal sample with a handle standing in the holder, an insulated calorimeter of water with a
well for the sample, a meter panel showing the block's and the water's temperatures, and a logger (its LOG
key on the panel's top) recording both.

Heat (a lumped network, :mod:`..physics.heat`, advanced exactly every :data:`THERMAL_STEPS` physics steps):
the sample exchanges heat with the block while it stands in the block's well, with the water while it stands
in the calorimeter's, and with the air otherwise (in the holder, and while it is carried); the water (with
its cup) loses heat to the room through the calorimeter's insulation. Its conductance is hidden, so the
heat lost while the sample warms the water must be found from how the water cools afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.heat import ROOM
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.display import DisplayFace
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.platforms.thermal_bench import (
    BLOCK,
    BLOCK_HALF,
    CONTROLLER,
    CONTROLLER_HALF,
    FUNNEL_HEIGHT,
    HOLDER,
    HOLDER_HALF,
    KELVIN,
    PANEL,
    PANEL_HALF,
    SETPOINT,
    THERMOMETER,
    HeatedBlockBench,
    heater_parts,
    tip_in_well,
)
from actloop.suites.lab.platforms.wells import Well, well_xml
from actloop.suites.lab.spec import Part

WATER_C = 4186.0
"""J/(kg K): water's specific heat (the card's)."""
SAMPLE_WELL = Well(0.0145, 0.045, FUNNEL_HEIGHT)
"""The bore of the block's, the holder's and the calorimeter's wells: the sample's body fits it."""
SAMPLE_RADIUS = 0.012
SAMPLE_LENGTH = 0.04
HANDLE_RADIUS = 0.007
HANDLE_LENGTH = 0.035
CALORIMETER = (0.27, -0.09)
CALORIMETER_HALF = (0.045, 0.045, 0.045)
IN_BLOCK_W_PER_K = 2.0
"""The sample's conductance to the block with its body in the block's well."""
IN_WATER_W_PER_K = 3.0
"""The sample's conductance to the stirred water with its body in the calorimeter's well."""
IN_AIR_W_PER_K = 0.02
"""The sample's conductance to the air anywhere else (in the holder, carried)."""
LOG_HZ = 2.0
LOGGER = "logger"
HEATER_THERMOMETER = InstrumentSpec(
    "heater_thermometer",
    THERMOMETER.unit,
    THERMOMETER.display,
    THERMOMETER.refresh_hz,
    THERMOMETER.time_constant_s,
    THERMOMETER.noise_sd,
)
WATER_THERMOMETER = InstrumentSpec(
    "water_thermometer",
    "degC",
    DigitalDisplay(digits=4, decimals=2, min_digit_px=12.0),
    refresh_hz=2.0,
    time_constant_s=2.0,
    noise_sd=0.003,
)
FACES = (
    DisplayFace.of("heater_lcd", HEATER_THERMOMETER, 0.066, 0.022),
    DisplayFace.of("water_lcd", WATER_THERMOMETER, 0.066, 0.022),
    DisplayFace.of("setpoint_lcd", SETPOINT, 0.03, 0.02),
)
FACE_CENTRES = {
    "heater_lcd": (PANEL[0] - 0.02, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.15),
    "water_lcd": (PANEL[0] - 0.02, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.11),
    "setpoint_lcd": (CONTROLLER[0], CONTROLLER[1] - CONTROLLER_HALF[1] - 0.001, TABLE_TOP_Z + 0.03),
}
LOG_KEY = (PANEL[0] + 0.045, PANEL[1])
"""The LOG key on the panel's top."""


def bench_parts(cup_j_per_k: float) -> tuple[Part, ...]:
    """Every part of the calorimetry bench, in the card's order (the sample's and the water's masses are
    public values of the card)."""
    return (
        Part(
            "block",
            "an aluminium block with a well in its top; the heater warms it and what stands in its well",
            restore="fixed",
        ),
        Part(
            "sample",
            "a metal sample (sample_mass) on a handle; stands in its holder",
        ),
        Part("holder", "holds the sample upright beside the block", restore="fixed"),
        Part(
            "calorimeter",
            "an insulated cup of stirred water (water_mass) with a well for the sample; the cup and stirrer "
            f"take up {cup_j_per_k:g} J/K besides the water",
            restore="fixed",
        ),
        *heater_parts(),
        Part("heater_thermometer", f"shows the block's temperature in {THERMOMETER.unit}", restore="fixed"),
        Part(
            "water_thermometer", f"shows the water's temperature in {WATER_THERMOMETER.unit}", restore="fixed"
        ),
        Part(
            "log_key",
            f"a key on the panel's top: starts and stops the logger, which records both thermometers "
            f"{LOG_HZ:g} times a second",
            restore="any",
        ),
    )


class CalorimeterBench(HeatedBlockBench):
    """The calorimetry bench of one instance (see the module docstring)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **HeatedBlockBench.drawn_as,
        "heater_thermometer": ("heater_lcd",),
        "water_thermometer": ("water_lcd",),
        "log_key": ("key_log",),
    }
    face_centres = FACE_CENTRES
    well = SAMPLE_WELL

    def __init__(
        self,
        sample_heat_capacity: float,
        water_heat_capacity: float,
        insulation_w_per_k: float,
        room_c: float,
    ) -> None:
        super().__init__(room_c)
        self.network.add_body("sample", sample_heat_capacity, room_c + KELVIN)
        self.network.add_body("water", water_heat_capacity, room_c + KELVIN)
        self.network.set_link("water", ROOM, insulation_w_per_k)
        self.sample_at = "air"
        """Where the sample exchanges heat: ``block``, ``water`` or ``air``."""
        self.network.set_link("sample", ROOM, IN_AIR_W_PER_K)
        self.logging = False
        self._log_key = PressEdge()

    # --- MJCF ---
    def item_xml(self) -> str:
        z = TABLE_TOP_Z + 2 * HOLDER_HALF[2] - SAMPLE_WELL.depth + 0.0005
        return f"""<body name="sample" pos="{HOLDER[0]} {HOLDER[1]} {z:.5f}">
  <freejoint name="sample_free"/>
  <geom name="sample_body" type="cylinder" size="{SAMPLE_RADIUS} {SAMPLE_LENGTH / 2}"
        pos="0 0 {SAMPLE_LENGTH / 2}" rgba="0.72 0.62 0.42 1" mass="0.1" friction="1 0.005 0.0001"
        {WORLD_GEOM}/>
  <geom name="sample_handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_LENGTH / 2}"
        pos="0 0 {SAMPLE_LENGTH + HANDLE_LENGTH / 2}" rgba="0.15 0.15 0.15 1" mass="0.01"
        friction="1.5 0.02 0.002" condim="4" priority="2" {WORLD_GEOM}/>
</body>"""

    def extra_xml(self) -> str:
        cx, cy = CALORIMETER
        water_z = 2 * CALORIMETER_HALF[2] - 0.012
        surface = SAMPLE_WELL.half - 0.0005
        return f"""
{well_xml("calorimeter", CALORIMETER, CALORIMETER_HALF, "0.12 0.14 0.2 1", SAMPLE_WELL)}
<body name="calorimeter_water" pos="{cx} {cy} {TABLE_TOP_Z}">
  <geom name="calorimeter_water" type="box" size="{surface} {surface} 0.0005"
        pos="0 0 {water_z:.4f}" rgba="0.55 0.7 0.9 0.8" contype="0" conaffinity="0"/>
</body>
{key_xml("log", LOG_KEY[0], LOG_KEY[1], TABLE_TOP_Z + 2 * PANEL_HALF[2], "0.2 0.6 0.3 1")}"""

    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        self._ids["sample"] = model.body("sample").id
        self._ids["key_log"] = int(model.joint("key_log").qposadr[0])

    def sample_tip(self, data: mujoco.MjData) -> np.ndarray:
        """World position of the sample's bottom (its body's origin)."""
        return np.array(data.xpos[self._ids["sample"]])

    def sample_in(self, data: mujoco.MjData, where: str) -> bool:
        """Whether the sample stands in the well of ``where``: ``block``, ``holder`` or ``calorimeter``."""
        centre, half = {
            "block": (BLOCK, BLOCK_HALF),
            "holder": (HOLDER, HOLDER_HALF),
            "calorimeter": (CALORIMETER, CALORIMETER_HALF),
        }[where]
        return tip_in_well(self.sample_tip(data), centre, TABLE_TOP_Z + 2 * half[2], SAMPLE_WELL)

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        if self._log_key.pressed(-float(data.qpos[self._ids["key_log"]])):
            self.logging = not self.logging
        super().after_step(model, data)

    def couple(self, data: mujoco.MjData) -> None:
        """The sample exchanges heat with the block or the water it stands in, else with the air."""
        at = (
            "block"
            if self.sample_in(data, "block")
            else "water"
            if self.sample_in(data, "calorimeter")
            else "air"
        )
        if at == self.sample_at:
            return
        self.sample_at = at
        self.network.set_link("sample", "block", IN_BLOCK_W_PER_K if at == "block" else 0.0)
        self.network.set_link("sample", "water", IN_WATER_W_PER_K if at == "water" else 0.0)
        self.network.set_link("sample", ROOM, IN_AIR_W_PER_K if at == "air" else 0.0)

    def temperatures_c(self) -> dict[str, float]:
        """The block's, the sample's and the water's temperatures (degC)."""
        return {name: self.network.temperature(name) - KELVIN for name in ("block", "sample", "water")}

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The kit's layout (:meth:`HeatedBlockBench.layout`), the calorimeter's well (its axis and the top of
        its box), the sample's handle (its bottom and top above the sample's bottom) and the LOG key (its
        centre and the top of its cap)."""
        return {
            **super().layout(),
            **published(
                {
                    "calorimeter_well": [*CALORIMETER, TABLE_TOP_Z + 2 * CALORIMETER_HALF[2]],
                    "sample_handle": [SAMPLE_LENGTH, SAMPLE_LENGTH + HANDLE_LENGTH],
                    "log_key": [*LOG_KEY, key_top(TABLE_TOP_Z + 2 * PANEL_HALF[2])],
                }
            ),
        }

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [HEATER_THERMOMETER, WATER_THERMOMETER, SETPOINT]

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, (HEATER_THERMOMETER.name, WATER_THERMOMETER.name), LOG_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {
            HEATER_THERMOMETER.name: self.network.temperature("block") - KELVIN,
            WATER_THERMOMETER.name: self.network.temperature("water") - KELVIN,
            SETPOINT.name: self.setpoint,
        }
