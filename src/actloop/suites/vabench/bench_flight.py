"""The in-flight benchmark: many episodes at once against a model that takes ``latency_s`` per reply.

What limits a real evaluation is how many episodes one machine keeps in flight while hosted models think,
and what each costs while it waits. Every episode plays the same ``turns``-turn script (camera actions,
arm moves, then stop) against :class:`~actloop.suites.vabench.bench_server.LatencyServer` through
Inspect's OpenAI provider, exactly as a hosted model would be called. Reported: wall time against its
two lower bounds (the latency bound, ``turns × latency_s``, and the CPU bound, the CPU seconds every
process used divided by the cores), peak memory of the driver and its environment processes (sampled),
per episode in flight, and whether every episode left a row and a record.
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from actloop.records.recorder import EVENTS_FILE
from actloop.suites.vabench.bench_server import LatencyServer
from actloop.suites.vabench.seeds import load_manifest

TASK = "grasp_single_cube"
MODEL = "openai-api/bench/latency"
"""An OpenAI-compatible service named ``bench``: Inspect reads ``BENCH_API_KEY`` and ``BENCH_BASE_URL``."""
_MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}
_SCRIPT_PATTERN = [{"action": "camera.view_topdown"}, _MOVE, {"action": "camera.view_side"}, _MOVE]
MIB = 1024 * 1024


def script(turns: int) -> list[str]:
    """``turns`` replies: ``turns - 1`` actions (camera views and 20 mm moves, alternating), then stop."""
    actions = [_SCRIPT_PATTERN[i % len(_SCRIPT_PATTERN)] for i in range(turns - 1)]
    return [json.dumps(a) for a in actions] + [json.dumps({"stop": True})]


class _MemorySampler:
    """Peak resident memory of this process and all its descendants, sampled every ``every_s``."""

    def __init__(self, every_s: float = 0.25) -> None:
        self._every_s = every_s
        self._stop = threading.Event()
        self.peak = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self._every_s):
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:  # exited between listing and reading
                    continue
            self.peak = max(self.peak, total)

    def __enter__(self) -> _MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextmanager
def scoped_environment(**values: str) -> Iterator[None]:
    """Environment variables set for the block and restored afterwards."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds used so far by this process, and by its reaped children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def in_flight(
    episodes: int = 100, latency_s: float = 2.0, turns: int = 8, workers: int = 2
) -> dict[str, Any]:
    """Run ``episodes`` scripted episodes at once on ``workers`` environment processes; the figures."""
    from actloop.runs.inspect_run import run_episodes

    seeds = load_manifest(TASK).seed_list()
    plan = [(TASK, seeds[i % len(seeds)], 1 + i // len(seeds)) for i in range(episodes)]
    cores = os.cpu_count() or 1
    before = psutil.Process().memory_info().rss
    with tempfile.TemporaryDirectory() as tmp, LatencyServer(script(turns), latency_s) as server:
        cpu_start, start = _cpu_seconds(), time.perf_counter()
        keys = {"BENCH_API_KEY": "loopback", "BENCH_BASE_URL": server.base_url, "NO_PROXY": "127.0.0.1"}
        with _MemorySampler() as memory, scoped_environment(**keys):
            rows = run_episodes(
                "vabench",
                plan,
                MODEL,
                {},
                Path(tmp),
                workers=workers,
                isolation="pool",
                max_in_flight=episodes,
                max_retries=1,
            )
        wall = time.perf_counter() - start
        cpu_end = _cpu_seconds()
        driver_cpu, child_cpu = (end - begin for end, begin in zip(cpu_end, cpu_start, strict=True))
        recorded = sum(1 for r in rows if r.record_dir and (Path(tmp) / r.record_dir / EVENTS_FILE).is_file())
    latency_bound = turns * latency_s
    cpu_bound = (driver_cpu + child_cpu) / cores
    return {
        "episodes_in_flight": episodes,
        "environment_processes": workers,
        "latency_s": latency_s,
        "turns": turns,
        "wall_s": round(wall, 2),
        "latency_bound_s": round(latency_bound, 2),
        "cpu_bound_s": round(cpu_bound, 2),
        "wall_over_bound": round(wall / max(latency_bound, cpu_bound), 3),
        "driver_cpu_s": round(driver_cpu, 2),
        "environment_and_server_cpu_s": round(child_cpu, 2),
        "peak_memory_mib": round(memory.peak / MIB, 1),
        "memory_per_episode_mib": round((memory.peak - before) / MIB / episodes, 2),
        "rows": len(rows),
        "recorded": recorded,
        "completed": sum(1 for r in rows if r.stop_reason == "stop"),
        "errors": sum(1 for r in rows if r.failed),
    }
