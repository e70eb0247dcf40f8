"""LabEnv: one lab episode on its bench at the T0 interface level.

The bench is the experiment's platform on the tabletop with a Panda-kinematics arm and three cameras.
Physics runs at 240 Hz; every physics step is charged to the experiment's simulated-time budget, waiting
included. When the budget runs out mid-action the episode ends in the state it reached.

T0 (the seed's section 3.2): ``observe`` (three images, robot state, an observation id; the calibration is
published once by ``calibration``), ``move_joints`` (a trajectory of 7-joint position targets, one per
physics step, rejected whole with nothing moved if any target is malformed, outside the joint limits or
faster than the joint velocity limits), ``gripper``, ``ik`` (joint angles for a hand pose, without moving,
checking collisions or planning), ``wait`` and ``submit``.
"""

from __future__ import annotations

import math
import re
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import mujoco
import numpy as np

from actloop.control.ik import ArmIK
from actloop.errors import EnvError
from actloop.sim.arm import ArmHandle
from actloop.sim.render import Renderer, encode_png
from actloop.sim.robot import FINGER_TRAVEL, GC_OFFSET, PANDA_LINKS
from actloop.sim.scene import RIGHT_ARM, SceneConfig, scene_xml
from actloop.sim.world import World
from actloop.suites.lab.cameras import HEIGHT, WIDTH, CameraSpec, calibration, wrist_pose
from actloop.suites.lab.evaluation import score_episode
from actloop.suites.lab.evidence import Verdict
from actloop.suites.lab.experiments import experiment
from actloop.suites.lab.instance import InstanceKey, draw, environment_instance_key
from actloop.suites.lab.instruments import InstrumentLog, InstrumentPanel
from actloop.suites.lab.levels import LEVELS
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.record import Record
from actloop.suites.lab.requests import EpisodeOver, LabRequestError, request_vector
from actloop.suites.lab.rig import ARM, CAMERAS, DT, HOME_Q, MAX_JOINT_SPEED
from actloop.suites.lab.scoring import Score

GRIPPER_MOVE_S = 0.5
MAX_TRAJECTORY_STEPS = 240 * 60
JOINT_LIMITS = tuple(limits for _, _, limits in PANDA_LINKS)
EXPORT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\.csv")
"""What a logger file may be called: a plain name in the workspace."""
PAD_HALF_LENGTH_M = 0.012
"""The finger pads reach this far past their centre along the approach axis."""
PALM_CENTRE_M = 0.035
PALM_HALF_SIZE_M = (0.022, 0.1, 0.025)
"""The palm as a box in the hand frame: its centre along the approach axis and its half sizes."""


@dataclass
class Clock:
    """Simulated time used against the budget."""

    budget_s: float
    steps: int = 0

    @property
    def time_s(self) -> float:
        return self.steps * DT

    @property
    def left_s(self) -> float:
        return max(0.0, self.budget_s - self.time_s)

    @property
    def steps_left(self) -> int:
        return max(0, math.floor(self.budget_s / DT + 1e-9) - self.steps)


@dataclass
class Submission:
    """What the agent submitted, at which simulated time."""

    result: dict[str, float | str]
    citations: list[dict[str, Any]]
    time_s: float


