"""Scoring a run (the seed's eq. 2–3) and aggregating runs (eq. 4–5).

A run's error is ``e = max_j |ŷ_j − y*_j| / ε_j`` over its scored quantities, and it succeeds when every gate
holds, ``e ≤ 1`` and the experiment's milestones L1–L4 pass: success is L6 (ℓ = 6), so the stage pass rates
multiply to the success rate (eq. 5). The gates are named conditions with the evidence behind them:
``evidence`` (every cited reading is what an instrument showed, and the readings meet the experiment's
evidence minima), ``conditions`` (the measurement conditions held), ``refit`` (∗
experiments: the result agrees with the evaluator's refit of the cited readings) and ``restored`` (the bench
is restored). Milestones L1–L4 are the experiment's own checks; L5 holds when every gate but ``restored``
holds and ``e ≤ 1``, L6 when the bench is restored. The level ℓ is the highest milestone passed together
with all before it; the process score is ``PS = Σ_l w_l·1[ℓ ≥ l]``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from actloop.errors import ConfigError

WEIGHTS = (10, 10, 10, 10, 30, 30)
"""w_l of eq. 3: 10 for each stage up to sufficient readings, 30 for knowing the result and for restoring."""

MILESTONES = ("L1", "L2", "L3", "L4", "L5", "L6")
EXPERIMENT_MILESTONES = MILESTONES[:4]
"""The milestones each experiment checks itself; L5 and L6 follow from the gates and the error."""

STAGES = ("act", "prepare", "first_reading", "readings_suffice", "know_result", "restore")
"""What milestone l asks of a run: act on the apparatus, bring it to a measurable state, take a first valid
reading, have valid readings for every quantity, know the result within tolerance, restore the bench."""

GATES = ("evidence", "conditions", "refit", "restored")
REQUIRED_GATES = ("evidence", "conditions", "restored")
"""Every experiment has these gates; ``refit`` is only for the ∗ experiments."""


class ScoredQuantity(Protocol):
    """A scored quantity with its tolerance: relative (a fraction of the target) when ``relative``, else
    absolute in the quantity's unit (:class:`actloop.suites.lab.spec.Quantity` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def tolerance(self) -> float: ...

    @property
    def relative(self) -> bool: ...

    @property
    def labels(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Check:
    """A named condition of the scoring, whether it passed and the evidence for the verdict."""

    name: str
    passed: bool
    evidence: str


def tolerance_width(quantity: ScoredQuantity, reference: float) -> float:
    """ε of ``quantity`` around ``reference``: the tolerance itself, or that fraction of ``|reference|``."""
    width = quantity.tolerance * abs(reference) if quantity.relative else quantity.tolerance
    if not (width > 0 and math.isfinite(width)):
        raise ConfigError(f"quantity {quantity.name}: tolerance {width} around {reference} is not positive")
    return width


def finite_number(value: object) -> float | None:
    """``value`` as a float if it is a finite int or float (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


Target = float | str
"""y* of a quantity: a number, or a label of a categorical quantity."""


def quantity_error(submitted: object, target: Target, quantity: ScoredQuantity) -> float:
    """``|ŷ − y*| / ε`` for one quantity; infinite when ``submitted`` is missing or not a finite number. A
    categorical quantity's error is 0 for the target's label and infinite for any other."""
    if quantity.labels:
        return 0.0 if isinstance(submitted, str) and submitted == target else math.inf
    if isinstance(target, str):
        raise ConfigError(f"quantity {quantity.name} has no labels, but its target is {target!r}")
    value = finite_number(submitted)
    return math.inf if value is None else abs(value - target) / tolerance_width(quantity, target)


def run_error(
    submitted: Mapping[str, object], targets: Mapping[str, Target], quantities: Sequence[ScoredQuantity]
) -> tuple[float, dict[str, float]]:
    """Eq. 2's ``e`` and the error of each quantity (ignoring submitted names that are not scored)."""
    if not quantities:
        raise ConfigError("no scored quantity")
    errors = {q.name: quantity_error(submitted.get(q.name), targets[q.name], q) for q in quantities}
    return max(errors.values()), errors


@dataclass(frozen=True)
class Score:
    """Everything a result row needs about one scored run."""

    success: bool
    e: float
    errors: dict[str, float]
    gates: dict[str, Check]
    milestones: dict[str, Check]
    level: int
    process_score: int
    stop_stage: str
    """The stage of the first milestone the run did not pass (``success`` when it passed all)."""
    notes: tuple[str, ...] = ()
    failure_cause: str = ""
    """A failed run's first decisive error (:mod:`actloop.suites.lab.attribution`); empty for a success."""
    failure_evidence: str = ""

    def to_fields(self) -> dict[str, bool | int | float | str | None]:
        """Flat JSON fields: infinite errors become None; each gate and milestone gives a pass flag and its
        evidence."""
        fields: dict[str, bool | int | float | str | None] = {
            "success": self.success,
            "e": _finite(self.e),
            "level": self.level,
            "process_score": self.process_score,
            "stop_stage": self.stop_stage,
        }
        fields.update({f"error_{name}": _finite(value) for name, value in self.errors.items()})
        for prefix, checks in (("gate", self.gates), ("milestone", self.milestones)):
            for name, check in checks.items():
                fields[f"{prefix}_{name}"] = check.passed
                fields[f"{prefix}_{name}_evidence"] = check.evidence
        fields["notes"] = "; ".join(self.notes)
        fields["failure_cause"] = self.failure_cause or None
        fields["failure_cause_evidence"] = self.failure_evidence
        return fields


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def score(
    submitted: Mapping[str, object],
    targets: Mapping[str, Target],
    quantities: Sequence[ScoredQuantity],
    gates: Sequence[Check],
    milestones: Sequence[Check],
) -> Score:
    """Score a run from its submission, the targets y*, the gates and the experiment's milestones L1–L4."""
    gate_map = _named(gates, "gate")
    if not set(REQUIRED_GATES) <= gate_map.keys() <= set(GATES):
        raise ConfigError(f"gates {sorted(gate_map)}: need {', '.join(REQUIRED_GATES)} and at most refit")
    if tuple(check.name for check in milestones) != EXPERIMENT_MILESTONES:
        raise ConfigError(f"milestones must be {', '.join(EXPERIMENT_MILESTONES)} in order")
    e, errors = run_error(submitted, targets, quantities)
    knowing = [check for check in gate_map.values() if check.name != "restored"]
    failed = [check.name for check in knowing if not check.passed]
    l5_evidence = f"e = {e:.3g} {'≤' if e <= 1 else '>'} 1" + (
        f"; gate {', '.join(failed)} failed" if failed else "; every gate but restored holds"
    )
    restored = gate_map["restored"]
    checks = [
        *milestones,
        Check("L5", not failed and e <= 1, l5_evidence),
        Check("L6", restored.passed, restored.evidence),
    ]
    level = next((index for index, check in enumerate(checks) if not check.passed), len(checks))
    success = level == len(MILESTONES)
    return Score(
        success=success,
        e=e,
        errors=errors,
        gates=gate_map,
        milestones={check.name: check for check in checks},
        level=level,
        process_score=process_score(level),
        stop_stage=STAGES[level] if level < len(STAGES) else "success",
    )


def _named(checks: Sequence[Check], what: str) -> dict[str, Check]:
    named = {check.name: check for check in checks}
    if len(named) != len(checks):
        raise ConfigError(f"{what} names repeat: {[check.name for check in checks]}")
    return named


def process_score(level: int) -> int:
    """Eq. 3: the weights of the milestones up to ``level``."""
    if not 0 <= level <= len(WEIGHTS):
        raise ConfigError(f"level {level} is not in 0..{len(WEIGHTS)}")
    return sum(WEIGHTS[:level])


def experiment_mean(values: Iterable[tuple[str, float]]) -> float:
    """Eq. 4's average of ``(experiment, value)`` pairs: over the runs of each experiment, then over the
    experiments, so every experiment counts equally."""
    runs: dict[str, list[float]] = defaultdict(list)
    for experiment, value in values:
        runs[experiment].append(float(value))
    if not runs:
        raise ConfigError("no runs to average")
    return sum(sum(values) / len(values) for values in runs.values()) / len(runs)


def success_rate(runs: Iterable[tuple[str, bool]]) -> float:
    """SR(X) of eq. 4 from ``(experiment, success)`` pairs."""
    return experiment_mean((experiment, float(success)) for experiment, success in runs)


def mean_process_score(runs: Iterable[tuple[str, float]]) -> float:
    """The mean process score, averaged like SR(X), from ``(experiment, process score)`` pairs."""
    return experiment_mean(runs)


def milestone_shares(levels: Iterable[tuple[str, int]]) -> tuple[float, ...]:
    """The share of runs passing each of L1–L6, averaged like SR(X) (the curves of the seed's fig. 6)."""
    runs = list(levels)
    return tuple(experiment_mean((x, float(level >= lv)) for x, level in runs) for lv in range(1, 7))


@dataclass(frozen=True)
class StagePassRates:
    """Eq. 5's stage pass rates over a set of runs, pooled: ``rates[l-1] = π_l`` is the share of the
    ``denominators[l-1]`` runs with ℓ ≥ l−1 that have ℓ ≥ l (None when no run got that far)."""

    rates: tuple[float | None, ...]
    denominators: tuple[int, ...]
    product: float
    """Π π_l: the pooled share of successful runs."""
    success_rate: float
    """SR(X) of eq. 4."""
    balanced: bool
    """Every experiment has the same number of runs, so ``product`` equals ``success_rate``."""
    note: str


def stage_pass_rates(levels: Iterable[tuple[str, int]]) -> StagePassRates:
    """π_1..π_6 from ``(experiment, level)`` pairs, with the check that their product is the success rate."""
    runs = list(levels)
    if not runs:
        raise ConfigError("no runs to rate")
    reached = [sum(level >= lv for _, level in runs) for lv in range(len(MILESTONES) + 1)]
    rates = tuple(reached[lv] / reached[lv - 1] if reached[lv - 1] else None for lv in range(1, 7))
    product = math.prod(rate or 0.0 for rate in rates)
    sr = success_rate((experiment, level >= len(MILESTONES)) for experiment, level in runs)
    counts: dict[str, int] = defaultdict(int)
    for experiment, _ in runs:
        counts[experiment] += 1
    balanced = len(set(counts.values())) == 1
    note = (
        "every experiment has the same number of runs, so Π π_l = SR"
        if balanced
        else f"runs per experiment differ ({min(counts.values())}–{max(counts.values())}): Π π_l = "
        f"{product:.4g} is the pooled success share, SR (each experiment counting equally) = {sr:.4g}"
    )
    return StagePassRates(rates, tuple(reached[:-1]), product, sr, balanced, note)
