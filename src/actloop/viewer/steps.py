"""An episode record (``events.jsonl``, ``frames/``, ``result.json``) as per-step data for the viewer.

A viewer step is one observation: the frames and text the model was shown, then everything until the
next observation: the model's replies, rejected decisions, tool results and the environment action(s)
with their validity, planner outcome, proprioception and the checker's state after the action.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from actloop.errors import RecordError
from actloop.records.paths import inside
from actloop.records.recorder import RESULT_FILE, read_events

TURN_EVENTS = ("model_output", "decision", "decision_rejected", "tool_result", "context_compacted")


def episode_data(record_dir: Path) -> dict[str, Any]:
    """Everything the viewer shows, JSON-ready (``unreadable_lines``: ``events.jsonl:line: why`` for every
    line left out); raises RecordError without ``events.jsonl``."""
    events, unreadable = read_events(record_dir)
    start: dict[str, Any] = {}
    end: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = []
    before: list[dict[str, Any]] = []
    for event in events:
        kind, data = event.get("type"), event.get("data")
        if not isinstance(data, dict):
            data = {"value": data}
        if kind == "episode_start":
            start = data
        elif kind == "episode_end":
            end = data
        elif kind == "observation":
            steps.append(
                {
                    "step": data.get("step"),
                    "budget": data.get("budget"),
                    "text": data.get("text"),
                    "frames": [
                        recorded_frame(record_dir, f) for f in data.get("frames") or [] if isinstance(f, dict)
                    ],
                    "actions": [],
                    "turns": [],
                }
            )
        elif kind == "env_step" and steps:
            steps[-1]["actions"].append(data)
        else:
            turn = {"type": str(kind), "data": data, "time": event.get("created_at")}
            if kind == "tool_result":
                turn["frames"] = [
                    recorded_frame(record_dir, f) for f in data.get("frames") or [] if isinstance(f, dict)
                ]
            (steps[-1]["turns"] if steps else before).append(turn)
    return {
        "episode": {key: start.get(key) for key in ("suite", "task", "seed", "run", "model", "protocol")},
        "instruction": start.get("instruction"),
        "budget": start.get("budget"),
        "result": episode_result(record_dir, end),
        "steps": steps,
        "before": before,
        "unreadable_lines": unreadable,
    }


def episode_result(record_dir: Path, end: dict[str, Any] | None) -> dict[str, Any] | None:
    """``result.json`` if readable, else the ``episode_end`` event's data (which adds a traceback)."""
    result: dict[str, Any] | None = None
    try:
        loaded = json.loads((record_dir / RESULT_FILE).read_text(encoding="utf-8"))
        result = loaded if isinstance(loaded, dict) else None
    except (OSError, ValueError):
        pass
    if result is None:
        return end
    if end and end.get("traceback"):
        result = {**result, "traceback": end["traceback"]}
    return result


def recorded_frame(record_dir: Path, frame: dict[str, Any]) -> dict[str, Any]:
    """A recorded frame with its path kept only when it is a plain relative path that stays inside the
    record (links followed)."""
    raw = frame.get("path")
    path = raw if isinstance(raw, str) and safe_relative(raw) else None
    try:
        file = None if path is None else inside(record_dir, path)
    except RecordError:
        path = file = None
    return {"view": str(frame.get("view", "")), "path": path, "exists": file is not None and file.is_file()}


def safe_relative(path: str) -> bool:
    """True for a relative POSIX path without ``..``, a scheme, a drive or a backslash."""
    if not path or ":" in path or "\\" in path or path.startswith("/"):
        return False
    return ".." not in PurePosixPath(path).parts
