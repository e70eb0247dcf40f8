"""Report numbers against hand computations on synthetic records, and the files the report writes.

Data (seeds 1 and 2 per task; S = success, F = failure, I = infra error, E = harness error):

model m/a, active, 3 runs                 model m/b, active, summary "own", 2 runs
            run 1   run 2   run 3                     run 1   run 2
cube (1 arm) S S    S F     S S           cube        S S     S F
place (1)    S F    F F     S I           place       S S     S S
lift_pot (2) F F    S F     F F           lift_pot    S F     F E

model m/a, passive, run 1: every episode fails (the same seeds as active run 1).
model m/a, active, run 1: held-out variant grasp_single_cube_tall (base: cube), seeds 11 and 12: S F.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import duckdb
import pytest
from report_records import lookup, row, write_dir, write_record

from actloop.cli import main
from actloop.records.table import write_episode_table
from actloop.report import build_report, load_records, registry_lookup, sample_sd, sign_test
from actloop.report.records import Condition

CUBE, PLACE, POT, TALL = "grasp_single_cube", "place_single_cube", "lift_pot", "grasp_single_cube_tall"
A = Condition("m/a", "active")
A_PASSIVE = Condition("m/a", "passive")
B = Condition("m/b", "active", "own")

OUTCOMES_A = {
    CUBE: {1: ["success", "success"], 2: ["success", "fail"], 3: ["success", "success"]},
    PLACE: {1: ["success", "fail"], 2: ["fail", "fail"], 3: ["success", "infra_error"]},
    POT: {1: ["fail", "fail"], 2: ["success", "fail"], 3: ["fail", "fail"]},
}
OUTCOMES_B = {
    CUBE: {1: ["success", "success"], 2: ["success", "fail"]},
    PLACE: {1: ["success", "success"], 2: ["success", "success"]},
    POT: {1: ["success", "fail"], 2: ["fail", "error"]},
}


def rows_of(outcomes: dict, **kwargs: object) -> list[dict]:
    return [
        row(task, seed, run, outcome, **kwargs)
        for task, runs in outcomes.items()
        for run, results in runs.items()
        for seed, outcome in zip((1, 2), results, strict=True)
    ]


@pytest.fixture
def dirs(tmp_path: Path) -> list[Path]:
    a_rows = [*rows_of(OUTCOMES_A), row(TALL, 11, 1, "success"), row(TALL, 12, 1, "fail")]
    passive = [row(t, s, 1, "fail", protocol="passive") for t in (CUBE, PLACE, POT) for s in (1, 2)]
    first = write_dir(tmp_path / "run_a", a_rows)
    with (first / "results.jsonl").open("a") as handle:
        handle.write("{not json\n")
    return [
        first,
        write_dir(tmp_path / "run_b", rows_of(OUTCOMES_B, model="m/b", summary="own")),
        write_dir(tmp_path / "run_a_passive", passive),
    ]


@pytest.fixture
def report(dirs: list[Path], tmp_path: Path):
    return build_report(dirs, tmp_path / "out", lookup=lookup)


def hand_sd(values: list[float]) -> float:
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def test_sign_test_matches_hand_computed_binomial_tails() -> None:
    # 6 positive, 1 negative: n = 7, P(X <= 1) = (1 + 7) / 128, two-sided p = 16 / 128.
    assert sign_test(6, 1) == pytest.approx(0.125)
    assert sign_test(1, 6) == pytest.approx(0.125)
    assert sign_test(10, 2) == pytest.approx(2 * (1 + 12 + 66) / 4096)  # 0.0386
    assert sign_test(12, 0) == pytest.approx(2 / 4096)  # 0.0005
    assert sign_test(8, 1) == pytest.approx(2 * 10 / 512)  # 0.039
    assert sign_test(3, 3) == 1.0
    assert sign_test(0, 0) is None


def test_sample_sd_uses_n_minus_one() -> None:
    assert sample_sd([0.75, 0.25, 0.75]) == pytest.approx(math.sqrt((2 * (1 / 6) ** 2 + (1 / 3) ** 2) / 2))
    assert sample_sd([0.5]) is None


def test_table3_macro_average_per_run_then_mean_and_sample_sd(report) -> None:
    a = report.analysis
    # m/a single-arm per run: (cube + place) / 2 = (1 + .5)/2, (.5 + 0)/2, (1 + .5)/2 (infra error counts as
    # a failure in run 3's place rate: 1 success of 2 episodes).
    assert a.run_macro(A, "single") == pytest.approx({1: 0.75, 2: 0.25, 3: 0.75})
    assert a.run_macro(A, "dual") == pytest.approx({1: 0.0, 2: 0.5, 3: 0.0})
    assert a.run_macro(A, "all") == pytest.approx({1: 1.5 / 3, 2: 1.0 / 3, 3: 1.5 / 3})
    single = a.macro(A, "single")
    assert single.mean == pytest.approx(7 / 12) and single.sd == pytest.approx(hand_sd([0.75, 0.25, 0.75]))
    assert a.macro(A, "all").mean == pytest.approx(4 / 9)
    assert a.macro(A, "all").sd == pytest.approx(hand_sd([0.5, 1 / 3, 0.5]))
    # m/b: all per run (1 + 1 + .5)/3 and (.5 + 1 + 0)/3.
    assert a.macro(B, "all").mean == pytest.approx((2.5 / 3 + 1.5 / 3) / 2)
    assert a.macro(B, "all").sd == pytest.approx(abs(2.5 / 3 - 1.5 / 3) / math.sqrt(2))
    assert a.macro(B, "single").sd == pytest.approx(0.25 / math.sqrt(2))
    # One passive run: SD undefined.
    assert a.macro(A_PASSIVE, "all").mean == 0.0 and a.macro(A_PASSIVE, "all").sd is None
    # Conditions ordered by descending all-task macro-average.
    assert a.conditions == [B, A, A_PASSIVE]

    table = report.tables[0]
    assert table.columns == ["Subset", B.label, A.label, A_PASSIVE.label]
    cells = {r.cells[0]: r.cells[1:] for r in table.rows}
    assert cells["Single-arm (2 tasks)"][1] == "58.33 ± 28.87"
    assert cells["Dual-arm (1 task)"][1] == "16.67 ± 28.87"
    assert cells["All (3 tasks)"] == ["66.67 ± 23.57", "44.44 ± 9.62", "0.00 ± n/a"]
    assert cells["Infra errors / errors"] == ["0 / 1", "1 / 0", "0 / 0"]
    assert cells["Episodes"] == ["12", "18", "6"]  # the variant is not a base task


def test_task_matrix_cells_steps_and_macro_row(report) -> None:
    matrix = report.tables[1]
    rows = {r.cells[0]: r.cells[1:] for r in matrix.rows}
    assert [r.cells[0] for r in matrix.rows] == [
        "Single-arm tasks",
        CUBE,
        PLACE,
        "Dual-arm tasks",
        POT,
        "Macro-average",
    ]
    assert TALL not in rows
    # Steps, then m/b, m/a, m/a passive.
    assert rows[CUBE] == ["50", "75.00 ± 35.36", "83.33 ± 28.87", "0.00 ± n/a"]
    assert rows[PLACE] == ["100", "100.00 ± 0.00", "33.33 ± 28.87 [1 infra]", "0.00 ± n/a"]
    assert rows[POT] == ["50", "25.00 ± 35.36 [1 error]", "16.67 ± 28.87", "0.00 ± n/a"]
    assert rows["Macro-average"][1:] == ["66.67 ± 23.57 [1 error]", "44.44 ± 9.62 [1 infra]", "0.00 ± n/a"]
    record = next(
        r for r in matrix.records if r["task"] == PLACE and r["model"] == "m/a" and r["protocol"] == "active"
    )
    assert record["episodes"] == 6 and record["successes"] == 2 and record["infra_errors"] == 1


def test_subtask_progress_is_a_micro_average_over_checkpoint_instances(report) -> None:
    a = report.analysis
    # m/a cube: 5 successes x 3 checkpoints + 1 failure x 1 = 16 of 6 x 3 = 18.
    # m/a place: 2 successes x 2 + 3 failures x 1 + the infra error 0 = 7 of 6 x 2 = 12.
    # m/a lift_pot: 1 success x 3 + 5 failures x 1 = 8 of 18.
    assert a.progress(A, "single") == (16 + 7, 18 + 12)
    assert a.progress(A, "dual") == (8, 18)
    assert a.progress(A, "all") == (31, 48)
    cells = {r.cells[0]: r.cells[1:] for r in report.tables[2].rows}
    assert cells[A.label] == ["76.67 (23/30)", "44.44 (8/18)", "64.58 (31/48)"]


def test_active_vs_passive_counts_delta_and_sign_test(report) -> None:
    (comparison,) = report.analysis.protocol_comparisons()
    # Matched pairs: run 1 only. cube 2 vs 0 and place 1 vs 0 (passive worse), lift_pot 0 vs 0 (tie).
    assert [(p.task, p.active.successes, p.passive.successes) for p in comparison.families] == [
        (CUBE, 2, 0),
        (PLACE, 1, 0),
        (POT, 0, 0),
    ]
    assert (comparison.passive_worse, comparison.passive_better, comparison.ties) == (2, 0, 1)
    assert comparison.p_value == pytest.approx(0.5)  # 2 * (1/2)^2
    table4 = next(t for t in report.tables if t.key == "table4_active_passive")
    delta = next(r.cells for r in table4.rows if r.kind == "total")
    # single-arm 0/4 - 3/4, dual 0/2 - 0/2, all 0/6 - 3/6
    assert delta[3:] == ["-75.00 pp", "+0.00 pp", "-50.00 pp", "2 / 0 / 1", "0.5"]
    active = next(r.cells for r in table4.rows if r.cells[2] == "active")
    assert active[3:6] == ["3/4 (75.00)", "0/2 (0.00)", "3/6 (50.00)"]


def test_held_out_delta_against_pooled_base(report) -> None:
    (pair,) = report.analysis.held_out(A)
    assert (pair.variant, pair.base) == (TALL, CUBE)
    assert (pair.variant_count.successes, pair.variant_count.episodes) == (1, 2)
    assert (pair.base_count.successes, pair.base_count.episodes) == (5, 6)
    table5 = next(t for t in report.tables if t.key == "table5_held_out")
    assert table5.rows[0].cells == [A.label, "1", "83.33", "50.00", "-33.33 pp"]
    assert report.analysis.held_out(B) == []


def test_no_held_out_tables_without_variant_rows(tmp_path: Path) -> None:
    out = build_report(
        [write_dir(tmp_path / "d", rows_of(OUTCOMES_B, model="m/b"))], tmp_path / "o", lookup=lookup
    )
    assert not any(t.key.startswith("table5") for t in out.tables)
    assert not any(t.key.startswith("table4") for t in out.tables)


def test_long_horizon_placements_and_strict_success_stay_out_of_the_base_numbers(tmp_path: Path) -> None:
    basket = [
        row("basket", 1, 1, "success", metrics={"objects_in_basket": 5}),
        row("basket", 2, 1, "fail", metrics={"objects_in_basket": 3}),
        row("basket", 3, 1, "infra_error"),
    ]
    directory = write_dir(tmp_path / "d", [*rows_of(OUTCOMES_B, model="m/b"), *basket])
    out = build_report([directory], tmp_path / "o", lookup=lookup)
    assert out.analysis.other_tracks == {"long_horizon": ["basket"]}
    assert "basket" not in out.analysis.base_tasks
    table = next(t for t in out.tables if t.key == "table5_long_horizon")
    assert table.rows[0].cells[2:5] == ["3", "8/15", "53.33"]
    assert table.rows[0].cells[5].startswith("1/3 (33.33)")
    record = table.records[0]
    assert (record["objects_placed"], record["objects_possible"], record["infra_errors"]) == (8, 15, 1)
    table3 = next(t for t in out.tables if t.key == "table3_summary")
    assert {r["tasks"] for r in table3.records if r["subset"] == "all"} == {3}


def test_files_markdown_csv_html_with_svg_and_a_viewer_link_per_episode(report, tmp_path: Path) -> None:
    out = tmp_path / "out"
    names = {p.name for p in report.files}
    assert {
        "report.md",
        "report.html",
        "table3_summary.csv",
        "tables7_9_tasks.csv",
        "eq12_progress.csv",
    } <= names
    assert {
        "table4_active_passive.csv",
        "table10_families.csv",
        "table5_held_out.csv",
        "outcomes.csv",
    } <= names
    markdown = (out / "report.md").read_text()
    assert "44.44 ± 9.62" in markdown and "1 infra error(s)" in markdown
    assert "unreadable row" in markdown  # the malformed line is reported, not silently dropped
    with (out / "table3_summary.csv").open() as handle:
        summary = list(csv.DictReader(handle))
    a_all = next(
        r for r in summary if r["model"] == "m/a" and r["protocol"] == "active" and r["subset"] == "all"
    )
    assert float(a_all["mean_pct"]) == pytest.approx(400 / 9, abs=1e-3)
    assert a_all["infra_errors"] == "1" and a_all["runs"] == "3"

    html = (out / "report.html").read_text()
    assert html.count("<svg") == 2 and 'class="errorbar"' in html
    links = re.findall(r'<a class="viewer" href="([^"]+)">', html)
    episodes = 20 + 12 + 6  # m/a (18 base + 2 variant), m/b, m/a passive
    assert len(links) == len(report.records.episodes) == episodes
    assert all((out / link).resolve().is_file() for link in links)


def test_infra_errors_are_kept_and_duplicates_resolved(tmp_path: Path) -> None:
    d = write_dir(
        tmp_path / "d",
        [
            row(CUBE, 1, 1, "success"),
            row(CUBE, 1, 1, "infra_error"),  # a later infra error does not replace a completed episode
            row(CUBE, 2, 1, "infra_error"),
            row(CUBE, 2, 1, "fail"),  # a completed retry replaces the infra error
            row(PLACE, 1, 1, "fail"),
            row(PLACE, 1, 1, "success"),  # otherwise the later row wins
            row(PLACE, 2, 1, "infra_error"),
        ],
        records=False,
    )
    records = load_records([d])
    assert records.superseded == 3 and len(records.episodes) == 4
    by_key = {(e.task, e.seed): e.stop_reason for e in records.episodes}
    assert by_key == {
        (CUBE, 1): "success",
        (CUBE, 2): "budget",
        (PLACE, 1): "success",
        (PLACE, 2): "infra_error",
    }
    out = build_report([d], tmp_path / "o", lookup=lookup, viewers=False)
    assert out.analysis.run_macro(A, "all") == pytest.approx({1: (0.5 + 0.5) / 2})  # 1/2 of place: infra kept


def test_the_episode_table_keeps_the_rows_the_report_counts(tmp_path: Path) -> None:
    first = write_dir(
        tmp_path / "d1",
        [
            row(CUBE, 1, 1, "infra_error"),
            row(CUBE, 1, 1, "success"),  # the rerun
            row(CUBE, 2, 1, "success"),
            row(CUBE, 2, 1, "error"),
            row(PLACE, 1, 1, "fail"),
        ],
        records=False,
    )
    second = write_dir(tmp_path / "d2", [row(PLACE, 1, 1, "success"), row(CUBE, 1, 1, "fail")], records=False)
    records = load_records([first, second])
    table = tmp_path / "episodes.parquet"
    assert write_episode_table([first, second], table) == len(records.episodes) == 3
    query = f"SELECT task, seed, stop_reason, source_dir FROM '{table}' ORDER BY task, seed"
    chosen = [(*values, Path(source).resolve()) for *values, source in duckdb.sql(query).fetchall()]
    assert chosen == sorted((e.task, e.seed, e.stop_reason, e.source) for e in records.episodes)
    assert [values[:3] for values in chosen] == [
        (CUBE, 1, "budget"),
        (CUBE, 2, "success"),
        (PLACE, 1, "success"),
    ]


def test_an_undecodable_line_is_unreadable_and_the_rest_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = write_dir(tmp_path / "d", [row(CUBE, 1, 1, "success")], records=False)
    with (d / "results.jsonl").open("ab") as handle:
        handle.write(b'{"task": "caf\xe9"}\n')  # Latin-1, not UTF-8
    write_dir(d, [row(CUBE, 2, 1, "fail")], records=False)
    records = load_records([d])
    assert [(e.seed, e.stop_reason) for e in records.episodes] == [(1, "success"), (2, "budget")]
    (problem,) = records.unreadable
    assert problem.startswith(f"{d / 'results.jsonl'}:2: ") and "utf-8" in problem
    assert main(["report", str(d), "--out", str(tmp_path / "o"), "--no-viewers"]) == 0
    assert "unreadable row" in (tmp_path / "o" / "report.md").read_text()
    assert f"note: left out an unreadable row: {d / 'results.jsonl'}:2: " in capsys.readouterr().out


def test_a_record_dir_leading_outside_the_run_is_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = write_record(tmp_path / "outside", row(CUBE, 1, 1, "fail"))
    run = write_dir(tmp_path / "run", [row(CUBE, 4, 1, "fail")])
    (run / "episodes" / "link").symlink_to(outside)
    escaping = ["../outside", str(outside), "episodes/link"]  # up and out, absolute, a link out
    rows = [{**row(CUBE, seed, 1, "fail"), "record_dir": where} for seed, where in enumerate(escaping, 1)]
    write_dir(run, rows, records=False)
    assert main(["report", str(run), "--out", str(tmp_path / "o")]) == 0
    assert not (outside / "viewer.html").exists()
    assert (run / "episodes" / f"{CUBE}__seed4__run1__active" / "viewer.html").is_file()
    printed = capsys.readouterr().out
    results = run.resolve() / "results.jsonl"
    for line, where in enumerate(escaping, 2):
        assert f"note: {results}:{line}: its record is left out: record_dir {where!r}" in printed
    records = load_records([run])
    assert {e.seed: e.record_dir is None for e in records.episodes} == {1: True, 2: True, 3: True, 4: False}
    assert len(records.notes) == 3 and "left out" in (tmp_path / "o" / "report.md").read_text()


def test_registry_lookup_and_fallbacks(tmp_path: Path) -> None:
    info = registry_lookup("grasp_single_cube")
    assert info is not None and info.arms == 1 and info.budget == 50 and info.base is None
    assert registry_lookup("no_such_task") is None
    # An unregistered task: the arm count comes from the record's episode_start, the budget from the rows.
    d = write_dir(tmp_path / "d", [row(POT, 1, 1, "success")])
    events = d / "episodes" / f"{POT}__seed1__run1__active" / "events.jsonl"
    lines = events.read_text().splitlines()
    start = json.loads(lines[0])
    start["data"]["action_space"]["arms"] = ["left", "right"]
    events.write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    out = build_report([d], tmp_path / "o", lookup=lambda name: None, viewers=False)
    assert out.analysis.tasks[POT].arms == 2 and out.analysis.tasks[POT].budget == 50
    assert out.analysis.subset_tasks("dual") == [POT]


def test_cli_report_and_view(dirs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(dirs[1]), "--out", str(tmp_path / "cli")]) == 0
    out = capsys.readouterr().out
    assert "Base-task success" in out and "m/b (active, summary own)" in out
    assert (tmp_path / "cli" / "report.html").is_file()
    record = dirs[1] / "episodes" / f"{CUBE}__seed1__run1__active"
    assert main(["view", str(record)]) == 0
    assert str(record / "viewer.html") in capsys.readouterr().out
    assert main(["report", str(tmp_path / "missing")]) == 2


def test_hardened_and_paper_verdicts_side_by_side_with_disagreements(tmp_path: Path) -> None:
    rows = [row(CUBE, seed, 1, "success" if seed < 3 else "fail") for seed in (1, 2, 3, 4, 5)]
    for data, paper in zip(rows, (True, False, True, False), strict=False):
        data["paper_success"] = paper  # seed 5 keeps no paper verdict (an older row)
    out = build_report([write_dir(tmp_path / "d", rows)], tmp_path / "o", lookup=lookup)
    (table,) = [t for t in out.tables if t.key == "verdicts"]
    (record,) = table.records
    assert (record["episodes"], record["ours"], record["paper"]) == (5, 2, 2)
    assert (record["paper_only"], record["ours_only"], record["unknown"]) == (1, 1, 1)
    assert "2 episode(s) where the verdicts disagree" in table.notes[0]
    assert "Hardened vs paper-literal success" in out.markdown
