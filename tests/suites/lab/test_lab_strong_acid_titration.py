"""Scoring strong-acid titration: a titration dripping across the equivalence point gives the acid within
its tolerance with every milestone; the sample's own pH does not (the electrode's error); the evidence
minimum, L4's bracket, the gates (a fabricated row, a reading with the electrode in its storage well or
touched), the restored bench and the tolerance's edges (scaffolding in titration_scaffold)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.strong_acid_titration import TITRANT_M, equivalence_ml
from actloop.suites.lab.platforms.titration import DROP_ML, OPEN_RAD
from actloop.suites.lab.reference.titration import DRIP_RAD, Row, per_drop, steepest_rise
from copy_scaffold import own_copy
from titration_scaffold import (
    Citation,
    cite,
    hang,
    logged,
    on_stirrer,
    press_log,
    restore,
    run_to,
    store,
    turn,
)


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("strong_acid_titration", 1, render=False)
    yield bench
    bench.close()


def titrate(env: LabEnv, stop_ml: float = 0.3, name: str = "titration.csv") -> tuple[list[Row], float]:
    """Beaker 1 on the stirrer, the electrode hung, the logger on; a stream to eight drops before the
    equivalence point, a drip to ``stop_ml`` past it; the drip's last row at each drop count and the acid
    they give (the middle of the drop that raised the pH most)."""
    on_stirrer(env, 1)
    hang(env)
    press_log(env)
    equivalence = equivalence_ml(env.instance) / DROP_ML
    run_to(env, OPEN_RAD, math.floor(equivalence) - 8)
    env.wait(8.0)
    start = env.clock.time_s
    run_to(env, DRIP_RAD, math.floor(equivalence + stop_ml / DROP_ML))
    env.wait(8.0)
    press_log(env)
    points = per_drop([r for r in logged(env, name) if r.time_s >= start])
    jump = steepest_rise([(n, row.ph) for n, row in points])
    return [row for _, row in points], TITRANT_M * (jump - 0.5) * DROP_ML / env.instance.public["sample_ml"]


Titrated = tuple[LabEnv, list[Row], float]


@pytest.fixture(scope="module")
def titration() -> Iterator[Titrated]:
    """Seed 1 titrated once (:func:`titrate`): the bench, the drip's rows and the acid they give."""
    bench = LabEnv("strong_acid_titration", 1, render=False)
    yield bench, *titrate(bench)
    bench.close()


@pytest.fixture
def titrated(titration: Titrated) -> Iterator[Titrated]:
    """The test's own copy of the titration, to go on from."""
    yield from own_copy(titration)


def submit(env: LabEnv, citations: list[Citation], c: float) -> None:
    env.evaluator.acted = True  # type: ignore[attr-defined]  # the robot would have done all this
    restore(env)
    env.submit({"c_HCl": c}, citations)


def test_a_drip_across_the_equivalence_point_gives_the_acid_with_every_milestone(titrated: Titrated) -> None:
    env, rows, c = titrated
    submit(env, [cite("titration.csv", r) for r in rows], c)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert score.errors["c_HCl"] < 0.4
    assert "within 0.5 mL of its equivalence point on both sides" in score.milestones["L4"].evidence


def test_the_samples_own_ph_misses_the_acid_by_the_electrodes_error(env: LabEnv) -> None:
    on_stirrer(env, 1)
    hang(env)
    press_log(env)
    env.wait(15.0)
    row = logged(env, "start.csv")[-1]
    submit(env, [cite("start.csv", row)], 10.0**-row.ph)
    score, _ = env.score()
    h = env.instance.hidden
    electrode_error = abs(
        10.0 ** -(7 + h["electrode_slope"] * (-math.log10(h["c_HCl"]) - 7) + h["electrode_offset"])
        / h["c_HCl"]
        - 1
    )
    assert score.errors["c_HCl"] == pytest.approx(electrode_error / 0.005, rel=0.05)
    assert score.errors["c_HCl"] > 1 and not score.success
    assert "volumes of titrant in the sample read" in score.gates["evidence"].evidence
    assert not score.milestones["L4"].passed


def test_l4_asks_for_readings_on_both_sides_of_the_equivalence_point(titrated: Titrated) -> None:
    env, rows, c = titrated
    before = [r for r in rows if r.drops * DROP_ML < equivalence_ml(env.instance)]
    submit(env, [cite("titration.csv", r) for r in before], c)
    score, _ = env.score()
    assert score.gates["evidence"].passed
    assert not score.milestones["L4"].passed and not score.success


def test_an_unrestored_bench_fails_only_l6(titrated: Titrated) -> None:
    env, rows, c = titrated
    env.evaluator.acted = True  # type: ignore[attr-defined]
    restore(env)
    turn(env, 0.1)  # the stopcock left a little open: it barely drips, but it is open
    env.submit({"c_HCl": c}, [cite("titration.csv", r) for r in rows])
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "stopcock is open" in score.gates["restored"].evidence


def test_a_fabricated_row_and_readings_out_of_the_sample_or_touched_fail_their_gates(
    titrated: Titrated,
) -> None:
    env, rows, c = titrated
    citations = [cite("titration.csv", r) for r in rows]
    citations[3] = cite("titration.csv", rows[3], rows[3].ph + 0.01)
    store(env)
    press_log(env)
    env.wait(3.0)
    press_log(env)
    stored = logged(env, "stored.csv")[-1]
    citations.append(cite("stored.csv", stored))  # the electrode back in its storage well
    submit(env, citations, c)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not verdicts[3].valid
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


def test_a_reading_with_the_electrode_held_by_the_robot_is_not_in_a_sample(env: LabEnv) -> None:
    on_stirrer(env, 1)
    hang(env)
    env.wait(2.0)
    watched = env.evaluator
    electrode = env.model.geom("electrode_handle").id
    watched.observe(env.clock.time_s, env.data, {electrode})  # type: ignore[attr-defined]
    assert watched.sample.now is None  # type: ignore[attr-defined]
    watched.observe(env.clock.time_s, env.data, set())  # type: ignore[attr-defined]
    assert watched.sample.now == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(("factor", "succeeds"), [(0.99501, True), (1.00499, True), (1.00502, False)])
def test_the_tolerance_is_half_a_percent(titrated: Titrated, factor: float, succeeds: bool) -> None:
    env, rows, _ = titrated
    submit(env, [cite("titration.csv", r) for r in rows], env.instance.hidden["c_HCl"] * factor)
    score, _ = env.score()
    assert score.errors["c_HCl"] == pytest.approx(abs(factor - 1) / 0.005, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds
