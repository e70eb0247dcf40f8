"""The air track of the collision (#6): cart_a and cart_b ride the air track (:mod:`.air_track`) without
friction; each carries a flag that sticks out behind it and passes through two photogates standing behind
the track. A spring plunger at the left post launches cart_a to the right when it rests against it and
LAUNCH is pressed; a buffer at each end of the track stops a cart that runs into it dead. A timer console at
the right shows each gate's first two passages since ARM was pressed (:mod:`.collision_timer`), in ms, and a
logger (LOG) records its four LCDs ten times a second.

While the robot touches neither cart, the carts move by the exactly stepped :class:`~..physics.collision.
Carts` (their state written into the joints); while it touches either, the physics engine moves both (the
buffers are the joints' limits) and the exact law takes over from the engine's state when it lets go. The
photogates time the flags' edges between physics steps, exactly while the carts move by the exact law.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.collision import Carts, Event
from actloop.suites.lab.platforms.air_track import (
    GLIDER_HALF,
    HANDLE_HALF,
    LOGGER,
    TRACK_ENDS,
    TRACK_TOP_Z,
    TRACK_Y,
    GliderTrack,
    glider_xml,
    track_xml,
)
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.collision_timer import CARTS, SLOTS, Timing
from actloop.suites.lab.platforms.display import DisplayFace, console_xml, front_windows
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.spec import Part

CART_LENGTH = 2 * GLIDER_HALF[0]
PLUNGER_X = TRACK_ENDS[0] + 0.03
"""The plunger's pad: cart_a rests against it at the start, its left face here."""
BUFFER_X = (PLUNGER_X, TRACK_ENDS[1] - 0.005)
"""Where a cart's face meets the left buffer (the plunger's pad) and the right buffer."""
START_X = (PLUNGER_X + GLIDER_HALF[0], 0.0)
"""Each cart's centre at the start: cart_a against the plunger, cart_b between the gates."""
TRAVEL = (
    (BUFFER_X[0] + GLIDER_HALF[0], BUFFER_X[1] - GLIDER_HALF[0] - CART_LENGTH),
    (BUFFER_X[0] + GLIDER_HALF[0] + CART_LENGTH, BUFFER_X[1] - GLIDER_HALF[0]),
)
"""Each cart's centre between the buffers (with the other cart between it and the far one)."""
GATE_X = (-0.15, 0.12)
"""Each photogate's beam along the track."""
FLAG_M = 0.04
FLAG_OUT_M = 0.025
"""How far a flag sticks out behind its cart."""
FLAG_Y = TRACK_Y + GLIDER_HALF[1] + FLAG_OUT_M / 2
FLAG_Z = TRACK_TOP_Z + GLIDER_HALF[2]
GATE_GAP = 0.012
"""Each gate's arms are this far above and below the flag."""
CART_A_KG = 0.15
"""cart_a's printed mass."""
LAUNCH_REST_M = 0.001
"""The plunger launches cart_a only when it rests within this of the plunger's pad."""
CONSOLE = (0.40, 0.10)
CONSOLE_HALF = (0.095, 0.03, 0.07)
KEYS = {
    "log": (0.33, "0.2 0.6 0.3 1"),
    "arm": (0.38, "0.2 0.35 0.75 1"),
    "launch": (0.43, "0.85 0.2 0.15 1"),
    "air": (0.475, "0.9 0.75 0.1 1"),
}
"""Each key on the console's top, left to right: its x and colour."""
LOG_HZ = 10.0
SLOT_NAMES = ("first", "second")
TIMES = tuple(
    InstrumentSpec(
        f"gate{gate}_{slot}",
        "ms",
        DigitalDisplay(digits=6, decimals=2, min_digit_px=12.0),
        refresh_hz=LOG_HZ,
    )
    for gate in (1, 2)
    for slot in SLOT_NAMES
)
"""Each gate's first and second passage since ARM: how long its flag blocked the beam, ms to 0.01."""
FACES = tuple(DisplayFace.of(f"{spec.name}_lcd", spec, 0.072, 0.018) for spec in TIMES)
FACE_CENTRES = {
    face.texture: (
        CONSOLE[0] + (-0.045 if face.instrument.startswith("gate1") else 0.045),
        CONSOLE[1] - CONSOLE_HALF[1] - 0.001,
        TABLE_TOP_Z + (0.105 if face.instrument.endswith("first") else 0.07),
    )
    for face in FACES
}


