"""The learning phase: a model studies a demonstration's frames and writes a structured task summary.

The model sees the task instruction and how many sampled frames the demonstration has. It retrieves
frames with the ``demo.frames`` tool and must inspect at least ``MIN_DISTINCT_FRAMES`` distinct frames
before a summary is accepted (the learning gate). A summary is a JSON object with the fields of
:data:`SUMMARY_FIELDS`; malformed or incomplete answers get a bounded number of repairs. The frames
carry no poses, actions or phase labels: only what a camera saw.

A long-horizon task has no video of the whole task but one video per atomic skill it combines (the seed's
section C.8). The model then names the video in every ``demo.frames`` call, must inspect at least
``MIN_DISTINCT_FRAMES`` distinct frames of every video, and writes one summary for the whole task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    Model,
)

from actloop.agent.failures import ModelFailure
from actloop.agent.messages import data_uri
from actloop.suites.vabench.protocol.parse import DecisionError, extract_json

DEMO_TOOL = "demo.frames"
MIN_DISTINCT_FRAMES = 3
MAX_FRAMES_PER_CALL = 4
MAX_REPAIRS = 2
MAX_CALLS = 20
SUMMARY_FIELDS: dict[str, str] = {
    "grasp_object_part": "which object, and which part of it, the gripper takes hold of",
    "grasp_region": "where on that part the fingers close (e.g. middle of the long side)",
    "grasp_height_or_depth": "how high on the object, or how deep, the fingers close",
    "finger_placement": "how the fingers sit relative to the object's faces or axis",
    "approach_strategy": "how the gripper approaches (direction, hover, descent)",
    "posture_or_rotation": "the gripper's orientation and any rotation needed before closing",
    "arm_assignment": "which arm does what (single-arm tasks: the right arm)",
    "coordination_order": "the order of the phases (and of the arms, for two-arm tasks)",
    "pre_close_checks": "a list of checks to make before closing the gripper",
    "completion_conditions": "a list of conditions that mean the task is done",
    "required_arms": "1 or 2",
}
LIST_FIELDS = ("pre_close_checks", "completion_conditions")
_SINGLE = "demonstration"
"""The name of a task's only video, used internally (a single-video tool call names no video)."""
FramesSeen = list[int] | dict[str, list[int]]
"""Distinct frame indices inspected, in the order first seen: a list for a single video, per video for
the skill videos of a long-horizon task."""


@dataclass
class LearningOutcome:
    """How a learning conversation ended; ``summary`` is set only when it was accepted."""

    summary: dict[str, Any] | None
    frames_seen: FramesSeen = field(default_factory=list)
    model_calls: int = 0
    repairs: int = 0
    stop_reason: str = "summary"


def learning_prompt(instruction: str, frame_count: int) -> str:
    """The system prompt of a learning conversation."""
    fields = "\n".join(f'- "{name}": {text}' for name, text in SUMMARY_FIELDS.items())
    return (
        "You are preparing to control a robot arm in a physics simulation. Before you act, you study a "
        "video of a successful execution of the task, filmed by a fixed camera.\n\n"
        f"## Task\n{instruction.strip()}\n\n"
        f"## Demonstration\nThe video has {frame_count} sampled frames, indices 0 to {frame_count - 1} in "
        f'time order. Ask for frames with {{"tool": "{DEMO_TOOL}", "args": {{"indices": [0, 5, 11]}}}} '
        f"(at most {MAX_FRAMES_PER_CALL} per call). Inspect at least {MIN_DISTINCT_FRAMES} distinct frames "
        "before you write the summary. In your episode the objects will be placed differently, so describe "
        "the procedure and its constraints, not positions.\n\n"
        "## Answer format\nAnswer with exactly one JSON object per turn: either a tool call as above, or "
        '{"summary": {...}} with these fields (strings unless stated):\n' + fields
    )


def skills_learning_prompt(instruction: str, frame_counts: Mapping[str, int]) -> str:
    """The system prompt of a learning conversation over the skill videos of a long-horizon task."""
    fields = "\n".join(f'- "{name}": {text}' for name, text in SUMMARY_FIELDS.items())
    videos = "\n".join(f'- "{name}": {count} sampled frames' for name, count in frame_counts.items())
    example = next(iter(frame_counts))
    return (
        "You are preparing to control a robot arm in a physics simulation. The task combines several "
        "skills. Before you act, you study one video of a successful execution of each skill on its own, "
        "filmed by a fixed camera; there is no video of the whole task.\n\n"
        f"## Task\n{instruction.strip()}\n\n"
        f"## Demonstrations\n{len(frame_counts)} videos, each with its sampled frames indexed from 0 in time "
        f"order:\n{videos}\n"
        f'Ask for frames of one video with {{"tool": "{DEMO_TOOL}", "args": {{"video": "{example}", '
        f'"indices": [0, 5, 11]}}}} (at most {MAX_FRAMES_PER_CALL} frames per call). Inspect at least '
        f"{MIN_DISTINCT_FRAMES} distinct frames of every video before you write the summary. In your "
        "episode the objects will be placed differently, so describe the procedures and their "
        "constraints, not positions.\n\n"
        "## Answer format\nAnswer with exactly one JSON object per turn: either a tool call as above, or "
        '{"summary": {...}} with these fields (strings unless stated), one summary for the whole task: '
        "where a field differs between the skills, say how it applies to each, and give in "
        '"coordination_order" how the skills combine into the task:\n' + fields
    )


def summary_text(summary: dict[str, Any]) -> str:
    """A stored summary as the lines added to an evaluation prompt."""
    lines = []
    for name in SUMMARY_FIELDS:
        value = summary.get(name)
        shown = "; ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        lines.append(f"- {name.replace('_', ' ')}: {shown}")
    return "\n".join(lines)


