"""Scoring crystal-violet kinetics: two logged runs at different hydroxide concentrations give k2, one run
does not; the fading on the bench against the analytic decay; pours that miss are spills; the evidence
minimum, L4's runs, the gates, the restored bench and the tolerance's edges (scaffolding in
spectro_scaffold: a vial tipped by setting its pose, the logger's rows cited)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.crystal_violet_kinetics import (
    CrystalVioletEvaluator,
    hydroxide_after_mixing,
)
from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET
from actloop.suites.lab.platforms.spectrophotometer import CELL_ABSORBANCE, rack_slot
from actloop.suites.lab.platforms.spectrophotometer_kinetics import (
    CRYSTAL_VIOLET_DYE,
    KineticsBench,
)
from actloop.suites.lab.reference.crystal_violet_kinetics import decay_rate, rows_of
from copy_scaffold import own_copy
from spectro_scaffold import Citation, cite, hold_vial, pour, press, put, restore, seat

NM = 590
RUN = 32.0
"""Each run logs a little over the 30 s L4 asks for."""


def open_bench() -> LabEnv:
    """Seed 1, the meter set to :data:`NM`."""
    bench = LabEnv("crystal_violet_kinetics", 1, render=False)
    bench.platform.meter.set_wavelength(NM)  # type: ignore[attr-defined]
    return bench


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = open_bench()
    yield bench
    bench.close()


def kinetics(env: LabEnv) -> KineticsBench:
    assert isinstance(env.platform, KineticsBench)
    return env.platform


def watcher(env: LabEnv) -> CrystalVioletEvaluator:
    assert isinstance(env.evaluator, CrystalVioletEvaluator)
    return env.evaluator


def blank(env: LabEnv) -> None:
    seat(env, 0)
    press(env, "blank")


def run(env: LabEnv, cuvette: int, vial: int, seconds: float, name: str) -> tuple[list[Citation], float]:
    """Seat ``cuvette``, pour ``vial`` into it, log ``seconds``, export (every row logged so far): this
    run's rows cited and their k."""
    seat(env, cuvette)
    pour(env, vial)
    press(env, "log")
    start = env.clock.time_s
    env.wait(seconds)
    press(env, "log")
    rows = [r for r in rows_of(env.export("logger", name)["csv"]) if r[1] >= start and r[2] > 0.05]
    cited: list[Citation] = [{"file": name, "row": i, "column": "absorbance", "value": a} for i, _, a in rows]
    return cited, decay_rate(rows)


def two_runs(env: LabEnv) -> tuple[list[Citation], float]:
    blank(env)
    fast, k_fast = run(env, 1, 4, RUN, "fast.csv")
    slow, k_slow = run(env, 2, 1, RUN, "slow.csv")
    return fast + slow, (k_fast - k_slow) / (hydroxide_after_mixing(4) - hydroxide_after_mixing(1))


Ran = tuple[LabEnv, list[Citation], float]


@pytest.fixture(scope="module")
def both_runs() -> Iterator[Ran]:
    """The two runs done once (:func:`two_runs`): the bench, the citations and the k2 they give."""
    bench = open_bench()
    yield bench, *two_runs(bench)
    bench.close()


@pytest.fixture
def ran(both_runs: Ran) -> Iterator[Ran]:
    """The test's own copy of the two runs, to go on from."""
    yield from own_copy(both_runs)


def submit(env: LabEnv, citations: list[Citation], k2: float) -> None:
    watcher(env).acted = True  # the robot would have poured
    restore(env)
    env.submit({"k2": k2}, citations)


def test_two_runs_at_different_hydroxide_give_k2_with_every_milestone(ran: Ran) -> None:
    env, citations, k2 = ran
    submit(env, citations, k2)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, score.gates
    assert score.errors["k2"] < 0.25
    assert "at 2 hydroxide concentrations [0.01, 0.04]" in score.milestones["L4"].evidence


