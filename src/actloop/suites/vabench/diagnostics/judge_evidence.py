"""An episode's evidence as the content of one judge request: text and model-facing frames, bounded.

The content follows :func:`~actloop.suites.vabench.diagnostics.evidence.episode_evidence` step by step:
the observation text and frames the model was shown, its replies, rejected replies and tool results, then
each action (the decision parsed from the reply) with its validity, planner outcome and the proprioception
after it, and finally the terminal outcome. Only those fields of an action are shown (a whitelist), so no
checker state can slip in.

A request carries at most ``max_frames`` images (:data:`~.judge_options.MAX_FRAMES` by default): when the
episode has more, they are subsampled evenly over the episode, first and last kept, and each omitted frame
is marked where it was shown to the model and listed in the header. A reply longer than
:data:`MAX_REPLY_CHARS` is cut, saying how much was left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.model import Content, ContentImage, ContentText

from actloop.agent.messages import data_uri
from actloop.suites.vabench.diagnostics.evidence import episode_evidence
from actloop.suites.vabench.diagnostics.judge_options import MAX_FRAMES

MAX_REPLY_CHARS = 4000
"""Characters of one model reply shown; the rest is cut with a note of its length."""
ACTION_FIELDS = ("dispatched", "valid", "planner_success", "planner_reason")
"""What is shown of an action besides its decision and the proprioception after it."""


@dataclass(frozen=True)
class _Frame:
    step: int | None
    view: str
    path: Path | None


@dataclass(frozen=True)
class EpisodeContent:
    """The request content for one episode and how its frames were bounded."""

    content: list[Content]
    frames_total: int
    omitted: list[str]
    """``step N view V`` of every frame left out of the request."""

    @property
    def frames_sent(self) -> int:
        return self.frames_total - len(self.omitted)


def episode_content(record_dir: Path, max_frames: int = MAX_FRAMES) -> EpisodeContent:
    """The judge's view of the episode recorded in ``record_dir`` (see the module docstring)."""
    data = episode_evidence(record_dir)
    pieces = _pieces(data, record_dir)
    frames = [p for p in pieces if isinstance(p, _Frame) and p.path is not None]
    shown = {id(frames[i]) for i in _spread(len(frames), max_frames)}
    omitted = [_label(f) for f in frames if id(f) not in shown]
    header = f"The episode's model-facing frames: {len(frames)}; "
    if omitted:
        header += f"{len(frames) - len(omitted)} are shown, evenly spaced. Left out: {', '.join(omitted)}."
    else:
        header += "all are shown."
    parts = _Parts()
    parts.text(header)
    for piece in pieces:
        if isinstance(piece, str):
            parts.text(piece)
        elif piece.path is None:
            parts.text(f"[image: {_label(piece)}, missing from the record]")
        elif id(piece) in shown:
            parts.text(f"[image: {_label(piece)}]")
            parts.image(data_uri(piece.path.read_bytes()))
        else:
            parts.text(f"[image: {_label(piece)}, left out of this request]")
    return EpisodeContent(parts.done(), len(frames), omitted)


def _pieces(data: dict[str, Any], record_dir: Path) -> list[str | _Frame]:
    """The episode as text lines and frames in the order the model met them."""
    episode = data.get("episode") or {}
    pieces: list[str | _Frame] = [
        f"# Episode: task {episode.get('task')}",
        f"Instruction: {data.get('instruction')}",
        f"Step budget: {data.get('budget')} (camera and robot actions each use one step)",
    ]
    if data.get("unreadable_lines"):
        pieces.append(f"({len(data['unreadable_lines'])} unreadable line(s) of the record are left out.)")
    for turn in data.get("before") or []:
        pieces += _turn(turn, None, record_dir)
    for step in data.get("steps") or []:
        pieces.append(f"\n## Step {step.get('step')} of {step.get('budget')}")
        pieces.append(f"Observation shown to the model:\n{step.get('text')}")
        pieces += [_frame(step.get("step"), frame, record_dir) for frame in step.get("frames") or []]
        for turn in step.get("turns") or []:
            pieces += _turn(turn, step.get("step"), record_dir)
        for action in step.get("actions") or []:
            pieces += _action(action)
    result = data.get("result") or {}
    outcome = "; ".join(f"{key.replace('_', ' ')}: {_compact(value)}" for key, value in result.items())
    pieces.append(f"\n## Terminal outcome\n{outcome or 'not recorded'}")
    return pieces


