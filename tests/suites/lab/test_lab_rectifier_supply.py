"""Scoring the rectifier supply: its circuit on the board, the logger's evidence, R_min against the truth,
the final supply read in the continuation run (a wrong or unpowered module fails; a module the tolerance
cannot tell from the right one counts), the restore rules and the displays.

Test scaffolding stands in for the agent's hands: boxes are set into the sockets or onto their pads by
setting their poses, the rocker by its angle and the logger by its switch (the reference experimenter works
them with the arm; the keys and rocker are tested with the black-box resistor).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.rectifier_supply import (
    FILTER_SOCKET,
    FINAL_LOAD,
    LOAD_SOCKET,
    RectifierBoard,
    RectifierEvaluator,
    wiring,
)
from actloop.suites.lab.platforms.circuit_board import BOX_HALF, SEAT_Z
from actloop.suites.lab.reference.rectifier_supply import BRACKETS, LOADS, MODULES, interpolate
from board_scaffold import home, power, put_box, read_lcds, seat, seat_with_skills
from copy_scaffold import own_copy

SEED = 3
Citation = dict[str, Any]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("rectifier_supply", SEED, render=False)
    yield bench
    bench.close()


def board(env: LabEnv) -> RectifierBoard:
    assert isinstance(env.platform, RectifierBoard)
    return env.platform


def evaluator(env: LabEnv) -> RectifierEvaluator:
    assert isinstance(env.evaluator, RectifierEvaluator)
    return env.evaluator


def log_circuit(env: LabEnv, module: str, load: str, seconds: float = 1.5) -> tuple[float, float]:
    """Seat ``module`` and ``load``, wait, and give the window of settled rows."""
    seat(env, f"filter_{module}", FILTER_SOCKET.name)
    seat(env, load, LOAD_SOCKET.name)
    start = env.clock.time_s + 0.6
    env.wait(seconds)
    return start, env.clock.time_s


def rows_in(env: LabEnv, file: str, window: tuple[float, float]) -> list[Citation]:
    """Ripple-meter citations of the rows of a fresh export of ``file`` inside ``window``."""
    lines = env.export("logger", file)["csv"].splitlines()
    header = lines[0].split(",")
    column = header.index("ripple_meter")
    citations: list[Citation] = []
    for row, line in enumerate(lines[1:]):
        cells = line.split(",")
        if window[0] <= float(cells[0]) <= window[1]:
            citations.append(
                {"file": file, "row": row, "column": "ripple_meter", "value": float(cells[column])}
            )
    return citations


def mean_value(citations: list[Citation]) -> float:
    return sum(float(c["value"]) for c in citations) / len(citations)


def measure(env: LabEnv) -> tuple[dict[str, float], list[Citation]]:
    """Log every module under its three loads, export, and fit R_min; the supply is left on and logging."""
    power(env, True)
    board(env).logging = True
    windows = {}
    for module in MODULES:
        for load in BRACKETS[module]:
            windows[module, load] = log_circuit(env, module, load)
            home(env, load)
        home(env, f"filter_{module}")
    citations: list[Citation] = []
    r_min = {}
    for module in MODULES:
        points = []
        for load in BRACKETS[module]:
            cited = rows_in(env, f"{module}_{load}.csv", windows[module, load])
            citations += cited
            points.append((LOADS[load], mean_value(cited)))
        r_min[f"R_min_{module}"] = interpolate(points, env.instance.public["ripple_limit"])
    return r_min, citations


def build_final(env: LabEnv, module: str) -> list[Citation]:
    """Build the final supply with ``module`` under the final load, log it and cite its rows."""
    window = log_circuit(env, module, FINAL_LOAD)
    return rows_in(env, "final.csv", window)


def right_module(env: LabEnv) -> str:
    limit, load = env.instance.public["ripple_limit"], env.instance.public["final_load"]
    wires = wiring(env.instance)
    return next(m for m in MODULES if wires.ripple(f"filter_{m}", load) <= limit)


Measured = tuple[LabEnv, dict[str, float], list[Citation]]


@pytest.fixture(scope="module")
def measurement() -> Iterator[Measured]:
    """Every module logged once (:func:`measure`): the bench, the R_min fitted and the citations."""
    bench = LabEnv("rectifier_supply", SEED, render=False)
    yield bench, *measure(bench)
    bench.close()


@pytest.fixture
def measured(measurement: Measured) -> Iterator[Measured]:
    """The test's own copy of the measurement, to go on from."""
    yield from own_copy(measurement)


