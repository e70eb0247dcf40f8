"""Run matrices: resume after SIGKILL without loss or duplication, torn result lines, conditions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from actloop.core.result import Condition
from actloop.records.jsonl import RESULTS_FILE, append_line, read_lines
from actloop.records.table import EPISODES_TABLE, write_episode_table
from actloop.runs.layout import CONDITION_FILE, claim, condition_dir, conditions
from actloop.runs.matrix import discard_cut_off_records, pending

SEEDS = 4


def _cli(out: Path) -> list[str]:
    """The run, one episode at a time, so it can be killed with some episodes recorded and one cut off."""
    return [
        sys.executable, "-m", "actloop.cli", "run", "--tasks", "grasp_single_cube", "--seeds", str(SEEDS),
        "--model", "actloop/baseline", "--workers", "1", "--max-episodes-in-flight", "1", "--out", str(out),
    ]  # fmt: skip


def test_a_killed_run_resumes_with_every_episode_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        _cli(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while len(read_lines(out / RESULTS_FILE)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the run and its environment workers, mid-episode
    process.wait()
    before = read_lines(out / RESULTS_FILE)
    assert 2 <= len(before) < SEEDS

    resumed = subprocess.run(_cli(out), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(before)} episode(s) already recorded" in resumed.stdout
    rows = read_lines(out / RESULTS_FILE)
    keys = [(r["task"], r["seed"], r["run"]) for r in rows]
    assert len(keys) == len(set(keys)) == SEEDS  # none lost, none duplicated
    assert rows[: len(before)] == before  # finished episodes were kept as they were
    records = sorted(path.name for path in (out / "episodes").iterdir())
    assert records == sorted(Path(row["record_dir"]).name for row in rows)  # the cut-off record was replaced
    for row in rows:
        events = (out / row["record_dir"] / "events.jsonl").read_text().splitlines()
        types = [json.loads(line)["type"] for line in events]
        assert (
            types[0] == "episode_start" and types.count("episode_start") == 1 and types[-1] == "episode_end"
        )


def test_a_torn_last_line_is_skipped_and_not_glued_to_the_next(tmp_path: Path) -> None:
    path = tmp_path / RESULTS_FILE
    append_line(path, {"task": "a", "seed": 1, "run": 1})
    with path.open("a") as f:
        f.write('{"task": "b", "se')  # a writer killed mid-line
    assert read_lines(path) == [{"task": "a", "seed": 1, "run": 1}]
    append_line(path, {"task": "c", "seed": 3, "run": 1})
    assert read_lines(path) == [{"task": "a", "seed": 1, "run": 1}, {"task": "c", "seed": 3, "run": 1}]


def test_pending_skips_recorded_episodes_and_optionally_retries_errors(tmp_path: Path) -> None:
    append_line(
        tmp_path / RESULTS_FILE, {"task": "t", "seed": 1, "run": 1, "model": "m", "stop_reason": "success"}
    )
    append_line(
        tmp_path / RESULTS_FILE,
        {"task": "t", "seed": 2, "run": 1, "model": "m", "stop_reason": "infra_error"},
    )
    episodes = [("t", 1, 1), ("t", 2, 1), ("t", 3, 1)]
    assert pending(episodes, tmp_path, retry_errors=False) == [("t", 3, 1)]
    assert pending(episodes, tmp_path, retry_errors=True) == [("t", 2, 1), ("t", 3, 1)]


def test_each_condition_of_a_matrix_gets_its_own_directory(tmp_path: Path) -> None:
    matrix = conditions(["openai/gpt-4o", "actloop/baseline"], ["active", "passive"], ["none"])
    assert len(matrix) == 4 and Condition("openai/gpt-4o", "passive", "none") in matrix
    dirs = {condition_dir(tmp_path, c, matrix) for c in matrix}
    assert len(dirs) == 4 and tmp_path / "openai__gpt-4o__passive__none" in dirs
    single = [Condition("m", "active", "none")]
    assert condition_dir(tmp_path, single[0], single) == tmp_path


def test_the_condition_file_is_replaced_at_once_never_written_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, ...]] = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(("fsync",)) or fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append(("replace", a, b)) or replace(a, b))
    description = {"model": "m", "protocol": "active", "summary": "none"}
    claim(tmp_path, description)
    path = tmp_path / CONDITION_FILE
    assert json.loads(path.read_text()) == description
    assert [call[0] for call in calls] == ["fsync", "replace"]  # on disk before it replaces the old
    _, temporary, target = calls[1]
    assert Path(temporary).parent == tmp_path and Path(target) == path and not Path(temporary).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [CONDITION_FILE]


def test_the_episode_table_holds_every_row_of_every_condition(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for i, out in enumerate((first, second)):
        out.mkdir()
        for seed in (1, 2):
            row = {"task": "t", "seed": seed, "run": 1, "model": f"m{i}", "success": seed == 1}
            row |= {"tokens": {"input_tokens": 10, "output_tokens": 2}, "checkpoints": {"grasped": True}}
            append_line(out / RESULTS_FILE, row)
    with (second / RESULTS_FILE).open("a") as f:
        f.write('{"task": "t", "se')  # torn by a kill
    table = tmp_path / EPISODES_TABLE
    assert write_episode_table([first, second], table) == 4
    rows = duckdb.sql(
        f"SELECT model, count(*), sum(success::INT), sum(tokens.input_tokens), any_value(source_dir) "
        f"FROM read_parquet('{table}') GROUP BY model ORDER BY model"
    ).fetchall()
    assert rows == [("m0", 2, 1, 20, str(first)), ("m1", 2, 1, 20, str(second))]


def test_cut_off_records_are_discarded_before_their_episodes_rerun(tmp_path: Path) -> None:
    episodes = tmp_path / "episodes"
    names = [
        "grasp_single_cube__seed1000__run1",  # cut off: no row
        "grasp_single_cube__seed1000__run1-2",  # cut off again on a later rerun
        "grasp_single_cube__seed1001__run1",  # finished: its row refers to it
        "grasp_single_cube__seed1000__run10",  # another episode that merely shares the prefix
        "grasp_single_cube__seed1000__run10-2",
        "grasp_single_cube__seed1000__run1-3",  # finished, though no row refers to it: never deleted
    ]
    for name in names:
        (episodes / name).mkdir(parents=True)
        (episodes / name / "events.jsonl").write_text("{}\n")
    finished = {
        "task": "grasp_single_cube",
        "seed": 1001,
        "run": 1,
        "model": "m",
        "record_dir": f"episodes/{names[2]}",
    }
    append_line(tmp_path / RESULTS_FILE, finished)
    (episodes / names[5] / "result.json").write_text("{}\n")
    deleted = discard_cut_off_records(
        tmp_path, [("grasp_single_cube", 1000, 1), ("grasp_single_cube", 1001, 1)]
    )
    assert sorted(p.name for p in deleted) == names[:2]
    assert sorted(p.name for p in episodes.iterdir()) == sorted(names[2:])
