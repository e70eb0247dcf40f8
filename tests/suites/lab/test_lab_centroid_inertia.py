"""The turntable's centring pin and bar, and the scoring of #13 (centroid and inertia): the bar on the pin
swinging with I_com + m (x_h − x_com)², which hole stands on the axis, a bar let go near the pin sliding on to
it, gates, milestones, the restored bench, both tolerances and the bar's middle taken for its centre of mass.

Test scaffolding stands in for the agent's hands: a load is set on the turntable or back in its place by
setting its pose, the turntable twisted by setting its state, the logger and the brake switched by setting
them."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.centroid_inertia import BAR_KG, HOLES, SPEC, CentroidEvaluator
from actloop.suites.lab.platforms.turntable import LOAD_PLACES, PIN_HEIGHT, TOP_Z, Bar, Load
from actloop.suites.lab.reference.centroid_inertia import HOLES as MOUNTED
from actloop.suites.lab.reference.centroid_inertia import centroid
from actloop.suites.lab.rig import DT
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from scoring_scaffold import succeeds_on_tolerance
from turntable_scaffold import flat, logged_groups, means, set_pose, table

KEY = "centroid_inertia"
Citation = dict[str, object]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def watcher(env: LabEnv) -> CentroidEvaluator:
    assert isinstance(env.evaluator, CentroidEvaluator)
    return env.evaluator


def bar(env: LabEnv) -> Bar:
    found = table(env).loads[1]
    assert isinstance(found, Bar)
    return found


def mount(env: LabEnv, hole: float | None) -> None:
    """Braked, the bar set on the pin through ``hole`` (or back in its place, None); the brake freed."""
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    b = bar(env)
    if hole is None:
        set_pose(env, "bar", *LOAD_PLACES["bar"], TABLE_TOP_Z + b.height / 2 + 0.0003)
    else:
        set_pose(env, "bar", b.length / 2 - hole, 0.0, TOP_Z + b.height / 2 + 0.0003)
    env.wait(0.5)
    table(env).braked = False
    env.wait(DT)


def put_disc(env: LabEnv, on: bool) -> None:
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    disc = table(env).loads[0]
    assert isinstance(disc, Load)
    x, y = (0.0, 0.0) if on else LOAD_PLACES["disc"]
    set_pose(env, "disc", x, y, (TOP_Z if on else TABLE_TOP_Z) + disc.origin_height + 0.0003)
    env.wait(0.5)
    table(env).braked = False
    env.wait(DT)


def swing(env: LabEnv, seconds: float = 16.0) -> tuple[float, float]:
    table(env).swing = [math.radians(10.0), 0.0]
    start = env.clock.time_s
    env.wait(seconds)
    return start + 6.0, env.clock.time_s


def test_the_bar_on_the_pin_swings_with_its_own_moment_plus_m_d_squared(env: LabEnv) -> None:
    mount(env, 0.075)
    x_com = env.instance.hidden["x_com"] / 1000
    expected = table(env).own_inertia + env.instance.hidden["I_com"] + BAR_KG * (0.075 - x_com) ** 2
    assert table(env).inertia() == pytest.approx(expected, rel=1e-5)
    swing(env, 10.0)
    assert table(env).period_free and table(env).period_holes == {"bar": 0.075}
    wire = table(env).wire
    moment = table(env).inertia()
    period = 2 * math.pi / math.sqrt(wire.stiffness / moment - (wire.damping / (2 * moment)) ** 2)
    assert table(env).shown_period == pytest.approx(period, rel=1e-7)


def test_a_bar_lying_off_the_pin_is_on_no_hole(env: LabEnv) -> None:
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    set_pose(env, "bar", 0.03, 0.05, TOP_Z + bar(env).height / 2 + 0.0003)  # on the turntable, off the pin
    env.wait(0.5)
    table(env).braked = False
    swing(env, 8.0)
    assert table(env).period_load == {"bar"} and table(env).period_holes == {}


def test_a_bar_let_go_two_millimetres_off_just_above_the_pin_slides_on_to_it(env: LabEnv) -> None:
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    set_pose(
        env,
        "bar",
        bar(env).length / 2 - 0.165 + 0.002,
        0.0015,
        TOP_Z + PIN_HEIGHT + bar(env).height / 2 + 0.002,
    )
    env.wait(1.0)
    hole_x = float(env.data.body("bar").xpos[0]) - (bar(env).length / 2 - 0.165)
    assert abs(hole_x) < 2e-4 and float(env.data.body("bar").xpos[2]) < TOP_Z + bar(env).height


def measure(env: LabEnv, tmp_path: Path, holes: tuple[float, ...] = MOUNTED) -> list[list[Citation]]:
    """The logger on; the turntable swung empty, with the disc and with the bar on each of ``holes``; the
    periods from 6 s after each twist cited, a period apart (a group for each load); everything back in its
    place."""
    table(env).logging = True
    windows = [swing(env)]
    put_disc(env, True)
    windows.append(swing(env))
    put_disc(env, False)
    for hole in holes:
        mount(env, hole)
        windows.append(swing(env))
    mount(env, None)
    return logged_groups(env, tmp_path, windows)


def answer(groups: list[list[Citation]]) -> dict[str, float]:
    x_com, i_com = centroid(means(groups))
    return {"x_com": x_com, "I_com": i_com}


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    watcher(env).acted = True
    env.submit(answer(groups), flat(groups))
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert max(result.errors.values()) <= 0.1, result.errors


def test_the_bars_middle_taken_for_its_centre_of_mass_misses_both(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    truth = env.instance.hidden
    assert abs(120.0 - truth["x_com"]) > 0.3
    moment = answer(groups)["I_com"] + BAR_KG * ((0.075 - truth["x_com"] / 1000) ** 2 - (0.075 - 0.12) ** 2)
    assert abs(moment / truth["I_com"] - 1) > 0.005


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    citations = flat(groups)
    citations[-1] = {**citations[-1], "value": float(citations[-1]["value"]) + 0.001}  # type: ignore[arg-type]
    env.submit(answer(groups), citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_one_hole_reaches_neither_l4_nor_the_evidence(env: LabEnv, tmp_path: Path) -> None:
    env.submit({"x_com": 120.0, "I_com": 0.0015}, flat(measure(env, tmp_path, MOUNTED[:1])))
    result, _ = env.score()
    assert (
        not result.milestones["L4"].passed
        and "holes [75.0] mm (two needed)" in result.milestones["L4"].evidence
    )
    assert not result.gates["evidence"].passed and "period at [75.0]" in result.gates["evidence"].evidence
    assert result.milestones["L2"].passed


def test_the_bar_left_on_the_pin_fails_only_l6(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    mount(env, MOUNTED[0])
    watcher(env).acted = True
    env.submit(answer(groups), flat(groups))
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert "bar is" in result.gates["restored"].evidence


@pytest.mark.parametrize(
    ("dx", "factor", "passes"),
    [(0.299, 1.00499, True), (-0.299, 0.99501, True), (0.301, 1.0, False), (0.0, 1.00502, False)],
)
def test_x_com_is_scored_within_three_tenths_of_a_mm_and_i_com_within_half_a_percent(
    dx: float, factor: float, passes: bool
) -> None:
    truth = {"x_com": 118.0, "I_com": 0.0015}
    judged = succeeds_on_tolerance({"x_com": 118.0 + dx, "I_com": 0.0015 * factor}, truth, SPEC.quantities)
    assert judged is passes


def test_the_cards_holes_are_the_bars() -> None:
    assert HOLES == (0.03, 0.075, 0.12, 0.165, 0.21) and set(MOUNTED) <= set(HOLES)


def test_t2_skills_brake_the_turntable_and_lift_the_bar_by_its_knob() -> None:
    """press locks the turntable; grasp takes the bar by its knob (located from the front camera a few
    millimetres off: seating a hole on the pin takes a finer hand than these skills) and lifts it."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.press(lab, "brake_key")
        before = server.run(lambda: {"bar": env.data.body("bar").xpos.tolist(), "braked": table(env).braked})
        skills.grasp(lab, "bar_knob")
        held = server.run(lambda: {"bar": env.data.body("bar").xpos.tolist()})["bar"]
        lab.close()
    env.close()
    assert before["braked"] and held[2] > before["bar"][2] + 0.05
