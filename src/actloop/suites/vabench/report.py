"""vabench's own report tables: active vs passive (table 4 and per family), held-out transfer (tables 5
and 15), the long-horizon basket track (table 5's last columns), the hardened verdict against the
paper's literal one, and the trajectory diagnostics when a run holds annotation or judge records."""

from __future__ import annotations

from actloop.core.result import Condition
from actloop.report.analysis import ACTIVE, PASSIVE, SUBSETS, Analysis, ProtocolComparison
from actloop.report.stats import mean
from actloop.report.tables import (
    GROUP_SECTIONS,
    SUBSET_NAMES,
    Table,
    condition_fields,
    error_note,
    pct,
    percent_or_blank,
)
from actloop.suites.vabench.diagnostics.tables import diagnostics_tables


def report_tables(a: Analysis) -> list[Table]:
    """The tables the data supports, in report order."""
    tables = []
    comparisons = a.protocol_comparisons()
    if comparisons:
        tables += [protocol_table(comparisons), family_protocol_table(a, comparisons)]
    tables += held_out_tables(a)
    if a.other_tracks.get("long_horizon"):
        tables.append(long_horizon_table(a))
    tables.append(verdict_table(a))
    tables += diagnostics_tables(a)
    return tables


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
                    "variant_pct": percent_or_blank(pair.variant_count.rate),
                    "base_pct": percent_or_blank(pair.base_count.rate),
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


OBJECTS_PLACED = "objects_in_basket"
"""The long-horizon task's final-state metric: how many of its objects are in the basket."""
PLACEMENT_CHECKPOINT = "in_basket_"
"""Prefix of the long-horizon task's per-object checkpoints; their number is the objects per episode."""


def long_horizon_table(a: Analysis) -> Table:
    """Table 5's long-horizon columns: object placements out of (objects × episodes) and strict success.

    A placement counts when the object is in the basket in the episode's final state; an episode that
    ended in an error stays in both denominators with the placements its final state shows (none if it
    never evaluated).
    """
    table = Table(
        "table5_long_horizon",
        "Long-horizon composition: objects in the basket at the end, out of objects × episodes, and "
        "strict episode success",
        ["Condition", "Task", "Episodes", "Objects placed", "Placement %", "Strict success"],
    )
    for cond in a.conditions:
        for task in a.other_tracks["long_horizon"]:
            episodes = [e for e in a.episodes if e.condition == cond and e.task == task]
            if not episodes:
                continue
            objects = sum(name.startswith(PLACEMENT_CHECKPOINT) for name in a.checkpoint_names[task])
            placed = sum(int(e.scores.get("metrics", {}).get(OBJECTS_PLACED, 0)) for e in episodes)
            possible = objects * len(episodes)
            count = a.count(cond, [task])
            rate = placed / possible if possible else None
            table.add(
                [
                    cond.label,
                    task,
                    str(len(episodes)),
                    f"{placed}/{possible}",
                    pct(rate),
                    f"{count.successes}/{count.episodes} ({pct(count.rate)})" + error_note(count),
                ]
            )
            table.records.append(
                {
                    **condition_fields(cond),
                    "task": task,
                    "episodes": len(episodes),
                    "objects_placed": placed,
                    "objects_possible": possible,
                    "placement_pct": percent_or_blank(rate),
                    "strict_successes": count.successes,
                    "strict_success_pct": percent_or_blank(count.rate),
                    "infra_errors": count.infra_errors,
                    "errors": count.errors,
                }
            )
    table.notes.append(
        "Placements are read from each episode's final state; every episode, errors included, counts "
        "its objects in the denominator."
    )
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
            known = [
                (e.success, e.scores["paper_success"] is True)
                for e in episodes
                if "paper_success" in e.scores
            ]
            counts = {
                "episodes": len(episodes),
                "ours": sum(e.success for e in episodes),
                "paper": sum(paper for _, paper in known),
                "paper_only": sum(paper and not ours for ours, paper in known),
                "ours_only": sum(ours and not paper for ours, paper in known),
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