def finish(env: LabEnv, module: str) -> list[Citation]:
    r_min, citations = measure(env)
    citations += build_final(env, module)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the boxes
    env.submit(r_min, citations)
    return citations


def test_a_careful_run_succeeds_with_the_supply_left_running(env: LabEnv) -> None:
    finish(env, right_module(env))
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid]
    assert score.success and score.process_score == 100, (score.gates, score.milestones)
    assert score.e < 0.5 and score.errors["final_supply"] == 0.0
    assert "F1 under 3 load(s)" in score.milestones["L4"].evidence
    assert board(env).powered  # the continuation ran on a copy: the episode's bench is as it was left


def test_the_next_larger_module_with_margin_to_spare_is_a_wrong_final_supply(env: LabEnv) -> None:
    right = right_module(env)
    wrong = MODULES[MODULES.index(right) + 1] if right != MODULES[-1] else MODULES[-2]
    finish(env, wrong)
    score, _ = env.score()
    assert math.isinf(score.errors["final_supply"]) and score.level == 4 and score.process_score == 40
    assert score.gates["restored"].passed  # what is wrong is the configuration, not the bench


def test_a_supply_switched_off_at_submission_runs_no_final_supply(measured: Measured) -> None:
    env, r_min, citations = measured
    citations += build_final(env, right_module(env))
    power(env, False)
    env.wait(0.5)
    evaluator(env).acted = True
    env.submit(r_min, citations)
    score, _ = env.score()
    assert math.isinf(score.errors["final_supply"]) and not score.success


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0099, True), (0.9901, True), (1.0101, False)])
def test_each_r_min_is_scored_within_one_percent(measured: Measured, factor: float, succeeds: bool) -> None:
    env, r_min, citations = measured
    citations += build_final(env, right_module(env))
    evaluator(env).acted = True
    truth = wiring(env.instance).r_min("filter_F2", env.instance.public["ripple_limit"])
    env.submit({**r_min, "R_min_F2": truth * factor}, citations)
    score, _ = env.score()
    assert score.errors["R_min_F2"] == pytest.approx(abs(factor - 1) / 0.01, rel=1e-6)
    assert score.success is succeeds


def test_a_box_left_on_the_board_fails_only_l6(measured: Measured) -> None:
    env, r_min, citations = measured
    citations += build_final(env, right_module(env))
    put_box(env, "load_68", 0.0, -0.12, SEAT_Z + BOX_HALF[2] + 0.0003)  # on the board, out of the sockets
    env.wait(0.3)
    evaluator(env).acted = True
    env.submit(r_min, citations)
    score, _ = env.score()
    assert score.level == 5 and score.process_score == 70
    assert "load 68 is not upright on its pad" in score.gates["restored"].evidence


def test_rows_without_a_load_or_just_after_a_change_fail_the_conditions(env: LabEnv) -> None:
    power(env, True)
    board(env).logging = True
    seat(env, "filter_F2", FILTER_SOCKET.name)
    env.wait(1.0)  # a module but no load: no reading counts
    seat(env, "load_180", LOAD_SOCKET.name)
    changed = env.clock.time_s
    env.wait(1.5)
    lines = env.export("logger", "rows.csv")["csv"].splitlines()[1:]
    times = [float(line.split(",")[0]) for line in lines]
    unloaded = next(i for i, t in enumerate(times) if t < changed - 0.3)
    early = next(i for i, t in enumerate(times) if changed < t < changed + 0.4)
    late = len(times) - 1
    citations: list[Citation] = [
        {"file": "rows.csv", "row": i, "column": "ripple_meter", "value": float(lines[i].split(",")[2])}
        for i in (unloaded, early, late)
    ]
    env.submit({f"R_min_{m}": 1.0 for m in MODULES}, citations)
    _, verdicts = env.score()
    assert [v.valid for v in verdicts] == [False, False, True], [v.reason for v in verdicts]


