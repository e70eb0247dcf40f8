"""Loading episode result rows from one or more output directories, deduplicated.

Each output directory holds ``results.jsonl`` (one row per finished episode). Rows of the same episode
(a re-run into the same directory, or the same episode in two directories) are resolved as everywhere
else (:mod:`actloop.records.results`), in file order, then directory order. Superseded rows are
counted; rows left out (unreadable, not a valid row, or naming a task its suite does not have) are
named by ``file:line`` and why, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from actloop.core.result import FAILURES, Condition, ResultRow
from actloop.core.suite import suites
from actloop.errors import RecordError, UnknownTask
from actloop.records.jsonl import RESULTS_FILE
from actloop.records.paths import inside
from actloop.records.results import deduplicate, read_results
from actloop.report.tasks import TaskLookup

Status = Literal["completed", "infra_error", "error"]


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
    steps: int | None
    budget: int | None
    stop_reason: str
    checkpoints: dict[str, bool]
    record_dir: Path | None
    duration_s: float | None
    error: str | None
    source: Path
    scores: dict[str, Any] = field(default_factory=dict)
    """The suite's own fields of the row (vabench: the paper-literal verdict, failed conditions)."""

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
    """``file:line: problem`` for every row left out: unreadable, not a valid row (a field of the wrong
    type), or naming a task its suite does not have."""
    notes: list[str] = field(default_factory=list)
    """``file:line: problem`` for every row whose record was left out (its ``record_dir`` leads outside
    its output directory)."""


def load_records(directories: list[Path], lookup: TaskLookup | None = None) -> Records:
    """Read ``results.jsonl`` of every directory; raises RecordError when one has none.

    A row whose suite is installed but has no task of the row's name is left out rather than counted as
    a family of its own (``lookup``, standing in for the registry in tests, may vouch for a task).
    """
    rows: list[tuple[ResultRow, Episode]] = []
    unreadable: list[str] = []
    notes: list[str] = []
    sources = []
    for directory in directories:
        path = Path(directory) / RESULTS_FILE
        if not path.is_file():
            raise RecordError(f"{path} does not exist: not an actloop output directory")
        source = path.parent.resolve()
        sources.append(source)
        found = read_results(source)
        unreadable += found.problems
        for number, row in zip(found.lines, found.rows, strict=True):
            if (unknown := _unknown_task(row, lookup)) is not None:
                unreadable.append(f"{path}:{number}: {unknown}")
                continue
            try:
                rows.append((row, episode(row, source)))
            except RecordError as err:
                notes.append(f"{path}:{number}: its record is left out: record_dir {err}")
                rows.append((row, episode(replace(row, record_dir=None), source)))
    chosen, superseded = deduplicate(rows, lambda pair: pair[0])
    return Records([ep for _, ep in chosen], sources, superseded, unreadable, notes)


def _unknown_task(row: ResultRow, lookup: TaskLookup | None) -> str | None:
    """Why ``row``'s task is not a task of its suite; None when it is, or when the suite is not installed
    (the report notes that suite's missing tables)."""
    suite = suites().get(row.suite)
    if suite is None or (lookup is not None and lookup(row.task) is not None):
        return None
    try:
        suite.task_info(row.task)
    except UnknownTask:
        return f"task {row.task!r} is not a task of suite {row.suite}"
    return None


def episode(row: ResultRow, source: Path) -> Episode:
    """One result row as an :class:`Episode` of the output directory ``source``; a RecordError when its
    ``record_dir`` leads outside ``source`` (see :func:`actloop.records.paths.inside`)."""
    scores = row.scores
    checkpoints = scores.get("checkpoints")
    return Episode(
        suite=row.suite,
        task=row.task,
        seed=row.seed,
        run=row.run,
        condition=Condition(row.model, row.protocol, row.summary),
        success=row.success,
        steps=row.steps,
        budget=row.budget,
        stop_reason=row.stop_reason,
        checkpoints={str(k): v is True for k, v in checkpoints.items()}
        if isinstance(checkpoints, dict)
        else {},
        record_dir=inside(source, row.record_dir) if row.record_dir else None,
        duration_s=row.duration_s,
        error=row.error,
        source=source,
        scores=scores,
    )
