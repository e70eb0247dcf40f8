"""The lab's report tables (the seed's tables 2 and 3 and the stage pass rates) against hand computations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from actloop.core.result import Condition
from actloop.report import build_report
from actloop.report.tables import Table
from actloop.suites.lab.scoring import process_score

STAGE = {0: "act", 2: "first_reading", 4: "know_result", 6: "success"}


def lab_row(task: str, seed: int, level: int | None, protocol: str = "T0") -> dict[str, Any]:
    """A lab result row reaching milestone ``level`` (None: the provider failed, no score)."""
    row: dict[str, Any] = {
        "schema": 2, "suite": "lab", "task": task, "seed": seed, "run": 1, "model": "m/a",
        "protocol": protocol, "summary": "none", "success": level == 6, "steps": 3, "budget": 60,
        "stop_reason": "infra_error" if level is None else ("success" if level == 6 else "stop"),
        "record_dir": None, "duration_s": 1.0,
    }  # fmt: skip
    if level is not None:
        row.update(level=level, process_score=process_score(level), stop_stage=STAGE[level], e=0.2)
    return row


def _table(tables: list[Table], key: str) -> Table:
    return next(t for t in tables if t.key == key)


def test_tables_2_3_and_stage_pass_rates_match_a_hand_computation(tmp_path: Path) -> None:
    rows = [
        lab_row("hookes_law", 1, 6),
        lab_row("hookes_law", 2, 4),
        lab_row("black_box_resistor", 1, 2),
        lab_row("black_box_resistor", 2, None),
        lab_row("hookes_law", 1, 6, protocol="T1"),
    ]
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    tables = build_report([out], tmp_path / "report", viewers=False).tables

    main = _table(tables, "lab_table2_main")
    assert main.columns[:5] == ["Model", "Level", "Overall (2)", "Manip. (0)", "Long (0)"]
    assert main.columns[5:] == ["Read (1)", "Data (1)", "Basic (2)", "Advanced (0)"]
    t0 = next(r.cells for r in main.rows if r.cells[1] == "T0")
    # hookes_law: SR 1/2, PS (100 + 40) / 2 = 70; black box: SR 0, PS (20 + 0) / 2 = 10
    assert t0 == ["m/a", "T0", "25.0 (40.0)", "–", "–", "50.0 (70.0)", "0.0 (10.0)", "25.0 (40.0)", "–"]
    assert any("1 episode(s) not scored" in note for note in main.notes)

    levels = _table(tables, "lab_table3_levels")
    assert levels.rows[0].cells == ["m/a", "25.0 (40.0)", "100.0 (100.0)", "–", "+75.0", "–"]

    stages = _table(tables, "lab_stage_pass_rates")
    t0 = next(r.cells for r in stages.rows if r.cells[1] == "T0")
    # levels 6, 4, 2, 0 (the failed episode): reached ℓ ≥ 0..6 = 4, 3, 3, 2, 2, 1, 1
    assert t0[2:8] == ["75.0 (3/4)", "100.0 (3/3)", "66.7 (2/3)", "100.0 (2/2)", "50.0 (1/2)", "100.0 (1/1)"]
    assert t0[8] == "first_reading 1, know_result 1, success 1, not scored 1"

    episodes = _table(tables, "lab_episodes")
    assert [r.cells[2:10] for r in episodes.rows[:2]] == [
        ["black_box_resistor", "1", "1", "no", "0.200", "2", "20", "first_reading"],
        ["black_box_resistor", "2", "1", "no", "–", "0", "0", "not scored"],
    ]


def _lab_run(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


ROWS = [lab_row("hookes_law", 1, 6), lab_row("hookes_law", 2, 4), lab_row("black_box_resistor", 1, 2)]


def test_a_lab_report_has_the_labs_sections_and_none_of_the_step_episode_ones(tmp_path: Path) -> None:
    report = build_report([_lab_run(tmp_path, ROWS)], tmp_path / "report", viewers=False)
    keys = [t.key for t in report.tables]
    assert keys == [
        "lab_table2_main", "lab_table3_levels", "lab_stage_pass_rates", "lab_failure_causes", "lab_episodes",
        "outcomes",
    ]  # fmt: skip
    printed = report.summary_markdown
    for title in ("Lab: success rate %", "Lab: success across interface levels", "Lab: stage pass rates",
                  "Lab: failed runs by first decisive error"):  # fmt: skip
        assert f"### {title}" in printed
    assert "### Lab episodes" not in printed and "### Lab episodes" in report.markdown
    assert "Single-arm" not in report.markdown and "Dual-arm" not in report.markdown
    assert "Steps" not in report.markdown and "Subtask progress" not in report.markdown
    assert "held-out variant" not in report.markdown and "base task" not in report.markdown
    experiments = len({row["task"] for row in ROWS})
    assert f"condition(s), {experiments} task(s)" in report.markdown
    assert not any("has no episodes of" in note for note in report.analysis.notes)
    page = (tmp_path / "report" / "report.html").read_text()
    assert "Macro-average success" not in page and "Per-task success heatmap" not in page
    assert 'id="episodes"' not in page and "Single-arm" not in page
    for chart in ("lab_chart_success", "lab_chart_process", "lab_chart_stages"):
        assert page.count(f'id="{chart}"') == 1
    # each chart follows its table
    assert (
        page.index('id="lab_table2_main"')
        < page.index('id="lab_chart_success"')
        < page.index('id="lab_table3_levels"')
    )
    assert page.index('id="lab_stage_pass_rates"') < page.index('id="lab_chart_stages"')


def test_the_lab_charts_match_a_hand_computation(tmp_path: Path) -> None:
    from actloop.suites.lab.report import report_charts

    analysis = build_report([_lab_run(tmp_path, ROWS)], tmp_path / "report", viewers=False).analysis
    success, process, stages = report_charts(analysis)
    assert success.categories[:3] == [
        ("experiment", "black_box_resistor"), ("experiment", "hookes_law"), ("overall", "Overall"),
    ]  # fmt: skip
    assert [group for group, _ in success.categories[3:]] == ["dimension"] * 4 + ["tier"] * 2
    [(label, rates)] = success.series
    assert label == "m/a (T0)"
    # black box: SR 0, PS 20; hookes_law: SR 1/2, PS (100 + 40) / 2; overall: SR 1/4, PS 45
    assert rates[:3] == [0.0, 50.0, 25.0] and process.series[0][1][:3] == [20.0, 70.0, 45.0]
    assert rates[3:5] == [None, None]  # no manipulation or long-horizon experiment ran
    # levels 6, 4, 2: ℓ ≥ 1..6 = 3, 3, 2, 2, 1, 1 of 3
    assert stages.series[0][1] == [100.0, 100.0, 2 / 3 * 100, 100.0, 50.0, 100.0]
    assert (success.after, stages.after) == ("lab_table2_main", "lab_stage_pass_rates")


def test_lab_episodes_link_to_their_viewers(tmp_path: Path) -> None:
    run = _lab_run(tmp_path, [{**lab_row("hookes_law", 1, 6), "record_dir": "episodes/hookes"}])
    record = run / "episodes" / "hookes"
    record.mkdir(parents=True)
    start = {"suite": "lab", "task": "hookes_law", "seed": 1, "run": 1, "model": "m/a", "protocol": "T0"}
    (record / "events.jsonl").write_text(json.dumps({"type": "episode_start", "data": start}) + "\n")
    report = build_report([run], tmp_path / "report")
    episodes = next(t for t in report.tables if t.key == "lab_episodes")
    assert episodes.rows[0].episode == ("lab", "hookes_law", 1, 1, Condition("m/a", "T0"))
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<th>Trajectory</th>" in page and 'href="../run/episodes/hookes/viewer.html">view</a>' in page
    assert 'id="lab-episode"' in (record / "viewer.html").read_text()


def test_actloop_report_prints_the_lab_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from actloop.cli import main

    assert main(["report", str(_lab_run(tmp_path, ROWS)), "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### Lab: success rate % (process score 0-100)")
    assert "Lab: stage pass rates" in out and "Lab: failed runs by first decisive error" in out
    assert "Lab episodes" not in out  # one row per episode: in report.md and the page
    assert "Single-arm" not in out and "Subtask progress" not in out
