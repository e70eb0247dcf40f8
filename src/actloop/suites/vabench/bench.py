"""Timing benchmarks for the simulation, executor, renderer and harness (``actloop bench``)."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mujoco

from actloop.control.executor import CARTESIAN_SPEED, MIN_DURATION, SETTLE_TIME
from actloop.sim import camera as cam
from actloop.sim.render import Renderer
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import CameraAction, MoveWorld, RotateLocal, Translation
from actloop.suites.vabench.seeds import load_manifest

TASK = "grasp_single_cube"


def _median_ms(samples: list[float]) -> float:
    return round(1000.0 * statistics.median(samples), 3)


def _timed(fn: Callable[[], object], repeats: int, setup: Callable[[], object] | None = None) -> list[float]:
    out = []
    for _ in range(repeats):
        if setup:
            setup()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def run_benchmarks(repeats: int = 10, episodes: int = 4) -> dict[str, Any]:
    """Median milliseconds per operation, plus baseline episode throughput on two workers."""
    seed = load_manifest(TASK).seed_list()[0]
    env = SpatialEnv(TASK, seed)
    env.reset()
    start_state = env.world.snapshot()

    def restore() -> None:
        env.world.restore(start_state)

    move = MoveWorld(Translation("z", "-", 50.0))
    rotate = RotateLocal("rx", "+", 45.0)
    results: dict[str, Any] = {
        "move_world_50mm_step_ms": _median_ms(_timed(lambda: env.step(move), repeats, _fresh(env))),
        "rotate_local_45deg_step_ms": _median_ms(_timed(lambda: env.step(rotate), repeats, _fresh(env))),
        "camera_action_step_ms": _median_ms(
            _timed(lambda: env.step(CameraAction("view_topdown")), repeats, _fresh(env))
        ),
    }
    renderer = Renderer(env.world.model)
    pose = cam.initial_pose()
    renderer.render(env.world.data, pose)
    results["render_640x480_ms"] = _median_ms(_timed(lambda: renderer.render(env.world.data, pose), repeats))
    renderer.close()
    # Raw physics for the same 50 mm motion: the executor's step count without planning or rendering.
    n_steps = round((max(MIN_DURATION, 0.05 / CARTESIAN_SPEED) + SETTLE_TIME) / env.world.model.opt.timestep)
    results["raw_physics_50mm_motion_ms"] = _median_ms(
        _timed(lambda: mujoco.mj_step(env.world.model, env.world.data, nstep=n_steps), repeats, restore)
    )
    results["raw_physics_steps"] = n_steps
    env.close()
    results["harness_overhead_per_turn_ms"] = _harness_overhead_ms(seed)
    results.update(_baseline_throughput(episodes))
    results["mujoco_version"] = mujoco.__version__
    return results


def _fresh(env: SpatialEnv) -> Callable[[], None]:
    def setup() -> None:
        env.reset()

    return setup


# Four camera actions then a gripper command: a legal pattern that never hits the camera-chain limit.
_SCRIPT_PATTERN = [{"action": "camera.view_topdown"}, {"action": "camera.view_side"}] * 2 + [
    {"action": "gripper.open"}
]


def _script(n: int) -> list[dict[str, str]]:
    return [_SCRIPT_PATTERN[i % len(_SCRIPT_PATTERN)] for i in range(n)]


def _harness_overhead_ms(seed: int, short: int = 10, long: int = 40) -> float:
    """Per-turn cost of the Inspect loop with a scripted model, net of environment time.

    Two scripted episodes of different lengths cancel fixed start-up costs; the environment's own time
    for the same decisions, measured directly, is subtracted.
    """
    from actloop.runs.inspect_run import run_episodes
    from actloop.suites.vabench.protocol.parse import parse_decision

    def episode_s(n: int, tmp: Path) -> float:
        script = tmp / f"script{n}.json"
        script.write_text(json.dumps(_script(n)))
        start = time.perf_counter()
        run_episodes(
            "vabench",
            [(TASK, seed, 1)],
            "actloop/replay",
            {"decisions": str(script)},
            tmp / f"out{n}",
            isolation="inline",
        )
        return time.perf_counter() - start

    def env_s(n: int) -> float:
        env = SpatialEnv(TASK, seed)
        env.reset()
        decisions = [parse_decision(json.dumps(d), env.action_space) for d in _script(n)]
        start = time.perf_counter()
        for decision in decisions:
            env.step(decision)  # type: ignore[arg-type]
        elapsed = time.perf_counter() - start
        env.close()
        return elapsed

    with tempfile.TemporaryDirectory() as tmp:
        harness = episode_s(long, Path(tmp)) - episode_s(short, Path(tmp))
    environment = env_s(long) - env_s(short)
    return round(1000.0 * (harness - environment) / (long - short), 3)


def _baseline_throughput(episodes: int) -> dict[str, float]:
    from actloop.runs.inspect_run import run_episodes

    seeds = load_manifest(TASK).seed_list()[:episodes]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        rows = run_episodes(
            "vabench", [(TASK, s, 1) for s in seeds], "actloop/baseline", {}, Path(tmp), workers=2
        )
        elapsed = time.perf_counter() - start
    return {
        "baseline_episodes": len(rows),
        "baseline_successes": sum(1 for r in rows if r.success),
        "baseline_episodes_per_minute_2_workers": round(60.0 * len(rows) / elapsed, 2),
    }
