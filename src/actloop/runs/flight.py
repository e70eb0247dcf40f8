"""What the in-flight benchmarks share: episodes at once against a loopback model answering after a fixed
latency (:class:`~actloop.runs.latency_server.LatencyServer`), measured as wall time against its two lower
bounds (the latency bound, the turns times the latency, and the CPU bound, the CPU seconds every process
used divided by the cores), peak memory of the driver and its environment processes (sampled) per episode in
flight, and whether every episode left a row and a record."""

from __future__ import annotations

import os
import resource
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from actloop.core.result import ResultRow
from actloop.records.recorder import EVENTS_FILE
from actloop.runs.latency_server import LatencyServer

MODEL = "openai-api/bench/latency"
"""An OpenAI-compatible service named ``bench``: Inspect reads ``BENCH_API_KEY`` and ``BENCH_BASE_URL``."""
MIB = 1024 * 1024


class MemorySampler:
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

    def __enter__(self) -> MemorySampler:
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


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds used so far by this process, and by its reaped children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def measure(
    replies: list[str],
    latency_s: float,
    turns: int,
    episodes: int,
    workers: int,
    run: Callable[[Path], list[ResultRow]],
) -> dict[str, Any]:
    """Serve ``replies`` after ``latency_s`` each, call ``run(out_dir)`` (the episodes, with the model
    :data:`MODEL` reaching the server) and measure it; ``turns`` model replies make one episode."""
    cores = os.cpu_count() or 1
    before = psutil.Process().memory_info().rss
    with tempfile.TemporaryDirectory() as tmp, LatencyServer(replies, latency_s) as server:
        cpu_start, start = cpu_seconds(), time.perf_counter()
        keys = {"BENCH_API_KEY": "loopback", "BENCH_BASE_URL": server.base_url, "NO_PROXY": "127.0.0.1"}
        with MemorySampler() as memory, scoped_environment(**keys):
            rows = run(Path(tmp))
        wall = time.perf_counter() - start
        cpu_end = cpu_seconds()
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
        "completed": sum(1 for r in rows if r.stop_reason in ("stop", "success")),
        "errors": sum(1 for r in rows if r.failed),
    }
