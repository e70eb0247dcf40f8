"""Re-executing a recorded episode without its model, to confirm that it reproduces exactly.

The record's ``episode_start`` names the environment factory and arguments; every ``env_step`` holds the
decision sent and the state hash after it. Replaying the decisions in order on a fresh environment must
give the same dispatch outcome and state hash at every step, and the same final result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actloop.protocol.parse import DecisionError, decision_from_json
from actloop.runtime.factory import resolve_factory

EVENTS_FILE = "events.jsonl"


@dataclass
class ReplayCheck:
    """The outcome of re-executing one record."""

    record_dir: Path
    steps: int = 0
    mismatches: list[str] = field(default_factory=list)
    recorded_success: bool | None = None
    replayed_success: bool | None = None
    final_state_hash: str | None = None

    @property
    def identical(self) -> bool:
        return not self.mismatches and self.recorded_success == self.replayed_success


def _events(record_dir: Path) -> list[dict[str, Any]]:
    path = record_dir / EVENTS_FILE
    if not path.exists():
        raise FileNotFoundError(f"{record_dir} holds no {EVENTS_FILE}: is it an episode record directory?")
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a torn last line of a killed run
    return events


def reexecute(record_dir: Path) -> ReplayCheck:
    """Replay the recorded decisions on a fresh environment and compare every step."""
    events = _events(record_dir)
    start = next((e["data"] for e in events if e["type"] == "episode_start"), None)
    if start is None:
        raise ValueError(f"{record_dir / EVENTS_FILE} has no episode_start event")
    end = next((e["data"] for e in events if e["type"] == "episode_end"), None)
    check = ReplayCheck(record_dir, recorded_success=None if end is None else bool(end["success"]))
    env = resolve_factory(start["env_factory"])(**start["env_kwargs"])
    try:
        result = env.reset()
        for event in (e["data"] for e in events if e["type"] == "env_step"):
            decision = decision_from_json(event["decision"], env.action_space)
            if isinstance(decision, DecisionError):  # the action vocabulary changed since recording
                check.mismatches.append(
                    f"step {event['step']}: the recorded decision no longer parses: {decision}"
                )
                break
            result = env.step(decision)
            check.steps += 1
            recorded = event["evaluation"]["state_hash"]
            if result.dispatched != event["dispatched"] or result.evaluation.state_hash != recorded:
                check.mismatches.append(
                    f"step {event['step']}: state {result.evaluation.state_hash[:12]} "
                    f"(dispatched {result.dispatched}) != recorded {recorded[:12]} "
                    f"(dispatched {event['dispatched']})"
                )
                break
        check.replayed_success = bool(result.evaluation.success)
        check.final_state_hash = result.evaluation.state_hash
    finally:
        env.close()
    return check
