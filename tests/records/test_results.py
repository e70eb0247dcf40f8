"""Result rows: the one schema (written and read in one place) and the one de-duplication policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from actloop.core.result import SCHEMA_VERSION, ResultRow
from actloop.errors import RecordError
from actloop.records.jsonl import RESULTS_FILE, append_line
from actloop.records.results import counted_rows, deduplicate, read_results, write_result

BASE = {"task": "t", "seed": 1, "run": 1, "model": "m"}


def rows_chosen(*stops: str | None, **extra: Any) -> tuple[list[int], int]:
    rows = [
        ResultRow.from_json({**BASE, **extra, "stop_reason": stop, "n": n}) for n, stop in enumerate(stops)
    ]
    chosen, superseded = deduplicate(rows, lambda row: row)
    return [row.scores["n"] for row in chosen], superseded


def test_a_row_round_trips_flat_with_its_schema_version() -> None:
    row = ResultRow("vabench", "t", 1, 2, "m", "passive", success=True, steps=7, scores={"repairs": 1})
    data = row.to_json()
    assert data["schema"] == SCHEMA_VERSION and data["repairs"] == 1 and "scores" not in data
    assert ResultRow.from_json(data) == row


def test_old_rows_read_with_defaults() -> None:
    row = ResultRow.from_json({**BASE, "summary": None, "paper_success": True})
    assert row.key == ("vabench", "t", 1, 1, "m", "active", "none")
    assert row.schema == 1 and row.stop_reason == "error" and row.scores == {"paper_success": True}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"task": "t"}, "no seed"),
        ({**BASE, "seed": "x"}, "seed is 'x', not a whole number"),
        ({**BASE, "run": None}, "no run"),
        ({**BASE, "seed": True}, "seed is True"),
        ({**BASE, "model": 3}, "model is 3, not a string"),
        ({**BASE, "schema": SCHEMA_VERSION + 1}, "newer than this actloop reads"),
        ({**BASE, "schema": "2"}, "schema is '2', not a whole number"),
        ({**BASE, "schema": True}, "schema is True, not a whole number"),
        ([1, 2], "not a JSON object"),
        ({**BASE, "suite": 1}, "suite is 1, not a string"),
        ({**BASE, "task": ""}, "no task"),
        ({**BASE, "protocol": ["active"]}, r"protocol is \['active'\], not a string"),
        ({**BASE, "summary": 0.5}, "summary is 0.5, not a string"),
        ({**BASE, "success": "true"}, "success is 'true', not true or false"),
        ({**BASE, "success": 1}, "success is 1, not true or false"),
        ({**BASE, "steps": True}, "steps is True, not a whole number"),
        ({**BASE, "steps": 2.0}, "steps is 2.0, not a whole number"),
        ({**BASE, "budget": "50"}, "budget is '50', not a whole number"),
        ({**BASE, "stop_reason": "sucess"}, "stop_reason is 'sucess', not one of success, budget"),
        ({**BASE, "stop_reason": False}, "stop_reason is False, not a string"),
        ({**BASE, "record_dir": 3}, "record_dir is 3, not a string"),
        ({**BASE, "model_calls": False}, "model_calls is False, not a whole number"),
        ({**BASE, "tokens": [1]}, r"tokens is \[1\], not an object"),
        ({**BASE, "duration_s": "1.5"}, "duration_s is '1.5', not a number"),
        ({**BASE, "duration_s": True}, "duration_s is True, not a number"),
        ({**BASE, "error": 5}, "error is 5, not a string"),
        ({**BASE, "error_kind": False}, "error_kind is False, not a string"),
    ],
)
def test_malformed_rows_say_which_field_is_wrong(data: Any, problem: str) -> None:
    with pytest.raises(RecordError, match=problem):
        ResultRow.from_json(data)


def test_fields_of_the_right_type_read_as_written() -> None:
    data = {**BASE, "success": True, "steps": 3, "budget": None, "duration_s": 2, "tokens": None}
    row = ResultRow.from_json({**data, "error": None, "stop_reason": "success", "model_calls": 4})
    assert (row.success, row.steps, row.budget, row.duration_s, row.tokens) == (True, 3, None, 2.0, {})
    assert (row.error, row.stop_reason, row.model_calls) == (None, "success", 4)


def test_suite_fields_may_not_shadow_shared_ones() -> None:
    with pytest.raises(ValueError, match="overwrite shared fields"):
        ResultRow("vabench", "t", 1, 1, "m", "active", scores={"success": True}).to_json()


@pytest.mark.parametrize(
    ("stops", "kept"),
    [
        (("success", "infra_error"), 0),  # a completed row is not replaced by a later failure
        (("infra_error", "budget"), 1),  # a completed retry replaces the failure
        ((None, "stop"), 1),  # a row without a stop reason is a harness error
        (("budget", "success"), 1),  # otherwise the later row wins
        (("error", "infra_error"), 1),
    ],
)
def test_one_row_per_episode(stops: tuple[str | None, ...], kept: int) -> None:
    assert rows_chosen(*stops) == ([kept], 1)


def test_episodes_keep_their_first_position() -> None:
    rows = [ResultRow.from_json(r) for r in (BASE, {**BASE, "seed": 2}, {**BASE, "summary": "own"}, BASE)]
    chosen, superseded = deduplicate(rows, lambda row: row)
    assert [(r.seed, r.summary) for r in chosen] == [(1, "none"), (2, "none"), (1, "own")]
    assert superseded == 1


def test_unreadable_lines_are_reported_with_their_line_numbers(tmp_path: Path) -> None:
    write_result(tmp_path, ResultRow.from_json(BASE))
    append_line(tmp_path / RESULTS_FILE, {"task": "x"})
    with (tmp_path / RESULTS_FILE).open("ab") as f:
        f.write(b'{"task": "\xff"}\n')
    write_result(tmp_path, ResultRow.from_json({**BASE, "stop_reason": "success"}))
    found = read_results(tmp_path)
    assert [r.stop_reason for r in found.rows] == ["error", "success"]
    assert sorted(p.split(": ")[0].rsplit(":", 1)[1] for p in found.problems) == ["2", "3"]
    assert any("no seed" in p for p in found.problems)
    assert [r.stop_reason for r in counted_rows(tmp_path)] == ["success"]
