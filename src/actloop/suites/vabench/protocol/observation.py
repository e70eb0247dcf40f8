"""What the model is allowed to see after each step: clean RGB frames and filtered proprioception.

This module is the privilege boundary. An :class:`Observation` holds only the fields the seed allows
(section 3.4): images, per-arm proprioception, the previous action's validity and planner outcome with
a short reason, and step/budget counters. Nothing else may be added here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from actloop.core.frames import Frame
from actloop.suites.vabench.protocol.decisions import Arm

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
__all__ = ["ArmState", "Feedback", "Frame", "Observation"]


@dataclass(frozen=True)
class ArmState:
    """Filtered proprioception for one arm, all in the world frame (metres, degrees).

    ``ee_position``/``ee_quaternion`` (w, x, y, z) are the controlled end-effector (hand flange) pose;
    ``gc`` is the midpoint between the physical fingers; ``axes`` holds the gripper-local axes in world
    coordinates: ``rx`` the approach axis (towards the fingertips), ``ry`` the finger-closing axis,
    ``rz`` the palm-side axis. ``approach_tilt_deg`` is the angle between ``rx`` and straight down.
    """

    arm: Arm
    ee_position: Vec3
    ee_quaternion: Quat
    ee_rpy_deg: Vec3
    gripper: Literal["open", "closed"]
    gc: Vec3
    axes: dict[str, Vec3]
    approach_tilt_deg: float

    def text(self) -> str:
        def v(x: tuple[float, ...], digits: int = 4) -> str:
            return "[" + ", ".join(f"{c:.{digits}f}" for c in x) + "]"

        lines = [
            f"{self.arm} arm:",
            f"  gripper: {self.gripper}",
            f"  GC (finger midpoint) xyz m: {v(self.gc)}",
            f"  end effector xyz m: {v(self.ee_position)}",
            f"  end effector rpy deg: {v(self.ee_rpy_deg, 1)}",
            f"  end effector quat wxyz: {v(self.ee_quaternion)}",
            f"  local axis rx (approach) in world: {v(self.axes['rx'], 3)}",
            f"  local axis ry (finger closing) in world: {v(self.axes['ry'], 3)}",
            f"  local axis rz (palm side) in world: {v(self.axes['rz'], 3)}",
            f"  approach axis angle to straight down deg: {self.approach_tilt_deg:.1f}",
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class Feedback:
    """The outcome of the previous decision as the model may see it."""

    action: str | None = None
    valid: bool | None = None
    planner_success: bool | None = None
    message: str = ""

    def text(self) -> str:
        if self.action is None:
            return "previous action: none (episode start)"

        def yn(x: bool | None) -> str:
            return "n/a" if x is None else ("yes" if x else "no")

        out = (
            f"previous action: {self.action}; valid: {yn(self.valid)}; "
            f"planner success: {yn(self.planner_success)}"
        )
        return out + (f"; note: {self.message}" if self.message else "")


@dataclass(frozen=True)
class Observation:
    """Everything the model receives at one observation point."""

    instruction: str
    step: int
    budget: int
    arms: tuple[ArmState, ...]
    feedback: Feedback
    frames: tuple[Frame, ...]
    consecutive_camera_actions: int = 0
    max_consecutive_camera_actions: int = 5

    def text(self) -> str:
        """The observation as plain text, sent before the image(s)."""
        lines = [
            f"step: {self.step} of budget {self.budget} (camera and robot actions each use one step)",
            self.feedback.text(),
        ]
        if self.max_consecutive_camera_actions:
            lines.append(
                f"consecutive camera actions: {self.consecutive_camera_actions} "
                f"(at most {self.max_consecutive_camera_actions} in a row)"
            )
        lines += [arm.text() for arm in self.arms]
        return "\n".join(lines)
