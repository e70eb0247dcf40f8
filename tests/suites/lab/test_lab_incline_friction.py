"""The incline and the scoring of #7 (incline friction): the stick–slip law against the analytic motion on
an incline, the bench sliding its sliders by it, the meter box's LCDs, gates, milestones, the restored
bench and the slide timed by eye.

Test scaffolding stands in for the agent's hands: the carriage is moved by setting its joint, the logger
started by setting it, the sliders put back by setting their state, and the robot's touch of a slider by
the bench's contact test answering so."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.incline_friction import SPEC, InclineFrictionEvaluator
from actloop.suites.lab.physics.friction import Friction, G, slide_step, slope_of
from actloop.suites.lab.platforms.incline import (
    FACE_CENTRES,
    FACES,
    PROP_RISE,
    SENSOR_GAP_M,
    SLIDERS,
    TRACK_M,
    Incline,
)
from actloop.suites.lab.reference.incline_friction import COLUMNS, coefficients, rows_of
from actloop.suites.lab.rig import DT
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from lcd_scaffold import assert_faces_read_back
from scoring_scaffold import succeeds_on_tolerance

KEY = "incline_friction"
FRICTION = Friction(0.5, 0.4)
TRACK = (0.0, 1.0)
Citation = dict[str, object]


# --- the law ---
@pytest.mark.parametrize(("tan_t", "holds"), [(0.5, True), (0.5001, False)])
def test_a_block_at_rest_holds_up_to_tan_theta_equal_to_mu_s(tan_t: float, holds: bool) -> None:
    sin_t, cos_t = slope_of(tan_t, 1.0)
    s, v = slide_step(0.2, 0.0, 0.01, sin_t, cos_t, FRICTION, TRACK)
    assert (s == 0.2 and v == 0.0) is holds


def test_from_rest_past_the_static_limit_it_slides_on_the_kinetic_parabola() -> None:
    """2400 steps of 1/240 s from rest on a slope of tan θ = 0.55: s = ½ g (sin θ − μk cos θ) t²."""
    sin_t, cos_t = slope_of(0.55, 1.0)
    a = G * (sin_t - FRICTION.kinetic * cos_t)
    s, v = 0.0, 0.0
    for k in range(1, 241):
        s, v = slide_step(s, v, DT, sin_t, cos_t, FRICTION, (0.0, 100.0))
        t = k * DT
        assert s == pytest.approx(0.5 * a * t * t, rel=1e-12) and v == pytest.approx(a * t, rel=1e-12)


def test_pushed_up_the_slope_it_stops_where_kinetic_friction_and_gravity_stop_it_and_holds() -> None:
    sin_t, cos_t = slope_of(0.3, 1.0)
    a = G * (sin_t + FRICTION.kinetic * cos_t)  # both pull down the slope against the upward motion
    s, v = 0.5, -0.8
    for _ in range(240):
        s, v = slide_step(s, v, DT, sin_t, cos_t, FRICTION, TRACK)
    assert v == 0.0 and s == pytest.approx(0.5 - 0.8**2 / (2 * a), rel=1e-12)


def test_sliding_down_a_slope_below_mu_k_it_decelerates_to_rest() -> None:
    sin_t, cos_t = slope_of(0.2, 1.0)
    a = G * (sin_t - FRICTION.kinetic * cos_t)
    s, v = 0.1, 0.5
    for _ in range(240):
        s, v = slide_step(s, v, DT, sin_t, cos_t, FRICTION, TRACK)
    assert v == 0.0 and s == pytest.approx(0.1 - 0.5**2 / (2 * a), rel=1e-12)


def test_the_bumpers_stop_it() -> None:
    sin_t, cos_t = slope_of(1.0, 1.0)
    assert slide_step(0.99, 2.0, 0.1, sin_t, cos_t, FRICTION, TRACK) == (1.0, 0.0)
    assert slide_step(0.01, -2.0, 0.1, sin_t, cos_t, FRICTION, TRACK) == (0.0, 0.0)


# --- the bench ---
@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def incline(env: LabEnv) -> Incline:
    assert isinstance(env.platform, Incline)
    return env.platform


def watcher(env: LabEnv) -> InclineFrictionEvaluator:
    assert isinstance(env.evaluator, InclineFrictionEvaluator)
    return env.evaluator


def set_run(env: LabEnv, run: float) -> None:
    env._world.data.qpos[env._model.joint("carriage").qposadr[0]] = run


def tan_slip(env: LabEnv) -> float:
    return env.instance.hidden["mu_s"]


def test_the_bench_holds_the_sliders_below_the_slip_and_slides_them_by_the_law_past_it(env: LabEnv) -> None:
    set_run(env, PROP_RISE / tan_slip(env) + 0.002)
    env.wait(1.0)
    assert incline(env).slides == [[0.0, 0.0], [0.0, 0.0]]
    set_run(env, PROP_RISE / tan_slip(env) - 0.002)
    env.wait(0.5)  # the first step sees the new slope and starts the slide
    sin_t, cos_t = incline(env).slope()
    a = G * (sin_t - incline(env).friction.kinetic * cos_t)
    t = 0.5
    for (s, v), name in zip(incline(env).slides, SLIDERS, strict=True):
        assert s == pytest.approx(0.5 * a * t**2, rel=1e-9) and v == pytest.approx(a * t, rel=1e-9)
        assert env._world.data.qpos[env._model.joint(name).qposadr[0]] == s
    shown = env.instrument_log.shown_at("distance_a", env.clock.time_s)
    assert isinstance(shown, float)
    assert shown == pytest.approx(1000 * (SENSOR_GAP_M + incline(env).slides[0][0]), abs=0.3)


def test_the_meter_box_lcds_show_what_the_instrument_log_says() -> None:
    env = LabEnv(KEY, 3)
    try:
        set_run(env, 0.3)
        env.wait(0.5)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, FACES, FACE_CENTRES)
    finally:
        env.close()


def raise_until_slip(env: LabEnv, tmp_path: Path) -> list[dict[str, float]]:
    """The logger on; the board raised 0.2 degrees at a time from 18.5 until both sliders slip; their
    slide; the log exported."""
    incline(env).logging = True
    degrees = 18.5
    while not all(s > 0 for s, _ in incline(env).slides):
        set_run(env, PROP_RISE / math.tan(math.radians(degrees)))
        env.wait(0.3)
        degrees += 0.2
    env.wait(2.0)
    text = env.export("logger", "log.csv")["csv"]
    (tmp_path / "log.csv").write_text(text)
    return rows_of(text)


def cite(
    rows: list[dict[str, float]], columns: tuple[str, ...] = COLUMNS
) -> tuple[list[Citation], dict[str, float]]:
    """The rows around each slider's slip and through its free slide, and the coefficients from them."""
    found = {c: coefficients(rows, c) for c in columns}
    citations: list[Citation] = []
    for column, (_, _, start, window) in found.items():
        for i in sorted({*range(start - 10, start + 1), *window}):
            citations += [
                {"file": "log.csv", "row": i, "column": c, "value": rows[i][c]}
                for c in (column, "inclinometer")
            ]
    answer = {
        "mu_s": sum(f[0] for f in found.values()) / len(found),
        "mu_k": sum(f[1] for f in found.values()) / len(found),
    }
    return citations, answer


