"""A tiny deterministic environment implementing the Environment protocol, for harness tests.

Success: a ``gripper.close`` that directly follows a ``gripper.move_world``. Camera actions change only
the view; more than ``max_camera`` in a row are refused (``dispatched=False``). Frames are 8×8 PNGs.
Faults for the harness tests: failing or hanging steps, a failing build, and a frozen host process.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from PIL import Image

from actloop.core.suite import TaskInfo, register
from actloop.errors import UnknownTask
from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    CameraAction,
    EnvAction,
    MoveWorld,
    SetGripper,
    action_name,
)
from actloop.suites.vabench.protocol.observation import ArmState, Feedback, Frame, Observation
from actloop.suites.vabench.protocol.step import Evaluation, StepResult, Transition
from actloop.suites.vabench.suite import VABench

INSTRUCTION = "Pick up the red cube."


def png(step: int, view: str) -> bytes:
    """A deterministic 8×8 PNG that differs per step and view."""
    color = ((step * 40) % 256, len(view) * 20 % 256, 128)
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buffer, format="PNG")
    return buffer.getvalue()


class FakeEnv:
    """Deterministic stand-in for ``SpatialEnv`` (``task``/``seed``/``protocol`` are only labels)."""

    def __init__(
        self,
        task: str = "pick_cube",
        seed: int = 0,
        protocol: str = "active",
        budget: int = 5,
        max_camera: int = 2,
        fail_on_step: bool = False,
        hang_on_step: float = 0.0,
        fail_on_init: bool = False,
        freeze_on_seed: int | None = None,
        pid_file: str | None = None,
    ) -> None:
        """``freeze_on_seed``: the episode of that seed writes its process id to ``pid_file`` and stops
        the process (SIGSTOP) at its first step, as a frozen host would (only ever in a host process)."""
        if fail_on_init:
            raise ValueError("fake env refused to build")
        self.task, self.seed, self.protocol = task, seed, protocol
        self._budget = budget
        self._max_camera = max_camera
        self._fail_on_step = fail_on_step
        self._hang_on_step = hang_on_step
        self._freeze = freeze_on_seed == seed
        self._pid_file = pid_file
        self._step = 0
        self._z = 0.9
        self._gripper: str = "open"
        self._last: EnvAction | None = None
        self._camera_run = 0
        self._view = "active"
        self._frames: dict[int, tuple[Frame, ...]] = {}
        self.closed = False
        self.threads = {threading.get_ident()}

    @property
    def action_space(self) -> ActionSpace:
        return ActionSpace(camera=self.protocol == "active")

    @property
    def instruction(self) -> str:
        return INSTRUCTION

    @property
    def budget(self) -> int:
        return self._budget

    def reset(self) -> Transition:
        self.threads.add(threading.get_ident())
        return self._result(Feedback(), dispatched=True)

    def step(self, action: EnvAction) -> Transition:
        self.threads.add(threading.get_ident())
        if self._fail_on_step:
            raise RuntimeError("fake env exploded")
        if self._hang_on_step:
            time.sleep(self._hang_on_step)
        if self._freeze and self._pid_file:
            Path(self._pid_file).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGSTOP)
        name = action_name(action)
        if isinstance(action, CameraAction):
            if self._camera_run >= self._max_camera:
                feedback = Feedback(name, False, None, f"at most {self._max_camera} camera actions in a row")
                return self._result(feedback, dispatched=False)
            self._camera_run += 1
            self._view = action.name
        else:
            self._camera_run = 0
        if isinstance(action, MoveWorld):
            sign = 1 if action.translation.sign == "+" else -1
            self._z += sign * action.translation.distance_mm / 1000
        if isinstance(action, SetGripper):
            self._gripper = "closed" if action.command == "close" else "open"
        self._step += 1
        grasped = isinstance(action, SetGripper) and isinstance(self._last, MoveWorld)
        self._last = action
        return self._result(Feedback(name, True, True, ""), dispatched=True, grasped=grasped)

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        return self._frames.get(step)

    def provenance(self) -> dict[str, Any]:
        return {"scene_id": "fake-scene", "platform": {"digest": "fake-platform"}}

    def close(self) -> None:
        self.closed = True

    def _arm(self) -> ArmState:
        return ArmState(
            arm="right",
            ee_position=(0.3, 0.0, self._z + 0.1),
            ee_quaternion=(0.0, 1.0, 0.0, 0.0),
            ee_rpy_deg=(180.0, 0.0, 0.0),
            gripper="closed" if self._gripper == "closed" else "open",
            gc=(0.3, 0.0, self._z),
            axes={"rx": (0.0, 0.0, -1.0), "ry": (0.0, 1.0, 0.0), "rz": (1.0, 0.0, 0.0)},
            approach_tilt_deg=0.0,
        )

    def _result(self, feedback: Feedback, *, dispatched: bool, grasped: bool = False) -> Transition:
        frames = (Frame(self._view, png(self._step, self._view)),)
        self._frames[self._step] = frames
        observation = Observation(
            instruction=INSTRUCTION,
            step=self._step,
            budget=self._budget,
            arms=(self._arm(),),
            feedback=feedback,
            frames=frames,
            consecutive_camera_actions=self._camera_run,
            max_consecutive_camera_actions=self._max_camera,
        )
        state = f"{self._step}:{self._z:.4f}:{self._gripper}".encode()
        evaluation = Evaluation(
            success=grasped,
            conditions={"lifted": grasped, "gripper_closed": self._gripper == "closed"},
            checkpoints={"moved": self._z != 0.9},
            state_hash=hashlib.sha256(state).hexdigest()[:16],
            paper_success=grasped,
            paper_conditions={"lifted": grasped},
        )
        if grasped:
            return Transition(StepResult(observation, dispatched, True, "success"), evaluation)
        if self._step >= self._budget:
            return Transition(StepResult(observation, dispatched, True, "budget"), evaluation)
        return Transition(StepResult(observation, dispatched), evaluation)


class FakeSuite(VABench):
    """A second suite for harness tests: vabench's decision protocol on :class:`FakeEnv`, one task
    (``pick_cube``), seeds 0-99."""

    name: ClassVar[str] = "fake"
    title: ClassVar[str] = "harness-test suite"
    env_factory: ClassVar[str] = "fake_env:FakeEnv"

    def task_names(self) -> list[str]:
        return ["pick_cube"]

    def task_info(self, task: str) -> TaskInfo:
        if task not in self.task_names():
            raise UnknownTask(f"unknown fake task {task!r}")
        return TaskInfo(task, 1, 5, None, INSTRUCTION)

    def verified_seeds(self, task: str) -> list[int]:
        return list(range(100))

    def add_commands(self, commands: Any) -> None:
        """No commands of its own: vabench's (annotate, judge) are vabench's alone."""


register(FakeSuite())
