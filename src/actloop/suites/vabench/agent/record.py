"""vabench's events in an episode record: what the model was shown and what each action did."""

from __future__ import annotations

from dataclasses import asdict

from actloop.records.recorder import EpisodeRecorder
from actloop.suites.vabench.protocol.decisions import EnvAction, to_json
from actloop.suites.vabench.protocol.observation import Observation
from actloop.suites.vabench.protocol.step import Transition


def record_observation(recorder: EpisodeRecorder, observation: Observation) -> list[dict[str, str]]:
    """Record what the model is shown: the observation text and its clean frames."""
    frames = recorder.save_frames(observation.step, observation.frames)
    recorder.event(
        "observation",
        {
            "step": observation.step,
            "budget": observation.budget,
            "text": observation.text(),
            "frames": frames,
        },
    )
    return frames


def record_env_step(recorder: EpisodeRecorder, decision: EnvAction, transition: Transition) -> None:
    """Record an environment action, its outcome, proprioception and the evaluator-side checker state.

    ``step`` is the step count after the action (unchanged when it was not dispatched).
    """
    observation, feedback = transition.observation, transition.observation.feedback
    recorder.event(
        "env_step",
        {
            "step": observation.step,
            "decision": to_json(decision),
            "reason": decision.reason,
            "dispatched": transition.dispatched,
            "valid": feedback.valid,
            "planner_success": feedback.planner_success,
            "planner_reason": feedback.message,
            "proprioception": [asdict(arm) for arm in observation.arms],
            "evaluation": asdict(transition.evaluation),
            "done": transition.done,
            "stop_reason": transition.stop_reason,
        },
    )