def restore(env: LabEnv) -> None:
    set_run(env, 0.5)
    for i, name in enumerate(SLIDERS):
        incline(env).slides[i] = [0.0, 0.0]
        env._world.data.qpos[env._model.joint(name).qposadr[0]] = 0.0
    env.wait(0.5)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv, tmp_path: Path) -> None:
    rows = raise_until_slip(env, tmp_path)
    citations, answer = cite(rows)
    watcher(env).acted = True
    restore(env)
    env.submit(answer, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid][:3]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.errors["mu_k"] <= 0.2, result.errors


def test_the_slide_timed_by_eye_misses_mu_k(env: LabEnv, tmp_path: Path) -> None:
    """From the same log: the slide's duration to the nearest quarter second, a = 2 L / t²."""
    rows = raise_until_slip(env, tmp_path)
    _, _, start, _ = coefficients(rows, "distance_a")
    end = next(i for i in range(start, len(rows)) if rows[i]["distance_a"] >= rows[-1]["distance_a"] - 0.05)
    timed = 0.25 * round((rows[end]["time_s"] - rows[start - 1]["time_s"]) / 0.25)
    theta = math.radians(rows[end]["inclinometer"])
    mu_k = math.tan(theta) - 2 * TRACK_M / timed**2 / (G * math.cos(theta))
    truth = watcher(env).targets()["mu_k"]
    assert abs(mu_k / truth - 1) > 0.005


