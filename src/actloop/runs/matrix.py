"""Run matrices: several models × protocols × summary conditions over the same episodes, resumable.

Each condition writes to its own directory (``<out>/<model>__<protocol>__<summary>`` when the matrix has
more than one condition, ``<out>`` itself otherwise). ``results.jsonl`` is the source of truth: rerunning
the same command runs only the episodes without a row, so a killed run loses nothing and duplicates
nothing. An episode cut off mid-way has no row and no ``result.json`` and is rerun from scratch (its
record directory is replaced). A record that holds a ``result.json`` is never deleted: an episode whose
row is missing or unreadable gets its row back from it (appended to ``results.jsonl``; the unreadable
line stays as it is and is named), and when that file cannot be read either the episode runs again into a
fresh directory beside it. Episodes that ended in ``infra_error`` or ``error`` are rerun only on request.

Which directory holds which condition, and the run locks, are :mod:`actloop.runs.layout`'s.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from actloop.agent.solver import EPISODES_DIR
from actloop.core.result import ResultRow
from actloop.errors import RecordError
from actloop.records.recorder import RESULT_FILE
from actloop.records.results import (
    counted_rows,
    read_results,
    recorded_row,
    unreadable_note,
    write_result,
)
from actloop.runs.retries import RetryWatch

Episode = tuple[str, int, int]
Log = Callable[[str], None]
_RECORD_NAME = re.compile(r"(?P<task>.+)__seed(?P<seed>-?\d+)__run(?P<run>\d+)(?:-(?P<n>\d+))?")
"""A record directory's name (:attr:`~actloop.agent.solver.EpisodeSpec.name`, made fresh with ``-N``)."""


def resume(out_dir: Path, episodes: list[Episode], retry_errors: bool, log: Log) -> list[Episode]:
    """The episodes of ``episodes`` to run in ``out_dir`` now. First every unreadable row is named
    (``file:line: problem``), finished episodes whose row is missing or unreadable get it back from their
    record (:func:`recover_rows`), and the records of episodes cut off mid-way are deleted."""
    for problem in read_results(out_dir).problems:
        log(f"note: {unreadable_note(problem)}")
    recover_rows(out_dir, episodes, log)
    todo = pending(episodes, out_dir, retry_errors)
    discard_cut_off_records(out_dir, todo)
    return todo


def recover_rows(out_dir: Path, episodes: list[Episode], log: Log) -> list[Path]:
    """Append the row of every record of ``episodes`` that holds a readable ``result.json`` but that no
    readable row refers to (its row was torn, unreadable, or never appended); returns those records.

    A record whose ``result.json`` cannot be read is kept as it is and logged; its episode runs again.
    """
    referenced = _referenced(out_dir)
    records = episode_records(out_dir)
    recovered = []
    for episode in episodes:
        for record in records.get(episode, []):
            if record.resolve() in referenced or not (record / RESULT_FILE).exists():
                continue
            try:
                row = recorded_row(record)
            except RecordError as err:
                log(f"note: kept {record} as it is, its episode runs again: {err}")
                continue
            if row.episode != episode:
                log(f"note: kept {record} as it is: its {RESULT_FILE} holds episode {row.episode}")
                continue
            write_result(out_dir, replace(row, record_dir=str(record.relative_to(out_dir))))
            log(f"note: recovered the row of {record.name} from its {RESULT_FILE}")
            recovered.append(record)
    return recovered


def pending(episodes: list[Episode], out_dir: Path, retry_errors: bool) -> list[Episode]:
    """The episodes of ``episodes`` that ``out_dir`` has no result row for (or only an error row).

    Rows of configuration failures (a wrong key or model name) never count as done.
    """
    done = set()
    for row in read_results(out_dir).rows:
        if row.error_kind == "configuration" or (retry_errors and row.failed):
            continue
        done.add(row.episode)
    return [e for e in episodes if e not in done]


@dataclass
class Tally:
    done: int = 0
    successes: int = 0
    errors: int = 0


def episode_records(out_dir: Path) -> dict[Episode, list[Path]]:
    """The record directories in ``out_dir`` by episode, each episode's in the order they were made
    (``<task>__seed<seed>__run<run>``, then ``-2``, ``-3``, ...)."""
    found: dict[Episode, list[tuple[int, Path]]] = {}
    directory = out_dir / EPISODES_DIR
    for record in directory.iterdir() if directory.is_dir() else []:
        name = _RECORD_NAME.fullmatch(record.name)
        if name and record.is_dir():
            episode = (name["task"], int(name["seed"]), int(name["run"]))
            found.setdefault(episode, []).append((int(name["n"] or 1), record))
    return {episode: [record for _, record in sorted(made)] for episode, made in found.items()}


def discard_cut_off_records(out_dir: Path, episodes: list[Episode]) -> list[Path]:
    """Delete the record directories of ``episodes`` that no result row refers to and that hold no
    ``result.json``: episodes cut off mid-way by a killed run, about to be rerun from scratch. A record
    with a ``result.json`` is never deleted. Returns what was deleted."""
    referenced = _referenced(out_dir)
    records = episode_records(out_dir)
    deleted = []
    for episode in episodes:
        for record in records.get(episode, []):
            if record.resolve() not in referenced and not (record / RESULT_FILE).exists():
                shutil.rmtree(record)
                deleted.append(record)
    return deleted


def _referenced(out_dir: Path) -> set[Path]:
    """The record directories the readable rows of ``out_dir`` refer to."""
    return {(out_dir / row.record_dir).resolve() for row in read_results(out_dir).rows if row.record_dir}


def episode_rows(out_dir: Path, episodes: set[Episode]) -> list[ResultRow]:
    """The result row that counts for each of ``episodes`` in ``out_dir`` (``records.results`` policy)."""
    return [row for row in counted_rows(out_dir) if row.episode in episodes]


def tally(out_dirs: list[Path], episodes: set[Episode]) -> Tally:
    """Counts over the matrix's result rows for ``episodes`` (one row per episode, as the report counts)."""
    result = Tally()
    for out_dir in out_dirs:
        rows = episode_rows(out_dir, episodes)
        result.done += len(rows)
        result.successes += sum(r.success for r in rows)
        result.errors += sum(r.failed for r in rows)
    return result


@contextmanager
def progress(
    log: Callable[[str], None],
    out_dirs: list[Path],
    episodes: set[Episode],
    every_s: float = 5.0,
    retries: RetryWatch | None = None,
) -> Iterator[None]:
    """Log done/total, successes, errors, elapsed time and ETA while the block runs, and the provider
    retries ``retries`` saw since the last line."""
    total = len(out_dirs) * len(episodes)
    start_done = tally(out_dirs, episodes).done
    started = time.monotonic()
    stop = threading.Event()

    def report() -> None:
        t = tally(out_dirs, episodes)
        elapsed = time.monotonic() - started
        new = t.done - start_done
        eta = f"{(total - t.done) * elapsed / new:.0f}s" if new else "-"
        log(
            f"progress: {t.done}/{total} episodes, {t.successes} successes, {t.errors} errors, "
            f"elapsed {elapsed:.0f}s, ETA {eta}"
        )
        news = retries.news() if retries else None
        if news:
            log(news)

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
