"""The episode table: one row per episode, and any text a model sent."""

from __future__ import annotations

from pathlib import Path

import duckdb

from actloop.records.jsonl import RESULTS_FILE, append_line
from actloop.records.table import write_episode_table

ROW = {"suite": "vabench", "task": "t", "run": 1, "model": "m", "protocol": "active"}


def test_a_rerun_after_an_infra_error_is_one_row(tmp_path: Path) -> None:
    for row in (
        {**ROW, "seed": 1, "success": False, "stop_reason": "infra_error"},
        {**ROW, "seed": 1, "success": True, "stop_reason": "success"},  # the rerun
        {**ROW, "seed": 2, "success": True, "stop_reason": "success"},
    ):
        append_line(tmp_path / RESULTS_FILE, row)
    table = tmp_path / "episodes.parquet"
    assert write_episode_table([tmp_path], table) == 2
    query = f"SELECT task, avg(success::INT), count(*) FROM '{table}' GROUP BY task"  # the README's
    assert duckdb.sql(query).fetchall() == [("t", 1.0, 2)]


def test_a_lone_surrogate_becomes_a_replacement_character(tmp_path: Path) -> None:
    append_line(tmp_path / RESULTS_FILE, {**ROW, "seed": 1, "error": "bad \ud800 text, \ud83d\ude00 é"})
    table = tmp_path / "episodes.parquet"
    assert write_episode_table([tmp_path], table) == 1
    assert duckdb.sql(f"SELECT error FROM '{table}'").fetchall() == [("bad \ufffd text, 😀 é",)]
