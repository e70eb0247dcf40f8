"""A report over runs of several suites: each suite's sections over its own episodes only."""

from __future__ import annotations

import json
from pathlib import Path

from report_records import lookup, row, write_dir

from actloop.report import build_report

LAB_ROW = {
    "schema": 2, "suite": "lab", "task": "hookes_law", "seed": 1, "run": 1, "model": "m/a", "protocol": "T0",
    "summary": "none", "success": True, "steps": 2, "budget": 60, "stop_reason": "success",
    "record_dir": None, "duration_s": 1.0, "level": 6, "process_score": 100, "stop_stage": "success",
    "e": 0.1,
}  # fmt: skip


def test_a_mixed_report_shows_each_suites_sections_over_its_own_episodes(tmp_path: Path) -> None:
    vabench = write_dir(
        tmp_path / "va", [row("grasp_single_cube", 1, 1, "success"), row("lift_pot", 1, 1, "fail")]
    )
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "results.jsonl").write_text(json.dumps(LAB_ROW) + "\n")
    report = build_report([vabench, lab], tmp_path / "report", lookup=lookup)
    keys = [t.key for t in report.tables]
    assert keys[:3] == ["table3_summary", "tables7_9_tasks", "eq12_progress"]
    assert {"lab_table2_main", "lab_stage_pass_rates", "lab_episodes"} <= set(keys) and keys[-1] == "outcomes"

    summary = report.tables[0]
    assert [c.cells[0] for c in summary.rows[:3]] == [
        "Single-arm (1 task)",
        "Dual-arm (1 task)",
        "All (2 tasks)",
    ]
    assert summary.columns == ["Subset", "m/a (active)"]  # the lab condition is not a step-episode one
    matrix = next(t for t in report.tables if t.key == "tables7_9_tasks")
    assert "hookes_law" not in [r.cells[0] for r in matrix.rows]
    main = next(t for t in report.tables if t.key == "lab_table2_main")
    assert [r.cells[:3] for r in main.rows] == [["m/a", "T0", "100.0 (100.0)"]]
    outcomes = next(t for t in report.tables if t.key == "outcomes")
    assert sorted(r.cells[:2] for r in outcomes.rows) == [["m/a (T0)", "1"], ["m/a (active)", "2"]]
    # no condition is said to miss the other suite's tasks
    assert not any("has no episodes of" in note for note in report.analysis.notes)

    page = (tmp_path / "report" / "report.html").read_text()
    assert "Macro-average success" in page and 'id="lab_chart_success"' in page
    index = page[page.index('id="episodes"') :]
    assert "Episodes (2)" in index and "hookes_law" not in index  # lab episodes are listed in their table
    printed = report.summary_markdown
    assert printed.startswith("### Base-task success") and "### Lab: success rate %" in printed
