"""The lab's report tables (the seed's tables 2 and 3 and the stage pass rates) against hand computations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