def collision_parts() -> tuple[Part, ...]:
    """Every part of the collision's air track, in the card's order."""
    return (
        Part(
            "air_track",
            "a level air track along the bench; the carts ride it without friction; a buffer at each end "
            "stops a cart that runs into it",
            restore="fixed",
        ),
        Part(
            "cart_a",
            f"a cart of {CART_A_KG:g} kg (printed on it, its handle and flag included) with a handle on top; "
            "it rests against the plunger at the left end",
            restore="any",
        ),
        Part(
            "cart_b",
            "the cart of unknown mass, with a handle on top; it rests between the gates",
            restore="any",
        ),
        Part(
            "flags",
            f"each cart carries a flag {1000 * FLAG_M:g} mm long sticking out behind it, centred on the cart",
            restore="fixed",
        ),
        Part(
            "photogates",
            "gate 1 (left) and gate 2 (right) stand behind the track; each beam is blocked while a flag "
            "passes through it",
            restore="fixed",
        ),
        Part(
            "plunger",
            "a spring plunger at the left post: LAUNCH fires cart_a to the right when it rests against it",
            restore="fixed",
        ),
        Part(
            "timer",
            "a console at the right whose four LCDs show, in ms, how long a flag blocked each gate's beam: "
            "gate 1's on the left, gate 2's on the right, each gate's first passage since ARM at the top and "
            "its second below; a gate's passages after its second are not shown",
            restore="fixed",
        ),
        Part(
            "log_key",
            f"LOG, the first key on the console's top from the left: starts and stops the logger, which "
            f"records the four LCDs {LOG_HZ:g} times a second",
            restore="any",
        ),
        Part("arm_key", "ARM, the second key: clears the timer's LCDs and arms it", restore="any"),
        Part("launch_key", "LAUNCH, the third key: fires the plunger", restore="any"),
        Part(
            "air_key",
            "AIR, the fourth key: turns the track's air off and on (on at the start); with the air off the "
            "carts sit on the rail and stop, and the plunger cannot launch",
            restore="any",
        ),
    )


