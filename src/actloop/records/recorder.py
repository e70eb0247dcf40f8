"""One directory per episode: ``events.jsonl``, the clean frames the model saw, and ``result.json``.

Every event is one line ``{"type": ..., "data": {...}, "created_at": <ISO 8601 UTC>}``, appended and
flushed immediately, so a crashed episode still leaves a readable record.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from actloop.core.frames import Frame
from actloop.core.result import DEFAULT_SUITE
from actloop.core.text import write_text
from actloop.errors import RecordError
from actloop.records.jsonl import json_line, json_text, line_problem, read_json_lines, write_all

EventType = Literal[
    "episode_start",
    "observation",
    "model_output",
    "decision",
    "decision_rejected",
    "tool_result",
    "env_step",
    "context_compacted",
    "episode_end",
]
EVENTS_FILE = "events.jsonl"
RESULT_FILE = "result.json"
FRAMES_DIR = "frames"

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def fresh_dir(path: Path) -> Path:
    """``path`` if it holds no episode record yet, else the first free ``path-2``, ``path-3``, ..."""
    candidate, n = path, 1
    while (candidate / EVENTS_FILE).exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


class EpisodeRecorder:
    """Writes the append-only record of one episode into ``directory`` (created if needed)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        (directory / FRAMES_DIR).mkdir(parents=True, exist_ok=True)
        events = directory / EVENTS_FILE
        if events.exists():
            raise FileExistsError(f"{events} already exists; records are never overwritten")
        self._fd: int | None = os.open(events, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)

    def event(self, type: EventType, data: dict[str, Any]) -> None:
        """Append one event line."""
        if self._fd is None:
            raise ValueError(f"episode record {self.directory} is closed")
        created_at = datetime.now(UTC).isoformat()
        write_all(self._fd, json_line({"type": type, "data": data, "created_at": created_at}))

    def save_frames(self, step: int, frames: tuple[Frame, ...]) -> list[dict[str, str]]:
        """Store frames as ``frames/step{NNN}_{view}.png``; returns ``[{"view", "path"}]`` (relative).

        A frame identical to the one already stored under its name is not written twice.
        """
        saved = []
        for frame in frames:
            stem = f"step{step:03d}_{_UNSAFE.sub('_', frame.view)}"
            path, n = self.directory / FRAMES_DIR / f"{stem}.png", 1
            while path.exists() and path.read_bytes() != frame.png:
                n += 1
                path = path.with_name(f"{stem}-{n}.png")
            if not path.exists():
                path.write_bytes(frame.png)
            saved.append({"view": frame.view, "path": str(path.relative_to(self.directory))})
        return saved

    def finish(self, result: dict[str, Any], details: dict[str, Any] | None = None) -> None:
        """Write the ``episode_end`` event (``result`` plus ``details``) and ``result.json`` (whole: a file
        put in place at once, so a crash never leaves it torn), then close."""
        self.event("episode_end", {**result, **(details or {})})
        write_text(self.directory / RESULT_FILE, json_text(result, indent=2) + "\n")
        self.close()

    def close(self) -> None:
        """Close the events file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> EpisodeRecorder:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def read_events(record_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """A record's events in order, and ``events.jsonl:line: why`` for every line left out (unreadable,
    e.g. the cut-off last line of a crashed episode, or not an event); raises RecordError when
    ``record_dir`` holds no record."""
    path = record_dir / EVENTS_FILE
    if not path.is_file():
        raise _no_record(record_dir)
    values, problems = read_json_lines(path)
    events = []
    for number, event in values:
        if isinstance(event, dict) and isinstance(event.get("type"), str):
            events.append(event)
        else:
            problems.append(f"{path}:{number}: not an event (a JSON object with a type)")
    return events, problems


def read_start(record_dir: Path) -> dict[str, Any]:
    """The data of a record's ``episode_start`` event (its first line); raises RecordError without one."""
    path = record_dir / EVENTS_FILE
    try:
        with path.open("rb") as lines:
            first = json.loads(lines.readline().decode("utf-8"))
    except FileNotFoundError:
        raise RecordError(
            f"{record_dir} holds no {EVENTS_FILE}: is it an episode record directory?"
        ) from None
    except (ValueError, RecursionError) as err:
        raise RecordError(f"{line_problem(path, 1, err)}: the record has no readable episode_start") from None
    data = first.get("data") if isinstance(first, dict) and first.get("type") == "episode_start" else None
    if not isinstance(data, dict):
        raise RecordError(f"{path} does not start with an episode_start event")
    return data


def episode_suite(record_dir: Path) -> str:
    """The suite named by a record's ``episode_start`` event."""
    return str(read_start(record_dir).get("suite") or DEFAULT_SUITE)


def _no_record(record_dir: Path) -> RecordError:
    return RecordError(f"{record_dir} holds no {EVENTS_FILE}: is it an episode record directory?")
