"""SpatialEnv: one vabench episode under the active-camera or passive five-view protocol.

The env owns the world, the executor and the camera. It turns decisions into executor calls or camera
moves, runs the task checker after every dispatched action, latches checkpoints, counts the shared
budget and enforces the camera-chain limit in code. It returns model-visible observations and
evaluator-only evaluations separately (see ``protocol.step``).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Literal

import mujoco
import numpy as np

from actloop.control.executor import Executor, PlanResult
from actloop.errors import ConfigError, EnvError
from actloop.sim import camera as cam
from actloop.sim.arm import ArmHandle
from actloop.sim.fingerprint import actloop_version, platform_fingerprint
from actloop.sim.render import DEFAULT_HEIGHT, DEFAULT_WIDTH, Renderer, encode_png
from actloop.sim.scene import LEFT_ARM, RIGHT_ARM, SceneConfig, scene_xml
from actloop.sim.world import World
from actloop.suites.vabench.home import home_configuration
from actloop.suites.vabench.protocol.action_space import MAX_CONSECUTIVE_CAMERA_ACTIONS, ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    MAX_ANGLE_DEG,
    MAX_DISTANCE_MM,
    MIN_ANGLE_DEG,
    MIN_DISTANCE_MM,
    SEMANTIC_VIEWS,
    CameraAction,
    DualMoveWorld,
    EnvAction,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Translation,
    action_name,
)
from actloop.suites.vabench.protocol.observation import ArmState, Feedback, Frame, Observation
from actloop.suites.vabench.protocol.step import Evaluation, StepResult, StopReason, Transition
from actloop.suites.vabench.task import Task, TaskContext, get_task

Protocol = Literal["active", "passive"]
RESET_SETTLE_STEPS = 250
_WORLD_AXES = {"x": 0, "y": 1, "z": 2}
_LOCAL_AXES = {"rx": 0, "ry": 1, "rz": 2}


class SpatialEnv:
    """A vabench episode. Implements :class:`~actloop.core.environment.Environment`."""

    steps: int
    _done: bool
    _camera_chain: int

    def __init__(
        self,
        task: str,
        seed: int,
        protocol: Protocol = "active",
        width: int = DEFAULT_WIDTH,
        height: int = DEFAULT_HEIGHT,
        render: bool = True,
    ) -> None:
        """``render=False`` leaves observations without frames: for evaluator-side work (seed screening,
        scene hashes, replay checks) where only the physics matters; it never changes the physics."""
        if protocol not in ("active", "passive"):
            raise ConfigError(f"protocol must be 'active' or 'passive', got {protocol!r}")
        self.task: Task = get_task(task)(seed)
        self.protocol = protocol
        self.seed = seed
        mounts = {"right": RIGHT_ARM, "left": LEFT_ARM}
        self._config = SceneConfig(arms=tuple(mounts[a] for a in self.task.arms), objects=self.task.objects())
        self._size = (width, height)
        self._render = render
        self._xml = scene_xml(self._config)
        self._model = mujoco.MjModel.from_xml_string(self._xml)
        self._renderer: Renderer | None = None
        self._space = ActionSpace(arms=self.task.arms, camera=protocol == "active")
        self._reset_state()

    # --- Environment protocol ---
    @property
    def action_space(self) -> ActionSpace:
        return self._space

    @property
    def instruction(self) -> str:
        return self.task.instruction

    @property
    def budget(self) -> int:
        return self.task.budget

    def reset(self) -> Transition:
        self._reset_state()
        self._frames_by_step[0] = self._capture()
        return self._result(Feedback(), dispatched=True)

    def step(self, action: EnvAction) -> Transition:
        if self._done:
            raise EnvError("episode is over; call reset() to start a new one")
        name = action_name(action)
        problem = self._refusal(action)
        if problem is not None:
            return self._result(
                Feedback(name, valid=False, planner_success=None, message=problem), dispatched=False
            )
        self.steps += 1
        if isinstance(action, CameraAction):
            self._camera_chain += 1
            self._apply_camera(action.name)
            feedback = Feedback(name, valid=True, planner_success=None, message="view changed")
        else:
            self._camera_chain = 0
            plan = self._dispatch(action)
            feedback = Feedback(name, valid=True, planner_success=plan.success, message=plan.reason)
        self._frames_by_step[self.steps] = self._capture()
        return self._result(feedback, dispatched=True)

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        return self._frames_by_step.get(step)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def provenance(self) -> dict[str, Any]:
        """Evaluator-side facts about this environment: scene identity and platform fingerprint."""
        return {"scene_id": self.scene_id, "platform": platform_fingerprint()}

    # --- evaluator-side access (seed screening, tests, expert) ---
    @property
    def scene_id(self) -> str:
        """SHA-256 of everything the scene is built from: task, seed, sampled layout, the full scene XML,
        the home joint vectors and the actloop and MuJoCo versions. It names the scene on every machine;
        the settled state it produces is compared separately, with tolerances across platforms."""
        inputs = {
            "suite": "vabench",
            "task": self.task.name,
            "seed": self.seed,
            "layout": self.task.layout,
            "scene_xml": self._xml,
            "home_q": {arm: [float(q) for q in home_configuration(arm)] for arm in self.task.arms},
            "actloop": actloop_version(),
            "mujoco": mujoco.__version__,
        }
        canonical = json.dumps(inputs, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    @property
    def context(self) -> TaskContext:
        return self._ctx

    @property
    def world(self) -> World:
        return self._world

    def evaluate(self) -> Evaluation:
        self._world.forward()
        verdict = self.task.verdict(self._ctx)
        for name, reached in self.task.checkpoints(self._ctx).items():
            self._checkpoints[name] = self._checkpoints.get(name, False) or reached
        return Evaluation(
            success=verdict.success,
            conditions=verdict.conditions,
            checkpoints=dict(self._checkpoints),
            state_hash=self._world.state_hash(),
            metrics=self.task.metrics(self._ctx),
            paper_success=verdict.paper_success,
            paper_conditions=verdict.paper_conditions,
            poses={b: list(self._world.body_pose(b)) for b in self.task.objects_of_interest},
        )

    # --- internals ---
    def _reset_state(self) -> None:
        self._world = World(self._model)
        self._arms: dict[str, ArmHandle] = {a: ArmHandle.from_model(self._model, a) for a in self.task.arms}
        for name, handle in self._arms.items():
            handle.set_configuration(self._world.data, home_configuration(name), gripper_open=True)
        self._world.forward()
        self._world.step(RESET_SETTLE_STEPS)
        self._world.forward()
        self._ctx = TaskContext(
            world=self._world,
            arms=self._arms,
            initial_positions={b: self._world.body_position(b) for b in self.task.objects_of_interest},
            initial_quaternions={b: self._world.body_quaternion(b) for b in self.task.objects_of_interest},
        )
        self._executor = Executor(self._world, self._arms)
        self._camera = cam.initial_pose()
        self._camera_chain = 0
        self._checkpoints: dict[str, bool] = {}
        self._frames_by_step: dict[int, tuple[Frame, ...]] = {}
        self.steps = 0
        self._done = False

    def _refusal(self, action: EnvAction) -> str | None:
        """Why an action cannot be dispatched at all, or None. Refused actions use no budget."""
        if isinstance(action, CameraAction):
            if not self._space.camera:
                return "camera actions are not available in the passive protocol"
            if action.name not in self._space.camera_actions():
                return f"unknown camera action {action.name!r}"
            if self._camera_chain >= MAX_CONSECUTIVE_CAMERA_ACTIONS:
                return (
                    f"at most {MAX_CONSECUTIVE_CAMERA_ACTIONS} consecutive camera actions are allowed; "
                    "issue a robot action or stop"
                )
            return None
        arms: list[str | None]
        translations: list[Translation] = []
        match action:
            case MoveWorld(translation=t, arm=arm):
                arms, translations = [arm], [t]
            case RotateLocal(angle_deg=angle, arm=arm):
                arms = [arm]
                if not (math.isfinite(angle) and MIN_ANGLE_DEG <= angle <= MAX_ANGLE_DEG):
                    return f"angle_deg must be between {MIN_ANGLE_DEG:g} and {MAX_ANGLE_DEG:g}"
            case SetGripper(arm=arm):
                arms = list(self._space.arms) if arm == "both" else [arm]
                if arm == "both" and not self._space.dual_arm:
                    return "dual_gripper actions need a dual-arm task"
            case DualMoveWorld(left=left, right=right):
                if not self._space.dual_arm:
                    return "dual_gripper.move_world needs a dual-arm task"
                arms, translations = ["left", "right"], [left, right]
        for t in translations:
            if not (math.isfinite(t.distance_mm) and MIN_DISTANCE_MM <= t.distance_mm <= MAX_DISTANCE_MM):
                return f"distance_mm must be between {MIN_DISTANCE_MM:g} and {MAX_DISTANCE_MM:g}"
        for named in arms:
            if named is None and self._space.dual_arm:
                return "this is a dual-arm task: name the arm (left or right)"
            if named is not None and named not in self._arms:
                return f"this task exposes only the {' and '.join(self._space.arms)} arm"
        return None

    def _dispatch(self, action: EnvAction) -> PlanResult:
        match action:
            case MoveWorld(translation=t, arm=arm):
                return self._executor.move_world({self._arm_or_default(arm): _vector(t)})
            case DualMoveWorld(left=left, right=right):
                return self._executor.move_world({"left": _vector(left), "right": _vector(right)})
            case RotateLocal(axis=axis, sign=sign, angle_deg=angle, arm=arm):
                angle_rad = math.radians(angle) * (1 if sign == "+" else -1)
                return self._executor.rotate_local(self._arm_or_default(arm), _LOCAL_AXES[axis], angle_rad)
            case SetGripper(command=command, arm=arm):
                names: list[str] = list(self._space.arms) if arm == "both" else [self._arm_or_default(arm)]
                return self._executor.set_gripper(names, open_=command == "open")
        raise TypeError(f"not a robot action: {action!r}")

    def _arm_or_default(self, arm: str | None) -> str:
        """The named arm, or the only arm of a single-arm task (``_refusal`` made sure one applies)."""
        return arm or self._space.arms[-1]

    def _view_centre(self, target: str | None) -> tuple[np.ndarray, float]:
        """Centre and lateral side for semantic views: one arm's GC or the midpoint of both."""
        data = self._world.data
        if target in ("left", "right"):
            return self._arms[target].gc(data), (-1.0 if target == "left" else 1.0)
        if len(self._arms) == 1:
            ((name, handle),) = self._arms.items()
            return handle.gc(data), (-1.0 if name == "left" else 1.0)
        return 0.5 * (self._arms["left"].gc(data) + self._arms["right"].gc(data)), 1.0

    def _apply_camera(self, name: str) -> None:
        if name.startswith("view_"):
            rest = name.removeprefix("view_")
            target: str | None = None
            view = rest
            for t in ("left", "right", "both"):
                if rest.startswith(t + "_"):
                    target, view = (None if t == "both" else t), rest.removeprefix(t + "_")
            centre, side = self._view_centre(target)
            self._camera = cam.semantic_view(view, centre, side)
        else:
            self._camera = cam.incremental(self._camera, name)

    def _capture(self) -> tuple[Frame, ...]:
        if not self._render:
            return ()
        if self._renderer is None:
            self._renderer = Renderer(self._model, *self._size)
        data = self._world.data
        if self.protocol == "active":
            return (Frame("active", encode_png(self._renderer.render(data, self._camera))),)
        centre, side = self._view_centre(None)
        return tuple(
            Frame(view, encode_png(self._renderer.render(data, cam.semantic_view(view, centre, side))))
            for view in SEMANTIC_VIEWS
        )

    def _arm_state(self, name: str) -> ArmState:
        handle = self._arms[name]
        data = self._world.data
        pos, rot = handle.control_pose(data)
        quat = np.empty(4)
        mujoco.mju_mat2Quat(quat, rot.reshape(9))
        rx = rot[:, 0]
        tilt = math.degrees(math.acos(float(np.clip(-rx[2], -1.0, 1.0))))
        return ArmState(
            arm=name,  # type: ignore[arg-type]
            ee_position=_tuple3(pos),
            ee_quaternion=tuple(float(x) for x in quat),  # type: ignore[arg-type]
            ee_rpy_deg=_rpy_deg(rot),
            gripper="open" if handle.gripper_commanded_open(data) else "closed",
            gc=_tuple3(handle.gc(data)),
            axes={k: _tuple3(rot[:, i]) for k, i in _LOCAL_AXES.items()},
            approach_tilt_deg=tilt,
        )

    def _result(self, feedback: Feedback, dispatched: bool) -> Transition:
        evaluation = self.evaluate()
        stop_reason: StopReason | None = None
        if evaluation.success:
            stop_reason = "success"
        elif self.steps >= self.budget:
            stop_reason = "budget"
        self._done = stop_reason is not None
        last = max(self._frames_by_step)
        observation = Observation(
            instruction=self.instruction,
            step=self.steps,
            budget=self.budget,
            arms=tuple(self._arm_state(a) for a in self._space.arms),
            feedback=feedback,
            frames=self._frames_by_step[last],
            consecutive_camera_actions=self._camera_chain,
            max_consecutive_camera_actions=MAX_CONSECUTIVE_CAMERA_ACTIONS if self._space.camera else 0,
        )
        result = StepResult(observation, dispatched=dispatched, done=self._done, stop_reason=stop_reason)
        return Transition(result, evaluation)


def _vector(t: Translation) -> np.ndarray:
    v = np.zeros(3)
    v[_WORLD_AXES[t.axis]] = (1.0 if t.sign == "+" else -1.0) * t.distance_mm / 1000.0
    return v


def _tuple3(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def _rpy_deg(rot: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch, yaw (degrees) with rot = Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    pitch = math.asin(float(np.clip(-rot[2, 0], -1.0, 1.0)))
    roll = math.atan2(float(rot[2, 1]), float(rot[2, 2]))
    yaw = math.atan2(float(rot[1, 0]), float(rot[0, 0]))
    return (math.degrees(roll), math.degrees(pitch), math.degrees(yaw))