def test_a_distance_logged_while_the_robot_touched_its_slider_fails_the_condition_gate(
    env: LabEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = raise_until_slip(env, tmp_path)
    citations, answer = cite(rows)
    restore(env)
    touch_from = env.clock.time_s
    monkeypatch.setattr(incline(env), "_touched_sliders", lambda data: [True, False])
    env.wait(0.5)
    monkeypatch.undo()
    env.wait(0.2)
    text = env.export("logger", "late.csv")["csv"]
    (tmp_path / "late.csv").write_text(text)
    late = rows_of(text)
    touched = next(i for i, r in enumerate(late) if r["time_s"] > touch_from + 0.1)
    citations.append(
        {"file": "late.csv", "row": touched, "column": "distance_a", "value": late[touched]["distance_a"]}
    )
    citations.append(
        {"file": "late.csv", "row": touched, "column": "distance_b", "value": late[touched]["distance_b"]}
    )
    env.submit(answer, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert "slider_a untouched did not hold" in verdicts[-2].reason and verdicts[-1].valid


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv, tmp_path: Path) -> None:
    rows = raise_until_slip(env, tmp_path)
    citations, answer = cite(rows)
    citations[5] = {**citations[5], "value": float(citations[5]["value"]) + 0.5}  # type: ignore[arg-type]
    restore(env)
    env.submit(answer, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_l4_needs_each_sliders_records(env: LabEnv, tmp_path: Path) -> None:
    rows = raise_until_slip(env, tmp_path)
    citations, answer = cite(rows, ("distance_a",))
    restore(env)
    env.submit(answer, citations)
    result, _ = env.score()
    assert not result.milestones["L4"].passed and "slider_b" in result.milestones["L4"].evidence
    assert "slider_a" not in result.milestones["L4"].evidence
    assert result.milestones["L2"].passed and result.milestones["L3"].passed


def test_sliders_left_at_the_bottom_fail_only_l6(env: LabEnv, tmp_path: Path) -> None:
    rows = raise_until_slip(env, tmp_path)
    citations, answer = cite(rows)
    watcher(env).acted = True
    env.submit(answer, citations)
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert "slider_a is 340 mm down its track" in result.gates["restored"].evidence


@pytest.mark.parametrize(
    ("mu_s", "mu_k", "passes"),
    [(1.04999, 1.00499, True), (0.95001, 0.99501, True), (1.0, 1.00502, False), (1.05002, 1.0, False)],
)
def test_mu_s_is_scored_within_five_percent_and_mu_k_within_half_a_percent(
    mu_s: float, mu_k: float, passes: bool
) -> None:
    truth = {"mu_s": 0.45, "mu_k": 0.35}
    judged = succeeds_on_tolerance({"mu_s": 0.45 * mu_s, "mu_k": 0.35 * mu_k}, truth, SPEC.quantities)
    assert judged is passes


def test_t2_skills_press_log_and_slide_the_carriage_to_raise_the_board() -> None:
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        before = server.run(lambda: {"run": incline(env).run(env.data)})["run"]
        skills.slide(lab, "carriage_peg", [-1.0, 0.0, 0.0], 0.05)
        skills.press(lab, "log_key")
        lab.wait(0.5)
        after = server.run(lambda: {"run": incline(env).run(env.data), "log": incline(env).logging})
        lab.close()
    env.close()
    assert after["log"] and after["run"] == pytest.approx(before - 0.05, abs=0.01)
