"""Loading episode result rows from one or more output directories, deduplicated.

Each output directory holds ``results.jsonl`` (one row per finished episode). Rows of the same episode
(a re-run into the same directory, or the same episode in two directories) are resolved as everywhere
else (:mod:`actloop.records.results`), in file order, then directory order. Superseded and unreadable
rows are counted, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from actloop.records.jsonl import RESULTS_FILE, read_json_lines
from actloop.records.results import FAILURES, NO_SUMMARY, deduplicate, episode_key, stop_reason

Status = Literal["completed", "infra_error", "error"]


@dataclass(frozen=True, order=True)
class Condition:
    """One evaluated setting: a model under an observation protocol and a demonstration-summary source."""

    model: str
    protocol: str
    summary: str = NO_SUMMARY

    @property
    def label(self) -> str:
        extra = "" if self.summary == NO_SUMMARY else f", summary {self.summary}"
        return f"{self.model} ({self.protocol}{extra})"


EpisodeKey = tuple[str, str, int, int, Condition]
"""(suite, task, seed, run, condition): what identifies an episode."""


@dataclass(frozen=True)
class Episode:
    """One episode's result row, with its record directory resolved against its output directory."""

    suite: str
    task: str
    seed: int
    run: int
    condition: Condition
    success: bool
    paper_success: bool | None
    """The seed's literal predicate held at some step (None: a row recorded before it was kept)."""
    steps: int | None
    budget: int | None
    stop_reason: str
    checkpoints: dict[str, bool]
    failed_conditions: tuple[str, ...]
    record_dir: Path | None
    duration_s: float | None
    error: str | None
    source: Path

    @property
    def key(self) -> EpisodeKey:
        return (self.suite, self.task, self.seed, self.run, self.condition)

    @property
    def status(self) -> Status:
        """``infra_error`` (the model provider failed), ``error`` (the harness failed) or ``completed``."""
        if self.stop_reason in FAILURES:
            return self.stop_reason  # type: ignore[return-value]
        return "completed"


@dataclass
class Records:
    """The deduplicated episodes of some output directories and what loading them left out."""

    episodes: list[Episode]
    sources: list[Path]
    superseded: int = 0
    """Rows replaced by another row of the same episode."""
    unreadable: list[str] = field(default_factory=list)
    """``file:line: problem`` for every row that could not be read."""


def load_records(directories: list[Path]) -> Records:
    """Read ``results.jsonl`` of every directory; raises FileNotFoundError when one has none."""
    rows: list[tuple[dict[str, Any], Episode]] = []
    unreadable: list[str] = []
    sources = []
    for directory in directories:
        path = Path(directory) / RESULTS_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path} does not exist: not an actloop output directory")
        sources.append(path.parent.resolve())
        values, problems = read_json_lines(path)
        unreadable += problems
        for number, value in values:
            try:
                rows.append((value, parse_row(value, path.parent.resolve())))
            except (ValueError, KeyError, TypeError) as err:
                unreadable.append(f"{path}:{number}: {err}")
    chosen, superseded = deduplicate(rows, lambda pair: pair[0])
    return Records([episode for _, episode in chosen], sources, superseded, unreadable)


def parse_row(row: dict[str, Any], source: Path) -> Episode:
    """One ``results.jsonl`` row as an :class:`Episode`; raises KeyError/ValueError/TypeError if malformed."""
    if not isinstance(row, dict):
        raise TypeError("the row is not a JSON object")
    record = row.get("record_dir")
    checkpoints = row.get("checkpoints") or {}
    if not isinstance(checkpoints, dict):
        raise TypeError("checkpoints is not an object")
    suite, task, seed, run, model, protocol, summary = episode_key(row)
    return Episode(
        suite=suite,
        task=task,
        seed=seed,
        run=run,
        condition=Condition(model, protocol, summary),
        success=row.get("success") is True,
        paper_success=row["paper_success"] is True if "paper_success" in row else None,
        steps=_int_or_none(row.get("steps")),
        budget=_int_or_none(row.get("budget")),
        stop_reason=stop_reason(row),
        checkpoints={str(k): v is True for k, v in checkpoints.items()},
        failed_conditions=tuple(str(c) for c in row.get("failed_conditions") or ()),
        record_dir=(source / record).resolve() if isinstance(record, str) and record else None,
        duration_s=float(row["duration_s"]) if isinstance(row.get("duration_s"), int | float) else None,
        error=None if row.get("error") is None else str(row["error"]),
        source=source,
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