def _turn(turn: dict[str, Any], step: int | None, record_dir: Path) -> list[str | _Frame]:
    kind, data = turn.get("type"), turn.get("data") or {}
    if kind == "model_output":
        return [f"Model reply (call {data.get('call')}):\n{_cut(str(data.get('text') or ''))}"]
    if kind == "decision_rejected":
        return [
            f"Reply not accepted ({data.get('kind')}, attempt {data.get('attempt')}): {data.get('message')}"
        ]
    if kind == "tool_result":
        status = "ok" if data.get("ok") else f"failed: {data.get('message')}"
        lines: list[str | _Frame] = [f"Tool {data.get('tool')} {_compact(data.get('args'))}: {status}"]
        at = (data.get("args") or {}).get("step", step)
        return lines + [_frame(at, frame, record_dir) for frame in turn.get("frames") or []]
    if kind == "context_compacted":
        return ["(The model's earlier conversation was compacted to a digest here.)"]
    return []  # a decision repeats the reply it was parsed from


def _action(action: dict[str, Any]) -> list[str | _Frame]:
    """The action line; its decision without the ``reason``, which the reply just shown holds."""
    decision = action.get("decision")
    if isinstance(decision, dict):
        decision = {key: value for key, value in decision.items() if key != "reason"}
    facts = "; ".join(f"{key.replace('_', ' ')}: {_compact(action.get(key))}" for key in ACTION_FIELDS)
    lines: list[str | _Frame] = [f"Action {_compact(decision)} -> {facts}"]
    if action.get("proprioception") is not None:
        lines.append(f"Proprioception after the action: {_compact(action['proprioception'])}")
    return lines


def _frame(step: Any, frame: dict[str, Any], record_dir: Path) -> _Frame:
    path = record_dir / frame["path"] if frame.get("exists") else None
    return _Frame(step if isinstance(step, int) else None, str(frame.get("view", "")), path)


def _spread(count: int, limit: int) -> list[int]:
    """Indices of ``limit`` of ``count`` items evenly spaced, first and last included (all if fewer)."""
    if count <= limit:
        return list(range(count))
    if limit == 1:
        return [count - 1]
    return sorted({round(i * (count - 1) / (limit - 1)) for i in range(limit)})


def _label(frame: _Frame) -> str:
    return f"step {frame.step} view {frame.view}"


def _cut(text: str) -> str:
    if len(text) <= MAX_REPLY_CHARS:
        return text
    return f"{text[:MAX_REPLY_CHARS]} [... {len(text) - MAX_REPLY_CHARS} more characters left out]"


def _compact(value: Any) -> str:
    """``value`` as compact JSON with floats to 4 decimals (a plain string as itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(_rounded(value), separators=(",", ":"), ensure_ascii=False)


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


class _Parts:
    """Content parts with consecutive text lines joined into one text part."""

    def __init__(self) -> None:
        self._parts: list[Content] = []
        self._lines: list[str] = []

    def text(self, line: str) -> None:
        self._lines.append(line)

    def image(self, uri: str) -> None:
        self._flush()
        self._parts.append(ContentImage(image=uri))

    def done(self) -> list[Content]:
        self._flush()
        return self._parts

    def _flush(self) -> None:
        if self._lines:
            self._parts.append(ContentText(text="\n".join(self._lines)))
            self._lines = []
