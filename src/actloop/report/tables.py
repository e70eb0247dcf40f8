"""The report's tables, each as display cells (for Markdown and HTML) plus tidy rows (for CSV)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from actloop.core.result import STOP_REASONS, Condition
from actloop.report.analysis import (
    ACTIVE,
    PASSIVE,
    SUBSETS,
    Analysis,
    Count,
    ProtocolComparison,
    Subset,
)
from actloop.report.stats import MeanSD, mean

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


@dataclass
class Table:
    """A titled table; ``records`` are the same numbers in tidy form for its CSV file ``<key>.csv``."""

    key: str
    title: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, cells: list[str], kind: RowKind = "data") -> None:
        self.rows.append(Row(cells, kind))


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


def _percent_or_blank(value: float | None) -> float | str:
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
                    "mean_pct": _percent_or_blank(stat.mean if stat else None),
                    "sd_pct": _percent_or_blank(stat.sd if stat else None),
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
                        "mean_pct": _percent_or_blank(stat.mean if stat else None),
                        "sd_pct": _percent_or_blank(stat.sd if stat else None),
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
                    "progress_pct": _percent_or_blank(reached / scored if scored else None),
                }
            )
        table.add([cond.label, *cells])
    table.notes.append(
        "Each episode scores every checkpoint of its task; episodes without checkpoint data "
        "(e.g. infra errors) count as reaching none."
    )
    return table


def protocol_table(comparisons: list[ProtocolComparison]) -> Table:
    """Table 4: matched active vs passive success counts per subset, Δ, and the sign test over families."""
    table = Table(
        "table4_active_passive",
        "Active vs passive observation on matched seeds and runs: successes / episodes (rate %)",
        [
            "Model",
            "Summary",
            "Protocol",
            *(SUBSET_NAMES[s] for s in SUBSETS),
            "Families (P<A / P>A / tied)",
            "p",
        ],
    )
    for comp in comparisons:
        for protocol in (ACTIVE, PASSIVE):
            cells = []
            for subset in SUBSETS:
                c = comp.total(subset, protocol)
                cells.append(
                    f"{c.successes}/{c.episodes} ({pct(c.rate)})" + error_note(c) if c.episodes else "–"
                )
            table.add([comp.model, comp.summary, protocol, *cells, "", ""])
        deltas = []
        for subset in SUBSETS:
            act, pas = comp.total(subset, ACTIVE), comp.total(subset, PASSIVE)
            delta = None if act.rate is None or pas.rate is None else pas.rate - act.rate
            deltas.append("–" if delta is None else f"{100 * delta:+.2f} pp")
            table.records.append(
                {
                    "model": comp.model,
                    "summary": comp.summary,
                    "subset": subset,
                    "active_successes": act.successes,
                    "active_episodes": act.episodes,
                    "active_infra_errors": act.infra_errors,
                    "active_errors": act.errors,
                    "passive_successes": pas.successes,
                    "passive_episodes": pas.episodes,
                    "passive_infra_errors": pas.infra_errors,
                    "passive_errors": pas.errors,
                    "delta_pp": "" if delta is None else round(100 * delta, 4),
                    "families_passive_worse": comp.passive_worse,
                    "families_passive_better": comp.passive_better,
                    "families_tied": comp.ties,
                    "sign_test_p": "" if comp.p_value is None else comp.p_value,
                }
            )
        table.add(
            [
                comp.model,
                comp.summary,
                "Δ (passive − active)",
                *deltas,
                f"{comp.passive_worse} / {comp.passive_better} / {comp.ties}",
                "n/a" if comp.p_value is None else f"{comp.p_value:.4g}",
            ],
            "total",
        )
    table.notes.append(
        "Only (seed, run) pairs recorded under both protocols are compared. "
        "p: exact two-sided sign test over task families, ties dropped."
    )
    return table


def family_protocol_table(a: Analysis, comparisons: list[ProtocolComparison]) -> Table:
    """Table 10: per-family matched successes under active (A) and passive (P) observation."""
    heads = []
    for comp in comparisons:
        name = comp.model if comp.summary == "none" else f"{comp.model} [{comp.summary}]"
        heads += [f"{name} A", f"{name} P"]
    table = Table(
        "table10_families",
        "Per-family successes, active (A) vs passive (P), matched episodes",
        ["Task", *heads],
    )
    lookup = [{pair.task: pair for pair in comp.families} for comp in comparisons]
    section = None
    for task in a.base_tasks:
        if not any(task in fam for fam in lookup):
            continue
        group = a.group(task)
        if group != section:
            section = group
            table.add([GROUP_SECTIONS[group], *([""] * len(heads))], "section")
        cells = []
        for comp, fam in zip(comparisons, lookup, strict=True):
            pair = fam.get(task)
            if pair is None:
                cells += ["–", "–"]
                continue
            cells += [
                f"{pair.active.successes}/{pair.active.episodes}",
                f"{pair.passive.successes}/{pair.passive.episodes}",
            ]
            table.records.append(
                {
                    "model": comp.model,
                    "summary": comp.summary,
                    "task": task,
                    "arms_group": group,
                    "matched_episodes": pair.active.episodes,
                    "active_successes": pair.active.successes,
                    "passive_successes": pair.passive.successes,
                    "delta": pair.delta,
                    "active_infra_errors": pair.active.infra_errors,
                    "passive_infra_errors": pair.passive.infra_errors,
                }
            )
        table.add([task, *cells])
    for subset in SUBSETS:
        if not any(comp.total(subset, ACTIVE).episodes for comp in comparisons):
            continue
        cells = []
        for comp in comparisons:
            act, pas = comp.total(subset, ACTIVE), comp.total(subset, PASSIVE)
            cells += [f"{act.successes}/{act.episodes}", f"{pas.successes}/{pas.episodes}"]
        table.add([f"{SUBSET_NAMES[subset]} total", *cells], "total")
    return table


def held_out_tables(a: Analysis) -> list[Table]:
    """Tables 5 and 15: held-out variants vs their base families, when variant rows exist."""
    summary = Table(
        "table5_held_out",
        "Held-out transfer (%): mean over matched families of base and held-out success rates",
        ["Condition", "Matched variants", "Base", "Held-out", "Δ (held-out − base)"],
    )
    per_task = Table(
        "table15_held_out_tasks",
        "Held-out variants: success rate % (base family's rate in parentheses), all runs pooled",
        ["Variant", "Base family", *(c.label for c in a.conditions)],
    )
    cells: dict[str, dict[Condition, str]] = {}
    for cond in a.conditions:
        pairs = a.held_out(cond)
        if not pairs:
            continue
        base = mean([p.base_count.rate or 0.0 for p in pairs])
        held = mean([p.variant_count.rate or 0.0 for p in pairs])
        summary.add([cond.label, str(len(pairs)), pct(base), pct(held), f"{100 * (held - base):+.2f} pp"])
        for pair in pairs:
            cells.setdefault(pair.variant, {})[cond] = (
                f"{pct(pair.variant_count.rate)} ({pct(pair.base_count.rate)})"
                + error_note(pair.variant_count)
            )
            per_task.records.append(
                {
                    **condition_fields(cond),
                    "variant": pair.variant,
                    "base": pair.base,
                    "variant_successes": pair.variant_count.successes,
                    "variant_episodes": pair.variant_count.episodes,
                    "variant_infra_errors": pair.variant_count.infra_errors,
                    "base_successes": pair.base_count.successes,
                    "base_episodes": pair.base_count.episodes,
                    "variant_pct": _percent_or_blank(pair.variant_count.rate),
                    "base_pct": _percent_or_blank(pair.base_count.rate),
                }
            )
        summary.records.append(
            {
                **condition_fields(cond),
                "matched_variants": len(pairs),
                "base_pct": round(100 * base, 4),
                "held_out_pct": round(100 * held, 4),
                "delta_pp": round(100 * (held - base), 4),
            }
        )
    for variant in sorted(cells):
        base_name = a.tasks[variant].base or ""
        per_task.add([variant, base_name, *(cells[variant].get(c, "–") for c in a.conditions)])
    return [summary, per_task] if summary.rows else []


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


def verdict_table(a: Analysis) -> Table:
    """Our hardened verdict against the seed's literal one, per condition and task, with disagreements.

    The paper's verdict counts an episode as a success when its literal predicate held at any step (the
    paper's episode ends there); ours requires a settled, unsupported state that our stricter conditions
    confirm. "Paper only" episodes are states the literal checker accepted and ours did not.
    """
    columns = ["Condition", "Task", "Episodes", "Ours", "Paper", "Paper only", "Ours only", "Unknown"]
    table = Table("verdicts", "Hardened vs paper-literal success (episodes)", columns)
    for cond in a.conditions:
        for task in [*a.base_tasks, *a.variants]:
            episodes = [e for e in a.episodes if e.condition == cond and e.task == task]
            if not episodes:
                continue
            known = [e for e in episodes if e.paper_success is not None]
            counts = {
                "episodes": len(episodes),
                "ours": sum(e.success for e in episodes),
                "paper": sum(bool(e.paper_success) for e in known),
                "paper_only": sum(bool(e.paper_success) and not e.success for e in known),
                "ours_only": sum(e.success and not e.paper_success for e in known),
                "unknown": len(episodes) - len(known),
            }
            table.add([cond.label, task, *(str(v) for v in counts.values())])
            table.records.append({**condition_fields(cond), "task": task, **counts})
    disagreements = sum(r["paper_only"] + r["ours_only"] for r in table.records)
    table.notes.append(
        f'{disagreements} episode(s) where the verdicts disagree; "Unknown": rows recorded without the '
        "paper verdict"
    )
    return table


def all_tables(a: Analysis) -> list[Table]:
    """Every table the data supports, in report order."""
    tables = [summary_table(a), task_matrix(a), progress_table(a)]
    comparisons = a.protocol_comparisons()
    if comparisons:
        tables += [protocol_table(comparisons), family_protocol_table(a, comparisons)]
    tables += held_out_tables(a)
    tables += [verdict_table(a), outcome_table(a)]
    return tables


def subset_label(subset: Subset) -> str:
    return SUBSET_NAMES[subset]
