"""Scoring a run (eq. 2–3): error, gates, milestones, level, process score; aggregation (eq. 4–5)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass

import pytest

from actloop.errors import ConfigError
from actloop.suites.lab.scoring import (
    STAGES,
    Check,
    Score,
    mean_process_score,
    milestone_shares,
    process_score,
    run_error,
    score,
    stage_pass_rates,
    success_rate,
)


@dataclass(frozen=True)
class Q:
    name: str
    tolerance: float
    relative: bool = True
    labels: tuple[str, ...] = ()


EI, K_THETA = Q("EI", 0.005), Q("k_theta", 0.005)
TARGETS = {"EI": 5.0, "k_theta": 200.0}
QUANTITIES = [EI, K_THETA]


def gates(*failed: str) -> list[Check]:
    return [
        Check(name, name not in failed, f"{name} evidence") for name in ("evidence", "conditions", "restored")
    ]


def milestones(*failed: str) -> list[Check]:
    return [Check(name, name not in failed, f"{name} evidence") for name in ("L1", "L2", "L3", "L4")]


def run(
    submitted: dict[str, object], failed_gates: tuple[str, ...] = (), failed: tuple[str, ...] = ()
) -> Score:
    return score(submitted, TARGETS, QUANTITIES, gates(*failed_gates), milestones(*failed))


def test_e_is_the_largest_error_in_tolerances() -> None:
    e, errors = run_error({"EI": 5.0125, "k_theta": 200.5}, TARGETS, QUANTITIES)
    assert errors == pytest.approx({"EI": 0.5, "k_theta": 0.5})
    assert e == max(errors.values())
    e, _ = run_error({"x": 10.3}, {"x": 10.0}, [Q("x", 0.2, relative=False)])
    assert e == pytest.approx(1.5)


def test_e_of_one_passes_and_just_above_fails() -> None:
    length = [Q("L", 0.02)]
    at_limit = score({"L": 102.0}, {"L": 100.0}, length, gates(), milestones())
    assert at_limit.e == 1.0 and at_limit.success and at_limit.level == 6 and at_limit.process_score == 100
    over = score({"L": 102.02}, {"L": 100.0}, length, gates(), milestones())
    assert over.e == pytest.approx(1.01) and not over.success
    assert (over.level, over.process_score, over.stop_stage) == (4, 40, "know_result")


@pytest.mark.parametrize("value", [None, float("nan"), float("inf"), "5.0", True])
def test_a_missing_or_non_finite_value_has_infinite_error(value: object) -> None:
    submitted = {"k_theta": 200.0} if value is None else {"EI": value, "k_theta": 200.0}
    result = run(submitted)
    assert result.e == math.inf and result.errors["EI"] == math.inf and not result.success
    assert result.to_fields()["e"] is None


def test_an_unrestored_but_otherwise_perfect_run_scores_70() -> None:
    result = run({"EI": 5.0, "k_theta": 200.0}, failed_gates=("restored",))
    assert not result.success
    assert result.milestones["L5"].passed and not result.milestones["L6"].passed
    assert (result.level, result.process_score, result.stop_stage) == (5, 70, "restore")
    assert result.milestones["L6"].evidence == "restored evidence"


def test_a_failed_gate_other_than_restoring_stops_the_run_at_l5() -> None:
    result = run({"EI": 5.0, "k_theta": 200.0}, failed_gates=("evidence",))
    assert (result.level, result.process_score, result.success) == (4, 40, False)
    assert result.milestones["L5"].evidence == "e = 0 ≤ 1; gate evidence failed"


def test_milestones_are_nested() -> None:
    result = run({"EI": 5.0, "k_theta": 200.0}, failed=("L2",), failed_gates=("restored",))
    assert (result.level, result.process_score, result.stop_stage) == (1, 10, "prepare")
    assert run({"EI": 9.0, "k_theta": 0.0}, failed=("L1",)).process_score == 0


@pytest.mark.parametrize(("failed", "level"), [("L1", 0), ("L2", 1), ("L3", 2), ("L4", 3)])
def test_an_accurate_run_failing_a_milestone_fails(failed: str, level: int) -> None:
    result = run({"EI": 5.0, "k_theta": 200.0}, failed=(failed,))
    assert not result.success and all(check.passed for check in result.gates.values()) and result.e == 0
    assert (result.level, result.process_score, result.stop_stage) == (level, 10 * level, STAGES[level])
    assert result.to_fields()["success"] is False and result.notes == ()


def test_success_is_level_six() -> None:
    result = run({"EI": 5.0, "k_theta": 200.0})
    assert result.success and result.level == 6 and result.process_score == 100


def test_stage_pass_rates_multiply_to_the_success_rate_over_many_scored_runs() -> None:
    rng = random.Random(7)
    rows = []
    for i in range(600):
        failed_gates = tuple(g for g in ("evidence", "conditions", "restored") if rng.random() < 0.15)
        failed = tuple(m for m in ("L1", "L2", "L3", "L4") if rng.random() < 0.1)
        value = 5.0 * (1 + rng.choice((0.0, 0.004, 0.006)))
        result = run({"EI": value, "k_theta": 200.0}, failed_gates, failed)
        assert result.success == (result.level == 6)
        rows.append((f"x{i % 6}", result.level, result.success))
    rates = stage_pass_rates((x, level) for x, level, _ in rows)
    assert rates.balanced and 0 < rates.product < 1
    assert rates.product == pytest.approx(success_rate((x, s) for x, _, s in rows), abs=1e-12)


def test_refit_is_an_optional_gate_and_others_are_checked() -> None:
    refit = [*gates(), Check("refit", False, "k: submitted 12 does not agree with refit 13")]
    result = score({"EI": 5.0, "k_theta": 200.0}, TARGETS, QUANTITIES, refit, milestones())
    assert (
        not result.success and result.level == 4 and "gate refit failed" in result.milestones["L5"].evidence
    )
    with pytest.raises(ConfigError):
        score({}, TARGETS, QUANTITIES, gates()[:2], milestones())
    with pytest.raises(ConfigError):
        score({}, TARGETS, QUANTITIES, [*gates(), Check("tidy", True, "")], milestones())
    with pytest.raises(ConfigError):
        score({}, TARGETS, QUANTITIES, gates(), milestones()[1:])
    with pytest.raises(ConfigError):
        score({"EI": 1.0}, {"EI": 0.0}, [EI], gates(), milestones())  # relative tolerance of zero


def test_fields_are_flat_json() -> None:
    fields = run({"EI": 5.0125, "k_theta": 201.0}, failed_gates=("restored",)).to_fields()
    json.dumps(fields, allow_nan=False)
    assert fields["e"] == pytest.approx(1.0) and fields["error_EI"] == pytest.approx(0.5)
    assert fields["gate_restored"] is False and fields["gate_restored_evidence"] == "restored evidence"
    assert fields["milestone_L5"] is True and fields["level"] == 5 and fields["process_score"] == 70
    assert all(not isinstance(value, dict | list) for value in fields.values())


def test_process_score_weights() -> None:
    assert [process_score(level) for level in range(7)] == [0, 10, 20, 30, 40, 70, 100]
    with pytest.raises(ConfigError):
        process_score(7)


# Hand-computed: experiment A ran twice (levels 6, 5), B three times (levels 6, 3, 0).
UNBALANCED = [("A", 6), ("A", 5), ("B", 6), ("B", 3), ("B", 0)]


def test_success_rate_and_process_score_average_per_experiment_first() -> None:
    assert success_rate((x, level == 6) for x, level in UNBALANCED) == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert mean_process_score((x, process_score(level)) for x, level in UNBALANCED) == pytest.approx(
        (85 + 130 / 3) / 2
    )
    shares = milestone_shares(UNBALANCED)
    assert shares == pytest.approx((5 / 6, 5 / 6, 5 / 6, 2 / 3, 2 / 3, 5 / 12))
    with pytest.raises(ConfigError):
        success_rate([])


def test_stage_pass_rates_on_unbalanced_runs() -> None:
    rates = stage_pass_rates(UNBALANCED)
    assert rates.denominators == (5, 4, 4, 4, 3, 3)
    assert rates.rates == pytest.approx((4 / 5, 1, 1, 3 / 4, 1, 2 / 3))
    assert rates.product == pytest.approx(2 / 5)  # the pooled success share ...
    assert rates.success_rate == pytest.approx(5 / 12)  # ... is not SR when run counts differ
    assert not rates.balanced and "runs per experiment differ (2–3)" in rates.note


def test_stage_pass_rates_multiply_to_the_success_rate_with_balanced_runs() -> None:
    rates = stage_pass_rates([("A", 6), ("A", 4), ("B", 6), ("B", 5)])
    assert rates.denominators == (4, 4, 4, 4, 4, 3)
    assert rates.rates == pytest.approx((1, 1, 1, 1, 3 / 4, 2 / 3))
    assert rates.balanced and rates.product == pytest.approx(rates.success_rate) == pytest.approx(0.5)
    unreached = stage_pass_rates([("A", 0), ("B", 0)])
    assert unreached.rates == (0.0, None, None, None, None, None) and unreached.product == 0.0
