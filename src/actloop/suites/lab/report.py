"""The lab suite's report tables: the seed's table 2 (success rate and process score, overall, per capability
dimension and per tier), table 3 (per interface level and the change between levels) and the stage pass
rates π_l with the stage where runs stopped, and the failure causes (the first decisive error of each failed
run, :mod:`actloop.suites.lab.attribution`) per condition, then every episode linked to its viewer; and its
charts: success rate and process score per experiment, capability dimension and tier, and the stage pass
rates, one bar per condition. ``actloop report`` prints the tables of rates and causes.

Rates follow eq. 4: averaged over the runs of each experiment, then over experiments, so every experiment
counts equally. An episode the harness or the provider failed has no score: it counts as a failure at level
0 (process score 0), and the table says how many there were.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from actloop.core.result import Condition
from actloop.report.analysis import Analysis
from actloop.report.charts import BarChart
from actloop.report.records import Episode
from actloop.report.tables import Table, condition_fields
from actloop.suites.lab.attribution import CAUSES
from actloop.suites.lab.catalog import entry
from actloop.suites.lab.scoring import STAGES, mean_process_score, stage_pass_rates, success_rate
from actloop.suites.lab.spec import DIMENSIONS

LEVELS = ("T0", "T1", "T2")
DIMENSION_LABELS = {"manipulation": "Manip.", "long-horizon": "Long", "reading": "Read", "data": "Data"}
TIERS = ("basic", "advanced")


@dataclass(frozen=True)
class LabRun:
    """What the lab tables need of one episode."""

    experiment: str
    success: bool
    level: int
    process_score: float
    stop_stage: str
    failed: bool
    cause: str
    """The failed run's first decisive error, ``not scored`` for an episode without a score, or ``""``."""


def lab_run(episode: Episode) -> LabRun:
    scores = episode.scores
    failed = episode.status != "completed" or "level" not in scores
    level = 0 if failed else int(scores["level"])
    return LabRun(
        episode.task,
        episode.success and not failed,
        level,
        0.0 if failed else float(scores.get("process_score") or 0),
        "not scored" if failed else str(scores.get("stop_stage")),
        failed,
        "not scored" if failed else str(scores.get("failure_cause") or ""),
    )


def _runs(a: Analysis, condition: Condition) -> list[LabRun]:
    return [lab_run(e) for e in a.episodes if e.suite == "lab" and e.condition == condition]


def _cell(runs: list[LabRun]) -> str:
    if not runs:
        return "–"
    sr = success_rate((r.experiment, r.success) for r in runs)
    ps = mean_process_score((r.experiment, r.process_score) for r in runs)
    return f"{100 * sr:.1f} ({ps:.1f})"


def _subsets(runs: list[LabRun]) -> list[tuple[str, list[LabRun]]]:
    by_dimension = [
        (DIMENSION_LABELS[d], [r for r in runs if entry(r.experiment).dimension == d]) for d in DIMENSIONS
    ]
    by_tier = [(t.capitalize(), [r for r in runs if entry(r.experiment).tier == t]) for t in TIERS]
    return [("Overall", runs), *by_dimension, *by_tier]


SUBSET_GROUPS = ("overall", *(["dimension"] * len(DIMENSIONS)), *(["tier"] * len(TIERS)))
"""The chart group of each of :func:`_subsets`' subsets."""


def _lab_conditions(a: Analysis) -> list[Condition]:
    return [c for c in a.conditions if any(e.suite == "lab" and e.condition == c for e in a.episodes)]


def main_table(a: Analysis) -> Table:
    """Table 2: SR % (process score) overall, per capability dimension and per tier."""
    conditions = _lab_conditions(a)
    all_runs = [r for c in conditions for r in _runs(a, c)]
    headers = []
    for name, subset in _subsets(all_runs):
        headers.append(f"{name} ({len({r.experiment for r in subset})})")
    table = Table(
        "lab_table2_main",
        "Lab: success rate % (process score 0-100), overall, per capability dimension and tier "
        "(experiments in parentheses; each experiment counts equally)",
        ["Model", "Level", *headers],
    )
    for condition in conditions:
        runs = _runs(a, condition)
        cells = [_cell(subset) for _, subset in _subsets(runs)]
        table.add([condition.model, condition.protocol, *cells])
        for (name, subset), cell in zip(_subsets(runs), cells, strict=True):
            table.records.append(
                {**condition_fields(condition), "subset": name, "runs": len(subset), "cell": cell}
            )
        failed = sum(r.failed for r in runs)
        if failed:
            table.notes.append(
                f"{condition.label}: {failed} episode(s) not scored (harness or provider) count as failures"
            )
    return table


