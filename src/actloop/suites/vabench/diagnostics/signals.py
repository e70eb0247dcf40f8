"""Automatic signals: counts computed from an episode's evidence alone, shown to annotators beside the rubric.

A signal is evidence to look at, never a label: each has a short name, a value and the step numbers (the
observation steps at which the actions were decided, as the viewer numbers them) that support it.

Targets. Every environment action is read as a command with a *target*, from the pose the model was shown
before it (the latest observation text, updated by each action's recorded proprioception):

- ``gripper.move_world`` (and each arm of ``dual_gripper.move_world``): the finger midpoint (GC) displaced
  by the commanded translation; two targets are *the same* within ``SAME_POINT_MM``;
- ``gripper.rotate_local``: the gripper frame rotated about its local axis; the same within
  ``SAME_ANGLE_DEG``;
- gripper open/close and camera actions: the command itself.

An action is *refused* when the environment found it invalid (not dispatched) or its planner failed.

First contact opportunity: the first dispatched robot action that closes a gripper or ends with a finger
midpoint within ``CONTACT_HEIGHT_M`` of the table top, whichever comes first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from actloop.sim.scene import TABLE_TOP_Z

SAME_POINT_MM = 10.0
SAME_ANGLE_DEG = 5.0
CONTACT_HEIGHT_M = 0.06
WORLD_AXES = {"x": 0, "y": 1, "z": 2}

SIGNALS: dict[str, str] = {
    "refused_actions": "environment actions that were invalid (not executed) or whose planner failed",
    "repeated_refused_target": "refused actions whose target repeats that of an earlier refused action "
    f"(moves within {SAME_POINT_MM:g} mm, rotations within {SAME_ANGLE_DEG:g}°, the same gripper or camera "
    "command)",
    "error_then_changed": "refused robot actions whose next robot command has a materially different "
    "target (a changed estimate)",
    "error_then_repeated": "refused robot actions whose next robot command repeats the same target",
    "camera_before_contact": "camera actions executed before the first contact opportunity (the first "
    f"gripper close, or the first motion ending within {100 * CONTACT_HEIGHT_M:g} cm of the table top)",
    "rejected_replies": "model replies that never reached the environment (unparseable or not an action)",
}
"""Each signal's name and what it counts, in the order :func:`episode_signals` returns them."""


@dataclass(frozen=True)
class Signal:
    name: str
    value: int
    steps: tuple[int, ...]
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "steps": list(self.steps), "description": SIGNALS[self.name]}


@dataclass(frozen=True)
class Pose:
    """One arm's finger midpoint (m) and gripper frame (columns: local rx, ry, rz in world), if known."""

    gc: np.ndarray
    frame: np.ndarray | None


@dataclass(frozen=True)
class Command:
    """One environment action as a target (see the module docstring)."""

    step: int
    kind: str  # "move", "rotate", "gripper" or "camera"
    name: str
    arms: tuple[str | None, ...]
    targets: tuple[np.ndarray | None, ...]
    dispatched: bool
    refused: bool

    @property
    def robot(self) -> bool:
        return self.kind != "camera"

    def same_target(self, other: Command) -> bool:
        if (self.kind, self.name, self.arms) != (other.kind, other.name, other.arms):
            return False
        if self.kind not in ("move", "rotate"):
            return True
        pairs = [
            (a, b)
            for a, b in zip(self.targets, other.targets, strict=True)
            if a is not None and b is not None
        ]
        if len(pairs) < len(self.targets):
            return False
        if self.kind == "move":
            return all(1000 * float(np.linalg.norm(a - b)) <= SAME_POINT_MM for a, b in pairs)
        return all(_frame_angle_deg(a, b) <= SAME_ANGLE_DEG for a, b in pairs)


def episode_signals(evidence: dict[str, Any]) -> list[Signal]:
    """The signals of one episode's evidence (:func:`~actloop.suites.vabench.diagnostics.evidence.
    episode_evidence` output), in ``SIGNALS`` order."""
    commands = list(episode_commands(evidence))
    return [
        _refused(commands),
        _repeated_refused(commands),
        *_after_errors(commands),
        _camera_before_contact(evidence, commands),
        _rejected_replies(evidence),
    ]


def episode_commands(evidence: dict[str, Any]) -> Iterator[Command]:
    """Every environment action of the episode as a :class:`Command`, in order."""
    poses: dict[str, Pose] = {}
    for index, step in enumerate(evidence.get("steps") or []):
        number = _step_number(step, index)
        poses.update(_poses_from_text(step.get("text") or ""))
        for action in step.get("actions") or []:
            command = _command(number, action, poses)
            if command is not None:
                yield command
            poses.update(_poses_from_proprioception(action.get("proprioception")))


