"""Seed screening and manifests (the seed's appendix C.4).

Candidates are probed in order from 1000. A candidate is retained when (1) its scene settles: reset,
2000 physics steps, then 500 observed steps during whose last 200 every object's orientation drifts by
at most 3°, with finite poses throughout; and (2) the privileged expert, acting through the agent's own
executor from the home state, reaches terminal success within the budget with every planner call
succeeding. Screening stops at 20 retained seeds; the next retained seed becomes the task's
demonstration seed, so demonstrations never show an evaluation scene.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

import mujoco
import numpy as np

from actloop.protocol.step import StepResult
from actloop.vabench.env import SpatialEnv

FIRST_CANDIDATE = 1000
LAST_CANDIDATE = 5000
EVALUATION_SEEDS = 20
SETTLE_STEPS = 2000
OBSERVE_STEPS = 500
DRIFT_WINDOW = 200
MAX_DRIFT_DEG = 3.0
MANIFEST_DIR = Path(str(resources.files("actloop.vabench") / "manifests"))


@dataclass(frozen=True)
class Probe:
    """The outcome of screening one candidate seed."""

    seed: int
    settled: bool
    expert_success: bool
    scene_hash: str
    reason: str
    max_drift_deg: float = 0.0
    expert_steps: int = 0

    @property
    def accepted(self) -> bool:
        return self.settled and self.expert_success


@dataclass
class Manifest:
    suite: str
    task: str
    mujoco_version: str
    seeds: list[dict] = field(default_factory=list)
    demo_seed: int | None = None
    demo_scene_hash: str | None = None
    probed: int = 0
    retained: int = 0
    rejected: list[dict] = field(default_factory=list)

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
    if not path.exists():
        raise FileNotFoundError(
            f"no seed manifest for {task!r} at {path}; "
            f"run `actloop verify-seeds --suite vabench --task {task}`"
        )
    return Manifest(**json.loads(path.read_text()))


def scene_hash(task: str, seed: int) -> str:
    """State hash of the task's scene right after reset (identifies the scene bit for bit)."""
    env = SpatialEnv(task, seed, render=False)
    try:
        return env.reset().evaluation.state_hash
    finally:
        env.close()


def _orientation_drift_deg(q_from: np.ndarray, q_to: np.ndarray) -> float:
    dot = abs(float(np.dot(q_from, q_to)))
    return math.degrees(2.0 * math.acos(min(1.0, dot)))


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


def play_expert(env: SpatialEnv, result: StepResult) -> tuple[bool, int, str]:
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
        hash_ = env.reset().evaluation.state_hash
        settled, drift, reason = settling_check(env)
        if not settled:
            return Probe(seed, False, False, hash_, reason, drift)
        ok, steps, reason = run_expert(env)
        return Probe(seed, True, ok, hash_, reason, drift, steps)
    finally:
        env.close()


def screen(task: str, on_probe: Callable[[Probe], None] | None = None) -> Manifest:
    """Probe candidates in order until 20 evaluation seeds and one demonstration seed are accepted."""
    manifest = Manifest(suite="vabench", task=task, mujoco_version=mujoco.__version__)
    for seed in range(FIRST_CANDIDATE, LAST_CANDIDATE + 1):
        probe = probe_seed(task, seed)
        manifest.probed += 1
        if on_probe:
            on_probe(probe)
        if not probe.accepted:
            manifest.rejected.append({"seed": seed, "reason": probe.reason})
            continue
        if len(manifest.seeds) < EVALUATION_SEEDS:
            manifest.seeds.append(
                {"seed": seed, "scene_hash": probe.scene_hash, "expert_steps": probe.expert_steps}
            )
            manifest.retained += 1
        else:
            manifest.demo_seed, manifest.demo_scene_hash = seed, probe.scene_hash
            return manifest
    raise RuntimeError(f"{task}: fewer than {EVALUATION_SEEDS + 1} acceptable seeds in the candidate pool")


def check_manifest(manifest: Manifest) -> list[str]:
    """Problems with a manifest on this machine: engine version drift or scene hashes that differ."""
    problems = []
    if manifest.mujoco_version != mujoco.__version__:
        problems.append(
            f"{manifest.task}: manifest was made with MuJoCo {manifest.mujoco_version}, "
            f"this is {mujoco.__version__}"
        )
    entries = [*manifest.seeds]
    if manifest.demo_seed is not None:
        entries.append({"seed": manifest.demo_seed, "scene_hash": manifest.demo_scene_hash})
    for entry in entries:
        actual = scene_hash(manifest.task, int(entry["seed"]))
        if actual != entry["scene_hash"]:
            problems.append(
                f"{manifest.task} seed {entry['seed']}: "
                f"scene hash {actual[:12]} != {entry['scene_hash'][:12]}"
            )
    return problems
