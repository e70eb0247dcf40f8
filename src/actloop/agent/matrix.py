"""Run matrices: several models × protocols × summary conditions over the same episodes, resumable.

Each condition writes to its own directory (``<out>/<model>__<protocol>__<summary>`` when the matrix has
more than one condition, ``<out>`` itself otherwise). ``results.jsonl`` is the source of truth: rerunning
the same command runs only the episodes without a row, so a killed run loses nothing and duplicates
nothing. An episode cut off mid-way has no row and is rerun from scratch (its record directory is
replaced). Episodes that ended in ``infra_error`` or ``error`` are rerun only on request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from actloop.agent.summaries import model_slug
from actloop.records.jsonl import RESULTS_FILE, read_lines

Episode = tuple[str, int, int]
RETRYABLE = frozenset({"infra_error", "error"})


@dataclass(frozen=True)
class Condition:
    """One cell of the matrix: who is evaluated, and under which protocol and summary condition."""

    model: str
    protocol: str
    summary: str

    @property
    def slug(self) -> str:
        return f"{model_slug(self.model)}__{self.protocol}__{model_slug(self.summary)}"


def conditions(models: list[str], protocols: list[str], summaries: list[str]) -> list[Condition]:
    return [Condition(m, p, s) for m in models for p in protocols for s in summaries]


def condition_dir(out: Path, condition: Condition, matrix: list[Condition]) -> Path:
    return out if len(matrix) == 1 else out / condition.slug


def pending(episodes: list[Episode], out_dir: Path, retry_errors: bool) -> list[Episode]:
    """The episodes of ``episodes`` that ``out_dir`` has no result row for (or only an error row)."""
    done = set()
    for row in read_lines(out_dir / RESULTS_FILE):
        if retry_errors and row.get("stop_reason") in RETRYABLE:
            continue
        done.add((row.get("task"), row.get("seed"), row.get("run")))
    return [e for e in episodes if e not in done]


@dataclass
class Tally:
    done: int = 0
    successes: int = 0
    errors: int = 0


def tally(out_dirs: list[Path], episodes: set[Episode]) -> Tally:
    """Counts over the matrix's result rows for ``episodes`` (the latest row of each episode wins)."""
    result = Tally()
    for out_dir in out_dirs:
        latest: dict[Episode, dict[str, Any]] = {}
        for row in read_lines(out_dir / RESULTS_FILE):
            key = (row.get("task"), row.get("seed"), row.get("run"))
            if key in episodes:
                latest[key] = row  # type: ignore[index]
        result.done += len(latest)
        result.successes += sum(bool(r.get("success")) for r in latest.values())
        result.errors += sum(r.get("stop_reason") in RETRYABLE for r in latest.values())
    return result


@contextmanager
def progress(
    console: Console, out_dirs: list[Path], episodes: set[Episode], every_s: float = 5.0
) -> Iterator[None]:
    """Print done/total, successes, errors, elapsed time and ETA while the block runs."""
    total = len(out_dirs) * len(episodes)
    start_done = tally(out_dirs, episodes).done
    started = time.monotonic()
    stop = threading.Event()

    def report() -> None:
        t = tally(out_dirs, episodes)
        elapsed = time.monotonic() - started
        new = t.done - start_done
        eta = f"{(total - t.done) * elapsed / new:.0f}s" if new else "-"
        console.print(
            f"progress: {t.done}/{total} episodes, {t.successes} successes, {t.errors} errors, "
            f"elapsed {elapsed:.0f}s, ETA {eta}"
        )

    def loop() -> None:
        while not stop.wait(every_s):
            report()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        report()
