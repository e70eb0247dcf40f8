"""Scoring weak-acid titration: readings in the buffer region and drops across the equivalence point give
c and the pKa (through the charge balance) with every milestone; the pH at half neutralisation misses the
pKa of a dilute acid; L4 needs the buffer region; the bench's pH satisfies the weak acid's charge balance;
the tolerances' edges (scaffolding in titration_scaffold)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.weak_acid_titration import TITRANT_M, equivalence_ml
from actloop.suites.lab.physics.acid_base import KW
from actloop.suites.lab.platforms.titration import DROP_ML, OPEN_RAD, TitrationBench
from actloop.suites.lab.reference.titration import DRIP_RAD, Row, per_drop, steepest_rise
from actloop.suites.lab.reference.weak_acid_titration import pka_at
from copy_scaffold import own_copy
from titration_scaffold import Citation, cite, hang, logged, on_stirrer, press_log, restore, run_to


def open_env(seed: int) -> LabEnv:
    return LabEnv("weak_acid_titration", seed, render=False)


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = open_env(1)
    yield bench
    bench.close()


def bench(env: LabEnv) -> TitrationBench:
    assert isinstance(env.platform, TitrationBench)
    return env.platform


def titrate(env: LabEnv, name: str = "titration.csv") -> tuple[list[Row], list[Row], dict[str, float]]:
    """Beaker 1 on the stirrer, the electrode hung, the logger on; settled readings at 30, 50 and 70 %
    neutralised, a stream to eight drops before the equivalence point, a drip to six drops past
    it: the buffer region's rows, the drip's last row at each drop count, and c and pKa from them."""
    on_stirrer(env, 1)
    hang(env)
    press_log(env)
    equivalence = equivalence_ml(env.instance) / DROP_ML
    marks = []
    for share in (0.3, 0.5, 0.7):
        run_to(env, OPEN_RAD, math.floor(share * equivalence))
        env.wait(10.0)
        marks.append(env.clock.time_s)
    run_to(env, OPEN_RAD, math.floor(equivalence) - 8)
    env.wait(8.0)
    start = env.clock.time_s
    run_to(env, DRIP_RAD, math.floor(equivalence + 6))
    env.wait(8.0)
    press_log(env)
    rows = logged(env, name)
    region = [[r for r in rows if r.time_s <= t][-1] for t in marks]
    points = per_drop([r for r in rows if r.time_s >= start])
    jump = steepest_rise([(n, row.ph) for n, row in points])
    sample_ml = env.instance.public["sample_ml"]
    c = TITRANT_M * (jump - 0.5) * DROP_ML / sample_ml
    pkas = [pka_at(sample_ml, c, r.drops * DROP_ML, r.ph) for r in region]
    return region, [row for _, row in points], {"c_HA": c, "pKa": sum(pkas) / len(pkas)}


Titrated = tuple[LabEnv, list[Row], list[Row], dict[str, float]]


@pytest.fixture(scope="module")
def titration() -> Iterator[Titrated]:
    """Seed 1 titrated once (:func:`titrate`): the bench, the buffer region's rows, the drip's rows and the
    answer they give."""
    bench = open_env(1)
    yield bench, *titrate(bench)
    bench.close()


@pytest.fixture
def titrated(titration: Titrated) -> Iterator[Titrated]:
    """The test's own copy of the titration, to go on from."""
    yield from own_copy(titration)


def submit(env: LabEnv, citations: list[Citation], answer: dict[str, float]) -> None:
    env.evaluator.acted = True  # type: ignore[attr-defined]  # the robot would have done all this
    restore(env)
    env.submit(answer, citations)


def test_the_buffer_region_and_a_drip_across_the_equivalence_point_give_c_and_pka(titrated: Titrated) -> None:
    env, region, drip, answer = titrated
    submit(env, [cite("titration.csv", r) for r in region + drip], answer)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert score.errors["c_HA"] < 0.4 and score.errors["pKa"] < 0.4
    assert "valid readings of a sample in its buffer region" in score.milestones["L4"].evidence


def test_the_ph_at_half_neutralisation_misses_a_dilute_acids_pka() -> None:
    env = open_env(2)  # pKa 3.38 at 5.1 mmol/L: the acid's own H+ lifts the half-neutralised pH by 0.13
    region, drip, answer = titrate(env)
    submit(env, [cite("titration.csv", r) for r in region + drip], {**answer, "pKa": region[1].ph})
    score, _ = env.score()
    assert score.errors["pKa"] > 3 and not score.success
    assert score.errors["c_HA"] < 1
    env.close()


def test_l4_needs_a_reading_in_the_buffer_region(titrated: Titrated) -> None:
    env, _, drip, answer = titrated
    submit(env, [cite("titration.csv", r) for r in drip], answer)
    score, _ = env.score()
    assert score.gates["evidence"].passed and not score.milestones["L4"].passed and not score.success


def test_the_benchs_ph_satisfies_the_weak_acids_charge_balance(env: LabEnv) -> None:
    """[H⁺] + [Na⁺] = [OH⁻] + [A⁻] with [A⁻] = C Ka / (Ka + [H⁺]), before, at and after the equivalence
    point, to a part in a million of the largest term."""
    on_stirrer(env, 1)
    equivalence = equivalence_ml(env.instance) / DROP_ML
    sample_ml, c, pka = (
        env.instance.public["sample_ml"],
        env.instance.hidden["c_HA"],
        env.instance.hidden["pKa"],
    )
    for target in (0.5 * equivalence, equivalence - 1, equivalence + 1, equivalence + 20):
        run_to(env, OPEN_RAD if bench(env).burette.drops < target - 8 else DRIP_RAD, math.floor(target))
        volume = sample_ml + bench(env).burette.drops * DROP_ML
        h = 10.0 ** -bench(env).beaker_ph(0)
        sodium = TITRANT_M * bench(env).burette.drops * DROP_ML / volume
        acid = c * sample_ml / volume
        anion = acid * 10.0**-pka / (10.0**-pka + h)
        terms = (h, sodium, KW / h, anion)
        assert abs(h + sodium - KW / h - anion) <= 1e-6 * max(terms)


@pytest.mark.parametrize(("offset", "succeeds"), [(0.0299, True), (-0.0301, False)])
def test_the_pka_is_scored_within_three_hundredths(titrated: Titrated, offset: float, succeeds: bool) -> None:
    env, region, drip, _ = titrated
    truth = {"c_HA": env.instance.hidden["c_HA"], "pKa": env.instance.hidden["pKa"] + offset}
    submit(env, [cite("titration.csv", r) for r in region + drip], truth)
    score, _ = env.score()
    assert score.errors["pKa"] == pytest.approx(abs(offset) / 0.03, rel=1e-6)
    assert score.success is succeeds


def test_the_concentration_is_scored_within_one_percent(titrated: Titrated) -> None:
    env, region, drip, _ = titrated
    truth = {"c_HA": env.instance.hidden["c_HA"] * 1.0099, "pKa": env.instance.hidden["pKa"]}
    submit(env, [cite("titration.csv", r) for r in region + drip], truth)
    score, _ = env.score()
    assert score.errors["c_HA"] == pytest.approx(0.99, rel=1e-6) and score.success