def test_one_run_over_its_hydroxide_misses_the_background_fading(env: LabEnv) -> None:
    blank(env)
    citations, k = run(env, 1, 4, RUN, "only.csv")
    submit(env, citations, k / hydroxide_after_mixing(4))
    score, _ = env.score()
    h = env.instance.hidden
    assert score.errors["k2"] == pytest.approx(h["k0"] / (h["k2"] * 0.04) / 0.02, rel=0.05)
    assert score.errors["k2"] > 1 and not score.success
    assert "hydroxide concentrations (mixed cuvettes of dye and base)" in score.gates["evidence"].evidence
    assert not score.milestones["L4"].passed and score.level == 3


def test_the_displayed_fading_follows_the_analytic_decay(env: LabEnv) -> None:
    blank(env)
    seat(env, 3)
    pour(env, 2)
    c = kinetics(env).vessels.contents(3, env.clock.time_s).concentration(CRYSTAL_VIOLET)
    start = env.clock.time_s
    h = env.instance.hidden
    rate = h["k0"] + h["k2"] * hydroxide_after_mixing(2)
    for _ in range(4):
        env.wait(15.0)
        elapsed = env.clock.time_s - start
        expected = CELL_ABSORBANCE + CRYSTAL_VIOLET_DYE.epsilon(NM) * c * math.exp(-rate * elapsed)
        shown = env.panel.shown("absorbance")
        assert isinstance(shown, float) and abs(shown - (expected - CELL_ABSORBANCE)) <= 0.0025


def test_a_pour_beside_the_cuvette_is_a_spill_that_leaves_the_bench_unrestored(env: LabEnv) -> None:
    blank(env)
    seat(env, 1)
    pour(env, 3, dx=0.012)  # the lip 12 mm off the middle: over the holder's wall
    assert kinetics(env).vessels.spilled_ml() == {"vial_3": pytest.approx(1.0)}
    restore(env)
    check = env.evaluator.restored(env.model, env.data)
    assert not check.passed and "vial_3 spilled 1.00 mL onto the bench" in check.evidence


def test_a_cuvette_knocked_over_spills_its_dye(env: LabEnv) -> None:
    joint = env.model.joint("cuvette_2_free").qposadr[0]
    put(env, 2, (rack_slot(2)[0], rack_slot(2)[1] - 0.05, 0.76))
    env.data.qpos[joint + 3 : joint + 7] = [math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0]
    env.wait(1.0)
    assert kinetics(env).vessels.spilled_ml()["cuvette_2"] > 1.0


def test_l4_asks_for_runs_of_half_a_minute_or_more(env: LabEnv) -> None:
    blank(env)
    fast, _ = run(env, 1, 4, 25.0, "fast.csv")  # too short a run; the main test's 32 s runs pass
    slow, _ = run(env, 2, 1, RUN, "slow.csv")
    submit(env, fast + slow, env.instance.hidden["k2"])
    score, _ = env.score()
    assert not score.milestones["L4"].passed and not score.success
    assert "at 1 hydroxide concentrations [0.01]" in score.milestones["L4"].evidence


def test_an_unrestored_bench_fails_only_l6(ran: Ran) -> None:
    env, citations, k2 = ran
    watcher(env).acted = True
    restore(env)
    hold_vial(env, 1, np.array([0.2, -0.05, 0.77]), np.eye(3), 0.5)  # an empty vial left on the bench
    env.submit({"k2": k2}, citations)
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "vial_1 is" in score.gates["restored"].evidence


def test_a_fabricated_row_and_a_reading_with_the_cuvette_lifted_fail_their_gates(ran: Ran) -> None:
    env, citations, k2 = ran
    citations[5] = {**citations[5], "value": float(citations[5]["value"]) + 0.002}  # type: ignore[arg-type]
    put(env, 2, rack_slot(2))
    env.wait(0.5)
    citations.append(cite(env))  # the holder is empty
    submit(env, citations, k2)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not verdicts[5].valid
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(("factor", "succeeds"), [(0.9801, True), (1.0202, False)])
def test_the_tolerance_is_two_percent(ran: Ran, factor: float, succeeds: bool) -> None:
    env, citations, _ = ran
    submit(env, citations, env.instance.hidden["k2"] * factor)
    score, _ = env.score()
    assert score.errors["k2"] == pytest.approx(abs(factor - 1) / 0.02, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds
