"""The difficulty audit of an experiment: how often y* can be had without doing the experiment properly.

Over many drawn instances (seeds 1 to N of the public set) it measures, for each experiment:

- **guess (midpoint)**: the share of instances whose y* lies within tolerance of the middle of the range
  y* takes (what the card and the public code allow without touching the bench);
- **guess (best constant)**: the largest share any single constant answer gets within tolerance (over more
  than two quantities or a label, an upper bound: the least of each quantity's own best share);
- **naive shortcut**: the share solved by the quick method the apparatus invites (named per experiment);
- **standard design**: the share solved by the standard design of the experiment's tier with its standard
  estimator (the seed's appendix B: a design fixed in advance, independent of θ and of the readings).

The shortcut and the standard design are simulated from the experiment's own physics and instrument models
(the circuit, the spring stand's equilibrium, the thin lens and its blur circle, the thermistor's B law with
its self-heating, the spectrophotometer with stray light and drift), each digital display shown through
its own :class:`~actloop.suites.lab.instruments.Instrument` (noise under the instance's noise key, lag,
quantization, range) once settled, and scales read to their reading resolution; no robot episode is run.
Each experiment's plan is its module in :mod:`actloop.suites.lab.audits`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from actloop.suites.lab.audits import Estimate, audited, plan_of
from actloop.suites.lab.instance import Instance, draw
from actloop.suites.lab.spec import ExperimentSpec

AUDIT_INSTANCES = 1000


# --- the audit --------------------------------------------------------------------------------------------
def _within(spec: ExperimentSpec, estimate: Estimate, target: Estimate) -> bool:
    """Whether every scored quantity of ``estimate`` lies within its tolerance of ``target`` (a categorical
    one equal to it)."""
    for q in spec.quantities:
        value, true = estimate.get(q.name, math.nan), target[q.name]
        if q.categorical:
            if value != true:
                return False
            continue
        assert isinstance(value, float | int) and isinstance(true, float | int)
        error = abs(value - true) / abs(true) if q.relative else abs(value - true)
        if not error <= q.tolerance:
            return False
    return True


def _interval(spec: ExperimentSpec, name: str, true: float) -> tuple[float, float]:
    """The constant answers within tolerance of ``true``."""
    q = next(q for q in spec.quantities if q.name == name)
    half = q.tolerance * abs(true) if q.relative else q.tolerance
    return true - half, true + half


def _best_1d(intervals: Sequence[tuple[float, float]]) -> int:
    """The most intervals any one point lies in (closed intervals)."""
    events = sorted([(low, 0) for low, _ in intervals] + [(high, 1) for _, high in intervals])
    best = inside = 0
    for _, kind in events:
        inside += 1 if kind == 0 else -1
        best = max(best, inside)
    return best


def best_constant_share(spec: ExperimentSpec, targets: Sequence[Estimate]) -> float:
    """The largest share of ``targets`` that one constant answer gets within tolerance (an exact sweep over
    the first quantity's interval ends, then over the second's)."""
    names = [q.name for q in spec.quantities]
    if len(names) > 2 or any(q.categorical for q in spec.quantities):
        return _best_constant_bound(spec, targets)
    boxes = [{name: _interval(spec, name, float(t[name])) for name in names} for t in targets]
    first = names[0]
    if len(names) == 1:
        return _best_1d([box[first] for box in boxes]) / len(targets)
    best = 0
    for low, _ in (box[first] for box in boxes):
        inside = [box[names[1]] for box in boxes if box[first][0] <= low <= box[first][1]]
        best = max(best, _best_1d(inside))
    return best / len(targets)


def _best_constant_bound(spec: ExperimentSpec, targets: Sequence[Estimate]) -> float:
    """An upper bound of the best constant's share over more than two quantities or a categorical one: the
    least, over the quantities, of the share one constant gets on that quantity alone (a label: its most
    frequent target)."""
    shares = []
    for q in spec.quantities:
        if q.categorical:
            labels = [t[q.name] for t in targets]
            shares.append(max(labels.count(label) for label in set(labels)) / len(targets))
        else:
            intervals = [_interval(spec, q.name, float(t[q.name])) for t in targets]
            shares.append(_best_1d(intervals) / len(targets))
    return min(shares)


def _middle(values: Sequence[float | str]) -> float | str:
    """The middle of the range of numeric targets; the most frequent of labels."""
    if all(isinstance(v, str) for v in values):
        return max(sorted(set(values), key=str), key=list(values).count)
    numbers = [float(v) for v in values]
    return (min(numbers) + max(numbers)) / 2


def audit(experiment: str, instances: int = AUDIT_INSTANCES, designs: int | None = None) -> dict[str, Any]:
    """The difficulty audit of ``experiment`` over seeds 1..``instances`` of the public set: the guesses over
    all of them, the naive shortcut and the standard design over the first ``designs`` (default all; the
    designs' simulations are the slow part, and a best constant needs many targets to be fair)."""
    from actloop.suites.lab.experiments import experiment as find

    spec = find(experiment).spec
    plan = plan_of(experiment)
    drawn = [draw(spec, seed) for seed in range(1, instances + 1)]
    targets = [plan.target(i) for i in drawn]
    middle = {q.name: _middle([t[q.name] for t in targets]) for q in spec.quantities}

    def share(design: Callable[[Instance], Estimate], count: int = instances) -> float:
        hits = sum(_within(spec, design(i), t) for i, t in zip(drawn[:count], targets[:count], strict=True))
        return hits / count

    simulated = instances if designs is None else min(designs, instances)
    return {
        "instances": instances,
        **({} if simulated == instances else {"designs_instances": simulated}),
        "tier": spec.tier,
        "guess_midpoint": share(lambda _: middle),
        "guess_best_constant": best_constant_share(spec, targets),
        "naive_shortcut": {"name": plan.naive.name, "method": plan.naive.description},
        "naive_rate": share(plan.naive.estimate, simulated),
        "standard_design": {"name": plan.standard.name, "method": plan.standard.description},
        "standard_rate": share(plan.standard.estimate, simulated),
        "note": plan.note,
    }


def keep_audit(manifest: Any, instances: int = AUDIT_INSTANCES, result: dict[str, Any] | None = None) -> None:
    """Record the audit of ``manifest``'s experiment (``result``, or one run now) in it, rates rounded to
    0.1 %."""
    result = dict(result or audit(manifest.experiment, instances))
    for name in ("guess_midpoint", "guess_best_constant", "naive_rate", "standard_rate"):
        result[name] = round(result[name], 3)
    manifest.audit = result


def add_audit_command(sub: Any) -> None:
    """``actloop lab audit``: print the difficulty audit of experiments, optionally recording it."""
    parser = sub.add_parser(
        "audit",
        help="the difficulty audit: guess-from-card, naive-shortcut and standard-design success rates",
    )
    parser.add_argument(
        "--experiment", action="append", help="experiment key (repeatable; default: every audited one)"
    )
    parser.add_argument("--instances", type=int, default=AUDIT_INSTANCES, help="instances drawn (seeds 1..N)")
    parser.add_argument(
        "--write", action="store_true", help="record the audit in the experiment's released manifest"
    )
    parser.set_defaults(handler=audit_command)


def audit_command(args: Any) -> int:
    from rich.table import Table

    from actloop.cli.common import console
    from actloop.suites.lab import manifests
    from actloop.suites.lab.experiments import experiment_keys

    keys = args.experiment or [key for key in experiment_keys() if key in audited()]
    table = Table(title=f"difficulty audit ({args.instances} instances each)")
    for column in ("experiment", "tier", "guess: midpoint", "guess: best constant", "naive shortcut",
                   "naive", "standard design", "standard"):  # fmt: skip
        table.add_column(column)
    for key in keys:
        result = audit(key, args.instances)
        table.add_row(
            key,
            result["tier"],
            f"{100 * result['guess_midpoint']:.1f} %",
            f"{100 * result['guess_best_constant']:.1f} %",
            result["naive_shortcut"]["name"],
            f"{100 * result['naive_rate']:.1f} %",
            result["standard_design"]["name"],
            f"{100 * result['standard_rate']:.1f} %",
        )
        if args.write:
            manifest = manifests.load(key)
            keep_audit(manifest, args.instances, result)
            manifest.save()
    console.print(table)
    return 0
