"""The numbers of the report, computed from deduplicated episodes and task metadata.

Terminal success follows equation 3: per run, each task's success rate over its seeds, averaged over the
task families of a subset (single-arm, dual-arm, all); then mean and sample SD across runs. Episodes that
ended in ``infra_error`` or ``error`` stay in every denominator and are counted separately. Only base
tasks enter the base-task numbers: held-out variants (tasks with a base family) are compared with their
base, and tasks of other tracks (vabench's long-horizon basket) are reported on their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from actloop.core.result import Condition
from actloop.core.suite import Group, TaskInfo
from actloop.report.records import Episode
from actloop.report.stats import MeanSD, mean, sign_test

Subset = Literal["single", "dual", "all"]
SUBSETS: tuple[Subset, ...] = ("single", "dual", "all")
GROUPS: tuple[Group, ...] = ("single", "dual", "unknown")
ACTIVE, PASSIVE = "active", "passive"


@dataclass
class Count:
    """Successes and error outcomes among some episodes."""

    episodes: int = 0
    successes: int = 0
    infra_errors: int = 0
    errors: int = 0

    def add(self, episode: Episode) -> None:
        self.episodes += 1
        self.successes += episode.success
        self.infra_errors += episode.status == "infra_error"
        self.errors += episode.status == "error"

    def __iadd__(self, other: Count) -> Count:
        self.episodes += other.episodes
        self.successes += other.successes
        self.infra_errors += other.infra_errors
        self.errors += other.errors
        return self

    @property
    def rate(self) -> float | None:
        """Success rate in [0, 1] with every episode in the denominator; None for no episodes."""
        return self.successes / self.episodes if self.episodes else None


@dataclass(frozen=True)
class FamilyPair:
    """One task family's matched active and passive outcomes (same seeds and runs in both)."""

    task: str
    group: Group
    active: Count
    passive: Count

    @property
    def delta(self) -> int:
        """Passive minus active successes."""
        return self.passive.successes - self.active.successes


@dataclass(frozen=True)
class ProtocolComparison:
    """Active versus passive for one model and summary condition (tables 4 and 10)."""

    model: str
    summary: str
    families: list[FamilyPair]

    def total(self, subset: Subset, protocol: str) -> Count:
        count = Count()
        for pair in self.families:
            if _in_subset(pair.group, subset):
                count += pair.active if protocol == ACTIVE else pair.passive
        return count

    @property
    def passive_worse(self) -> int:
        return sum(pair.delta < 0 for pair in self.families)

    @property
    def passive_better(self) -> int:
        return sum(pair.delta > 0 for pair in self.families)

    @property
    def ties(self) -> int:
        return sum(pair.delta == 0 for pair in self.families)

    @property
    def p_value(self) -> float | None:
        """Two-sided exact sign test over families, ties dropped; None when every family is tied."""
        return sign_test(self.passive_worse, self.passive_better)


@dataclass(frozen=True)
class HeldOutPair:
    """A held-out variant and its base family under one condition, each pooled over its runs."""

    variant: str
    base: str
    variant_count: Count
    base_count: Count