def _refused(commands: list[Command]) -> Signal:
    refused = [c for c in commands if c.refused]
    invalid = sum(not c.dispatched for c in refused)
    detail = f"{invalid} invalid, {len(refused) - invalid} planner failure(s)" if refused else "none"
    return Signal("refused_actions", len(refused), _steps(refused), detail)


def _repeated_refused(commands: list[Command]) -> Signal:
    refused = [c for c in commands if c.refused]
    repeats, supporting = 0, []
    for i, command in enumerate(refused):
        earlier = [c for c in refused[:i] if c.same_target(command)]
        if earlier:
            repeats += 1
            supporting += [*earlier, command]
    detail = f"{repeats} refused action(s) repeat an earlier refused target" if repeats else "none"
    return Signal("repeated_refused_target", repeats, _steps(supporting), detail)


def _after_errors(commands: list[Command]) -> tuple[Signal, Signal]:
    changed: list[tuple[Command, Command]] = []
    repeated: list[tuple[Command, Command]] = []
    unanswered = 0
    robot = [c for c in commands if c.robot]
    for i, error in enumerate(robot):
        if not error.refused:
            continue
        if i + 1 == len(robot):
            unanswered += 1
            continue
        following = robot[i + 1]
        (repeated if following.same_target(error) else changed).append((error, following))
    tail = f"; {unanswered} refused action(s) with no later robot command" if unanswered else ""
    return (
        Signal("error_then_changed", len(changed), _pair_steps(changed), _pairs(changed) + tail),
        Signal("error_then_repeated", len(repeated), _pair_steps(repeated), _pairs(repeated) + tail),
    )


def _camera_before_contact(evidence: dict[str, Any], commands: list[Command]) -> Signal:
    opportunity = _contact_opportunity(evidence)
    cameras = [
        c
        for c in commands
        if c.kind == "camera" and c.dispatched and (opportunity is None or c.step < opportunity[0])
    ]
    detail = (
        f"first contact opportunity at step {opportunity[0]} ({opportunity[1]})"
        if opportunity
        else "no contact opportunity reached: every camera action counted"
    )
    return Signal("camera_before_contact", len(cameras), _steps(cameras), detail)


def _contact_opportunity(evidence: dict[str, Any]) -> tuple[int, str] | None:
    """The step of the first contact opportunity and what made it one, or None."""
    for index, step in enumerate(evidence.get("steps") or []):
        for action in step.get("actions") or []:
            name = str((action.get("decision") or {}).get("action", ""))
            if not action.get("dispatched") or name.startswith("camera."):
                continue
            if name.endswith(".close"):
                return _step_number(step, index), "gripper close"
            poses = _poses_from_proprioception(action.get("proprioception")).values()
            height = min((float(pose.gc[2]) - TABLE_TOP_Z for pose in poses), default=math.inf)
            if height <= CONTACT_HEIGHT_M:
                return _step_number(step, index), f"a gripper {1000 * height:.0f} mm above the table"
    return None


def _rejected_replies(evidence: dict[str, Any]) -> Signal:
    steps = []
    for index, step in enumerate(evidence.get("steps") or []):
        for turn in step.get("turns") or []:
            data = turn.get("data") or {}
            if turn.get("type") == "decision_rejected" and data.get("kind") != "not_dispatched":
                steps.append(_step_number(step, index))
    detail = f"at step(s) {', '.join(map(str, sorted(set(steps))))}" if steps else "none"
    return Signal("rejected_replies", len(steps), tuple(sorted(set(steps))), detail)


def _command(step: int, action: dict[str, Any], poses: dict[str, Pose]) -> Command | None:
    decision = action.get("decision")
    if not isinstance(decision, dict) or not isinstance(decision.get("action"), str):
        return None
    name: str = decision["action"]
    dispatched = bool(action.get("dispatched"))
    refused = not dispatched or action.get("valid") is False or action.get("planner_success") is False
    arms: tuple[str | None, ...]
    targets: tuple[np.ndarray | None, ...]
    if name.startswith("camera."):
        kind, arms, targets = "camera", (), ()
    elif name == "dual_gripper.move_world":
        kind, arms = "move", ("left", "right")
        targets = tuple(_moved(poses.get(arm), decision.get(arm)) for arm in ("left", "right"))
    elif name == "gripper.move_world":
        kind, arms = "move", (_arm(decision, poses),)
        targets = (_moved(poses.get(arms[0] or ""), decision),)
    elif name == "gripper.rotate_local":
        kind, arms = "rotate", (_arm(decision, poses),)
        targets = (_rotated(poses.get(arms[0] or ""), decision),)
    else:
        family = name.partition(".")[0]
        side = family.removesuffix("_gripper") if family != "gripper" else None
        kind, arms, targets = "gripper", (side or _arm(decision, poses),), ()
    return Command(step, kind, name, arms, targets, dispatched, refused)


