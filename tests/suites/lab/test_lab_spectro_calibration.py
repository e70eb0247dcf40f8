"""Scoring the spectrophotometric calibration: a calibration on the band's flank succeeds and one at the
peak fails, the evidence minimum (a reading of the unknown), L4 (the unknown and two other cuvettes at one
wavelength), the gates, the restored bench and the tolerance's edges (scaffolding in spectro_scaffold)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.spectro_calibration import (
    STANDARDS,
    UNKNOWN,
    SpectroCalibrationEvaluator,
    standard,
    unknown_concentration,
)
from actloop.suites.lab.platforms.spectrophotometer import CELL_ABSORBANCE, rack_slot
from actloop.suites.lab.reference.spectro_calibration import line
from spectro_scaffold import Citation, bench, cite, press, put, restore, seat


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("spectro_calibration", 2, render=False)
    yield bench
    bench.close()


def watcher(env: LabEnv) -> SpectroCalibrationEvaluator:
    assert isinstance(env.evaluator, SpectroCalibrationEvaluator)
    return env.evaluator


def flank(env: LabEnv, absorbance: float = 1.0) -> int:
    """The first whole wavelength to the red of the peak where the unknown absorbs ``absorbance`` or less
    (the scaffolding knows the dye; an agent scans for it)."""
    dye, c = watcher(env).dye, unknown_concentration(env.instance)
    nm = round(dye.lambda_max)
    while dye.epsilon(nm) * c > absorbance:
        nm += 1
    return nm


def calibrate(env: LabEnv, nm: int, cuvettes: tuple[int, ...] = tuple(range(UNKNOWN + 1))) -> tuple[
    list[Citation], float
]:  # fmt: skip
    """Blank on the solvent at ``nm``, read ``cuvettes`` there (the unknown last), and turn the unknown's
    reading into a concentration by a line over the others."""
    bench(env).meter.set_wavelength(nm)
    seat(env, 0)
    press(env, "blank")
    citations, points, unknown = [], [], 0.0
    for i in cuvettes:
        seat(env, i)
        citations.append(cite(env))
        value = float(citations[-1]["value"])  # type: ignore[arg-type]
        if i == UNKNOWN:
            unknown = value
        else:
            points.append((standard(env.instance, i) if i else 0.0, value))
    slope, intercept = line(points) if len(points) > 1 else (points[0][1] / points[0][0], 0.0)
    return citations, (unknown - intercept) / slope


def submit(env: LabEnv, citations: list[Citation], concentration: float) -> None:
    watcher(env).acted = True  # the robot would have carried the cuvettes
    restore(env)
    env.submit({"c_unknown": concentration}, citations)


def test_a_calibration_on_the_flank_succeeds_with_every_milestone(env: LabEnv) -> None:
    nm = flank(env)
    citations, concentration = calibrate(env, nm)
    submit(env, citations, concentration)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert score.errors["c_unknown"] < 0.5
    assert score.milestones["L4"].evidence == f"the unknown and 2 other cuvettes read at {nm} nm"


def test_a_calibration_at_the_peak_fails_on_the_unknowns_bent_reading(env: LabEnv) -> None:
    dye = watcher(env).dye
    peak = round(dye.lambda_max)
    true_unknown = dye.epsilon(peak) * unknown_concentration(env.instance) + CELL_ABSORBANCE
    assert true_unknown > 2.2 and dye.epsilon(peak) * standard(env.instance, STANDARDS) < 1.4
    citations, concentration = calibrate(env, peak)
    submit(env, citations, concentration)
    score, _ = env.score()
    assert score.gates["evidence"].passed and score.level == 4  # valid readings, the wrong result
    assert score.errors["c_unknown"] > 1.5 and not score.success


def test_a_run_without_a_reading_of_the_unknown_fails_the_evidence_minimum(env: LabEnv) -> None:
    citations, concentration = calibrate(env, flank(env))
    submit(env, citations[:-1], concentration)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "wavelengths with the unknown (cuvette_6) seated" in score.gates["evidence"].evidence
    assert not score.milestones["L4"].passed


@pytest.mark.parametrize(("cuvettes", "enough"), [((3, UNKNOWN), False), ((0, 3, UNKNOWN), True)])
def test_l4_asks_for_the_unknown_and_two_other_cuvettes_at_one_wavelength(
    env: LabEnv, cuvettes: tuple[int, ...], enough: bool
) -> None:
    citations, concentration = calibrate(env, flank(env), cuvettes)
    bench(env).meter.set_wavelength(flank(env) + 5)
    seat(env, 5)
    citations.append(cite(env))  # a third cuvette, at another wavelength: no line with the unknown
    submit(env, citations, concentration)
    score, _ = env.score()
    assert score.milestones["L4"].passed is enough and score.success is enough
    assert score.milestones["L3"].passed and score.gates["evidence"].passed


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations, concentration = calibrate(env, flank(env))
    watcher(env).acted = True
    env.submit({"c_unknown": concentration}, citations)  # the unknown still seated
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert f"cuvette_{UNKNOWN} is" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations, concentration = calibrate(env, flank(env))
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) - 0.002}  # type: ignore[arg-type]
    submit(env, citations, concentration)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert [v.valid for v in verdicts].count(False) == 1 and not verdicts[3].valid


def test_a_reading_with_the_unknown_lifted_fails_the_condition_gate(env: LabEnv) -> None:
    citations, concentration = calibrate(env, flank(env))
    put(env, UNKNOWN, rack_slot(UNKNOWN))  # the holder is empty: the display reads the open beam
    env.wait(0.5)
    citations.append(cite(env))
    submit(env, citations, concentration)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0199, True), (1.0202, False), (0.9801, True)])
def test_the_tolerance_is_two_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations, _ = calibrate(env, flank(env))
    submit(env, citations, unknown_concentration(env.instance) * factor)
    score, _ = env.score()
    assert score.errors["c_unknown"] == pytest.approx(abs(factor - 1) / 0.02, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds
