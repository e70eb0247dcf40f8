"""Append-only JSON Lines files that several processes may write at once."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

RESULTS_FILE = "results.jsonl"


def json_line(obj: Any) -> bytes:
    """One compact JSON object followed by a newline, UTF-8 encoded."""
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` completely to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_line(path: Path, obj: Any) -> None:
    """Append ``obj`` as one line to ``path`` under an exclusive lock (safe across processes).

    If a killed writer left a torn last line, it is terminated first so the new line stays whole.
    """
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        write_all(fd, (b"\n" if torn else b"") + json_line(obj))
    finally:
        os.close(fd)  # closing releases the lock


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file, skipping lines a killed writer left incomplete."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def append_result(out_dir: Path, row: dict[str, Any]) -> Path:
    """Append one episode's result row to ``out_dir/results.jsonl``; returns the file's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RESULTS_FILE
    append_line(path, row)
    return path