def _arm(decision: dict[str, Any], poses: dict[str, Pose]) -> str | None:
    """The arm a single-arm command moves: its ``arm`` field, else the only arm known."""
    arm = decision.get("arm")
    if isinstance(arm, str):
        return arm
    return next(iter(poses)) if len(poses) == 1 else None


def _moved(pose: Pose | None, translation: Any) -> np.ndarray | None:
    if pose is None or not isinstance(translation, dict):
        return None
    axis, sign, distance = translation.get("axis"), translation.get("sign"), translation.get("distance_mm")
    if axis not in WORLD_AXES or sign not in ("+", "-") or not isinstance(distance, int | float):
        return None
    target = pose.gc.copy()
    target[WORLD_AXES[axis]] += (1 if sign == "+" else -1) * float(distance) / 1000
    return target


def _rotated(pose: Pose | None, decision: dict[str, Any]) -> np.ndarray | None:
    axis, sign, angle = decision.get("axis"), decision.get("sign"), decision.get("angle_deg")
    if pose is None or pose.frame is None or axis not in ("rx", "ry", "rz") or sign not in ("+", "-"):
        return None
    if not isinstance(angle, int | float):
        return None
    u = pose.frame[:, ("rx", "ry", "rz").index(axis)]
    u = u / np.linalg.norm(u)
    theta = math.radians(float(angle)) * (1 if sign == "+" else -1)
    cross = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    rotation = np.eye(3) + math.sin(theta) * cross + (1 - math.cos(theta)) * cross @ cross
    return np.asarray(rotation @ pose.frame)


def _frame_angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    cosine = (float(np.trace(a.T @ b)) - 1) / 2
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


_ARM_HEADER = re.compile(r"^(\w+) arm:$")
_NUMBERS = r"\[([-\d.eE+]+), ([-\d.eE+]+), ([-\d.eE+]+)\]"
_GC_LINE = re.compile(r"^\s+GC \(finger midpoint\) xyz m: " + _NUMBERS)
_AXIS_LINE = re.compile(r"^\s+local axis (r[xyz]) \([a-z ]+\) in world: " + _NUMBERS)


def _poses_from_text(text: str) -> dict[str, Pose]:
    """The arms' poses as an observation's text shows them (``<arm> arm:`` sections)."""
    found: dict[str, dict[str, np.ndarray]] = {}
    arm: str | None = None
    for line in text.splitlines():
        if header := _ARM_HEADER.match(line):
            arm = header.group(1)
        elif arm and (gc := _GC_LINE.match(line)):
            found.setdefault(arm, {})["gc"] = np.array([float(v) for v in gc.groups()])
        elif arm and (axis := _AXIS_LINE.match(line)):
            found.setdefault(arm, {})[axis.group(1)] = np.array([float(v) for v in axis.groups()[1:]])
    return {name: pose for name, parts in found.items() if (pose := _pose(parts)) is not None}


def _poses_from_proprioception(proprioception: Any) -> dict[str, Pose]:
    poses = {}
    for arm in proprioception if isinstance(proprioception, list) else []:
        if not isinstance(arm, dict) or not isinstance(arm.get("arm"), str):
            continue
        axes = arm.get("axes")
        axes = axes if isinstance(axes, dict) else {}
        parts = {"gc": _vector(arm.get("gc")), **{k: _vector(axes.get(k)) for k in ("rx", "ry", "rz")}}
        pose = _pose({k: v for k, v in parts.items() if v is not None})
        if pose is not None:
            poses[arm["arm"]] = pose
    return poses


def _pose(parts: dict[str, np.ndarray]) -> Pose | None:
    if "gc" not in parts:
        return None
    axes = [parts[k] for k in ("rx", "ry", "rz") if k in parts]
    frame = np.column_stack(axes) if len(axes) == 3 else None
    return Pose(parts["gc"], frame)


def _vector(value: Any) -> np.ndarray | None:
    if isinstance(value, list) and len(value) == 3 and all(isinstance(v, int | float) for v in value):
        return np.array(value, dtype=float)
    return None


def _step_number(step: dict[str, Any], index: int) -> int:
    number = step.get("step")
    return number if isinstance(number, int) and not isinstance(number, bool) else index


def _steps(commands: list[Command]) -> tuple[int, ...]:
    return tuple(sorted({c.step for c in commands}))


def _pair_steps(pairs: list[tuple[Command, Command]]) -> tuple[int, ...]:
    return tuple(sorted({c.step for pair in pairs for c in pair}))


def _pairs(pairs: list[tuple[Command, Command]]) -> str:
    return ", ".join(f"step {a.step} → {b.step}" for a, b in pairs) or "none"