@dataclass
class Analysis:
    """All report numbers; build with :func:`analyse`."""

    tasks: dict[str, TaskInfo]
    conditions: list[Condition]
    """Ordered by descending all-task macro-average."""
    base_tasks: list[str]
    """Base task families, single-arm first, then dual-arm, then those of unknown arm count."""
    variants: list[str]
    other_tracks: dict[str, list[str]]
    """Track name -> its tasks present, for tasks that are neither base tasks nor held-out variants."""
    counts: dict[tuple[Condition, str, int], Count]
    """(condition, task, run) -> outcome counts."""
    runs: dict[Condition, list[int]]
    checkpoint_names: dict[str, list[str]]
    episodes: list[Episode]
    notes: list[str] = field(default_factory=list)

    def group(self, task: str) -> Group:
        return self.tasks[task].group

    def subset_tasks(self, subset: Subset) -> list[str]:
        return [t for t in self.base_tasks if _in_subset(self.group(t), subset)]

    def run_rates(self, condition: Condition, task: str) -> dict[int, float]:
        """Per run, the task's success rate (runs without episodes of the task are absent)."""
        out = {}
        for run in self.runs.get(condition, []):
            rate = self.counts.get((condition, task, run), Count()).rate
            if rate is not None:
                out[run] = rate
        return out

    def run_macro(self, condition: Condition, subset: Subset) -> dict[int, float]:
        """Per run, the macro-average over the subset's task families that have episodes in that run."""
        out = {}
        for run in self.runs.get(condition, []):
            rates = [
                r
                for task in self.subset_tasks(subset)
                if (r := self.counts.get((condition, task, run), Count()).rate) is not None
            ]
            if rates:
                out[run] = mean(rates)
        return out

    def macro(self, condition: Condition, subset: Subset) -> MeanSD | None:
        """Mean ± sample SD across runs of the run-level macro-averages (equation 3)."""
        return MeanSD.of(list(self.run_macro(condition, subset).values()))

    def task_stat(self, condition: Condition, task: str) -> MeanSD | None:
        return MeanSD.of(list(self.run_rates(condition, task).values()))

    def count(self, condition: Condition, tasks: Iterable[str]) -> Count:
        """Outcome counts pooled over ``tasks`` and all runs."""
        wanted, total = set(tasks), Count()
        for (cond, task, _), count in self.counts.items():
            if cond == condition and task in wanted:
                total += count
        return total

    def progress(self, condition: Condition, subset: Subset) -> tuple[int, int]:
        """Equation 12: (reached, scored) checkpoint instances over all runs of the subset's base tasks.

        Every episode scores each checkpoint its task is known to have (the names seen in any row of the
        task); one that never recorded a checkpoint, such as an infra error, reached none.
        """
        wanted = set(self.subset_tasks(subset))
        reached = scored = 0
        for episode in self.episodes:
            if episode.condition == condition and episode.task in wanted:
                names = self.checkpoint_names.get(episode.task, [])
                scored += len(names)
                reached += sum(episode.checkpoints.get(name, False) for name in names)
        return reached, scored

    def protocol_comparisons(self) -> list[ProtocolComparison]:
        """Active vs passive per (model, summary) with both protocols, over matched (seed, run) pairs."""
        by_key: dict[tuple[str, str, str, str], dict[tuple[int, int], Episode]] = defaultdict(dict)
        for episode in self.episodes:
            cond = episode.condition
            if cond.protocol in (ACTIVE, PASSIVE) and episode.task in self.base_tasks:
                by_key[(cond.model, cond.summary, cond.protocol, episode.task)][
                    (episode.seed, episode.run)
                ] = episode
        out = []
        pairs = sorted({(c.model, c.summary) for c in self.conditions})
        for model, summary in pairs:
            families = []
            for task in self.base_tasks:
                active = by_key.get((model, summary, ACTIVE, task), {})
                passive = by_key.get((model, summary, PASSIVE, task), {})
                matched = sorted(set(active) & set(passive))
                if matched:
                    a, p = Count(), Count()
                    for key in matched:
                        a.add(active[key])
                        p.add(passive[key])
                    families.append(FamilyPair(task, self.group(task), a, p))
            if families:
                out.append(ProtocolComparison(model, summary, families))
        return out

    def part(self, episodes: list[Episode]) -> Analysis:
        """The analysis of some of its episodes (itself when they are all of them), with the same task
        metadata and the same notes (which already cover every episode)."""
        if len(episodes) == len(self.episodes):
            return self
        part = analyse(episodes, self.tasks)
        part.notes = self.notes
        return part

    def held_out(self, condition: Condition) -> list[HeldOutPair]:
        """Variants with rows under ``condition`` whose base family also has rows there."""
        out = []
        for variant in self.variants:
            base = self.tasks[variant].base
            if base is None:
                continue
            v, b = self.count(condition, [variant]), self.count(condition, [base])
            if v.episodes and b.episodes:
                out.append(HeldOutPair(variant, base, v, b))
        return out


