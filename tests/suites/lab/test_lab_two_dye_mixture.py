"""Scoring the two-dye mixture: both concentrations solved from two wavelengths succeed and each dye read
alone at its peak fails, the evidence minimum (a reading of the mixture), L4 (the mixture and both
standards at two wavelengths), the gates, the restored bench and the tolerances' edges (scaffolding in
spectro_scaffold)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.two_dye_mixture import (
    BLANK,
    DYE_1,
    DYE_2,
    MIXTURE,
    TwoDyeMixtureEvaluator,
    mixture,
)
from actloop.suites.lab.platforms.spectrophotometer import rack_slot
from actloop.suites.lab.reference.two_dye_mixture import unmix
from spectro_scaffold import Citation, cite, put, read_through, restore

SEED = 3


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("two_dye_mixture", SEED, render=False)
    yield bench
    bench.close()


def watcher(env: LabEnv) -> TwoDyeMixtureEvaluator:
    assert isinstance(env.evaluator, TwoDyeMixtureEvaluator)
    return env.evaluator


def peaks(env: LabEnv) -> tuple[int, int]:
    """Each dye's peak, whole nm (the scaffolding knows the dyes; an agent sweeps each standard)."""
    first, second = watcher(env).dyes
    return round(first.lambda_max), round(second.lambda_max)


def measure(env: LabEnv, wavelengths: tuple[int, ...]) -> tuple[list[Citation], tuple[float, float]]:
    """The blank, both standards and the mixture read at ``wavelengths``; both concentrations solved."""
    cited = read_through(env, (BLANK, DYE_1, DYE_2, MIXTURE), wavelengths)

    def corrected(i: int) -> list[float]:
        return [float(cited[i, nm]["value"]) - float(cited[BLANK, nm]["value"]) for nm in wavelengths]  # type: ignore[arg-type]

    c_std = env.instance.public["standard_concentration"]
    return list(cited.values()), unmix(corrected(DYE_1), corrected(DYE_2), corrected(MIXTURE), c_std)


def submit(env: LabEnv, citations: list[Citation], c_1: float, c_2: float) -> None:
    watcher(env).acted = True  # the robot would have carried the cuvettes
    restore(env)
    env.submit({"c_1": c_1, "c_2": c_2}, citations)


def test_both_concentrations_from_two_wavelengths_succeed_with_every_milestone(env: LabEnv) -> None:
    citations, (c_1, c_2) = measure(env, peaks(env))
    submit(env, citations, c_1, c_2)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert max(score.errors.values()) < 0.5
    assert "read at 2 wavelengths" in score.milestones["L4"].evidence


def test_each_dye_read_alone_at_its_peak_fails(env: LabEnv) -> None:
    second = watcher(env).dyes[1]
    peak_1, peak_2 = peaks(env)
    assert second.epsilon(peak_1) / second.epsilon(peak_2) > 0.25  # dye 2 absorbs at dye 1's peak
    cited = read_through(env, (DYE_1, DYE_2, MIXTURE), (peak_1, peak_2))
    c_std = env.instance.public["standard_concentration"]

    def value(i: int, nm: int) -> float:
        return float(cited[i, nm]["value"])  # type: ignore[arg-type]

    c_1 = value(MIXTURE, peak_1) / value(DYE_1, peak_1) * c_std
    c_2 = value(MIXTURE, peak_2) / value(DYE_2, peak_2) * c_std
    submit(env, list(cited.values()), c_1, c_2)
    score, _ = env.score()
    assert score.gates["evidence"].passed and score.level == 4  # valid readings, the wrong result
    assert score.errors["c_1"] > 2 and not score.success


def test_a_run_without_a_reading_of_the_mixture_fails_the_evidence_minimum(env: LabEnv) -> None:
    citations, (c_1, c_2) = measure(env, peaks(env))
    submit(env, citations[:-2], c_1, c_2)  # the mixture's two readings left out
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "wavelengths with the mixture (cuvette_3) seated" in score.gates["evidence"].evidence
    assert "read at 0 wavelengths" in score.milestones["L4"].evidence


def test_l4_asks_for_the_mixture_and_both_standards_at_two_wavelengths(env: LabEnv) -> None:
    peak_1, peak_2 = peaks(env)
    one = read_through(env, (DYE_1, DYE_2, MIXTURE), (peak_1,))
    other = read_through(env, (DYE_1, MIXTURE), (peak_2,))  # dye 2's standard not read there
    c_1, c_2 = mixture(env.instance)
    submit(env, [*one.values(), *other.values()], c_1, c_2)
    score, _ = env.score()
    assert not score.milestones["L4"].passed and score.level == 3
    assert f"read at 1 wavelengths ({peak_1} nm; needed 2)" in score.milestones["L4"].evidence


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations, (c_1, c_2) = measure(env, peaks(env))
    watcher(env).acted = True
    env.submit({"c_1": c_1, "c_2": c_2}, citations)  # the mixture still seated
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert f"cuvette_{MIXTURE} is" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations, (c_1, c_2) = measure(env, peaks(env))
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 0.001}  # type: ignore[arg-type]
    submit(env, citations, c_1, c_2)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert [v.valid for v in verdicts].count(False) == 1 and not verdicts[2].valid


def test_a_reading_with_the_mixture_lifted_fails_the_condition_gate(env: LabEnv) -> None:
    citations, (c_1, c_2) = measure(env, peaks(env))
    put(env, MIXTURE, rack_slot(MIXTURE))  # the holder is empty: the display reads the open beam
    env.wait(0.5)
    citations.append(cite(env))
    submit(env, citations, c_1, c_2)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(
    ("quantity", "factor", "succeeds"),
    [("c_1", 1.0299, True), ("c_1", 1.0302, False), ("c_2", 0.9701, True), ("c_2", 0.9698, False)],
)
def test_the_tolerances_are_three_percent_each(
    env: LabEnv, quantity: str, factor: float, succeeds: bool
) -> None:
    citations, _ = measure(env, peaks(env))
    result = dict(watcher(env).targets())
    result[quantity] *= factor
    submit(env, citations, result["c_1"], result["c_2"])
    score, _ = env.score()
    assert score.errors[quantity] == pytest.approx(abs(factor - 1) / 0.03, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds
