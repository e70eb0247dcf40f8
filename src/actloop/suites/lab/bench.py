"""The lab bench's timing figures: simulated time per wall second without rendering on every experiment's
bench (a 30 s wait: the bench's physics and its models, with the robot holding still), an observation of
three 640×480 images, and one simulated second of joint motion over HTTP against the same motion called
directly (the seed's goals: at least 20× real time per core; HTTP adding at most 50 ms); and the in-flight
scenario of scripted agents (:mod:`.bench_flight`)."""

from __future__ import annotations

import statistics
import time
from typing import Any

from actloop.suites.lab.bench_flight import in_flight
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.rig import HOME_Q
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client

EXPERIMENT = "hookes_law"
SECOND = 240


def _sweep(forward: bool) -> list[list[float]]:
    """One simulated second turning joint 1 from home by 0.05 rad (``forward``) or back home."""
    fractions = [(i + 1) / SECOND for i in range(SECOND)]
    return [[HOME_Q[0] + 0.05 * (f if forward else 1 - f), *HOME_Q[1:]] for f in fractions]


def simulated_speed(experiment: str, seconds: float = 30.0) -> float:
    """Simulated seconds per wall second of ``experiment``'s bench, without rendering."""
    env = LabEnv(experiment, 1, render=False)
    env.wait(1.0)  # warm up
    start = time.perf_counter()
    env.wait(seconds)
    speed = seconds / (time.perf_counter() - start)
    env.close()
    return speed


def run_benchmarks(repeats: int = 5, agents: int = 0, think_s: float = 5.0) -> dict[str, Any]:
    """The figures; with ``agents``, the in-flight scenario too (:mod:`.bench_flight`)."""
    speeds = {key: round(simulated_speed(key), 1) for key in experiment_keys()}
    env = LabEnv(EXPERIMENT, 1, render=False)
    direct_ms = []
    for _ in range(repeats):
        start = time.perf_counter()
        env.move_joints(_sweep(True))
        direct_ms.append(1000 * (time.perf_counter() - start))
        env.move_joints(_sweep(False))
    env.close()
    served = LabEnv(EXPERIMENT, 1)
    with serving(served) as server:
        lab = load_client().Lab(server.url, server.token)
        lab.observe()  # warm up the renderer
        observe_ms, http_ms = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            lab.observe()
            observe_ms.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            lab.move_joints(_sweep(True))
            http_ms.append(1000 * (time.perf_counter() - start))
            lab.move_joints(_sweep(False))
        lab.close()
    flight = {"in_flight": in_flight(agents, think_s)} if agents > 0 else {}
    return {
        **flight,
        "simulated_seconds_per_wall_second_no_render": speeds,
        "observe_three_640x480_over_http_ms": round(statistics.median(observe_ms), 1),
        "move_joints_one_simulated_second_over_http_ms": round(statistics.median(http_ms), 1),
        "move_joints_one_simulated_second_direct_ms": round(statistics.median(direct_ms), 1),
    }