class CollisionTrack(GliderTrack):
    """The collision's air track of one instance: ``carts`` the exact law (cart_b's mass and the
    restitution hidden in it), cart_a launched at ``launch_speed`` (m/s)."""

    face_centres = FACE_CENTRES
    gliders = CARTS

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "air_track": ("track", "post_left", "post_right"),
        "flags": ("cart_a_flag", "cart_b_flag"),
        "photogates": ("gate_1", "gate_2"),
        "plunger": ("plunger",),
        "timer": ("console", *(face.texture for face in FACES)),
        "arm_key": ("key_arm",),
        "launch_key": ("key_launch",),
        "air_key": ("key_air",),
        "log_key": ("key_log",),
    }

    def __init__(self, carts: Carts, launch_speed: float) -> None:
        super().__init__()
        self.carts = carts
        self.launch_speed = launch_speed
        self.motion = [*START_X, 0.0, 0.0]
        """(x_a, x_b, v_a, v_b): each cart's centre along the track and its velocity."""
        self.timings = [Timing(0, 0.0)]
        """Every arming's timing, the current last (the timer is armed at the start)."""
        self.clock = 0.0
        self.air = True
        """Whether the track's air is on (off, the carts rest on the rail)."""
        self._keys = {name: PressEdge() for name in ("arm", "launch", "air")}

    @property
    def timing(self) -> Timing:
        return self.timings[-1]

    # --- MJCF ---
    def bodies_xml(self) -> str:
        z = TABLE_TOP_Z
        along = PLUNGER_X - 0.015 - (TRACK_ENDS[0] + TRACK_ENDS[1]) / 2
        plunger = f"""
  <geom name="plunger" type="cylinder" size="0.004 0.015" pos="{along:.4f} 0
        {FLAG_Z - (TRACK_TOP_Z + z) / 2:.4f}" euler="0 1.5708 0" rgba="0.7 0.7 0.72 1" contype="0"
        conaffinity="0" mass="0"/>"""
        carts = "\n".join(
            glider_xml(
                name,
                x,
                mass,
                (low - x, high - x),
                extra=self._flag_xml(name),
                rgba=rgba,
            )
            for name, x, mass, (low, high), rgba in zip(
                CARTS, START_X, self.carts.masses, TRAVEL, ("0.75 0.4 0.2 1", "0.25 0.45 0.6 1"), strict=True
            )
        )
        gates = "\n".join(self._gate_xml(i) for i in range(len(GATE_X)))
        console = console_xml((*CONSOLE, z), CONSOLE_HALF, FACES, FACE_CENTRES)
        keys = "\n".join(
            key_xml(name, x, CONSOLE[1], z + 2 * CONSOLE_HALF[2], rgba) for name, (x, rgba) in KEYS.items()
        )
        return f"""{track_xml(plunger)}
{carts}
{gates}
{console}
{keys}"""

    @staticmethod
    def _flag_xml(cart: str) -> str:
        return f"""
  <geom name="{cart}_flag" type="box" size="{FLAG_M / 2} {FLAG_OUT_M / 2} 0.001"
        pos="0 {GLIDER_HALF[1] + FLAG_OUT_M / 2} 0" rgba="0.1 0.1 0.1 1" contype="0" conaffinity="0"
        mass="0"/>"""

    @staticmethod
    def _gate_xml(i: int) -> str:
        """Photogate ``i`` (0-based): a post behind the flags' path, an arm above and below it, the beam
        between (its body at the beam's centre)."""
        n = i + 1
        back = FLAG_OUT_M / 2 + 0.008
        front = -FLAG_OUT_M / 2 + 0.003
        # the arms reach towards the cart, 3 mm short of its back
        arm_half_y = (back + 0.004 - front) / 2
        top = GATE_GAP + 0.004
        post_half_z = (top + FLAG_Z - TABLE_TOP_Z) / 2
        arms = "\n".join(
            f'  <geom name="gate_{n}_{side}" type="box" size="0.008 {arm_half_y:.4f} 0.004" '
            f'pos="0 {back + 0.004 - arm_half_y:.4f} {dz:.4f}" rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>'
            for side, dz in (("upper", GATE_GAP), ("lower", -GATE_GAP))
        )
        return f"""<body name="gate_{n}" pos="{GATE_X[i]} {FLAG_Y:.4f} {FLAG_Z:.4f}">
  <geom name="gate_{n}" type="box" size="0.008 0.004 {post_half_z:.4f}"
        pos="0 {back:.4f} {top - post_half_z:.4f}" rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>
{arms}
  <geom name="gate_{n}_beam" type="cylinder" size="0.0008 {GATE_GAP:.4f}" rgba="0.9 0.1 0.1 1"
        contype="0" conaffinity="0" mass="0"/>
</body>"""

    def sections_xml(self) -> str:
        pairs = [*((f"key_{name}", "console") for name in KEYS), *((name, "track") for name in CARTS)]
        return "<contact>" + "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs) + "</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        for name in self._keys:
            self._ids[f"key_{name}"] = int(model.joint(f"key_{name}").qposadr[0])
        self.clock = float(data.time)
        self._write(data)

    def _write(self, data: mujoco.MjData) -> None:
        x_a, x_b, v_a, v_b = self.motion
        self.state = [x_a - START_X[0], x_b - START_X[1], v_a, v_b]
        self.write_joints(data)

    def _pressed(self, name: str, data: mujoco.MjData) -> bool:
        return self._keys[name].pressed(-float(data.qpos[self._ids[f"key_{name}"]]))

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        start, self.clock = self.clock, float(data.time)
        self.watch_controls(data)
        if self._pressed("arm", data):
            self.timings.append(Timing(len(self.timings), self.clock))
        if self._pressed("air", data):
            self.air = not self.air
        launch = self._pressed("launch", data)
        if not self.air:
            self.timing.disturbed("the air was turned off during the timing")
        if self.touched:
            self.timing.disturbed("the robot touched a cart during the timing")
            before = self.motion
            q_a, q_b, v_a, v_b = self.joint_state(data)
            self.motion = [START_X[0] + q_a, START_X[1] + q_b, v_a, v_b]
            moved = [(self.motion[i] - before[i]) / (self.clock - start) for i in (0, 1)]
            self._record(self.carts.edges(before[:2], moved, start, self.clock - start))
            return
        if not self.air:
            self.motion[2:] = [0.0, 0.0]
        elif launch and self._resting_on_plunger():
            self.motion[2] = self.launch_speed
        self.motion, events = self.carts.step(self.motion, start, self.clock - start)
        self._record(events)
        self._write(data)

    def _resting_on_plunger(self) -> bool:
        return self.motion[0] - TRAVEL[0][0] <= LAUNCH_REST_M and self.motion[2] == 0.0

    def _record(self, events: Sequence[Event]) -> None:
        for event in events:
            self.timing.event(event)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The track's ends along x, its y and the top of its rail, each cart's centre at the start, a cart's
        half size and its handle's top above the track, each gate's beam (its x, y and height), each LCD's
        window (centre, width and height) and each key (its centre and the top of its cap)."""
        top = key_top(TABLE_TOP_Z + 2 * CONSOLE_HALF[2])
        return published(
            {
                "track_ends": list(TRACK_ENDS),
                "track_y": [TRACK_Y],
                "track_top": [TRACK_TOP_Z],
                "cart_start": list(START_X),
                "cart_half": list(GLIDER_HALF),
                "cart_handle_top": [2 * GLIDER_HALF[2] + 2 * HANDLE_HALF],
                **{f"gate_{i}_beam": [x, FLAG_Y, FLAG_Z] for i, x in enumerate(GATE_X, 1)},
                **front_windows(FACES, FACE_CENTRES),
                **{f"{name}_key": [x, CONSOLE[1], top] for name, (x, _) in KEYS.items()},
            }
        )

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def instruments(self) -> list[InstrumentSpec]:
        return list(TIMES)

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, tuple(t.name for t in TIMES), LOG_HZ)]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        values = {}
        for gate in (0, 1):
            shown = self.timing.shown(gate)
            for slot in range(SLOTS):
                ms = 1000.0 * shown[slot] if slot < len(shown) else 0.0
                values[f"gate{gate + 1}_{SLOT_NAMES[slot]}"] = ms
        return values
