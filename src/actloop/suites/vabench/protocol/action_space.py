"""Which decisions a given episode accepts (arms, camera control, tools)."""

from __future__ import annotations

from dataclasses import dataclass

from actloop.suites.vabench.protocol.decisions import (
    INCREMENTAL_CAMERA_ACTIONS,
    SEMANTIC_VIEWS,
    VIEW_TARGETS,
    Arm,
)

MAX_CONSECUTIVE_CAMERA_ACTIONS = 5


@dataclass(frozen=True)
class ActionSpace:
    """The decision vocabulary of one episode.

    ``arms`` is ``("right",)`` for single-arm tasks and ``("left", "right")`` for dual-arm tasks; in
    dual-arm mode every single-gripper command must name its arm. ``camera`` is False in the passive
    protocol. ``tools`` lists the non-environment tools available during evaluation.
    """

    arms: tuple[Arm, ...] = ("right",)
    camera: bool = True
    tools: tuple[str, ...] = ("camera.history",)

    @property
    def dual_arm(self) -> bool:
        return len(self.arms) == 2

    def camera_actions(self) -> tuple[str, ...]:
        """Camera action names without the ``camera.`` prefix; empty when camera control is off."""
        if not self.camera:
            return ()
        views = tuple(f"view_{v}" for v in SEMANTIC_VIEWS)
        if self.dual_arm:
            views += tuple(f"view_{t}_{v}" for t in VIEW_TARGETS for v in SEMANTIC_VIEWS)
        return views + INCREMENTAL_CAMERA_ACTIONS
