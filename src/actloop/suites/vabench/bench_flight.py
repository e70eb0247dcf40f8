"""The in-flight benchmark: many episodes at once against a model that takes ``latency_s`` per reply.

What limits a real evaluation is how many episodes one machine keeps in flight while hosted models think,
and what each costs while it waits. Every episode plays the same ``turns``-turn script (camera actions,
arm moves, then stop) against :class:`~actloop.runs.latency_server.LatencyServer` through
Inspect's OpenAI provider, exactly as a hosted model would be called. Reported: wall time against its
two lower bounds (the latency bound, ``turns × latency_s``, and the CPU bound, the CPU seconds every
process used divided by the cores), peak memory of the driver and its environment processes (sampled),
per episode in flight, and whether every episode left a row and a record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from actloop.core.result import ResultRow
from actloop.runs.flight import MODEL, measure
from actloop.suites.vabench.seeds import load_manifest

TASK = "grasp_single_cube"
_MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}
_SCRIPT_PATTERN = [{"action": "camera.view_topdown"}, _MOVE, {"action": "camera.view_side"}, _MOVE]


def script(turns: int) -> list[str]:
    """``turns`` replies: ``turns - 1`` actions (camera views and 20 mm moves, alternating), then stop."""
    actions = [_SCRIPT_PATTERN[i % len(_SCRIPT_PATTERN)] for i in range(turns - 1)]
    return [json.dumps(a) for a in actions] + [json.dumps({"stop": True})]


def in_flight(
    episodes: int = 100, latency_s: float = 2.0, turns: int = 8, workers: int = 2
) -> dict[str, Any]:
    """Run ``episodes`` scripted episodes at once on ``workers`` environment processes; the figures."""
    from actloop.runs.inspect_run import run_episodes

    seeds = load_manifest(TASK).seed_list()
    plan = [(TASK, seeds[i % len(seeds)], 1 + i // len(seeds)) for i in range(episodes)]

    def run(out: Path) -> list[ResultRow]:
        return run_episodes(
            "vabench", plan, MODEL, {}, out, workers=workers, isolation="pool", max_in_flight=episodes,
            max_retries=1,
        )  # fmt: skip

    return measure(script(turns), latency_s, turns, episodes, workers, run)
