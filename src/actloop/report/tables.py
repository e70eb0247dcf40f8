"""The report's tables, each as display cells (for Markdown and HTML) plus tidy rows (for CSV)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from actloop.core.result import STOP_REASONS, Condition
from actloop.core.suite import Suite, suites
from actloop.report.analysis import (
    SUBSETS,
    Analysis,
    Count,
)
from actloop.report.records import Episode, EpisodeKey
from actloop.report.stats import MeanSD

RowKind = Literal["data", "section", "total"]
SUBSET_NAMES = {"single": "Single-arm", "dual": "Dual-arm", "all": "All"}
GROUP_SECTIONS = {
    "single": "Single-arm tasks",
    "dual": "Dual-arm tasks",
    "unknown": "Tasks of unknown arm count",
}


@dataclass
class Row:
    cells: list[str]
    kind: RowKind = "data"
    episode: EpisodeKey | None = None
    """The episode the row describes: the page links the row to its viewer."""


@dataclass
class Table:
    """A titled table; ``records`` are the same numbers in tidy form for its CSV file ``<key>.csv``."""

    key: str
    title: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    printed: bool = False
    """Printed by ``actloop report`` beside the summary table (for example the raters' agreement)."""

    def add(self, cells: list[str], kind: RowKind = "data", episode: EpisodeKey | None = None) -> None:
        self.rows.append(Row(cells, kind, episode))


def pct(value: float | None) -> str:
    """A fraction as a percentage with two decimals; "n/a" for None."""
    return "n/a" if value is None else f"{100 * value:.2f}"


def mean_sd(stat: MeanSD | None) -> str:
    """``mean ± SD`` in percent; SD is "n/a" with one run; "–" when there is nothing to average."""
    if stat is None:
        return "–"
    return f"{pct(stat.mean)} ± {pct(stat.sd)}"


def error_note(count: Count) -> str:
    """`` [2 infra, 1 error]`` when the cell holds such episodes, else empty."""
    parts = [f"{count.infra_errors} infra"] if count.infra_errors else []
    parts += [f"{count.errors} error"] if count.errors else []
    return f" [{', '.join(parts)}]" if parts else ""


def condition_fields(cond: Condition) -> dict[str, Any]:
    return {"model": cond.model, "protocol": cond.protocol, "summary": cond.summary}


def percent_or_blank(value: float | None) -> float | str:
    return "" if value is None else round(100 * value, 4)


def summary_table(a: Analysis) -> Table:
    """Table 3: per condition, mean ± sample SD across runs of the run-level macro-averages."""
    table = Table(
        "table3_summary",
        "Base-task success (%), mean ± sample SD across runs of per-run task-family macro-averages",
        ["Subset", *(c.label for c in a.conditions)],
    )
    for subset in SUBSETS:
        n = len(a.subset_tasks(subset))
        table.add(
            [
                f"{SUBSET_NAMES[subset]} ({n} task{'' if n == 1 else 's'})",
                *(mean_sd(a.macro(c, subset)) for c in a.conditions),
            ]
        )
        for cond in a.conditions:
            per_run = a.run_macro(cond, subset)
            stat = a.macro(cond, subset)
            count = a.count(cond, a.subset_tasks(subset))
            table.records.append(
                {
                    **condition_fields(cond),
                    "subset": subset,
                    "tasks": n,
                    "runs": len(per_run),
                    "mean_pct": percent_or_blank(stat.mean if stat else None),
                    "sd_pct": percent_or_blank(stat.sd if stat else None),
                    "run_macro_pct": ";".join(f"{run}:{100 * v:.4f}" for run, v in per_run.items()),
                    "episodes": count.episodes,
                    "successes": count.successes,
                    "infra_errors": count.infra_errors,
                    "errors": count.errors,
                }
            )
    table.add(["Runs", *(str(len(a.runs[c])) for c in a.conditions)], "total")
    totals = [a.count(c, a.base_tasks) for c in a.conditions]
    table.add(["Episodes", *(str(t.episodes) for t in totals)], "total")
    table.add(["Infra errors / errors", *(f"{t.infra_errors} / {t.errors}" for t in totals)], "total")
    table.notes.append(
        "Each run averages its tasks' success rates (successes over all seeds, infra errors included) "
        "with equal weight per task family; SD is n/a with a single run."
    )
    return table


def task_matrix(a: Analysis) -> Table:
    """Tables 7–9: per task and condition, mean ± sample SD across runs, and the macro-average row."""
    table = Table(
        "tables7_9_tasks",
        "Base-task success rates (%, mean ± sample SD across runs) per task family",
        ["Task", "Steps", *(c.label for c in a.conditions)],
    )
    section = None
    for task in a.base_tasks:
        info = a.tasks[task]
        if info.group != section:
            section = info.group
            table.add([GROUP_SECTIONS[section], *([""] * (len(table.columns) - 1))], "section")
        cells = []
        for cond in a.conditions:
            count = a.count(cond, [task])
            cells.append(mean_sd(a.task_stat(cond, task)) + error_note(count) if count.episodes else "–")
            stat = a.task_stat(cond, task)
            if count.episodes:
                table.records.append(
                    {
                        **condition_fields(cond),
                        "task": task,
                        "arms": "" if info.arms is None else info.arms,
                        "steps": "" if info.budget is None else info.budget,
                        "runs": stat.n if stat else 0,
                        "mean_pct": percent_or_blank(stat.mean if stat else None),
                        "sd_pct": percent_or_blank(stat.sd if stat else None),
                        "episodes": count.episodes,
                        "successes": count.successes,
                        "infra_errors": count.infra_errors,
                        "errors": count.errors,
                    }
                )
        table.add([task, "" if info.budget is None else str(info.budget), *cells])
    table.add(
        [
            "Macro-average",
            "",
            *(mean_sd(a.macro(c, "all")) + error_note(a.count(c, a.base_tasks)) for c in a.conditions),
        ],
        "total",
    )
    table.notes.append("Steps is the task's step budget; [n infra, n error] counts such episodes in a cell.")
    return table


def progress_table(a: Analysis) -> Table:
    """Equation 12: checkpoint-level micro-average of subtask progress, all runs pooled."""
    table = Table(
        "eq12_progress",
        "Subtask progress (%): reached / scored checkpoint instances (micro-average, all runs pooled)",
        ["Condition", *(SUBSET_NAMES[s] for s in SUBSETS)],
    )
    for cond in a.conditions:
        cells = []
        for subset in SUBSETS:
            reached, scored = a.progress(cond, subset)
            cells.append(f"{pct(reached / scored if scored else None)} ({reached}/{scored})")
            table.records.append(
                {
                    **condition_fields(cond),
                    "subset": subset,
                    "reached": reached,
                    "scored": scored,
                    "progress_pct": percent_or_blank(reached / scored if scored else None),
                }
            )
        table.add([cond.label, *cells])
    table.notes.append(
        "Each episode scores every checkpoint of its task; episodes without checkpoint data "
        "(e.g. infra errors) count as reaching none."
    )
    return table


def outcome_table(a: Analysis) -> Table:
    """How every episode ended, per condition (base tasks and variants), so no episode goes unseen."""
    table = Table(
        "outcomes", "Episode outcomes by stop reason (all episodes)", ["Condition", "Episodes", *STOP_REASONS]
    )
    for cond in a.conditions:
        reasons = [e.stop_reason for e in a.episodes if e.condition == cond]
        counts = {r: reasons.count(r) for r in STOP_REASONS}
        other = len(reasons) - sum(counts.values())
        table.add([cond.label, str(len(reasons)), *(str(counts[r]) for r in STOP_REASONS)])
        table.records.append({**condition_fields(cond), "episodes": len(reasons), **counts, "other": other})
    return table


def step_episodes(a: Analysis) -> list[Episode]:
    """The episodes the shared step-episode sections describe: those of suites that keep the
    :attr:`~actloop.core.suite.Suite.step_report`, and of suites that are not installed."""
    known = suites()
    return [e for e in a.episodes if e.suite not in known or known[e.suite].step_report]


def suite_parts(a: Analysis) -> list[tuple[str, Suite | None, Analysis]]:
    """Per suite with episodes (by name): the installed suite (None when it is not) and the analysis of its
    episodes alone."""
    known = suites()
    names = sorted({e.suite for e in a.episodes})
    return [(n, known.get(n), a.part([e for e in a.episodes if e.suite == n])) for n in names]


def all_tables(a: Analysis) -> list[Table]:
    """Every table the data supports, in report order: the shared step-episode tables over the episodes
    they describe (:func:`step_episodes`), then each suite's own over its episodes (see
    :meth:`~actloop.core.suite.Suite.report_tables`), then the outcomes of every episode."""
    step = a.part(step_episodes(a))
    tables = [summary_table(step), task_matrix(step), progress_table(step)] if step.episodes else []
    for name, suite, part in suite_parts(a):
        if suite is None:
            a.notes.append(f"suite {name!r} is not installed: its own tables are left out")
            continue
        tables += suite.report_tables(part)
    tables.append(outcome_table(a))
    return tables