def level_table(a: Analysis) -> Table:
    """Table 3: SR % (process score) at T0, T1 and T2 per model, with the change between levels in points."""
    table = Table(
        "lab_table3_levels",
        "Lab: success across interface levels, success rate % (process score), and the change in points",
        ["Model", *LEVELS, "T0→T1", "T1→T2"],
    )
    models = sorted({c.model for c in _lab_conditions(a)})
    for model in models:
        rates: dict[str, float | None] = {}
        cells = []
        for level in LEVELS:
            runs = [
                r for c in _lab_conditions(a) if c.model == model and c.protocol == level for r in _runs(a, c)
            ]
            cells.append(_cell(runs))
            rates[level] = success_rate((r.experiment, r.success) for r in runs) if runs else None
        deltas = [_delta(rates[lo], rates[hi]) for lo, hi in (("T0", "T1"), ("T1", "T2"))]
        table.add([model, *cells, *deltas])
        table.records.append({"model": model, **{f"sr_{k}": v for k, v in rates.items()}})
    return table


def _delta(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{100 * (high - low):+.1f}"


def stage_table(a: Analysis) -> Table:
    """Eq. 5: the stage pass rates π_1..π_6 and where runs stopped."""
    table = Table(
        "lab_stage_pass_rates",
        "Lab: stage pass rates π_l = Pr[ℓ ≥ l | ℓ ≥ l−1] (pooled over runs) and the stage where runs stopped",
        ["Model", "Level", *(f"π{i} {stage}" for i, stage in enumerate(STAGES, 1)), "Stopped at"],
    )
    for condition in _lab_conditions(a):
        runs = _runs(a, condition)
        rates = stage_pass_rates((r.experiment, r.level) for r in runs)
        cells = [
            "–" if rate is None else f"{100 * rate:.1f} ({round(rate * n)}/{n})"
            for rate, n in zip(rates.rates, rates.denominators, strict=True)
        ]
        stopped = Counter(r.stop_stage for r in runs)
        order = [*STAGES, "success", "not scored"]
        where = ", ".join(f"{stage} {stopped[stage]}" for stage in order if stopped[stage])
        table.add([condition.model, condition.protocol, *cells, where])
        table.records.append(
            {**condition_fields(condition), "pi": list(rates.rates), "stopped": dict(stopped)}
        )
        if not rates.balanced:
            table.notes.append(f"{condition.label}: {rates.note}")
    return table


def cause_table(a: Analysis) -> Table:
    """§4.5: the first decisive error of the failed runs, counted per cause and condition, beside the stage
    pass rates."""
    table = Table(
        "lab_failure_causes",
        "Lab: failed runs by first decisive error (acting, observing, knowing, restoring) per condition",
        ["Model", "Level", "Failed", *CAUSES, "Unattributed"],
    )
    for condition in _lab_conditions(a):
        failed = [r for r in _runs(a, condition) if not r.success]
        counts = Counter(r.cause if r.cause in CAUSES else "" for r in failed)
        cells = [str(counts[cause]) for cause in CAUSES]
        table.add([condition.model, condition.protocol, str(len(failed)), *cells, str(counts[""])])
        table.records.append(
            {**condition_fields(condition), "failed": len(failed), "causes": {c: counts[c] for c in CAUSES},
             "unattributed": counts[""]}
        )  # fmt: skip
    table.notes.append(
        "unattributed: episodes not scored (harness or provider) and rows scored before causes were recorded"
    )
    return table


EPISODE_COLUMNS = [
    "Model", "Level", "Experiment", "Seed", "Run", "Success", "e", "ℓ", "PS", "Stopped at", "Sim s", "Cause",
    "Set",
]  # fmt: skip
"""``Set``: the instance set a row came from, ``public`` or ``private`` with its key's fingerprint (rows
from before the private set are public)."""


def episode_table(a: Analysis) -> Table:
    """Every lab episode: its error e (a fraction of the tolerance), level, process score, stop stage and
    simulated time."""
    table = Table(
        "lab_episodes",
        "Lab episodes: e (largest error as a fraction of its tolerance), milestone level ℓ, process score, "
        "where the run stopped, simulated time",
        EPISODE_COLUMNS,
    )
    for e in sorted((e for e in a.episodes if e.suite == "lab"), key=lambda e: (e.condition.label, e.key)):
        scores, run = e.scores, lab_run(e)
        error = scores.get("e")
        sim = scores.get("sim_time_s")
        table.add(
            [
                e.condition.model, e.condition.protocol, e.task, str(e.seed), str(e.run),
                "yes" if run.success else "no", "–" if error is None else f"{error:.3f}",
                str(run.level), f"{run.process_score:.0f}", run.stop_stage,
                "–" if sim is None else f"{sim:.1f}", run.cause or "–", _instance_set(scores),
            ],
            episode=e.key,
        )  # fmt: skip
        table.records.append(
            {**condition_fields(e.condition), "task": e.task, "seed": e.seed, "run": e.run, "e": error,
             "level": run.level, "process_score": run.process_score, "stop_stage": run.stop_stage,
             "failure_cause": run.cause or None, "instance_set": scores.get("instance_set") or "public",
             "instance_key": scores.get("instance_key")}
        )  # fmt: skip
    return table


def _instance_set(scores: dict[str, object]) -> str:
    key = scores.get("instance_key")
    return f"{scores.get('instance_set') or 'public'}" + (f" ({key})" if key else "")


def report_tables(a: Analysis) -> list[Table]:
    """The lab tables the data supports; ``actloop report`` prints all but the episodes (one row each)."""
    if not _lab_conditions(a):
        return []
    summaries = [main_table(a), level_table(a), stage_table(a), cause_table(a)]
    for table in summaries:
        table.printed = True
    return [*summaries, episode_table(a)]


def report_charts(a: Analysis) -> list[BarChart]:
    """Success rate and process score per experiment, capability dimension and tier (after table 2), and
    the stage pass rates (after their table); one series per condition."""
    conditions = _lab_conditions(a)
    if not conditions:
        return []
    experiments = sorted({e.task for e in a.episodes if e.suite == "lab"})
    subsets = [name for name, _ in _subsets([])]
    categories = [("experiment", x) for x in experiments] + list(zip(SUBSET_GROUPS, subsets, strict=True))
    success, process = [], []
    for condition in conditions:
        runs = _runs(a, condition)
        groups = [[r for r in runs if r.experiment == x] for x in experiments]
        groups += [subset for _, subset in _subsets(runs)]
        success.append((condition.label, [_rate(g) for g in groups]))
        process.append((condition.label, [_process(g) for g in groups]))
    stages = []
    for condition in conditions:
        rates = stage_pass_rates((r.experiment, r.level) for r in _runs(a, condition)).rates
        stages.append((condition.label, [None if rate is None else 100 * rate for rate in rates]))
    return [
        BarChart("lab_chart_success", "Lab: success rate (%) per experiment, capability dimension and tier",
                 "lab_table2_main", categories, success, "success %"),
        BarChart("lab_chart_process", "Lab: process score per experiment, capability dimension and tier",
                 "lab_table2_main", categories, process, "process score"),
        BarChart("lab_chart_stages", "Lab: stage pass rates π_l (%)", "lab_stage_pass_rates",
                 [("stage", f"π{i} {stage}") for i, stage in enumerate(STAGES, 1)], stages, "π %"),
    ]  # fmt: skip


def _rate(runs: list[LabRun]) -> float | None:
    return 100 * success_rate((r.experiment, r.success) for r in runs) if runs else None


def _process(runs: list[LabRun]) -> float | None:
    return mean_process_score((r.experiment, r.process_score) for r in runs) if runs else None
