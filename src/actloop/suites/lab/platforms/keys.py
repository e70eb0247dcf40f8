"""Push keys: a round cap on a spring-returned vertical slide joint, switched on when pushed past
:data:`KEY_PRESSED_M` and off only when back above :data:`KEY_RELEASED_M` (no chatter from a bouncing
fingertip)."""

from __future__ import annotations

from actloop.sim.scene import WORLD_GEOM

KEY_RADIUS = 0.009
KEY_CAP_HALF_M = 0.003
KEY_REST_M = 0.008
"""A key cap's bottom stands this far above what it is mounted on at rest; it travels :data:`KEY_TRAVEL_M`
down."""
KEY_TRAVEL_M = 0.005
KEY_PRESSED_M = 0.003
KEY_RELEASED_M = 0.0015
KEY_STIFFNESS = 60.0
KEY_PRELOAD_M = 0.004


def key_xml(name: str, x: float, y: float, mount_z: float, rgba: str) -> str:
    """The key ``key_<name>`` (body, joint and cap geom) standing on ``mount_z`` at (x, y)."""
    z = mount_z + KEY_REST_M + KEY_CAP_HALF_M
    return f"""
<body name="key_{name}" pos="{x} {y} {z}">
  <joint name="key_{name}" type="slide" axis="0 0 1" range="{-KEY_TRAVEL_M} 0" stiffness="{KEY_STIFFNESS}"
         springref="{KEY_PRELOAD_M}" damping="1.0"/>
  <geom name="key_{name}" type="cylinder" size="{KEY_RADIUS} {KEY_CAP_HALF_M}" mass="0.004"
        rgba="{rgba}" {WORLD_GEOM}/>
  <geom name="key_{name}_stem" type="cylinder" size="0.004 {KEY_REST_M / 2}"
        pos="0 0 {-KEY_CAP_HALF_M - KEY_REST_M / 2}" rgba="0.3 0.3 0.3 1" contype="0" conaffinity="0"
        mass="0"/>
</body>"""


def key_top(mount_z: float) -> float:
    """The top of a key's cap at rest, standing on ``mount_z``."""
    return mount_z + KEY_REST_M + 2 * KEY_CAP_HALF_M


def switched(down: bool, travel: float) -> bool:
    """Whether a key that was ``down`` is down now, pushed ``travel`` metres in."""
    return travel > (KEY_RELEASED_M if down else KEY_PRESSED_M)


class PressEdge:
    """The moment a key goes down: :meth:`pressed`, given its travel every physics step, is true on the step
    it switches on (once per press however long it is held)."""

    def __init__(self) -> None:
        self.down = False

    def pressed(self, travel: float) -> bool:
        down = switched(self.down, travel)
        edge = down and not self.down
        self.down = down
        return edge
