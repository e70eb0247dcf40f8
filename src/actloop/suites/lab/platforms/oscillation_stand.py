"""The spring stand set for oscillation (#4): the stand's tray hangs on an open-coil spring whose free motion
is the exactly stepped :class:`~..physics.oscillator.HangingSpring` (a third of the spring's own mass moving
with the load), and a linear encoder reads the tray's drop, shown on an LCD and recorded by a logger (its LOG
key on the meter box) 120 times a second: every second physics step, so each row holds the tray where it
was at the row's time.

The spring's own mass also stretches it by half its weight; the physics engine, which moves the tray while
the robot touches it or its load, sees that as the spring's reference length (an initial tension of minus
half the spring's weight), so both hang the tray at the same rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec, Shown
from actloop.suites.lab.physics.oscillator import G, HangingSpring
from actloop.suites.lab.platforms.base import ReadingSite, published
from actloop.suites.lab.platforms.display import DisplayFace, blank_textures, faces_assets, faces_textures
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.platforms.spring_stand import RULER, WEIGHTS, SpringStand, weight_parts
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part

LOG_HZ = 120.0
METER_BOX = (-0.25, -0.06)
METER_HALF = (0.06, 0.025, 0.05)
LOG_KEY = (METER_BOX[0] + 0.035, METER_BOX[1])
LOGGER = "logger"
ENCODER = InstrumentSpec(
    "encoder",
    "mm",
    DigitalDisplay(digits=5, decimals=2, min_digit_px=12.0),
    refresh_hz=LOG_HZ,
    noise_sd=0.003,
)
"""The tray's drop below the encoder's zero, in mm to 0.01."""
FACE = DisplayFace.of("encoder_lcd", ENCODER, 0.07, 0.02)
FACE_CENTRE = (METER_BOX[0] - 0.01, METER_BOX[1] - METER_HALF[1] - 0.001, TABLE_TOP_Z + 0.06)


def stand_parts() -> tuple[Part, ...]:
    """Every part of the oscillation stand, in the card's order."""
    return (
        Part("stand", "holds the spring, the ruler and the encoder", restore="fixed"),
        Part("spring", "an open-coil spring hanging from the stand; carries the tray", restore="fixed"),
        Part(
            "tray",
            "hangs from the spring; weights set on it load the spring; its pointer marks its height on the "
            "ruler",
            restore="any",
        ),
        *weight_parts(),
        Part("ruler", "a vertical scale graduated in millimetres beside the pointer", restore="fixed"),
        Part(
            "encoder",
            f"a linear encoder on the stand: reads how far the tray has dropped below its zero mark, in mm "
            f"(shown on the meter box's LCD {LOG_HZ:g} times a second)",
            restore="fixed",
        ),
        Part(
            "log_key",
            "a key on the meter box's top: starts and stops the logger, which records the encoder "
            f"{LOG_HZ:g} times a second",
            restore="any",
        ),
    )


class OscillationStand(SpringStand):
    """The oscillation stand of one instance (see the module docstring)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **SpringStand.drawn_as,
        "encoder": ("meter_box", "encoder_lcd"),
        "log_key": ("key_log",),
    }

    def __init__(
        self,
        k: float,
        spring_mass: float,
        damping: float,
        free_length: float,
        tray_mass: float,
        encoder_zero: float,
        weight_mass: float,
        weights: int = WEIGHTS,
    ) -> None:
        super().__init__(
            k,
            -spring_mass * G / 2,
            free_length,
            tray_mass,
            0.0,
            weight_mass,
            weights,
            motion=HangingSpring(k, spring_mass, damping, free_length, DT),
        )
        self.encoder_zero = encoder_zero
        """The tray's drop below the anchor at the encoder's zero (m)."""
        self.logging = False
        self._log_key = PressEdge()
        self._key = -1

    # --- MJCF ---
    def bodies_xml(self) -> str:
        mx, my = METER_BOX
        centre = " ".join(map(str, FACE_CENTRE))
        return f"""{super().bodies_xml()}
<body name="meter_box" pos="{mx} {my} {TABLE_TOP_Z}">
  <geom name="meter_box" type="box" size="{" ".join(map(str, METER_HALF))}" pos="0 0 {METER_HALF[2]}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{FACE.geom_xml(centre)}
</body>
{key_xml("log", LOG_KEY[0], LOG_KEY[1], TABLE_TOP_Z + 2 * METER_HALF[2], "0.2 0.6 0.3 1")}"""

    def sections_xml(self) -> str:
        return f'{super().sections_xml()}<contact><exclude body1="key_log" body2="meter_box"/></contact>'

    def assets_xml(self) -> str:
        return f"{super().assets_xml()}\n{faces_assets((FACE,))}"

    def textures(self) -> dict[str, np.ndarray]:
        return {**super().textures(), **blank_textures((FACE,))}

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        return faces_textures((FACE,), shown)

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        self._key = int(model.joint("key_log").qposadr[0])

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        if self._log_key.pressed(-float(data.qpos[self._key])):
            self.logging = not self.logging
        super().after_step(model, data)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The stand's layout (:meth:`SpringStand.layout`), the encoder's LCD window (its centre, width and
        height) and the LOG key (its centre and the top of its cap)."""
        x, y, z = FACE_CENTRE
        return {
            **super().layout(),
            **published(
                {
                    "encoder_lcd": [x, y - 0.001, z],
                    "encoder_lcd_size": [FACE.width_m, FACE.height_m],
                    "log_key": [*LOG_KEY, key_top(TABLE_TOP_Z + 2 * METER_HALF[2])],
                }
            ),
        }

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        return {
            **super().reading_sites(data),
            ENCODER.name: FACE.reading_site(np.array(FACE_CENTRE), np.array([0.0, 0.0, 1.0])),
        }

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [RULER, ENCODER]

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, (ENCODER.name,), LOG_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        drop = float(data.qpos[self.tray_joint])
        return {**super().true_values(data), ENCODER.name: 1000.0 * (drop - self.encoder_zero)}
