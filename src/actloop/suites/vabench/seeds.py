"""Seed screening and manifests (the seed's appendix C.4).

Candidates are probed in order from the task's first candidate (1000; 3000 for held-out variants). A
candidate is retained when (1) its scene settles: reset, 2000 physics steps, then 500 observed steps
during whose last 200 every object's orientation drifts by at most 3°, with finite poses throughout; and
(2) the privileged expert, acting through the agent's own executor from the home state, reaches terminal
success within the budget with every planner call succeeding. Screening stops at 20 retained seeds; the
next retained seed becomes the task's demonstration seed, so demonstrations never show an evaluation
scene.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from actloop.errors import ConfigError
from actloop.records.compare import (
    SCENE_POSITION_TOLERANCE_M,
    SCENE_ROTATION_TOLERANCE_RAD,
    ManifestCheck,
    pose_deviation,
    rotation_between,
)
from actloop.sim.fingerprint import actloop_version, platform_fingerprint, same_platform
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Transition
from actloop.suites.vabench.task import get_task

CANDIDATE_POOL = 2000
"""How many candidates, from the task's ``first_candidate`` on, screening may probe."""
EVALUATION_SEEDS = 20
SETTLE_STEPS = 2000
OBSERVE_STEPS = 500
DRIFT_WINDOW = 200
MAX_DRIFT_DEG = 3.0
MANIFEST_DIR = Path(str(resources.files("actloop.suites.vabench") / "manifests"))


MANIFEST_FORMAT = 2


@dataclass(frozen=True)
class Probe:
    """The outcome of screening one candidate seed; ``scene`` is its manifest entry (:func:`scene_entry`)."""

    seed: int
    settled: bool
    expert_success: bool
    scene: dict[str, Any]
    reason: str
    max_drift_deg: float = 0.0
    expert_steps: int = 0

    @property
    def accepted(self) -> bool:
        return self.settled and self.expert_success


@dataclass
class Manifest:
    """The verified seeds of one task and how to recognise their scenes on any machine.

    Each entry of ``seeds`` (and ``demo``) holds ``seed``, ``scene_id`` (a hash of the scene's inputs,
    equal on every machine), ``state_hash`` (the settled state after reset, bit for bit: compared only on
    the platform named by ``platform``), ``poses`` (the settled object poses, compared within
    ``SCENE_*_TOLERANCE`` on any platform) and ``expert_steps``.
    """

    suite: str
    task: str
    mujoco_version: str
    actloop_version: str
    platform: dict[str, Any]
    format: int = MANIFEST_FORMAT
    seeds: list[dict[str, Any]] = field(default_factory=list)
    demo: dict[str, Any] | None = None
    probed: int = 0
    retained: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)

    @property
    def demo_seed(self) -> int | None:
        return None if self.demo is None else int(self.demo["seed"])

    def seed_list(self) -> list[int]:
        return [int(s["seed"]) for s in self.seeds]

    def save(self, directory: Path = MANIFEST_DIR) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.task}.json"
        path.write_text(json.dumps(asdict(self), indent=2) + "\n")
        return path


def manifest_path(task: str, directory: Path = MANIFEST_DIR) -> Path:
    return directory / f"{task}.json"


def load_manifest(task: str, directory: Path = MANIFEST_DIR) -> Manifest:
    path = manifest_path(task, directory)
    regenerate = f"run `actloop verify-seeds --suite vabench --task {task}`"
    if not path.exists():
        raise ConfigError(f"no seed manifest for {task!r} at {path}; {regenerate}")
    data = json.loads(path.read_text())
    if data.get("format") != MANIFEST_FORMAT:
        raise ConfigError(
            f"{path} has manifest format {data.get('format', 1)}, this actloop reads format "
            f"{MANIFEST_FORMAT}; {regenerate}"
        )
    return Manifest(**data)


def scene_entry(env: SpatialEnv, result: Transition) -> dict[str, Any]:
    """The manifest entry of the env's scene, from its reset ``result``."""
    return {
        "seed": env.seed,
        "scene_id": env.scene_id,
        "state_hash": result.evaluation.state_hash,
        "poses": result.evaluation.poses,
    }


def scene_of(task: str, seed: int) -> dict[str, Any]:
    """The manifest entry of a task's scene right after reset (without the expert's step count)."""
    env = SpatialEnv(task, seed, render=False)
    try:
        return scene_entry(env, env.reset())
    finally:
        env.close()


def _orientation_drift_deg(q_from: np.ndarray, q_to: np.ndarray) -> float:
    return math.degrees(rotation_between(q_from.tolist(), q_to.tolist()))