def test_two_modules_logged_do_not_meet_the_evidence_minimum(measured: Measured) -> None:
    env, r_min, citations = measured
    citations = [c for c in citations if not str(c["file"]).startswith("F1_")]
    citations += build_final(env, right_module(env))
    evaluator(env).acted = True
    env.submit(r_min, citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and "filter modules" in score.gates["evidence"].evidence
    assert not score.milestones["L4"].passed


def test_a_fabricated_row_fails_the_evidence_gate(measured: Measured) -> None:
    env, r_min, citations = measured
    citations += build_final(env, right_module(env))
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 0.003}
    evaluator(env).acted = True
    env.submit(r_min, citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success


def test_a_module_the_tolerance_cannot_tell_from_the_right_one_counts(env: LabEnv) -> None:
    limit = env.instance.public["ripple_limit"]
    wires = wiring(env.instance)
    edge = wires.r_min("filter_F2", limit)
    for load, accepted in ((edge * 1.002, {"F2", "F3"}), (edge * 1.05, {"F2"}), (edge * 0.95, {"F3"})):
        public = {**env.instance.public, "final_load": load}
        evaluator(env).instance = dataclasses.replace(env.instance, public=public)
        for module in MODULES:
            counts = evaluator(env).final_module(wiring(evaluator(env).instance), module) == module
            assert counts is (module in accepted), (load / edge, module)


def test_the_ripple_meter_shows_the_steady_state_of_the_circuit_in_the_sockets(env: LabEnv) -> None:
    power(env, True)
    log_circuit(env, "F3", "load_470")
    shown = board(env).true_values(env._world.data)
    assert shown["ripple_meter"] == wiring(env.instance).ripple("filter_F3", 470.0)
    power(env, False)
    env.wait(0.5)
    off = board(env).true_values(env._world.data)
    assert off["ripple_meter"] == 0.0 and off["voltmeter"] < shown["voltmeter"]


def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("rectifier_supply", SEED)
    try:
        power(env, True)
        log_circuit(env, "F1", "load_470")
        read, observation = read_lcds(env, {"voltmeter": 5, "ripple_meter": 5})
        for name, value in read.items():
            assert value == observation.shown[name]
            assert any(v.readable for v in observation.views_of(name))
    finally:
        env.close()


def test_t2_skills_seat_a_module_and_start_the_logger(tmp_path: Path) -> None:
    """T2 on this bench: the workspace's skills (T1 segmentation and planned motion) grasp a filter module
    between its neighbours, carry it over its socket and set it in, and press the REC key."""
    env = LabEnv("rectifier_supply", SEED, level="T2")
    seat_with_skills(env, "filter_F2", FILTER_SOCKET.name, tmp_path)
    assert board(env).state.seated[FILTER_SOCKET.name] == "filter_F2", env.data.body("filter_F2").xpos
    assert board(env).recording() == {"logger"}
    for other in ("filter_F1", "filter_F3", "load_180"):  # the neighbours stand where they stood
        assert board(env).at_home(env.data, next(b for b in board(env).boxes if b.name == other), 0.002)
    env.close()


def test_the_naive_shortcut_misses_r_min_past_the_tolerance(env: LabEnv) -> None:
    """One load per module, its ripple scaled as 1/R to the limit (the audit's shortcut), fails the run."""
    naive = plan_of("rectifier_supply").naive.estimate(env.instance)
    r_min, citations = measure(env)
    citations += build_final(env, right_module(env))
    evaluator(env).acted = True
    env.submit({name: naive[name] for name in r_min}, citations)
    score, _ = env.score()
    assert score.e > 1.0 and score.stop_stage == "know_result", score.errors
