"""The vabench observation and repair messages of an episode's conversation."""

from __future__ import annotations

from inspect_ai.model import ChatMessageUser

from actloop.agent.messages import image_message
from actloop.suites.vabench.protocol.observation import Observation


def observation_message(observation: Observation) -> ChatMessageUser:
    """The observation text followed by its current frame(s)."""
    return image_message(observation.text(), observation.step, observation.frames)


def repair_message(error: str, attempt: int, limit: int, observation: Observation) -> ChatMessageUser:
    """Tell the model why its reply was not accepted, with the current observation text (no image)."""
    return ChatMessageUser(
        content=(
            f"Your previous reply was not accepted: {error}\n"
            f"Repair attempt {attempt} of {limit}: reply with exactly one valid JSON object.\n\n"
            f"{observation.text()}"
        )
    )
