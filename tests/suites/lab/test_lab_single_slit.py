"""Scoring the single slit's width on the laser rail: the dark fringes where the Fraunhofer zeros put them,
drawn dark where the log says, the seated-slide condition, gates, milestones and the restored bench.

Test scaffolding stands in for the agent's hands and eyes: the slit is seated and the carriage set by
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
from actloop.suites.lab.experiments.single_slit import SlitEvaluator, SlitRail
from actloop.suites.lab.platforms.optical_rail import (
    AXIS_Z,
    OBJECT_X,
    RAIL_Y,
    SCREEN,
    SCREEN_POST_X,
)
from actloop.suites.lab.reference.laser_rail import screen_ticks
from actloop.suites.lab.reference.motion import GC_OFFSET
from actloop.suites.lab.reference.single_slit import beam_row, dark_fringes, fit_width, to_mm
from rail_scaffold import seat_item, serve_view, to_stand, values

SEED = 4
SLIT_X = OBJECT_X + 0.10
FRINGES = [f"dark_{m:+d}" for m in range(-6, 7) if m]
INDEXES = ["slit_index", "screen_index"]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("single_slit", SEED, render=False)
    yield bench
    bench.close()


def rail(env: LabEnv) -> SlitRail:
    assert isinstance(env.platform, SlitRail)
    return env.platform


def seat(env: LabEnv, x: float = SLIT_X) -> None:
    """Move the slit carriage to ``x`` and set the slit in its holder."""
    seat_item(env, "slit", "slit", x)
    env.wait(1.5)


def read(env: LabEnv, names: list[str]) -> list[dict[str, object]]:
    """Serve a view showing ``names`` readably (scaffolding) and cite what they showed."""
    return serve_view(env, names, 3.6)


def width(env: LabEnv, citations: list[dict[str, object]]) -> float:
    """What the agent computes: the exact fit over the cited fringes, L between the index marks."""
    read_ = values(citations)
    fringes = {int(n.removeprefix("dark_")): v for n, v in read_.items() if n.startswith("dark_")}
    return fit_width(fringes, read_["screen_index"] - read_["slit_index"], env.instance.public["wavelength"])


def measure(env: LabEnv, names: list[str] = FRINGES + INDEXES) -> list[dict[str, object]]:
    seat(env)
    return read(env, names)


def finish(env: LabEnv, answer: float, citations: list[dict[str, object]], restore: bool = True) -> None:
    assert isinstance(env.evaluator, SlitEvaluator)
    env.evaluator.acted = True  # scaffolding: the robot would have carried the slit
    if restore:
        to_stand(env, "slit")
        env.wait(1.0)
    env.submit({"a": answer}, citations)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env)
    finish(env, width(env, citations), citations)
    score, verdicts = env.score()
    assert len(verdicts) == 14 and all(v.valid for v in verdicts)
    assert score.success and score.e <= 0.5 and score.process_score == 100, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


def test_the_dark_fringes_are_the_fraunhofer_zeros_from_the_slits_plane(env: LabEnv) -> None:
    """The logged fringes satisfy a sin θ = m λ with tan θ = y / L and L from the slit's plane (δ beyond its
    mark) to the screen, far under a tenth of the tolerance; L from the marks alone is off by δ."""
    seat(env)
    h, wavelength = env.instance.hidden, env.instance.public["wavelength"]
    assert abs(h["principal_offset"]) <= 0.001 and 40e-6 <= h["a"] <= 100e-6
    true = rail(env).true_values(env._world.data)
    length = (true["screen_index"] - true["slit_index"]) / 1000 - h["principal_offset"]
    centre = (true["dark_+1"] + true["dark_-1"]) / 2
    for m in range(-6, 7):
        if m:
            y = (true[f"dark_{m:+d}"] - centre) / 1000
            assert h["a"] * math.sin(math.atan2(y, length)) == pytest.approx(m * wavelength, rel=1e-9)
    fringes = {m: true[f"dark_{m:+d}"] for m in range(-6, 7) if m}
    assert fit_width(fringes, 1000 * length, wavelength) == pytest.approx(h["a"], rel=1e-9)
    marks_only = fit_width(fringes, 1000 * (length + h["principal_offset"]), wavelength)
    assert marks_only / h["a"] - 1 == pytest.approx(h["principal_offset"] / length, rel=0.01)


def test_the_rendered_screen_is_dark_where_the_log_says() -> None:
    """A view of the screen's back from where the wrist camera is when the hand holds its post: the dark
    fringes read back from the image (against the printed ticks) lie where the log says, and the light is
    lowest there between the lobes."""
    env = LabEnv("single_slit", SEED)
    try:
        seat(env)
        screen_x = rail(env).carriage_x(env._world.data, SCREEN.name)
        eye = np.array([screen_x + SCREEN_POST_X + GC_OFFSET, RAIL_Y, AXIS_Z])
        pose = look_at(eye, eye - np.array([1.0, 0.0, 0.0]))
        renderer = env.renderer()
        for name, face in rail(env).redraw(env.panel.shown).items():
            renderer.upload_texture(name, face)
        env._model.cam_fovy[env._model.camera("observer").id] = 50.0
        image = renderer.render_from(env._world.data, np.array(pose.position), pose.rotation())
        columns = dark_fringes(image)
        marks, scale = screen_ticks(image, beam_row(image))
        read_back = to_mm(columns, marks, scale)
        true = rail(env).true_values(env._world.data)
        for m, value in read_back.items():
            shown = env.instrument_log.shown_at(f"dark_{m:+d}", env.clock.time_s)
            assert isinstance(shown, float) and abs(value - shown) < 0.5, m
            assert abs(value - true[f"dark_{m:+d}"]) < 0.25, m
        light = image[beam_row(image), :, 0].astype(float) - image[beam_row(image), :, 2]
        for m in (-2, -1, 1, 2):
            spacing = abs(columns[2] - columns[1])
            between = [columns[m] + k * spacing / 2 for k in (-1, 1)]  # the lobes' middles either side
            assert light[round(columns[m])] + 10 < min(light[round(c)] for c in between)
        h = env.instance.hidden
        length = true["screen_index"] - true["slit_index"] - 1000 * h["principal_offset"]
        assert abs(fit_width(read_back, length, env.instance.public["wavelength"]) / h["a"] - 1) < 0.001
    finally:
        env.close()


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = measure(env)
    finish(env, width(env, citations), citations, restore=False)  # the slit is still in the carriage
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "slit is not in its stand" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env)
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) + 1.0}  # type: ignore[arg-type]
    finish(env, env.instance.hidden["a"], citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "13 of 14 citations match" in score.gates["evidence"].evidence
    assert [v.valid for v in verdicts].count(False) == 1


def test_readings_without_the_slit_seated_fail_the_condition_gate(env: LabEnv) -> None:
    citations = measure(env)
    to_stand(env, "slit")  # back in its stand: no pattern
    env.wait(0.5)
    assert rail(env).seats["slit"] is None and not rail(env).diffracting
    assert all(offset is None for offset in rail(env).feature_offsets().values())
    citations += read(env, INDEXES)
    finish(env, env.instance.hidden["a"], citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and all("did not hold" in v.reason for v in verdicts[-2:])
    assert all(v.valid for v in verdicts[:-2])


@pytest.mark.parametrize("side", ["-", "+"])
def test_fringes_on_one_side_only_miss_l4(env: LabEnv, side: str) -> None:
    citations = measure(env, [n for n in FRINGES if n.startswith(f"dark_{side}")] + INDEXES)
    finish(env, env.instance.hidden["a"], citations)
    score, _ = env.score()
    other = "plus" if side == "-" else "minus"
    assert (
        not score.milestones["L4"].passed
        and f"a dark fringe on the {other} side" in score.milestones["L4"].evidence
    )


@pytest.mark.parametrize(
    ("factor", "succeeds"), [(1.0099, True), (1.0101, False), (0.9901, True), (0.9899, False)]
)
def test_the_tolerance_is_one_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env)
    finish(env, env.instance.hidden["a"] * factor, citations)
    score, _ = env.score()
    assert score.errors["a"] == pytest.approx(abs(factor - 1) / 0.01, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds and score.success is succeeds


def test_the_naive_shortcut_fails_where_both_sides_succeed(env: LabEnv) -> None:
    """The first dark fringe's distance from the central maximum, both read to the scale's resolution,
    misses; the fringes on both sides meet the tolerance (the audit's models, on this instance and over
    the first hundred)."""
    plan = plan_of("single_slit")
    a = env.instance.hidden["a"]
    assert abs(float(plan.naive.estimate(env.instance)["a"]) / a - 1) > 0.01
    assert abs(float(plan.standard.estimate(env.instance)["a"]) / a - 1) < 0.01
    from actloop.suites.lab.instance import draw

    instances = [draw(env.spec, seed) for seed in range(1, 101)]
    naive = sum(abs(float(plan.naive.estimate(i)["a"]) / i.hidden["a"] - 1) <= 0.01 for i in instances)
    standard = sum(abs(float(plan.standard.estimate(i)["a"]) / i.hidden["a"] - 1) <= 0.01 for i in instances)
    assert naive < 35 and standard >= 95


def test_the_fit_is_exact_in_the_angle_where_a_straight_slope_is_not() -> None:
    a, wavelength, length = 40e-6, 650e-9, 400.0
    fringes = {m: 12.3 + length * math.tan(math.asin(m * wavelength / a)) for m in range(-6, 7) if m}
    assert fit_width(fringes, length, wavelength) == pytest.approx(a, rel=1e-9)
    slope = float(np.polyfit(list(fringes), list(fringes.values()), 1)[0])
    assert wavelength * length / slope / a - 1 < -0.002  # small angles: a few tenths of a percent short


def test_the_card_gives_the_wavelength_and_hides_the_slit() -> None:
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.experiments.single_slit import SPEC
    from actloop.suites.lab.instance import draw

    instance = draw(SPEC, 1)
    card = task_card(SPEC, instance)
    assert "6.5e-07 m" in card and "dark_-6 ... dark_-1 on the side of falling numbers" in card
    assert "the slit's plane is somewhere in the frame's thickness, not marked" in card
    assert all(f"{v:.4g}" not in card for v in instance.hidden.values())
