"""Scoring dye absorptivity on the spectrophotometer bench: gates, milestones, the restored bench, the
holder's seat, the keys, the instrument's physics and the LCDs (scaffolding in spectro_scaffold)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.card import task_card
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.dye_absorptivity import SPEC, DyeAbsorptivityEvaluator, dilution
from actloop.suites.lab.instance import draw
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.platforms.spectrophotometer import (
    CUVETTE_HALF,
    DECK_Z,
    HOLDER,
    rack_slot,
)
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.dye_absorptivity import fit_epsilon
from actloop.suites.lab.workspace_files import write_workspace
from spectro_scaffold import METERS, bench, cite, press, put, restore, seat


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("dye_absorptivity", 3, render=False)
    yield bench
    bench.close()


def watcher(env: LabEnv) -> DyeAbsorptivityEvaluator:
    assert isinstance(env.evaluator, DyeAbsorptivityEvaluator)
    return env.evaluator


def measure(env: LabEnv) -> tuple[list[dict[str, object]], float]:
    """Blank at the peak, readings of three dilutions there and of one at two more wavelengths; ε fitted
    from the dilutions (the scaffolding knows the peak; the agent would have scanned for it)."""
    peak = round(watcher(env).dye.lambda_max)
    bench(env).meter.set_wavelength(peak)
    seat(env, 0)
    press(env, "blank")
    stock = env.instance.public["stock_concentration"]
    citations, points = [], []
    for i in (4, 5, 6):
        seat(env, i)
        citations.append(cite(env))
        points.append((stock / dilution(i), float(citations[-1]["value"])))  # type: ignore[arg-type]
    for nm in (peak - 1, peak + 1):
        bench(env).meter.set_wavelength(nm)
        citations.append(cite(env))
    bench(env).meter.set_wavelength(peak)
    return citations, fit_epsilon(points)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations, epsilon = measure(env)
    watcher(env).acted = True  # scaffolding: the robot would have carried the cuvettes
    restore(env)
    env.submit({"lambda_max": watcher(env).dye.lambda_max, "epsilon": epsilon}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert score.errors["epsilon"] < 0.5 and score.milestones["L4"].passed


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations, epsilon = measure(env)
    watcher(env).acted = True
    env.submit({"lambda_max": watcher(env).dye.lambda_max, "epsilon": epsilon}, citations)  # cuvette seated
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "cuvette_6 is" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations, epsilon = measure(env)
    citations[1] = {**citations[1], "value": float(citations[1]["value"]) + 0.002}  # type: ignore[arg-type]
    restore(env)
    env.submit({"lambda_max": watcher(env).dye.lambda_max, "epsilon": epsilon}, citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert (
        "4 of 5 citations match" in score.gates["evidence"].evidence
        and [v.valid for v in verdicts].count(False) == 1 == len(verdicts) - 4
    )


def test_a_reading_with_no_cuvette_seated_fails_the_condition_gate(env: LabEnv) -> None:
    citations, epsilon = measure(env)
    put(env, 6, rack_slot(6))  # the holder is empty: the display reads the open beam
    env.wait(0.5)
    citations.append(cite(env))
    restore(env)
    env.submit({"lambda_max": watcher(env).dye.lambda_max, "epsilon": epsilon}, citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason
    assert all(v.valid for v in verdicts[:-1])


@pytest.mark.parametrize("wavelengths", [2, 3])
def test_one_dilution_read_without_a_blank_misses_l2_and_at_three_wavelengths_suffices(
    env: LabEnv, wavelengths: int
) -> None:
    peak = round(watcher(env).dye.lambda_max)
    citations = []
    seat(env, 5)
    for nm in (peak - 1, peak, peak + 1)[:wavelengths]:
        bench(env).meter.set_wavelength(nm)
        citations.append(cite(env))
    watcher(env).acted = True
    restore(env)
    env.submit(watcher(env).targets(), citations)
    score, _ = env.score()
    assert score.milestones["L1"].passed and score.milestones["L3"].passed
    assert not score.milestones["L2"].passed and score.level == 1
    assert score.milestones["L4"].passed is (wavelengths == 3)
    assert f"one dye cuvette at up to {wavelengths} wavelengths" in score.milestones["L4"].evidence


def test_swapped_cuvettes_or_one_lying_before_the_rack_are_not_restored(env: LabEnv) -> None:
    restore(env)
    check = env.evaluator.restored(env._model, env._world.data)
    assert check.passed, check.evidence
    put(env, 5, rack_slot(6))
    put(env, 6, rack_slot(5))
    env.wait(0.5)
    check = env.evaluator.restored(env._model, env._world.data)
    assert not check.passed and "cuvette_5 is 40 mm from its slot" in check.evidence
    restore(env)
    x, y, _ = rack_slot(3)
    lying = (x, y - 0.05, CUVETTE_HALF[0] + 0.74)
    joint = env._model.joint("cuvette_3_free").qposadr[0]
    put(env, 3, lying)
    env._world.data.qpos[joint + 3 : joint + 7] = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]
    env.wait(0.5)
    check = env.evaluator.restored(env._model, env._world.data)
    assert not check.passed and "cuvette_3 is" in check.evidence


def test_the_seat_takes_a_cuvette_on_the_floor_within_3_mm_of_the_centre(env: LabEnv) -> None:
    data = env._world.data
    for dx, seated in ((0.0, True), (0.0015, True), (0.0035, False)):
        put(env, 5, (HOLDER[0] + dx, HOLDER[1], DECK_Z + CUVETTE_HALF[1]))
        env.wait(1 / 240)
        assert (bench(env).seated(data) == 5) is seated, dx  # the walls leave 1.75 mm of play
    put(env, 5, (HOLDER[0], HOLDER[1], DECK_Z + CUVETTE_HALF[1] + 0.0025))
    assert bench(env).seated(data) is None  # raised 2.5 mm: not on the floor
    tilted = np.array([np.cos(0.06), np.sin(0.06), 0.0, 0.0])  # about 7 degrees
    put(env, 5, (HOLDER[0], HOLDER[1], DECK_Z + CUVETTE_HALF[1]))
    joint = env._model.joint("cuvette_5_free").qposadr[0]
    data.qpos[joint + 3 : joint + 7] = tilted
    env.wait(1 / 240)
    assert bench(env).seated(data) is None


@pytest.mark.parametrize(
    ("quantity", "offset", "succeeds"),
    [("lambda_max", 0.99, True), ("lambda_max", -1.01, False), ("epsilon", 1.0199, True),
     ("epsilon", 1.0202, False)],
)  # fmt: skip
def test_the_tolerances_are_one_nanometre_and_two_percent(
    env: LabEnv, quantity: str, offset: float, succeeds: bool
) -> None:
    citations, _ = measure(env)
    watcher(env).acted = True
    restore(env)
    result = dict(watcher(env).targets())
    result[quantity] = result[quantity] + offset if quantity == "lambda_max" else result[quantity] * offset
    env.submit(result, citations)
    score, _ = env.score()
    expected = abs(offset) if quantity == "lambda_max" else abs(offset - 1) / 0.02
    assert score.errors[quantity] == pytest.approx(expected, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds


def test_each_press_steps_the_wavelength_a_held_key_repeats_and_blank_zeroes(env: LabEnv) -> None:
    meter = bench(env).meter
    start = meter.wavelength
    for _ in range(3):
        press(env, "lambda_up")
    assert meter.wavelength == start + 3
    press(env, "lambda_down", depth=0.5 * KEY_TRAVEL_M)  # not past the switching point
    assert meter.wavelength == start + 3
    data, key = env._world.data, env._model.joint("key_lambda_down").qposadr[0]
    for _ in range(240):  # held 1 s: a step at the press, one at 0.5 s, then one every 0.05 s
        data.qpos[key] = -0.9 * KEY_TRAVEL_M
        env.wait(1 / 240)
    assert meter.wavelength == start + 3 - 11
    env.wait(1.0)
    assert env.panel.shown("wavelength") == meter.wavelength
    seat(env, 0)
    press(env, "blank")
    env.wait(1.0)
    assert abs(env.panel.shown("absorbance")) <= 0.002  # type: ignore[arg-type]
    assert bench(env).blanks[-1][1:] == (meter.wavelength, 0)


def test_stray_light_bends_the_stock_and_the_dilute_cuvettes_follow_beer_lambert(env: LabEnv) -> None:
    dye = watcher(env).dye
    bench(env).meter.set_wavelength(round(dye.lambda_max))
    seat(env, 0)
    press(env, "blank")
    stock = env.instance.public["stock_concentration"]
    shown = {}
    for i in (1, 6):
        seat(env, i)
        env.wait(0.6)
        shown[i] = env.panel.shown("absorbance")
    true = {i: dye.epsilon(round(dye.lambda_max)) * stock / dilution(i) for i in (1, 6)}
    assert true[1] > 2.5 and (shown[1] == "OL" or float(shown[1]) < 0.9 * true[1])  # type: ignore[arg-type]
    assert float(shown[6]) == pytest.approx(true[6], rel=0.01)  # type: ignore[arg-type]


def test_the_baseline_moves_with_the_wavelength_after_a_blank(env: LabEnv) -> None:
    seat(env, 0)
    press(env, "blank")
    for _ in range(20):
        press(env, "lambda_up")
    env.wait(0.6)
    assert float(env.panel.shown("absorbance")) < -0.05  # type: ignore[arg-type]  # a brighter lamp


def test_a_close_camera_reads_the_lcds_and_a_far_one_does_not(env: LabEnv) -> None:
    sites = env.platform.reading_sites(env._world.data)
    fy = 514.6
    for distance, readable in ((0.12, True), (1.0, False)):
        for name in METERS:
            point = sites[name].point
            pose = look_at(point + np.array([0.0, -0.2 * distance, distance]), point)
            (seen,) = visibility(
                env._model, env._world.data, "test", (np.array(pose.position), pose.rotation()), fy,
                {name: sites[name]},
            )  # fmt: skip
            assert seen.in_view and seen.unoccluded and (seen.pixel_size >= 14.0) is readable


def test_no_hidden_value_appears_in_the_workspace(tmp_path: Path) -> None:
    for seed in (1, 2, 3):
        instance = draw(SPEC, seed)
        files = write_workspace(tmp_path / str(seed), task_card(SPEC, instance), "http://127.0.0.1:1", "t")
        for path in files:
            numbers = set(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", path.read_text()))
            for value in instance.hidden.values():
                assert not any(f"{value:.{d}g}" in numbers for d in range(3, 9)), path.name