def analyse(episodes: list[Episode], tasks: dict[str, TaskInfo]) -> Analysis:
    """Group ``episodes`` (deduplicated) by condition, task and run, and order conditions and tasks."""
    counts: dict[tuple[Condition, str, int], Count] = defaultdict(Count)
    runs: dict[Condition, set[int]] = defaultdict(set)
    names: dict[str, set[str]] = defaultdict(set)
    for episode in episodes:
        counts[(episode.condition, episode.task, episode.run)].add(episode)
        runs[episode.condition].add(episode.run)
        names[episode.task].update(episode.checkpoints)
    present = {e.task for e in episodes}
    base = sorted(
        (t for t in present if tasks[t].track == "base" and tasks[t].base is None),
        key=lambda t: (GROUPS.index(tasks[t].group), t),
    )
    variants = sorted(t for t in present if tasks[t].base is not None)
    other_tracks: dict[str, list[str]] = defaultdict(list)
    for task in sorted(present - set(base) - set(variants)):
        other_tracks[tasks[task].track].append(task)
    analysis = Analysis(
        tasks=tasks,
        conditions=sorted(runs),
        base_tasks=base,
        variants=variants,
        other_tracks=dict(other_tracks),
        counts=dict(counts),
        runs={c: sorted(r) for c, r in runs.items()},
        checkpoint_names={t: sorted(n) for t, n in names.items()},
        episodes=episodes,
    )
    analysis.conditions.sort(key=lambda c: _rank(analysis, c))
    analysis.notes.extend(_coverage_notes(analysis))
    return analysis


def _in_subset(group: Group, subset: Subset) -> bool:
    return subset == "all" or group == subset


def _rank(analysis: Analysis, condition: Condition) -> tuple[float, Condition]:
    stat = analysis.macro(condition, "all")
    return (-(stat.mean if stat else -1.0), condition)


def _coverage_notes(analysis: Analysis) -> list[str]:
    """Warnings where macro-averages rest on different task sets or seed counts."""
    notes = []
    suite_of = {e.task: e.suite for e in analysis.episodes}
    unknown = [t for t in analysis.base_tasks if analysis.group(t) == "unknown"]
    if unknown:
        notes.append(
            f"arm count unknown for {', '.join(unknown)}: counted in 'all' only, not in single or dual-arm"
        )
    for cond in analysis.conditions:
        for variant in analysis.variants:
            base = analysis.tasks[variant].base
            if (
                analysis.count(cond, [variant]).episodes
                and base
                and not analysis.count(cond, [base]).episodes
            ):
                notes.append(f"{cond.label}: held-out {variant} has no {base} episodes to compare with")
        suites = {e.suite for e in analysis.episodes if e.condition == cond}
        own = {t for t in analysis.base_tasks if suite_of[t] in suites}  # a condition runs its suites' tasks
        covered = {t for t in own if analysis.count(cond, [t]).episodes}
        if len(covered) < len(own):
            missing = sorted(own - covered)
            notes.append(f"{cond.label} has no episodes of {', '.join(missing)}")
        per_run = {
            run: {
                t: analysis.counts[(cond, t, run)].episodes
                for t in covered
                if (cond, t, run) in analysis.counts
            }
            for run in analysis.runs[cond]
        }
        shapes = {tuple(sorted(v.items())) for v in per_run.values()}
        if len(shapes) > 1:
            detail = "; ".join(
                f"run {r}: {sum(v.values())} episodes over {len(v)} tasks" for r, v in per_run.items()
            )
            notes.append(f"{cond.label}: runs differ in tasks or seeds ({detail})")
    return notes
