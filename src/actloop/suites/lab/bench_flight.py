"""The lab's in-flight benchmark: many scripted agents at once, each thinking a fixed time before every
program it runs.

Every agent is a model behind :class:`~actloop.runs.latency_server.LatencyServer` (its latency the think
time) played through the harness exactly as a hosted model is: its replies are programs, each run in a
sandbox of its own on a bench hosted in the long-lived pool, many benches per process. An agent's programs
take a look at the bench and let a simulated second pass; its last one submits. Reported (:mod:`actloop.runs.
flight`): wall time against the latency bound (programs × think time) and the CPU bound, memory per episode
in flight, and the rows and records written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from actloop.core.result import ResultRow
from actloop.runs.flight import MODEL, measure
from actloop.suites.lab.manifests import load

EXPERIMENT = "hookes_law"
AGENTS, THINK_S, PROGRAMS = 20, 5.0, 10
"""The scenario: 20 agents at once, 5 s of thought before each of their 10 programs."""

LOOK = """```python
from lab_client import Lab
lab = Lab()
print(lab.state()["time_s"], lab.wait(1.0)["time_s"])
```"""
SUBMIT = """```python
from lab_client import Lab
lab = Lab()
print(lab.submit({"k": 30.0}, []))
```"""


def script(programs: int) -> list[str]:
    """An agent's replies: ``programs - 1`` looks, then the submission."""
    return [LOOK] * (programs - 1) + [SUBMIT]


def in_flight(
    agents: int = AGENTS, think_s: float = THINK_S, programs: int = PROGRAMS, workers: int = 2
) -> dict[str, Any]:
    """Run ``agents`` scripted agents at once on ``workers`` environment processes; the figures."""
    from actloop.runs.inspect_run import run_episodes

    seeds = load(EXPERIMENT).seeds()
    plan = [(EXPERIMENT, seeds[i % len(seeds)], 1 + i // len(seeds)) for i in range(agents)]

    def run(out: Path) -> list[ResultRow]:
        return run_episodes(
            "lab",
            plan,
            MODEL,
            {},
            out,
            workers=workers,
            isolation="pool",
            max_in_flight=agents,
            max_retries=1,
        )

    return measure(script(programs), think_s, programs, agents, workers, run)
