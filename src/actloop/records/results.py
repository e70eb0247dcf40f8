"""``results.jsonl``: where result rows are written and read, and which row of an episode counts.

Every row is a :class:`~actloop.core.result.ResultRow`. When an episode has several rows (a rerun after a
failure, or the same episode in two output directories), a completed row is preferred over an
``infra_error``/``error`` row, and otherwise the later row wins. The run matrix, the report and the
episode table all choose rows this way, through :func:`deduplicate`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from actloop.core.result import EpisodeKey, ResultRow
from actloop.errors import RecordError
from actloop.records.jsonl import RESULTS_FILE, append_line, read_json_lines
from actloop.records.recorder import RESULT_FILE

T = TypeVar("T")


@dataclass
class ResultFile:
    """The rows of one ``results.jsonl`` in file order, and ``file:line: problem`` for each unreadable
    line (torn by a killed writer, not UTF-8 JSON, or not a valid row)."""

    path: Path
    rows: list[ResultRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The line number of each row."""


def write_result(out_dir: Path, row: ResultRow) -> Path:
    """Append ``row`` to ``out_dir/results.jsonl`` (safe across processes); returns the file's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RESULTS_FILE
    append_line(path, row.to_json())
    return path


def read_results(out_dir: Path) -> ResultFile:
    """The rows of ``out_dir/results.jsonl``; none when the file does not exist."""
    path = out_dir / RESULTS_FILE
    found = ResultFile(path)
    if not path.exists():
        return found
    values, found.problems = read_json_lines(path)
    for number, value in values:
        try:
            found.rows.append(ResultRow.from_json(value))
            found.lines.append(number)
        except RecordError as err:
            found.problems.append(f"{path}:{number}: {err}")
    return found


def unreadable_note(problem: str) -> str:
    """How a row that could not be read (``file:line: problem``) is named wherever rows are read."""
    return f"left out an unreadable row: {problem}"


def recorded_row(record_dir: Path) -> ResultRow:
    """The row an episode record's ``result.json`` holds (written with the row, just before it is
    appended to ``results.jsonl``); RecordError naming the file when it is missing or unreadable."""
    path = record_dir / RESULT_FILE
    try:
        return ResultRow.from_json(json.loads(path.read_bytes().decode("utf-8")))
    except FileNotFoundError:
        raise RecordError(f"{path} does not exist") from None
    except (OSError, ValueError, RecordError) as err:  # ValueError: not UTF-8 or not JSON
        raise RecordError(f"{path}: {err}") from None


def deduplicate(items: Iterable[T], row: Callable[[T], ResultRow]) -> tuple[list[T], int]:
    """One item per episode, judged by each item's result ``row``, and how many items were superseded.

    Items are kept in the order their episodes first appear.
    """
    chosen: dict[EpisodeKey, T] = {}
    seen = 0
    for item in items:
        seen += 1
        current = row(item)
        previous = chosen.get(current.key)
        if previous is None or row(previous).failed or not current.failed:
            chosen[current.key] = item
    return list(chosen.values()), seen - len(chosen)


def counted_rows(out_dir: Path) -> list[ResultRow]:
    """The row that counts for each episode of ``out_dir``."""
    return deduplicate(read_results(out_dir).rows, lambda row: row)[0]
