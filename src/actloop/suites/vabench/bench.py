"""vabench's benchmarks (``actloop bench``): each cost beside its raw limit, measured in the same process.

- ``steps``: the active and passive step, the render and the PNG writer, warmed up, against
  ``mujoco.Renderer``, ``mj_step`` for the same motion and ``zlib.compress`` (goals: an active move at most
  1.5x raw render + raw physics + zlib; a passive step at most 5x an active one);
- ``harness_overhead_per_turn_ms``: the Inspect loop's own cost per turn, warm;
- ``in_flight``: many episodes at once against a loopback model with a fixed latency
  (:mod:`actloop.suites.vabench.bench_flight`);
- ``baseline_suite``: the baseline suite before and after the environment pool, in the same run.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from actloop.core.suite import BenchOptions
from actloop.runs.flight import scoped_environment
from actloop.runtime.make import Isolation
from actloop.sim import camera as cam
from actloop.sim.render import DEFAULT_HEIGHT, DEFAULT_WIDTH, PNG_ZLIB_LEVEL, Renderer, encode_png
from actloop.sim.scene import OBSERVER_CAMERA
from actloop.suites.vabench.bench_flight import in_flight
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


def run_benchmarks(options: BenchOptions) -> dict[str, Any]:
    """Step and render costs beside their raw limits, the harness's cost per turn, the in-flight scenario
    and the baseline suite before and after the environment pool (see the module docstring)."""
    results: dict[str, Any] = {"cpu_count": os.cpu_count(), "mujoco_version": mujoco.__version__}
    results["steps"] = step_figures(max(1, options.repeats))
    results["harness_overhead_per_turn_ms"] = _harness_overhead_ms(load_manifest(TASK).seed_list()[0])
    episodes = 100 if options.in_flight is None else options.in_flight
    if episodes > 0:
        results["in_flight"] = in_flight(episodes, 2.0 if options.latency_s is None else options.latency_s)
    if options.suite_seeds > 0:
        results["baseline_suite"] = suite_throughput(options.suite_seeds)
    return results


def step_figures(repeats: int) -> dict[str, Any]:
    """Median step costs of the active and passive protocols, each figure beside the raw limit measured
    in the same process: ``mujoco.Renderer`` on the same model, ``mj_step`` replaying the move's own
    per-step controls (the same motion, bit for bit: ``raw_physics_is_the_same_motion``) and
    ``zlib.compress`` of the same frame. Every operation runs once untimed first (planner set-up, first
    render and texture upload)."""
    seed = load_manifest(TASK).seed_list()[0]
    active, passive = SpatialEnv(TASK, seed), SpatialEnv(TASK, seed, protocol="passive")
    move, rotate, camera = (
        MoveWorld(Translation("z", "-", 50.0)),
        RotateLocal("rx", "+", 45.0),
        CameraAction("view_topdown"),
    )
    for env in (active, passive):
        env.reset()
        env.step(move)
    figures: dict[str, Any] = {
        "active_move_50mm_ms": _median_ms(_timed(lambda: active.step(move), repeats, _fresh(active))),
        "passive_move_50mm_ms": _median_ms(_timed(lambda: passive.step(move), repeats, _fresh(passive))),
        "active_rotate_45deg_ms": _median_ms(_timed(lambda: active.step(rotate), repeats, _fresh(active))),
        "active_camera_action_ms": _median_ms(_timed(lambda: active.step(camera), repeats, _fresh(active))),
    }
    active.reset()
    model, data = active.world.model, active.world.data
    start_state = active.world.snapshot()
    controls: list[np.ndarray] = []  # the control of every physics step of one 50 mm move
    with active.world.observe(lambda world: controls.append(world.data.ctrl.copy()), 1):
        active.step(move)
    moved = active.world.state_hash()

    def replay_motion() -> None:
        for control in controls:
            data.ctrl[:] = control
            mujoco.mj_step(model, data)

    figures["raw_physics_50mm_ms"] = _median_ms(
        _timed(replay_motion, repeats, lambda: active.world.restore(start_state))
    )
    figures["raw_physics_steps"] = len(controls)
    figures["raw_physics_is_the_same_motion"] = active.world.state_hash() == moved
    ours = Renderer(model)
    pose = cam.initial_pose()
    image = ours.render(data, pose)
    figures["render_ms"] = _median_ms(_timed(lambda: ours.render(data, pose), repeats))
    ours.close()
    raw = mujoco.Renderer(model, height=DEFAULT_HEIGHT, width=DEFAULT_WIDTH)  # same buffer and samples
    camera_id = model.camera(OBSERVER_CAMERA).id

    def raw_render() -> None:
        raw.update_scene(data, camera=camera_id)
        raw.render()

    raw_render()
    figures["raw_render_ms"] = _median_ms(_timed(raw_render, repeats))
    raw.close()
    figures["png_ms"] = _median_ms(_timed(lambda: encode_png(image), repeats))
    figures["raw_zlib_ms"] = _median_ms(
        _timed(lambda: zlib.compress(image.tobytes(), PNG_ZLIB_LEVEL), repeats)
    )
    figures["msaa_samples"] = int(model.vis.quality.offsamples)
    active.close()
    passive.close()
    raw_step = figures["raw_render_ms"] + figures["raw_physics_50mm_ms"] + figures["raw_zlib_ms"]
    figures["active_move_over_raw"] = round(figures["active_move_50mm_ms"] / raw_step, 3)
    figures["passive_over_active"] = round(
        figures["passive_move_50mm_ms"] / figures["active_move_50mm_ms"], 3
    )
    figures["render_over_raw"] = round(figures["render_ms"] / figures["raw_render_ms"], 3)
    figures["png_over_zlib"] = round(figures["png_ms"] / figures["raw_zlib_ms"], 3)
    return figures


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
        (Path(tmp) / "warm-up").mkdir()
        episode_s(short, Path(tmp) / "warm-up")  # imports the provider machinery once, untimed
        harness = episode_s(long, Path(tmp)) - episode_s(short, Path(tmp))
    environment = env_s(long) - env_s(short)
    return round(1000.0 * (harness - environment) / (long - short), 3)


def suite_throughput(seeds: int) -> dict[str, Any]:
    """The baseline over every base task with ``seeds`` seeds each, twice in this process: as before the
    environment pool (a process per episode, two at once, 2x multisampling) and with the pool (two host
    processes, the provider's connection limit in flight, no multisampling); episodes per minute, the
    speed-up, successes and whether every episode took the same number of steps."""
    from actloop.agent.task import select_episodes
    from actloop.runs.inspect_run import run_episodes

    episodes = select_episodes("vabench", "all", seeds)
    figures: dict[str, Any] = {"episodes": len(episodes)}
    steps: dict[str, dict[tuple[str, int], int]] = {}
    configurations: list[tuple[str, Isolation, str]] = [
        ("per_episode_process_msaa2", "process", "2"),
        ("pool", "pool", "0"),
    ]
    for name, isolation, samples in configurations:
        with tempfile.TemporaryDirectory() as tmp, scoped_environment(ACTLOOP_MSAA_SAMPLES=samples):
            start = time.perf_counter()
            rows = run_episodes(
                "vabench", episodes, "actloop/baseline", {}, Path(tmp), workers=2, isolation=isolation
            )
            elapsed = time.perf_counter() - start
        figures[name] = {
            "wall_s": round(elapsed, 1),
            "episodes_per_minute": round(60.0 * len(rows) / elapsed, 2),
            "successes": sum(1 for r in rows if r.success),
            "errors": sum(1 for r in rows if r.failed),
        }
        steps[name] = {(r.task, r.seed): r.steps for r in rows}
    figures["speedup"] = round(
        figures["pool"]["episodes_per_minute"] / figures["per_episode_process_msaa2"]["episodes_per_minute"],
        3,
    )
    figures["same_steps"] = steps["pool"] == steps["per_episode_process_msaa2"]
    return figures
