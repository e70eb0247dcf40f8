"""Typed decisions a model can make in one turn (the seed's tables 26 and 27).

A decision is exactly one of: a robot action, a camera action, a non-environment tool call, or stop.
``to_json`` gives the canonical wire form, the same JSON a model is asked to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Arm = Literal["left", "right"]
WorldAxis = Literal["x", "y", "z"]
LocalAxis = Literal["rx", "ry", "rz"]
Sign = Literal["+", "-"]
GripperCommand = Literal["open", "close"]

MIN_DISTANCE_MM = 1.0
MAX_DISTANCE_MM = 100.0
MIN_ANGLE_DEG = 1.0
MAX_ANGLE_DEG = 90.0

SEMANTIC_VIEWS: tuple[str, ...] = ("topdown", "side", "front_side_45", "side_top_45", "oblique_45")
"""The five gripper-centred views, in the fixed order of the passive protocol."""

INCREMENTAL_CAMERA_ACTIONS: tuple[str, ...] = (
    "move_left",
    "move_right",
    "move_up",
    "move_down",
    "zoom_in",
    "zoom_out",
    "yaw_left",
    "yaw_right",
    "pitch_up",
    "pitch_down",
)
VIEW_TARGETS: tuple[str, ...] = ("left", "right", "both")
"""Dual-arm tasks also accept ``view_<target>_<view>``; a bare ``view_<view>`` targets both arms."""


@dataclass(frozen=True)
class Translation:
    """A signed world-axis translation of ``distance_mm`` millimetres."""

    axis: WorldAxis
    sign: Sign
    distance_mm: float

    def to_json(self) -> dict[str, Any]:
        return {"axis": self.axis, "sign": self.sign, "distance_mm": self.distance_mm}


@dataclass(frozen=True)
class MoveWorld:
    """``gripper.move_world``: translate one end effector along a world axis."""

    translation: Translation
    arm: Arm | None = None
    reason: str = ""


@dataclass(frozen=True)
class RotateLocal:
    """``gripper.rotate_local``: rotate about a gripper-local axis, keeping GC approximately fixed."""

    axis: LocalAxis
    sign: Sign
    angle_deg: float
    arm: Arm | None = None
    reason: str = ""


@dataclass(frozen=True)
class SetGripper:
    """Open or close one gripper (``arm`` left/right/None) or both (``arm="both"``)."""

    command: GripperCommand
    arm: Arm | Literal["both"] | None = None
    reason: str = ""


@dataclass(frozen=True)
class DualMoveWorld:
    """``dual_gripper.move_world``: both arms translate in one synchronized motion."""

    left: Translation
    right: Translation
    reason: str = ""


@dataclass(frozen=True)
class CameraAction:
    """``camera.<name>``, e.g. ``view_topdown``, ``view_left_side``, ``move_left``, ``zoom_in``."""

    name: str
    reason: str = ""


@dataclass(frozen=True)
class ToolCall:
    """A non-environment tool call, e.g. ``camera.history``; never advances the environment."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class Stop:
    """End the episode voluntarily."""

    reason: str = ""


RobotAction = MoveWorld | RotateLocal | SetGripper | DualMoveWorld
EnvAction = RobotAction | CameraAction
Decision = RobotAction | CameraAction | ToolCall | Stop


def action_name(decision: Decision) -> str:
    """The wire name of a decision (``gripper.move_world``, ``camera.zoom_in``, ``stop``, ...)."""
    match decision:
        case MoveWorld():
            return "gripper.move_world"
        case RotateLocal():
            return "gripper.rotate_local"
        case SetGripper(command=command, arm="both"):
            return f"dual_gripper.{command}"
        case SetGripper(command=command, arm=None):
            return f"gripper.{command}"
        case SetGripper(command=command, arm=arm):
            return f"{arm}_gripper.{command}"
        case DualMoveWorld():
            return "dual_gripper.move_world"
        case CameraAction(name=name):
            return f"camera.{name}"
        case ToolCall(name=name):
            return name
        case Stop():
            return "stop"
    raise TypeError(f"not a decision: {decision!r}")


def to_json(decision: Decision) -> dict[str, Any]:
    """The canonical JSON object for a decision, as a model would write it."""
    out: dict[str, Any]
    match decision:
        case MoveWorld(translation=t, arm=arm):
            out = {"action": action_name(decision), **t.to_json()}
            if arm is not None:
                out["arm"] = arm
        case RotateLocal(axis=axis, sign=sign, angle_deg=angle, arm=arm):
            out = {"action": action_name(decision), "axis": axis, "sign": sign, "angle_deg": angle}
            if arm is not None:
                out["arm"] = arm
        case DualMoveWorld(left=left, right=right):
            out = {"action": action_name(decision), "left": left.to_json(), "right": right.to_json()}
        case SetGripper() | CameraAction():
            out = {"action": action_name(decision)}
        case ToolCall(name=name, args=args):
            out = {"tool": name, "args": dict(args)}
        case Stop():
            out = {"stop": True}
        case _:
            raise TypeError(f"not a decision: {decision!r}")
    if decision.reason:
        out["reason"] = decision.reason
    return out