@dataclass
class LabEnv:
    """One episode of ``experiment`` on instance ``seed`` (see the module docstring)."""

    experiment_key: str
    seed: int
    render: bool = True
    level: str = "T0"
    """Interface level: ``T0``; ``T1`` adds :meth:`segment` and :meth:`move_hand`; ``T2`` adds skills in the
    agent's workspace written with T1 calls (the bench serves T2 as T1)."""
    episode_token: str = field(default_factory=lambda: secrets.token_hex(4))
    """Prefix of this episode's observation ids, so an id from another episode is never valid here."""
    instance_key: InstanceKey | None = field(default_factory=environment_instance_key, repr=False)
    """The private set's key (default: from the evaluator's environment; None: the public set). It stays
    in this process: the instance keeps only its fingerprint."""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise LabRequestError(f"level must be one of {', '.join(LEVELS)}, got {self.level!r}")
        chosen = experiment(self.experiment_key)
        self.spec = chosen.spec
        self.instance = draw(chosen.spec, self.seed, self.instance_key)
        self.platform = chosen.platform(self.instance)
        self.clock = Clock(self.spec.budget_s)
        self.submission: Submission | None = None
        self._model = self._build_model()
        self._world = World(self._model)
        self._arm = ArmHandle.from_model(self._model, ARM)
        self._arm.set_configuration(self._world.data, np.array(HOME_Q), gripper_open=True)
        self._world.data.ctrl[self._arm_actuators] = HOME_Q
        self.platform.attach(self._model, self._world.data)
        mujoco.mj_forward(self._model, self._world.data)
        self.record = Record()
        self.instrument_log = InstrumentLog(sink=self.record.append)
        self.panel = InstrumentPanel(
            self.platform.instruments(), self.platform.loggers(), self.instance.noise_key, self.instrument_log
        )
        self._recording: set[str] = set()
        self.panel.step(0.0, self.platform.true_values(self._world.data))
        self.evaluator = chosen.evaluator(self.spec, self.record, self.instance, self.platform)
        self._served = 0
        self._ik = ArmIK(self._model, ARM)
        self._renderer: Renderer | None = None
        self._render_thread = 0

    def _build_model(self) -> mujoco.MjModel:
        config = SceneConfig(
            arms=(RIGHT_ARM,),
            objects=(self.platform.bodies_xml(),),
            timestep=DT,
            assets=(self.platform.assets_xml(),) if self.platform.assets_xml() else (),
            sections=(self.platform.sections_xml(),) if self.platform.sections_xml() else (),
        )
        spec = mujoco.MjSpec.from_string(scene_xml(config))
        for name, image in self.platform.textures().items():
            height, width, _ = image.shape
            texture = spec.add_texture(
                name=name, type=mujoco.mjtTexture.mjTEXTURE_2D, width=width, height=height
            )
            texture.nchannel = 3
            texture.data = np.ascontiguousarray(image, dtype=np.uint8).tobytes()
        return spec.compile()

    @property
    def _arm_actuators(self) -> list[int]:
        return [self._model.actuator(f"{ARM}_act{i}").id for i in range(1, 8)]

    @property
    def done(self) -> bool:
        return self.submission is not None or self.clock.steps_left == 0

    # --- T0 ---
    def calibration(self) -> dict[str, Any]:
        """The cameras' calibration, the robot's published limits and the bench's published layout."""
        robot = {
            "physics_dt_s": DT,
            "joint_limits_rad": [list(limits) for limits in JOINT_LIMITS],
            "max_joint_speed_rad_s": list(MAX_JOINT_SPEED),
            "gripper_max_width_m": 2 * FINGER_TRAVEL,
            "hand_frame": "x approach (towards the fingertips), y finger-closing, z palm side",
            "finger_pad_centre_in_hand_m": [GC_OFFSET, 0.0, 0.0],
            "fingertips_in_hand_m": [GC_OFFSET + PAD_HALF_LENGTH_M, 0.0, 0.0],
            "palm_box_in_hand_m": {"centre": [PALM_CENTRE_M, 0.0, 0.0], "half_size": list(PALM_HALF_SIZE_M)},
            "ik": "solved from the current joint angles (or a given start); the solution it converges to, "
            "within limits",
            "tracking": "joints follow their targets through position servos and lag under load or contact",
        }
        return {**calibration(CAMERAS), "robot": robot, "layout": self.platform.layout()}

    def robot_state(self) -> dict[str, Any]:
        data = self._world.data
        position, rotation = self._arm.control_pose(data)
        quat = np.empty(4)
        mujoco.mju_mat2Quat(quat, np.ascontiguousarray(rotation).reshape(9))
        return {
            "joints": [float(x) for x in self._arm.joint_positions(data)],
            "hand_position": [float(x) for x in position],
            "hand_quaternion": [float(x) for x in quat],
            "gripper_width": 2.0 * float(data.qpos[self._model.joint(f"{ARM}_left_finger_joint").qposadr[0]]),
            "time_s": self.clock.time_s,
            "budget_left_s": self.clock.left_s,
        }

    def observe(self) -> dict[str, Any]:
        """Three clean RGB images (PNG bytes by camera), the robot state and a new observation id. The
        evaluator logs what every instrument showed and whether each image shows it readably."""
        self._served += 1
        observation_id = f"{self.episode_token}-{self._served}"
        images = self._images() if self.render else {}
        seen = [v for cam in CAMERAS for v in visibility(
            self._model, self._world.data, cam.name, self._camera_pose(cam), cam.intrinsics()["fy"],
            self.platform.reading_sites(self._world.data),
        )]  # fmt: skip
        self.instrument_log.serve_observation(observation_id, self.clock.time_s, seen)
        return {"observation_id": observation_id, "robot": self.robot_state(), "images": images}

    def move_joints(self, targets: Sequence[Sequence[float]]) -> dict[str, Any]:
        """Follow ``targets`` (one 7-joint target per physics step); returns the robot state after it."""
        self.require_running()
        path = self._validated(targets)
        steps = min(len(path), self.clock.steps_left)
        actuators = self._arm_actuators
        touched: set[str] = set()
        for q in path[:steps]:
            self._world.data.ctrl[actuators] = q
            self._step(1)
            touched |= self._touched()
        return {
            "steps": steps,
            "completed": steps == len(path),
            "contacts": sorted(touched),
            **self.robot_state(),
        }

    def _touched(self) -> set[str]:
        """The names of what the robot touches now: the card's parts, ``table``, or ``other object``."""
        robot = self._arm.geoms
        data = self._world.data
        names = set()
        for a, b in zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True):
            if (a in robot) != (b in robot):
                names.add(self._geom_parts.get(b if a in robot else a, "other object"))
        return names

    @cached_property
    def _geom_parts(self) -> dict[int, str]:
        """Which part (by the card's name) each geom belongs to; the table by its name."""
        from actloop.suites.lab.level1 import GEOM

        parts = {self._model.geom("table").id: "table"}
        for part, objects in self.part_objects().items():
            parts.update({index: part for kind, index in objects if kind == GEOM})
        return parts

    def gripper(self, width_m: float) -> dict[str, Any]:
        """Command the finger opening (0 to 0.08 m) and let it move for 0.5 s."""
        self.require_running()
        if not (
            isinstance(width_m, int | float) and math.isfinite(width_m) and 0 <= width_m <= 2 * FINGER_TRAVEL
        ):
            raise LabRequestError(
                f"width_m must be a number from 0 to {2 * FINGER_TRAVEL} m, got {width_m!r}"
            )
        self._world.data.ctrl[self._model.actuator(f"{ARM}_gripper").id] = width_m / 2
        self._step(min(round(GRIPPER_MOVE_S / DT), self.clock.steps_left))
        return self.robot_state()

    def wait(self, seconds: float) -> dict[str, Any]:
        """Hold the commands for ``seconds`` of simulated time (charged to the budget)."""
        self.require_running()
        if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0):
            raise LabRequestError(f"seconds must be a non-negative number, got {seconds!r}")
        self._step(min(round(seconds / DT), self.clock.steps_left))
        return self.robot_state()

    def export(self, logger: str, file: str) -> dict[str, Any]:
        """The CSV text of every row ``logger`` has recorded, logged as exported under the name ``file``
        (the client writes it into the workspace); no simulated time passes."""
        self.require_running()
        names = {spec.name for spec in self.platform.loggers()}
        if logger not in names:
            raise LabRequestError(f"no logger {logger!r} on this bench; loggers: {sorted(names) or 'none'}")
        if not isinstance(file, str) or not EXPORT_NAME.fullmatch(file):
            raise LabRequestError(f"file must be a plain .csv name (letters, digits, _ - .), got {file!r}")
        if file in self.instrument_log.exports:
            raise LabRequestError(f"{file} was already exported in this episode; choose another name")
        text = self.panel.export(logger, file, self.clock.time_s)
        return {"file": file, "csv": text, "rows": text.count("\n") - 1}

    def ik(
        self, position: Sequence[float], quaternion: Sequence[float], start: Sequence[float] | None = None
    ) -> dict[str, Any]:
        """Joint angles putting the hand at ``position`` (m) with orientation ``quaternion`` (w, x, y, z),
        solved from ``start`` (7 joint angles within their limits; default the current posture); the robot
        does not move, and nothing is checked for collisions."""
        target = request_vector(position, 3, "position")
        rotation = self.rotation_of(quaternion)
        data = self._world.data
        if start is None:
            q_start = self._arm.joint_positions(data)
        else:
            q_start = np.array(request_vector(start, 7, "start"))
            for j, (lo, hi) in enumerate(JOINT_LIMITS):
                if not lo <= q_start[j] <= hi:
                    raise LabRequestError(
                        f"start[{j}] = {q_start[j]:.4f} rad is outside joint {j + 1}'s limits [{lo}, {hi}]"
                    )
        result = self._ik.solve(data.qpos.copy(), np.array(target), rotation, q_start)
        lows, highs = zip(*JOINT_LIMITS, strict=True)
        return {
            "joints": [float(x) for x in np.clip(result.q, lows, highs)],
            "converged": result.converged,
            "position_error_m": float(result.position_error),
            "rotation_error_rad": float(result.rotation_error),
        }

    def submit(self, result: Mapping[str, float | str], citations: list[dict[str, Any]]) -> dict[str, Any]:
        """Submit once; the episode ends."""
        if self.submission is not None:
            raise EpisodeOver("a result was already submitted; an episode takes one submission")
        if not isinstance(result, dict) or not isinstance(citations, list):
            raise LabRequestError("submit needs result as an object of named values and citations as a list")
        answered = {q.name: q for q in self.spec.answered}
        unknown = sorted(set(result) - answered.keys())
        missing = sorted(answered.keys() - set(result))
        if unknown or missing:
            raise LabRequestError(
                f"result must give exactly {sorted(answered)}; missing {missing}, unknown {unknown}"
            )
        for name, value in result.items():
            if problem := answered[name].refusal(value):
                raise LabRequestError(problem)
        self.submission = Submission(dict(result), list(citations), self.clock.time_s)
        self.evaluator.tracker.close()
        seal = self.record.seal({"result": result, "citations": citations, "time_s": self.clock.time_s})
        return {"submitted": True, "time_s": self.clock.time_s, "record_hash": seal}

    def score(self) -> tuple[Score, list[Verdict]]:
        """Score the episode as it stands (evaluator side): the submission if any, else a run that knew
        nothing."""
        submitted = self.submission
        return score_episode(
            self.evaluator,
            self.record,
            self.instrument_log,
            submitted.result if submitted else None,
            submitted.citations if submitted else [],
            self._model,
            self._world.data,
        )

    # --- T1 ---
    def segment(self, part: str, camera: str) -> dict[str, Any]:
        """The part's mask and world points of its visible surface in ``camera`` (T1; see level1)."""
        from actloop.suites.lab.level1 import segment

        self._require_level("segment")
        return segment(self, part, camera)

    def move_hand(self, position: Sequence[float], quaternion: Sequence[float]) -> dict[str, Any]:
        """Move the hand to a pose along a collision-free planned path (T1; see level1)."""
        from actloop.suites.lab.level1 import move_hand

        self._require_level("move_hand")
        return move_hand(self, position, quaternion)

    # --- what the T1 services use ---
    @property
    def model(self) -> mujoco.MjModel:
        return self._model

    @property
    def data(self) -> mujoco.MjData:
        return self._world.data

    @property
    def world(self) -> World:
        return self._world

    @property
    def arm(self) -> ArmHandle:
        return self._arm

    def part_objects(self) -> dict[str, frozenset[tuple[int, int]]]:
        from actloop.suites.lab.level1 import part_objects

        return part_objects(self._model, [part.name for part in self.spec.parts], self.platform.drawn_as)

    def aim(self, cam: CameraSpec) -> tuple[np.ndarray, np.ndarray]:
        """Set the renderer's camera to ``cam``'s field of view; returns its pose (position, rotation)."""
        self._model.cam_fovy[self._model.camera("observer").id] = cam.fovy_deg
        return self._camera_pose(cam)

    def renderer(self) -> Renderer:
        """The bench's renderer (made on first use, on the thread that serves the bench)."""
        if self._renderer is None:
            self._renderer = Renderer(self._model, WIDTH, HEIGHT)
            self._render_thread = threading.get_ident()
        elif self._render_thread != threading.get_ident():
            raise EnvError(
                "this bench rendered its first images on another thread; an OpenGL context serves only the "
                "thread that made it: observe a bench from one thread (the server's)"
            )
        return self._renderer

    def rotation_of(self, quaternion: Sequence[float]) -> np.ndarray:
        """The rotation matrix of a (w, x, y, z) quaternion, normalised; refused when zero or malformed."""
        quat = request_vector(quaternion, 4, "quaternion")
        norm = math.sqrt(sum(x * x for x in quat))
        if norm < 1e-9:
            raise LabRequestError("quaternion must not be zero")
        rotation = np.empty(9)
        mujoco.mju_quat2Mat(rotation, np.array(quat) / norm)
        return rotation.reshape(3, 3)

    def held_bodies(self) -> set[int]:
        """Bodies the robot touches that are not welded to the world (what it holds or pushes)."""
        model, data = self._model, self._world.data
        robot = self._arm.geoms
        touched = set()
        for a, b in zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True):
            if (a in robot) != (b in robot):
                other = b if a in robot else a
                body = int(model.geom_bodyid[other])
                if int(model.body_weldid[body]) != 0:
                    touched.add(body)
        return touched

    # --- internals ---
    def _follow_loggers(self) -> None:
        """Start and stop the loggers as their physical controls say."""
        now = self.platform.recording()
        for logger in now - self._recording:
            self.panel.start_logging(logger, self.clock.time_s)
        for logger in self._recording - now:
            self.panel.stop_logging(logger)
        self._recording = now

    def _require_level(self, call: str) -> None:
        if self.level == "T0":
            raise LabRequestError(f"{call} is a T1 call; this bench serves level {self.level}")

    def require_running(self) -> None:
        """Refuse any action once the result is submitted or the budget is spent (EpisodeOver)."""
        if self.submission is not None:
            raise EpisodeOver("the result was submitted: the bench accepts no further actions")
        if self.clock.steps_left == 0:
            raise EpisodeOver(f"the simulated-time budget of {self.spec.budget_s:g} s is spent")

    def _step(self, n: int) -> None:
        data = self._world.data
        for _ in range(n):
            self._world.step(1)
            self.clock.steps += 1
            self.platform.after_step(self._model, data)
            self._follow_loggers()
            self.panel.step(self.clock.time_s, self.platform.true_values(data))
            self.evaluator.step(self.clock.time_s, self._model, data)

    def _validated(self, targets: Sequence[Sequence[float]]) -> list[np.ndarray]:
        if not isinstance(targets, Sequence) or isinstance(targets, str) or not targets:
            raise LabRequestError("targets must be a non-empty list of 7-joint targets")
        if len(targets) > MAX_TRAJECTORY_STEPS:
            raise LabRequestError(f"at most {MAX_TRAJECTORY_STEPS} targets per call (60 s); split the motion")
        path = []
        lows, highs = zip(*JOINT_LIMITS, strict=True)
        # a joint pressed a little past its limit starts its trajectory from the limit
        previous = np.clip(self._arm.joint_positions(self._world.data), lows, highs)
        for i, target in enumerate(targets):
            q = np.array(request_vector(target, 7, f"targets[{i}]"))
            for j, (lo, hi) in enumerate(JOINT_LIMITS):
                if not lo <= q[j] <= hi:
                    raise LabRequestError(
                        f"targets[{i}][{j}] = {q[j]:.4f} rad is outside joint {j + 1}'s limits [{lo}, {hi}]"
                    )
            for j, speed in enumerate(MAX_JOINT_SPEED):
                if abs(q[j] - previous[j]) > speed * DT * (1 + 1e-9):
                    raise LabRequestError(
                        f"targets[{i}][{j}] moves joint {j + 1} by {abs(q[j] - previous[j]):.4f} rad in one "
                        f"step ({DT:.5f} s); its limit is {speed} rad/s = {speed * DT:.5f} rad per step"
                    )
            path.append(q)
            previous = q
        return path

    def _images(self) -> dict[str, bytes]:
        renderer = self.renderer()
        for name, face in self.platform.redraw(self.panel.shown).items():
            renderer.upload_texture(name, face)
        data = self._world.data
        images = {}
        for cam in CAMERAS:
            position, rotation = self.aim(cam)
            images[cam.name] = encode_png(renderer.render_from(data, position, rotation))
        return images

    def _camera_pose(self, cam: CameraSpec) -> tuple[np.ndarray, np.ndarray]:
        if cam.eye is not None:
            return cam.fixed_pose()
        return wrist_pose(*self._arm.control_pose(self._world.data))

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
