"""The run API: ``actloop.evaluate(RunPlan)`` runs a plan, returns typed rows, and resumes."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest

import actloop
from actloop.core.frames import Frame
from actloop.core.result import ResultRow
from actloop.errors import ConfigError, OutputBusy, UnknownSuite, UnknownTask
from actloop.records.results import read_results
from actloop.runs.layout import output_lock
from fake_providers import serve

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20, "reason": "down"}
CLOSE = {"action": "gripper.close", "reason": "grasp"}
STOP = '{"stop": true, "reason": "done"}'


def replay_plan(
    out: Path, seeds: object, decisions: Path | None = None, **options: object
) -> actloop.RunPlan:
    decisions = decisions or out.parent / "decisions.json"
    decisions.write_text(json.dumps([MOVE, CLOSE]))
    settings: dict[str, object] = {"suite": "fake", "tasks": "all", "isolation": "inline", **options}
    return actloop.RunPlan(
        models=["actloop/replay"],
        out=out,
        seeds=seeds,  # type: ignore[arg-type]
        model_args={"decisions": str(decisions)},
        **settings,  # type: ignore[arg-type]
    )


def test_evaluate_returns_typed_rows_and_resumes_without_rerunning(tmp_path: Path) -> None:
    lines: list[str] = []
    first = actloop.evaluate(replay_plan(tmp_path / "out", 2), log=lines.append)
    assert [type(r) for r in first.rows] == [ResultRow, ResultRow] and first.stopped is None
    assert [(r.task, r.seed, r.success, r.steps) for r in first.rows] == [
        ("pick_cube", 0, True, 2),
        ("pick_cube", 1, True, 2),
    ]
    more = actloop.evaluate(replay_plan(tmp_path / "out", 3), log=lines.append)
    assert len(read_results(tmp_path / "out").rows) == 3  # only the new seed ran
    assert more.rows[:2] == first.rows and more.rows[2].seed == 2
    assert any("2 episode(s) already recorded" in line for line in lines)


def damage(path: Path, how: str) -> None:
    """Spoil the first line of ``path``: a byte that is not UTF-8, a line that is not JSON, or empty it."""
    lines = path.read_bytes().split(b"\n")
    if how == "byte":
        lines[0] = lines[0].replace(b'"model"', b'"mod\xffel"')
    elif how == "json":
        lines[0] = lines[0][:-1]
    path.write_bytes(b"\n".join(lines) if how != "empty" else b"")


@pytest.mark.parametrize("how", ["byte", "json", "empty"])
def test_a_resume_gives_finished_episodes_their_unreadable_rows_back_from_their_records(
    tmp_path: Path, how: str
) -> None:
    out = tmp_path / "out"
    first = actloop.evaluate(replay_plan(out, 2))
    records = sorted((out / "episodes").iterdir())
    for record in records:
        (record / "kept").write_text("")
    damage(out / "results.jsonl", how)
    lines: list[str] = []
    again = actloop.evaluate(replay_plan(out, 2), log=lines.append)
    assert sorted(again.rows, key=lambda r: r.seed) == first.rows  # nothing ran again: rows came back
    assert sorted((out / "episodes").iterdir()) == records and all((r / "kept").exists() for r in records)
    assert any("2 episode(s) already recorded" in line for line in lines)
    results = out / "results.jsonl"
    unreadable = [line for line in lines if line.startswith("note: left out an unreadable row: ")]
    assert [line.split(": ")[2] for line in unreadable] == ([] if how == "empty" else [f"{results}:1"])
    recovered = {f"note: recovered the row of {r.name} from its result.json" for r in records}
    assert len(recovered & set(lines)) == (2 if how == "empty" else 1)
    assert len(read_results(out).rows) == 2
    assert len(results.read_bytes().splitlines()) == (2 if how == "empty" else 3)  # the spoilt line stays


def test_a_record_whose_result_cannot_be_read_is_kept_and_its_episode_runs_again(tmp_path: Path) -> None:
    out = tmp_path / "out"
    actloop.evaluate(replay_plan(out, 1))
    (record,) = (out / "episodes").iterdir()
    (record / "result.json").write_text('{"task": "pick_cu')  # torn
    damage(out / "results.jsonl", "empty")
    lines: list[str] = []
    (row,) = actloop.evaluate(replay_plan(out, 1), log=lines.append).rows
    assert row.record_dir == f"episodes/{record.name}-2" and row.success  # ran again beside the old record
    assert (record / "events.jsonl").is_file() and (record / "result.json").read_text() == '{"task": "pick_cu'
    assert any(line.startswith(f"note: kept {record} as it is, its episode runs again: ") for line in lines)


ACTIVE, PASSIVE = "actloop__replay__active__none", "actloop__replay__passive__none"
MATRIX = {"protocols": ["active", "passive"]}


def test_a_directory_holds_one_condition_or_one_matrix(tmp_path: Path) -> None:
    single, matrix = tmp_path / "single", tmp_path / "matrix"
    actloop.evaluate(replay_plan(single, 1))
    held = r"single holds the results of one condition \(actloop/replay \(active\)\): a run matrix needs"
    with pytest.raises(ConfigError, match=held):
        actloop.evaluate(replay_plan(single, 1, **MATRIX))
    actloop.evaluate(replay_plan(matrix, 1, **MATRIX))
    with pytest.raises(ConfigError, match=f"matrix holds a run matrix \\({ACTIVE}, {PASSIVE}\\): run this"):
        actloop.evaluate(replay_plan(matrix, 1))
    with pytest.raises(ConfigError, match=r"new is inside the run matrix .*matrix: a run matrix needs"):
        actloop.evaluate(replay_plan(matrix / "new", 1, **MATRIX))
    lines: list[str] = []
    alone = replay_plan(matrix / ACTIVE, 1, decisions=tmp_path / "decisions.json")  # one of its conditions
    actloop.evaluate(alone, log=lines.append)
    assert any("1 episode(s) already recorded" in line for line in lines)
    assert "passive" not in (single / "results.jsonl").read_text()  # nothing was written on refusal
    assert sorted(p.name for p in matrix.iterdir() if p.is_dir()) == [ACTIVE, PASSIVE]


def test_a_matrix_is_locked_as_a_whole(tmp_path: Path) -> None:
    out, fresh = tmp_path / "matrix", tmp_path / "fresh"
    actloop.evaluate(replay_plan(out, 1, **MATRIX))
    busy = "another actloop run is writing to"
    with ExitStack() as running:  # the matrix is running: none of its conditions runs alone
        for directory in (out, out / ACTIVE, out / PASSIVE):
            running.enter_context(output_lock(directory))
        with pytest.raises(OutputBusy, match=f"{busy} the run matrix in {out}, which holds {out / ACTIVE}"):
            actloop.evaluate(replay_plan(out / ACTIVE, 2, decisions=tmp_path / "decisions.json"))
    with output_lock(out / PASSIVE), pytest.raises(OutputBusy, match=f"{busy} {out / PASSIVE};"):
        actloop.evaluate(replay_plan(out, 2, **MATRIX))  # a condition running alone holds off its matrix
    with output_lock(fresh / PASSIVE), pytest.raises(OutputBusy, match=f"{busy} {fresh / PASSIVE};"):
        actloop.evaluate(replay_plan(fresh, 2, **MATRIX))  # even one started before its matrix existed
    assert [len(read_results(out / name).rows) for name in (ACTIVE, PASSIVE)] == [1, 1]
    assert not (fresh / PASSIVE / "results.jsonl").exists()


def test_a_plan_for_another_condition_is_refused_on_the_same_output(tmp_path: Path) -> None:
    actloop.evaluate(replay_plan(tmp_path / "out", 1))
    with pytest.raises(ConfigError, match="holds the results of another condition"):
        actloop.evaluate(replay_plan(tmp_path / "out", 1, protocols=["passive"]))


@pytest.mark.parametrize(
    ("plan", "error", "message"),
    [
        ({"suite": "nope"}, UnknownSuite, "unknown suite 'nope'; installed suites: .*vabench"),
        ({"tasks": ["grasp"]}, UnknownTask, "unknown fake task 'grasp'"),
        ({"seeds": [5000]}, UnknownTask, r"seeds \[5000\] are not verified seeds of fake/pick_cube"),
        ({"seeds": 101}, ConfigError, "seeds must be between 1 and 100"),
        ({"protocols": ["sideways"]}, ConfigError, "unknown protocol"),
        ({"workers": 0}, ConfigError, "workers must be at least 1"),
        ({"env_timeout": 0.0}, ConfigError, "environment call timeout must be positive, got 0.0"),
        ({"generation": {"temprature": 0.5}}, ConfigError, "unknown generation settings"),
    ],
)
def test_plan_mistakes_fail_before_any_episode(
    plan: dict[str, object], error: type[Exception], message: str, tmp_path: Path
) -> None:
    options = {"seeds": 1, **plan}
    seeds = options.pop("seeds")
    with pytest.raises(error, match=message):
        actloop.evaluate(replay_plan(tmp_path / "out", seeds, **options))
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_retries_show_in_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    lines: list[str] = []
    with serve([503, STOP]) as server:
        plan = actloop.RunPlan(
            models=["openai/gpt-4o-mini"],
            out=tmp_path / "out",
            suite="fake",
            seeds=1,
            model_args={"responses_api": False},
            model_base_url=server.base_url,
            generation={"max_retries": 2, "timeout": 60},
            isolation="inline",
        )
        outcome = actloop.evaluate(plan, log=lines.append, progress_every_s=0.2)
    (row,) = outcome.rows
    assert row.stop_reason == "stop" and row.model_calls == 1  # the retry succeeded
    retried = [line for line in lines if line.startswith("provider retries: 1 since the last report")]
    assert retried and "Retrying request in" in retried[0] and "(retry 1 of 2)" in retried[0]


def test_make_builds_a_suite_environment() -> None:
    env = actloop.make("vabench", "grasp_single_cube", 1000, render=False)
    try:
        first = env.reset()
        assert first.observation.step == 0 and first.observation.budget == 50
    finally:
        env.close()
    assert repr(Frame("active", b"\x89PNG" * 5)) == "Frame(view='active', png=<20 bytes>)"  # printable
    with pytest.raises(UnknownTask, match="unknown vabench task 'grasp'"):
        actloop.make("vabench", "grasp", 1000)
    with pytest.raises(ConfigError, match="has no protocol 'sideways'"):
        actloop.make("vabench", "grasp_single_cube", 1000, protocol="sideways")


def test_the_retry_watch_reads_inspect_and_sdk_retry_lines() -> None:
    import logging

    from actloop.runs.retries import watch_retries

    with watch_retries() as watch:
        logging.getLogger("inspect_ai.model._model").warning(
            "[abc task/x/1 openai/m] -> m retry 2 (retrying in 6 seconds) [APIConnectionError]"
        )
        logging.getLogger("inspect_ai.model._model").warning("Model: generate (enter)")  # not a retry
        assert watch.news() == (
            "provider retries: 1 since the last report (1 in all); "
            "latest: m retry 2 (retrying in 6 seconds) [APIConnectionError]"
        )
        assert watch.news() is None  # nothing new since
        logging.getLogger("openai._base_client").info("Retrying request in 0.5 seconds (retry 1 of 2)")
        assert watch.news() == (
            "provider retries: 1 since the last report (2 in all); "
            "latest: Retrying request in 0.5 seconds (retry 1 of 2)"
        )
