"""What the baseline reads from the conversation, and how it writes its decisions.

The baseline keeps its plan between turns in the ``reason`` of its own previous decision (a tag
``[baseline {...}]``), which is part of the conversation like any model's earlier output.
"""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import dataclass

import numpy as np
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
)
from PIL import Image

from actloop.suites.vabench.protocol.decisions import SEMANTIC_VIEWS

_TAG = re.compile(r"\[baseline (?P<state>\{.*\})\]")
_VEC = r"\[\s*(-?[\d.]+),\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\]"
_TASK = re.compile(r"## Task\n(?P<instruction>.+?)(?:\n\n|\n##|$)", re.S)


@dataclass(frozen=True)
class Proprio:
    """One arm's proprioception as printed in the observation text."""

    gc: np.ndarray
    rx: np.ndarray
    ry: np.ndarray
    gripper_open: bool


@dataclass(frozen=True)
class Turn:
    """Everything the baseline uses for one decision."""

    instruction: str
    arms: dict[str, Proprio]
    """Proprioception of every arm the observation reports (``right``; ``left`` too in dual-arm tasks)."""
    images: list[np.ndarray]
    planner_failed: bool
    state: dict

    @property
    def proprio(self) -> Proprio:
        """The right arm's proprioception (the only arm of single-arm tasks)."""
        return self.arms["right"]

    @property
    def dual(self) -> bool:
        return len(self.arms) == 2

    @property
    def passive(self) -> bool:
        """The passive protocol sends the five semantic views at every observation point."""
        return len(self.images) == len(SEMANTIC_VIEWS)

    def view(self, name: str) -> np.ndarray | None:
        """The frame showing the semantic view ``name``: the passive bundle's, or the active camera's."""
        if self.passive:
            return self.images[SEMANTIC_VIEWS.index(name)]
        return self.images[0] if self.images else None


def read_turn(messages: list[ChatMessage]) -> Turn | None:
    """The current turn, or None when there is no observation with right-arm proprioception."""
    observation = _latest_observation(messages)
    if observation is None:
        return None
    text, images = observation
    arms = {arm: p for arm in ("left", "right") if (p := parse_proprio(text, arm)) is not None}
    if "right" not in arms:
        return None
    return Turn(
        instruction=instruction(messages),
        arms=arms,
        images=images,
        planner_failed="planner success: no" in text,
        state=_previous_state(messages),
    )


def emit(action: dict, state: dict, why: str) -> str:
    """A decision as JSON text carrying the baseline's state in its reason."""
    return json.dumps({**action, "reason": f"{why} [baseline {json.dumps(state)}]"})


def parse_proprio(text: str, arm: str = "right") -> Proprio | None:
    """The proprioception block of ``arm`` (from its ``<arm> arm:`` line to the next arm's), or None."""
    section = re.split(rf"(?m)^{arm} arm:", text, maxsplit=1)
    if len(section) < 2:
        return None
    body = re.split(r"(?m)^\w+ arm:", section[1], maxsplit=1)[0]
    gc = re.search(r"GC \(finger midpoint\) xyz m: " + _VEC, body)
    rx = re.search(r"local axis rx \(approach\) in world: " + _VEC, body)
    ry = re.search(r"local axis ry \(finger closing\) in world: " + _VEC, body)
    grip = re.search(r"gripper: (open|closed)", body)
    if not (gc and rx and ry and grip):
        return None
    return Proprio(
        gc=np.array([float(g) for g in gc.groups()]),
        rx=np.array([float(g) for g in rx.groups()]),
        ry=np.array([float(g) for g in ry.groups()]),
        gripper_open=grip.group(1) == "open",
    )


def instruction(messages: list[ChatMessage]) -> str:
    """The task instruction from the system prompt's ``## Task`` section (empty if absent)."""
    for message in messages:
        if isinstance(message, ChatMessageSystem):
            match = _TASK.search(message.text)
            if match:
                return match.group("instruction").strip()
    return ""


def _previous_state(messages: list[ChatMessage]) -> dict:
    for message in reversed(messages):
        if isinstance(message, ChatMessageAssistant):
            try:
                reason = str(json.loads(message.text).get("reason", ""))
            except (json.JSONDecodeError, AttributeError):
                return {}
            match = _TAG.search(reason)
            return json.loads(match.group("state")) if match else {}
    return {}


def _latest_observation(messages: list[ChatMessage]) -> tuple[str, list[np.ndarray]] | None:
    """Text and images of the most recent user message that carries proprioception."""
    for message in reversed(messages):
        if not isinstance(message, ChatMessageUser):
            continue
        parts = [ContentText(text=message.content)] if isinstance(message.content, str) else message.content
        text = "\n".join(p.text for p in parts if isinstance(p, ContentText))
        if "GC (finger midpoint)" not in text:
            continue
        return text, [_decode(p.image) for p in parts if isinstance(p, ContentImage)]
    return None


def _decode(uri: str) -> np.ndarray:
    payload = uri.split(",", 1)[1] if uri.startswith("data:") else uri
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(payload))).convert("RGB"))
