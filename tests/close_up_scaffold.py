"""Serving a close-up of a bench's instruments without rendering it: the observation is logged as served
with the readability a close wrist camera has, and its readings cited as shown."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.instruments import Visibility

Citation = dict[str, object]


def serve_close_up(env: LabEnv, instruments: Sequence[str], pixels: float) -> str:
    """Log an observation from the wrist camera in which each of ``instruments`` is readable (its digits or
    graduations ``pixels`` px); its id."""
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    views = [Visibility(name, "wrist", True, True, pixels) for name in instruments]
    env.instrument_log.serve_observation(observation_id, env.clock.time_s, views)
    return observation_id


def cite_shown(env: LabEnv, observation_id: str, instruments: Sequence[str]) -> list[Citation]:
    """A citation of each of ``instruments`` as the observation shows it."""
    shown = env.instrument_log.observations[observation_id].shown
    return [
        {"observation_id": observation_id, "instrument": name, "value": shown[name]} for name in instruments
    ]