class LearningLoop:
    """One learning conversation over the sampled frames of a demonstration (PNG bytes, in time order):
    ``frames`` is a list for a single video, or a mapping from video name to its frames for the skill
    videos of a long-horizon task."""

    def __init__(
        self, model: Model, messages: list[ChatMessage], frames: list[bytes] | Mapping[str, list[bytes]]
    ) -> None:
        self.model = model
        self.messages = messages
        self.single = isinstance(frames, list)
        self.videos: dict[str, list[bytes]] = {_SINGLE: frames} if isinstance(frames, list) else dict(frames)
        if not self.videos:
            raise ValueError("a learning conversation needs at least one video")
        self._seen: dict[str, list[int]] = {name: [] for name in self.videos}
        seen: FramesSeen = self._seen[_SINGLE] if self.single else self._seen  # updated in place
        self.outcome = LearningOutcome(summary=None, frames_seen=seen)

    async def run(self, instruction: str) -> LearningOutcome:
        if self.single:
            prompt = learning_prompt(instruction, len(self.videos[_SINGLE]))
            start = "Study the demonstration, then write the summary."
        else:
            prompt = skills_learning_prompt(instruction, {n: len(f) for n, f in self.videos.items()})
            start = "Study the skill videos, then write the summary."
        self.messages[:] = [ChatMessageSystem(content=prompt), ChatMessageUser(content=start)]
        failures = 0
        while self.outcome.model_calls < MAX_CALLS:
            reply = await self._generate()
            problem = self._handle(reply)
            if self.outcome.summary is not None:
                return self.outcome
            if problem is None:
                failures = 0
                continue
            failures += 1
            if failures > MAX_REPAIRS:
                self.outcome.stop_reason = "invalid_answers"
                return self.outcome
            self.outcome.repairs += 1
            self.messages.append(
                ChatMessageUser(content=f"Your previous reply was not accepted: {problem}\nAnswer again.")
            )
        self.outcome.stop_reason = "call_limit"
        return self.outcome

    async def _generate(self) -> str:
        self.outcome.model_calls += 1
        try:
            output = await self.model.generate(self.messages)
        except Exception as exc:
            raise ModelFailure.from_exception(exc) from exc
        self.messages.append(output.message)
        return output.completion

    def _handle(self, reply: str) -> str | None:
        """Act on one reply; returns what was wrong with it, or None if it was acceptable."""
        obj = extract_json(reply)
        if isinstance(obj, DecisionError):
            return obj.message
        if "tool" in obj:
            return self._frames(obj)
        if "summary" in obj:
            return self._accept(obj["summary"])
        return f'answer with a {DEMO_TOOL} tool call or {{"summary": {{...}}}}'

    def _frames(self, obj: dict[str, Any]) -> str | None:
        if obj.get("tool") != DEMO_TOOL:
            return f"the only tool in this phase is {DEMO_TOOL}"
        args = obj.get("args") or {}
        video = _SINGLE if self.single else args.get("video")
        if not isinstance(video, str) or video not in self.videos:
            names = ", ".join(f'"{name}"' for name in self.videos)
            return f'{DEMO_TOOL} needs "args": {{"video": ..., "indices": [...]}}, "video" one of {names}'
        frames, seen = self.videos[video], self._seen[video]
        indices = args.get("indices")
        valid = range(len(frames))
        if (
            not isinstance(indices, list)
            or not indices
            or len(indices) > MAX_FRAMES_PER_CALL
            or not all(isinstance(i, int) and not isinstance(i, bool) and i in valid for i in indices)
        ):
            return (
                f'{DEMO_TOOL} needs "args": {{"indices": [...]}} with 1 to {MAX_FRAMES_PER_CALL} integer '
                f"frame indices between 0 and {len(frames) - 1}"
            )
        which = "" if self.single else f" video {video},"
        content: list[Content] = [ContentText(text=f"{DEMO_TOOL} result:{which} frames {indices}.")]
        for i in indices:
            content += [ContentText(text=f"frame {i}:"), ContentImage(image=data_uri(frames[i]))]
            if i not in seen:
                seen.append(i)
        self.messages.append(ChatMessageUser(content=content))
        return None

    def _gate(self) -> str | None:
        """Why a summary cannot be accepted yet (too few distinct frames inspected), or None."""
        if self.single:
            seen = len(self._seen[_SINGLE])
            if seen >= MIN_DISTINCT_FRAMES:
                return None
            return (
                f"inspect at least {MIN_DISTINCT_FRAMES} distinct demonstration frames with {DEMO_TOOL} "
                f"before writing the summary (you have inspected {seen})"
            )
        short = {name: len(seen) for name, seen in self._seen.items() if len(seen) < MIN_DISTINCT_FRAMES}
        if not short:
            return None
        counts = ", ".join(f'"{name}" {count}' for name, count in short.items())
        return (
            f"inspect at least {MIN_DISTINCT_FRAMES} distinct frames of every video with {DEMO_TOOL} before "
            f"writing the summary (distinct frames inspected so far: {counts})"
        )

    def _accept(self, summary: Any) -> str | None:
        gate = self._gate()
        if gate is not None:
            return gate
        if not isinstance(summary, dict):
            return '"summary" must be a JSON object with the listed fields'
        missing = [name for name in SUMMARY_FIELDS if name not in summary]
        if missing:
            return f"the summary lacks the fields: {', '.join(missing)}"
        for name in LIST_FIELDS:
            if not isinstance(summary[name], list) or not all(isinstance(v, str) for v in summary[name]):
                return f'"{name}" must be a list of strings'
        if summary["required_arms"] not in (1, 2):
            return '"required_arms" must be 1 or 2'
        self.outcome.summary = {name: summary[name] for name in SUMMARY_FIELDS}
        return None
