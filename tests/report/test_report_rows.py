"""Rows the report leaves out are named by file:line and why: a field of the wrong type, a task its suite
does not have. They are never counted, as a failure or as a family of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_records import row, write_dir

from actloop.cli import main
from actloop.report import build_report, load_records
from actloop.report.tasks import TaskInfo

CUBE = "grasp_single_cube"


def test_rows_of_the_wrong_type_or_an_unknown_task_are_left_out_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        row(CUBE, 1, 1, "success"),
        {**row(CUBE, 2, 1, "success"), "success": "true"},
        {**row(CUBE, 3, 1, "fail"), "task": "grasp_single_cub"},
        {**row(CUBE, 4, 1, "fail"), "steps": True},
    ]
    d = write_dir(tmp_path / "d", rows, records=False)
    results = d.resolve() / "results.jsonl"
    records = load_records([d])
    assert [(e.task, e.seed) for e in records.episodes] == [(CUBE, 1)]
    assert records.unreadable == [
        f"{results}:2: success is 'true', not true or false",
        f"{results}:4: steps is True, not a whole number",
        f"{results}:3: task 'grasp_single_cub' is not a task of suite vabench",
    ]
    report = build_report([d], tmp_path / "o", viewers=False)
    assert set(report.analysis.tasks) == {CUBE}  # no family of its own for the misspelt task
    assert "All (1 task) | 100.00" in report.markdown  # the string "true" is not counted as a failure
    assert main(["report", str(d), "--out", str(tmp_path / "cli"), "--no-viewers"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    for problem in records.unreadable:
        assert f"note: left out an unreadable row: {problem}" in printed


def test_a_lookup_standing_in_for_the_registry_vouches_for_its_tasks(tmp_path: Path) -> None:
    d = write_dir(tmp_path / "d", [{**row(CUBE, 1, 1, "success"), "task": "custom_task"}], records=False)
    assert load_records([d]).episodes == []
    (kept,) = load_records([d], lookup={"custom_task": TaskInfo("custom_task", 1, 50)}.get).episodes
    assert kept.task == "custom_task"
    foreign = write_dir(
        tmp_path / "f", [{**row(CUBE, 1, 1, "success"), "suite": "uninstalled"}], records=False
    )
    assert [e.suite for e in load_records([foreign]).episodes] == ["uninstalled"]  # its suite cannot judge