def settling_check(env: SpatialEnv) -> tuple[bool, float, str]:
    """Reset, settle and observe; returns (passed, max orientation drift in degrees, reason)."""
    env.reset()
    world = env.world
    bodies = env.task.objects_of_interest
    world.step(SETTLE_STEPS)
    window_start: dict[str, np.ndarray] = {}
    worst = 0.0
    for k in range(OBSERVE_STEPS):
        world.step(1)
        if not np.all(np.isfinite(world.data.qpos)):
            return False, worst, f"non-finite state after {SETTLE_STEPS + k + 1} steps"
        if k == OBSERVE_STEPS - DRIFT_WINDOW:
            window_start = {b: world.body_quaternion(b) for b in bodies}
        if window_start:
            for b in bodies:
                worst = max(worst, _orientation_drift_deg(window_start[b], world.body_quaternion(b)))
    if worst > MAX_DRIFT_DEG:
        return False, worst, f"object orientation drifted {worst:.2f}° in the last {DRIFT_WINDOW} steps"
    return True, worst, "settled"


def run_expert(env: SpatialEnv) -> tuple[bool, int, str]:
    """Execute the expert from reset; returns (terminal success, steps used, reason)."""
    return play_expert(env, env.reset())


def play_expert(env: SpatialEnv, result: Transition) -> tuple[bool, int, str]:
    """Execute the expert from the env's current state (``result`` is its latest step result)."""
    for action in env.task.expert(env.context):
        result = env.step(action)
        feedback = result.observation.feedback
        if not result.dispatched:
            return False, env.steps, f"expert action refused: {feedback.message}"
        if feedback.planner_success is False:
            return False, env.steps, f"expert planner failure: {feedback.message}"
        if result.done:
            break
    if result.evaluation.success:
        return True, env.steps, "expert succeeded"
    failed = [k for k, v in result.evaluation.conditions.items() if not v]
    return False, env.steps, f"expert ended without success (failed: {', '.join(failed)})"


def probe_seed(task: str, seed: int) -> Probe:
    """Screen one candidate: settling check, then a full expert execution on a fresh reset."""
    env = SpatialEnv(task, seed, render=False)
    try:
        scene = scene_entry(env, env.reset())
        settled, drift, reason = settling_check(env)
        if not settled:
            return Probe(seed, False, False, scene, reason, drift)
        ok, steps, reason = run_expert(env)
        return Probe(seed, True, ok, scene, reason, drift, steps)
    finally:
        env.close()


def screen(task: str, on_probe: Callable[[Probe], None] | None = None) -> Manifest:
    """Probe candidates in order until 20 evaluation seeds and one demonstration seed are accepted."""
    manifest = Manifest(
        suite="vabench",
        task=task,
        mujoco_version=mujoco.__version__,
        actloop_version=actloop_version(),
        platform=platform_fingerprint(),
    )
    first = get_task(task).first_candidate
    for seed in range(first, first + CANDIDATE_POOL):
        probe = probe_seed(task, seed)
        manifest.probed += 1
        if on_probe:
            on_probe(probe)
        if not probe.accepted:
            manifest.rejected.append({"seed": seed, "reason": probe.reason})
            continue
        entry = {**probe.scene, "expert_steps": probe.expert_steps}
        if len(manifest.seeds) < EVALUATION_SEEDS:
            manifest.seeds.append(entry)
            manifest.retained += 1
        else:
            manifest.demo = entry
            return manifest
    raise RuntimeError(f"{task}: fewer than {EVALUATION_SEEDS + 1} acceptable seeds in the candidate pool")


def check_manifest(manifest: Manifest) -> ManifestCheck:
    """Rebuild every scene of a manifest and compare it: identity exactly, settled state bit for bit on
    the same platform and within ``SCENE_*_TOLERANCE`` on any other."""
    check = ManifestCheck(manifest.task, bitwise=same_platform(manifest.platform, platform_fingerprint()))
    versions = {"MuJoCo": (manifest.mujoco_version, mujoco.__version__)}
    versions["actloop"] = (manifest.actloop_version, actloop_version())
    for name, (recorded, current) in versions.items():
        if recorded != current:
            check.problems.append(
                f"{manifest.task}: manifest was made with {name} {recorded}, this is {current}"
            )
    entries = [*manifest.seeds, *([manifest.demo] if manifest.demo else [])]
    for entry in entries:
        scene = scene_of(manifest.task, int(entry["seed"]))
        check.scenes += 1
        where = f"{manifest.task} seed {entry['seed']}"
        if scene["scene_id"] != entry["scene_id"]:
            check.problems.append(
                f"{where}: scene identity {scene['scene_id'][:12]} != {entry['scene_id'][:12]} "
                "(the layout, scene XML, home pose or versions changed)"
            )
            continue
        deviation = pose_deviation(entry["poses"], scene["poses"])
        check.deviation = check.deviation.worst(deviation)
        if check.bitwise and scene["state_hash"] != entry["state_hash"]:
            check.problems.append(
                f"{where}: settled state {scene['state_hash'][:12]} != {entry['state_hash'][:12]} on the "
                f"manifest's own platform ({deviation.text()})"
            )
        elif not deviation.within(SCENE_POSITION_TOLERANCE_M, SCENE_ROTATION_TOLERANCE_RAD):
            check.problems.append(f"{where}: settled poses differ beyond tolerance ({deviation.text()})")
    return check
