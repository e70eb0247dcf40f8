"""Scoring the laser's wavelength from a grating on the laser rail: the spots where the grating equation puts
them from the grating's plane, drawn where the log says, the seated-grating condition, the settings L4
counts both first orders in, gates, milestones and the restored bench.

Test scaffolding stands in for the agent's hands and eyes: the grating is seated and the carriage set by
writing their joints, and views are logged as served with the readability a close wrist camera has (the
rendered screen is read back from a real image).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.grating_wavelength import GratingEvaluator, GratingRail
from actloop.suites.lab.platforms.optical_rail import (
    AXIS_Z,
    RAIL_Y,
    SCREEN,
    SCREEN_POST_X,
)
from actloop.suites.lab.reference.grating_wavelength import spots, to_mm, wavelength_nm
from actloop.suites.lab.reference.laser_rail import screen_ticks
from actloop.suites.lab.reference.motion import GC_OFFSET
from rail_scaffold import seat_item, serve_view, to_stand, values

SEED = 3
FAR_X = SCREEN.start_x - 0.32
NEAR_X = SCREEN.start_x - 0.12
ORDERS = ["order_-1", "order_+1"]
INDEXES = ["grating_index", "screen_index"]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("grating_wavelength", SEED, render=False)
    yield bench
    bench.close()


def rail(env: LabEnv) -> GratingRail:
    assert isinstance(env.platform, GratingRail)
    return env.platform


def seat(env: LabEnv, x: float = FAR_X) -> None:
    """Move the grating carriage to ``x`` and set the grating in its holder."""
    seat_item(env, "grating", "grating", x)
    env.wait(1.5)


def read(env: LabEnv, names: list[str]) -> list[dict[str, object]]:
    """Serve a view showing ``names`` readably (scaffolding) and cite what they showed."""
    return serve_view(env, names, 3.6)


def half_separation(read_: dict[str, float]) -> float:
    return (read_["order_+1"] - read_["order_-1"]) / 2


def measure(env: LabEnv) -> tuple[list[dict[str, object]], float]:
    """Both first orders and both index marks at the far and the near setting; what the agent computes
    from them (the reference's estimator)."""
    seat(env, FAR_X)
    far = read(env, ORDERS + INDEXES)
    seat(env, NEAR_X)
    near = read(env, [*ORDERS, "grating_index"])
    settings = [
        (values(far)["screen_index"] - values(cited)["grating_index"], half_separation(values(cited)))
        for cited in (far, near)
    ]
    return far + near, wavelength_nm(settings, env.instance.public["lines_per_mm"])


def finish(env: LabEnv, answer: float, citations: list[dict[str, object]], restore: bool = True) -> None:
    assert isinstance(env.evaluator, GratingEvaluator)
    env.evaluator.acted = True  # scaffolding: the robot would have carried the grating
    if restore:
        to_stand(env, "grating")
        env.wait(1.0)
    env.submit({"lambda": answer}, citations)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations, answer = measure(env)
    finish(env, answer, citations)
    score, verdicts = env.score()
    assert len(verdicts) == 7 and all(v.valid for v in verdicts)
    assert score.success and score.e <= 0.5 and score.process_score == 100, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


def test_the_spots_lie_where_the_grating_equation_puts_them_from_the_gratings_plane(env: LabEnv) -> None:
    """The logged orders ±1 and ±2 lie L tan(asin(m λ N)) from order 0 with L from the grating's plane (δ
    beyond its mark) to the screen, to 1e-9; the two settings' estimate is exact on the true values, and L
    from the marks at one setting alone is off by δ / L."""
    h, n = env.instance.hidden, 1000.0 * env.instance.public["lines_per_mm"]
    assert abs(h["principal_offset"]) <= 0.002 and 520 <= h["lambda"] <= 680
    settings = []
    for x in (FAR_X, NEAR_X):
        seat(env, x)
        true = rail(env).true_values(env._world.data)
        length = (true["screen_index"] - true["grating_index"]) / 1000 - h["principal_offset"]
        for m in (-2, -1, 1, 2):
            y = (true[f"order_{m:+d}"] - true["order_0"]) / 1000
            assert y == pytest.approx(length * math.tan(math.asin(m * 1e-9 * h["lambda"] * n)), rel=1e-9)
        settings.append((true["screen_index"] - true["grating_index"], half_separation(true)))
    assert wavelength_nm(settings, n / 1000) == pytest.approx(h["lambda"], rel=1e-9)
    mark, y = settings[0]
    one_setting = 1e6 * y / math.hypot(y, mark) / (n / 1000)
    length = mark - 1000 * h["principal_offset"]
    assert one_setting / h["lambda"] - 1 == pytest.approx(
        -h["principal_offset"] * 1000 / length * (length / math.hypot(y, length)) ** 2, rel=0.02
    )


def test_the_rendered_spots_lie_where_the_log_says() -> None:
    """A view of the screen's back from where the wrist camera is when the hand holds its post: orders −1, 0
    and +1 read back from the image against the printed ticks lie where the log says, all off by the same
    few hundredths of a millimetre (the printed scale sits within a texture pixel, 1/8 mm, of its nominal
    place), so their differences agree to 0.02 mm."""
    env = LabEnv("grating_wavelength", SEED)
    try:
        seat(env, FAR_X)
        screen_x = rail(env).carriage_x(env._world.data, SCREEN.name)
        eye = np.array([screen_x + SCREEN_POST_X + GC_OFFSET, RAIL_Y, AXIS_Z])
        pose = look_at(eye, eye - np.array([1.0, 0.0, 0.0]))
        renderer = env.renderer()
        for name, face in rail(env).redraw(env.panel.shown).items():
            renderer.upload_texture(name, face)
        env._model.cam_fovy[env._model.camera("observer").id] = 50.0
        image = renderer.render_from(env._world.data, np.array(pose.position), pose.rotation())
        columns, row = spots(image)
        read_back = to_mm(columns, *screen_ticks(image, row))
        true = rail(env).true_values(env._world.data)
        off = []
        for m, value in read_back.items():
            name = f"order_{m:+d}" if m else "order_0"
            shown = env.instrument_log.shown_at(name, env.clock.time_s)
            assert isinstance(shown, float) and abs(value - shown) < 0.5, m
            off.append(value - true[name])
        assert max(abs(o) for o in off) < 0.2 and max(off) - min(off) < 0.02, off
    finally:
        env.close()


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations, answer = measure(env)
    finish(env, answer, citations, restore=False)  # the grating is still in the carriage
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "grating is not in its stand" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations, _ = measure(env)
    citations[1] = {**citations[1], "value": float(citations[1]["value"]) + 0.6}  # type: ignore[arg-type]
    finish(env, env.instance.hidden["lambda"], citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "6 of 7 citations match" in score.gates["evidence"].evidence
    assert [v.valid for v in verdicts].count(False) == 1


def test_readings_without_the_grating_seated_fail_the_condition_gate(env: LabEnv) -> None:
    citations, _ = measure(env)
    to_stand(env, "grating")  # back in its stand: no spots but the beam
    env.wait(0.5)
    assert rail(env).seats["grating"] is None and not rail(env).diffracting
    assert all(offset is None for offset in rail(env).feature_offsets().values())
    citations += read(env, INDEXES)
    finish(env, env.instance.hidden["lambda"], citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and all("did not hold" in v.reason for v in verdicts[-2:])
    assert all(v.valid for v in verdicts[:-2])


def test_first_orders_from_different_settings_miss_l4(env: LabEnv) -> None:
    """Order −1 read at one distance and order +1 at another: no setting has both first orders."""
    seat(env, FAR_X)
    citations = read(env, ["order_-1", *INDEXES])
    seat(env, NEAR_X)
    citations += read(env, ["order_+1"])
    finish(env, env.instance.hidden["lambda"], citations)
    score, _ = env.score()
    assert score.gates["evidence"].passed and score.gates["conditions"].passed
    assert not score.milestones["L4"].passed and not score.success
    assert (
        "order_-1 and order_+1 with the grating and the screen in one place"
        in score.milestones["L4"].evidence
    )


def test_one_first_order_or_no_grating_index_misses_l4(env: LabEnv) -> None:
    seat(env, FAR_X)
    citations = read(env, ["order_-1", "order_0", "screen_index"])
    finish(env, env.instance.hidden["lambda"], citations)
    score, _ = env.score()
    evidence = score.milestones["L4"].evidence
    assert not score.milestones["L4"].passed and "one place" in evidence and "grating_index" in evidence


def test_a_new_setting_begins_only_when_the_distance_moves(env: LabEnv) -> None:
    assert isinstance(env.evaluator, GratingEvaluator)
    seat(env, FAR_X)
    first = env.evaluator.setting.now
    env._world.data.qpos[rail(env)._joints["grating"]] += 0.0004  # within a setting's drift
    env.wait(0.2)
    assert env.evaluator.setting.now == first >= 1
    env._world.data.qpos[rail(env)._joints["grating"]] += 0.0004
    env.wait(0.2)
    assert env.evaluator.setting.now == first + 1
    to_stand(env, "grating")
    env.wait(0.5)
    assert env.evaluator.setting.now == 0


@pytest.mark.parametrize(
    ("factor", "succeeds"), [(1.0099, True), (1.0101, False), (0.9901, True), (0.9899, False)]
)
def test_the_tolerance_is_one_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations, _ = measure(env)
    finish(env, env.instance.hidden["lambda"] * factor, citations)
    score, _ = env.score()
    assert score.errors["lambda"] == pytest.approx(abs(factor - 1) / 0.01, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds and score.success is succeeds


def test_the_naive_shortcut_fails_where_both_first_orders_succeed(env: LabEnv) -> None:
    """One order from the screen scale's middle with the small-angle formula misses; both first orders with
    the exact angle meet the tolerance (the audit's models, on this instance and over the first hundred)."""
    from actloop.suites.lab.instance import draw

    plan = plan_of("grating_wavelength")
    wavelength = env.instance.hidden["lambda"]
    assert abs(float(plan.naive.estimate(env.instance)["lambda"]) / wavelength - 1) > 0.01
    assert abs(float(plan.standard.estimate(env.instance)["lambda"]) / wavelength - 1) < 0.01
    instances = [draw(env.spec, seed) for seed in range(1, 101)]

    def within(design: str, i: object) -> bool:
        estimate = float(getattr(plan, design).estimate(i)["lambda"])
        return abs(estimate / i.hidden["lambda"] - 1) <= 0.01  # type: ignore[attr-defined]

    assert sum(within("naive", i) for i in instances) < 25
    assert sum(within("standard", i) for i in instances) >= 97


def test_the_estimate_is_exact_in_the_angle_and_drops_the_planes_offset() -> None:
    """Two settings of the exact spots give λ exactly whatever δ; the small-angle slope is 1.2-2.2 % long."""
    for nm in (520.0, 680.0):
        tangent = math.tan(math.asin(nm * 1e-6 * 300.0))
        settings = [(mark, (mark - 1.7) * tangent) for mark in (320.0, 120.0)]
        assert wavelength_nm(settings, 300.0) == pytest.approx(nm, rel=1e-12)
        small_angle = 1e6 * tangent / 300.0
        assert 0.012 < small_angle / nm - 1 < 0.022


def test_the_card_hides_the_wavelength_and_prints_the_line_density() -> None:
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.experiments.grating_wavelength import SPEC
    from actloop.suites.lab.instance import draw

    instance = draw(SPEC, 1)
    card = task_card(SPEC, instance)
    assert "300 lines/mm" in card and "its wavelength is not marked" in card
    assert "order_-1 and order_-2 on the side of falling numbers" in card
    assert "the grating's plane is somewhere in the frame's thickness, not marked" in card
    assert all(f"{v:.4g}" not in card for v in instance.hidden.values())


@pytest.mark.parametrize("mark_distance", [0.12, 0.30, 0.32])
def test_both_first_orders_fall_on_the_screens_scale_for_every_instance(mark_distance: float) -> None:
    """Where the carriages start (0.30 m) and at the reference's two settings, orders ±1 of the extreme
    wavelengths, plane offsets and scale zeros are on the screen (readable) and within the printed
    0-150 mm."""
    from actloop.suites.lab.physics.optics import Grating
    from actloop.suites.lab.platforms.laser_rail import FEATURE_MARGIN, SCREEN_HALF_WIDTH, SCREEN_SCALE_MM

    for nm in (520.0, 680.0):
        for plane in (-0.002, 0.002):
            orders = Grating(plane, 300e3).orders(nm * 1e-9, mark_distance - plane)
            y = max(offset for m, offset, _ in orders if m == 1)
            assert y < SCREEN_HALF_WIDTH - FEATURE_MARGIN
            for zero in (-4.0, 4.0):  # the beam's number on the screen's scale is 75 mm less the offset
                assert 75.0 - zero - 1000 * y > 0.0 and 75.0 - zero + 1000 * y < SCREEN_SCALE_MM
