"""Output directories: a directory holds one condition or one run matrix, claimed and locked as a whole.

A single condition writes to ``<out>`` itself: ``condition.json`` records the model, protocol, summary,
model arguments, endpoint, generation settings and actloop version, and a run for anything else into the
same directory is refused rather than reported with the old results. A matrix writes each condition to
``<out>/<model>__<protocol>__<summary>`` and marks ``<out>`` with ``matrix.json`` (its conditions). A
matrix into a directory holding one condition's results, a single condition into a matrix's directory, and
a matrix inside another are refused, so ``actloop report <out>`` always sees everything ``<out>`` holds.

One run at a time may write to a directory (an exclusive lock on ``.actloop.lock``). A matrix holds the
lock of its directory and of every condition directory it runs; a condition run alone in a matrix's
condition directory also holds the matrix's lock, so the two never run the same episodes at once.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from actloop.core.result import Condition
from actloop.core.text import write_text
from actloop.errors import ConfigError, OutputBusy, RecordError
from actloop.records.jsonl import RESULTS_FILE, json_text
from actloop.records.results import read_results
from actloop.sim.fingerprint import actloop_version

CONDITION_FILE = "condition.json"
MATRIX_FILE = "matrix.json"
LOCK_FILE = ".actloop.lock"


def conditions(models: list[str], protocols: list[str], summaries: list[str]) -> list[Condition]:
    return [Condition(m, p, s) for m in models for p in protocols for s in summaries]


def condition_dir(out: Path, condition: Condition, matrix: list[Condition]) -> Path:
    return out if len(matrix) == 1 else out / condition.slug


def describe(condition: Condition, settings: dict[str, Any]) -> dict[str, Any]:
    """What a condition's output directory holds: the condition, how the model is called, the version.

    ``settings`` are the model arguments, endpoint and generation settings of the run.
    """
    return {
        "model": condition.model,
        "protocol": condition.protocol,
        "summary": condition.summary,
        **{key: settings[key] for key in sorted(settings)},
        "actloop": actloop_version(),
    }


@contextmanager
def claimed(out: Path, claims: list[tuple[Path, dict[str, Any]]]) -> Iterator[None]:
    """Hold ``out`` as a whole for a run of the conditions ``claims`` (each condition's directory and
    :func:`describe`): ``out`` itself for a single condition, one directory each for a matrix.

    Takes the lock of the matrix whose directory holds ``out`` (if one does), of ``out``, and of a
    matrix's condition directories; refuses (ConfigError saying what the directory holds) a directory of
    the other kind before creating anything in it, then claims each condition's directory (:func:`claim`).
    """
    matrix = [directory for directory, _ in claims] != [out]
    with ExitStack() as locks:
        if (out.parent / MATRIX_FILE).exists():
            busy = f"another actloop run is writing to the run matrix in {out.parent}, which holds {out}"
            locks.enter_context(output_lock(out.parent, busy))
            if matrix:
                raise ConfigError(
                    f"{out} is inside the run matrix {out.parent}: a run matrix needs a directory of its "
                    "own; choose another --out"
                )
        locks.enter_context(output_lock(out))
        _refuse_the_other_kind(out, claims, matrix)
        for directory, _ in claims if matrix else []:
            locks.enter_context(output_lock(directory))
        for directory, description in claims:
            claim(directory, description)
        if matrix:
            names = sorted({*(matrix_conditions(out) or []), *(directory.name for directory, _ in claims)})
            write_text(out / MATRIX_FILE, json_text({"conditions": names}, indent=2) + "\n")
        yield


def _refuse_the_other_kind(out: Path, claims: list[tuple[Path, dict[str, Any]]], matrix: bool) -> None:
    if matrix and (held := recorded_condition(out)) is not None:
        raise ConfigError(
            f"{out} holds the results of one condition ({_label(held)}): a run matrix needs a directory of "
            "its own; choose another --out"
        )
    if not matrix and (held_conditions := matrix_conditions(out)) is not None:
        slug = Condition(*(claims[0][1][key] for key in ("model", "protocol", "summary"))).slug
        raise ConfigError(
            f"{out} holds a run matrix ({', '.join(held_conditions) or 'no condition yet'}): run this "
            f"condition into {out / slug}, or give the matrix's values to resume it"
        )


def matrix_conditions(out: Path) -> list[str] | None:
    """The condition directories of the run matrix in ``out``; None when ``out`` holds no matrix. A
    matrix made before ``matrix.json`` existed is known by its condition directories."""
    named = [p.parent.name for name in (CONDITION_FILE, RESULTS_FILE) for p in out.glob(f"*/{name}")]
    if not named and not (out / MATRIX_FILE).exists():
        return None
    return sorted(set(named))


def claim(out_dir: Path, description: dict[str, Any]) -> None:
    """Mark ``out_dir`` as holding ``description``'s condition, or refuse a directory holding another."""
    recorded = recorded_condition(out_dir)
    if recorded is not None:
        keys = set(recorded) | (set(description) if (out_dir / CONDITION_FILE).exists() else set())
        differ = sorted(k for k in keys if recorded.get(k) != description.get(k))
        if differ:
            changes = "; ".join(f"{k}: {recorded.get(k)!r} there, {description.get(k)!r} now" for k in differ)
            raise ConfigError(
                f"{out_dir} holds the results of another condition ({changes}). Use another --out, or give "
                "several values (e.g. --protocol active,passive) to run a matrix with one directory each."
            )
    write_text(out_dir / CONDITION_FILE, json_text(description, indent=2) + "\n")


def recorded_condition(out_dir: Path) -> dict[str, Any] | None:
    """The condition ``out_dir`` holds: its ``condition.json``, or for a directory made before that file
    existed the model, protocol and summary of its last result row; None when it holds neither."""
    recorded = read_description(out_dir / CONDITION_FILE, "which condition the directory holds")
    if recorded is not None:
        return recorded
    found = read_results(out_dir)
    if not found.rows:
        return None if not found.path.exists() else {}
    last = found.rows[-1]
    return {"model": last.model, "protocol": last.protocol, "summary": last.summary}


def _label(recorded: dict[str, Any]) -> str:
    if not recorded:
        return "no readable row yet"
    return Condition(*(str(recorded.get(key, "?")) for key in ("model", "protocol", "summary"))).label


def read_description(path: Path, what: str) -> dict[str, Any] | None:
    """The JSON object in ``path`` (which records ``what``), None when there is no such file; RecordError
    naming the file when it is not a readable JSON object (torn by a crash, or edited by hand)."""
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:  # ValueError: not UTF-8 or not JSON
        why = f"it is unreadable ({err})"
    else:
        if isinstance(value, dict):
            return value
        why = f"it holds {type(value).__name__}, not a JSON object"
    raise RecordError(
        f"{path} records {what}, but {why}: restore it, or delete it to have the directory judged by its "
        "result rows"
    )


@contextmanager
def output_lock(directory: Path, busy: str | None = None) -> Iterator[None]:
    """Hold ``directory``'s run lock (creating it); raises :class:`OutputBusy` (saying ``busy``, by default
    that another run is writing to it) if another run holds it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise ConfigError(f"cannot write to the output directory {directory}: {err.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            busy = busy or f"another actloop run is writing to {directory}"
            raise OutputBusy(f"{busy}; wait for it to finish or choose another --out") from None
        yield
    finally:
        os.close(fd)  # closing releases the lock
