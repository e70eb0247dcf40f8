"""Re-executing a recorded episode without its model, to confirm that it reproduces.

The record's ``episode_start`` names the environment factory and arguments, the scene identity and the
platform fingerprint; every ``env_step`` holds the decision sent and the evaluator's view after it.
Replaying the decisions in order on a fresh environment must give, at every step, the same dispatch,
planner outcome, named conditions (ours and the paper's), checkpoints and success. Object poses must
agree bit for bit (state hashes) when the platform fingerprints match, and within the episode
tolerances of :mod:`actloop.records.compare` when they do not. The replay always plays to the end and
reports every differing step with its magnitude.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from actloop.core.factory import resolve_factory
from actloop.errors import RecordError
from actloop.records.compare import (
    EPISODE_POSITION_TOLERANCE_M,
    EPISODE_ROTATION_TOLERANCE_RAD,
    ReplayCheck,
    pose_deviation,
)
from actloop.records.recorder import EVENTS_FILE, read_events
from actloop.sim.fingerprint import same_platform
from actloop.suites.vabench.protocol.parse import DecisionError, decision_from_json
from actloop.suites.vabench.protocol.step import Transition

EXACT_FIELDS = ("success", "paper_success", "conditions", "paper_conditions", "checkpoints")
"""Evaluation fields that must match exactly on any platform."""


LEGACY_FACTORIES = {"actloop.vabench.env:SpatialEnv": "actloop.suites.vabench.env:SpatialEnv"}
"""Where environments recorded before the suites moved under ``actloop.suites`` live now."""


def _step_differences(recorded: dict[str, Any], result: Transition, bitwise: bool) -> list[str]:
    """What differs between a recorded ``env_step`` and its replay (empty if nothing)."""
    found = []
    feedback, evaluation = result.observation.feedback, result.evaluation
    replayed: dict[str, Any] = {
        "dispatched": result.dispatched,
        "planner_success": feedback.planner_success,
    }
    for name in ("dispatched", "planner_success"):
        if replayed[name] != recorded.get(name):
            found.append(f"{name} recorded {recorded.get(name)}, replayed {replayed[name]}")
    rec_eval = recorded["evaluation"]
    for name in EXACT_FIELDS:
        if name not in rec_eval:  # a record older than the field
            continue
        now = getattr(evaluation, name)
        if isinstance(now, dict):
            changed = sorted(
                k for k in now.keys() | rec_eval[name].keys() if now.get(k) != rec_eval[name].get(k)
            )
            if changed:
                pairs = ", ".join(f"{k} {rec_eval[name].get(k)}→{now.get(k)}" for k in changed)
                found.append(f"{name} differ: {pairs}")
        elif now != rec_eval[name]:
            found.append(f"{name} recorded {rec_eval[name]}, replayed {now}")
    if bitwise and evaluation.state_hash != rec_eval["state_hash"]:
        found.append(f"state hash {evaluation.state_hash[:12]} != recorded {rec_eval['state_hash'][:12]}")
    return found


def reexecute(record_dir: Path) -> ReplayCheck:
    """Replay the recorded decisions on a fresh environment and compare every step to the end."""
    events, unreadable = read_events(record_dir)
    start = next((e["data"] for e in events if e["type"] == "episode_start"), None)
    if start is None:
        raise RecordError(f"{record_dir / EVENTS_FILE} has no episode_start event")
    end = next((e["data"] for e in events if e["type"] == "episode_end"), None)
    check = ReplayCheck(record_dir, recorded_success=None if end is None else bool(end["success"]))
    check.unreadable = unreadable
    factory = LEGACY_FACTORIES.get(start["env_factory"], start["env_factory"])
    env = resolve_factory(factory)(**start["env_kwargs"])
    try:
        here = env.provenance()
        check.bitwise = same_platform(start.get("platform"), here.get("platform"))
        if start.get("scene_id") and start["scene_id"] != here.get("scene_id"):
            check.differences.append(
                f"reset: scene identity {str(here.get('scene_id'))[:12]} != recorded {start['scene_id'][:12]}"
            )
        result = env.reset()
        for event in (e["data"] for e in events if e["type"] == "env_step"):
            if result.done:
                check.differences.append(
                    f"step {event['step']}: the replay ended at step {check.steps} ({result.stop_reason}) "
                    "but the record goes on"
                )
                break
            decision = decision_from_json(event["decision"], env.action_space)
            if isinstance(decision, DecisionError):  # the action vocabulary changed since recording
                check.differences.append(
                    f"step {event['step']}: the recorded decision no longer parses: {decision}"
                )
                break
            result = env.step(decision)
            check.steps += 1
            found = _step_differences(event, result, check.bitwise)
            recorded_poses = event["evaluation"].get("poses")
            if recorded_poses:
                deviation = pose_deviation(recorded_poses, result.evaluation.poses)
                check.max_deviation = check.max_deviation.worst(deviation)
                if not deviation.within(EPISODE_POSITION_TOLERANCE_M, EPISODE_ROTATION_TOLERANCE_RAD):
                    found.append(f"poses beyond tolerance: {deviation.text()}")
            check.differences += [f"step {event['step']}: {line}" for line in found]
        check.replayed_success = bool(result.evaluation.success)
        check.final_state_hash = result.evaluation.state_hash
    finally:
        env.close()
    return check
