"""The report's trajectory-diagnostics tables, built when a run directory holds annotation or judge records:

- table 11: the nine criteria (%) per condition, pooled over base tasks; tables 12-14: each module's
  criteria in single-arm and dual-arm blocks; table 16: the module means;
- table 28: agreement among the raters of one kind; the label-rule robustness rows; human-judge agreement.

A condition is scored by human labels when a human labelled any of its episodes, else by the judges'
(captioned as such). Every percentage shows its positive and applicable counts; NA means no applicable
episode. Judgments missing from an incomplete annotation and episodes without labels are counted.
"""

from __future__ import annotations

from collections.abc import Iterable

from actloop.core.result import Condition
from actloop.report.analysis import Analysis, Subset
from actloop.report.charts import DIAGNOSTICS_TABLE
from actloop.report.tables import SUBSET_NAMES, RowKind, Table, condition_fields, percent_or_blank
from actloop.suites.vabench.diagnostics.aggregate import (
    CRITERION_GATES,
    RULES,
    EpisodeLabels,
    Rule,
    Score,
    criteria_mean,
    criterion_scores,
    module_scores,
)
from actloop.suites.vabench.diagnostics.agreement import (
    POOLS,
    Agreement,
    Coefficient,
    rater_agreement,
    source_concordance,
)
from actloop.suites.vabench.diagnostics.records import GATE_ITEMS, RATER_KINDS, RaterKind
from actloop.suites.vabench.diagnostics.report_labels import ReportLabels, episode_key, report_labels
from actloop.suites.vabench.diagnostics.rubric import MODULE_NAMES, Module, criterion, module_criteria

NA = "NA"
ARM_SUBSETS: tuple[Subset, ...] = ("single", "dual")
KIND_NAMES: dict[RaterKind, str] = {"human": "human annotators", "judge": "LLM judges"}


def diagnostics_tables(a: Analysis) -> list[Table]:
    """Every diagnostics table the records support, in report order; none without diagnostics records."""
    found = report_labels(a)
    if found is None:
        return []
    a.notes += [f"diagnostics: {problem}" for problem in found.problems]
    if not found.kinds():
        a.notes.append("diagnostics: a run has a diagnostics directory but no usable judgment")
        return []
    view = _View(a, found)
    tables = [view.criteria_table(), *(view.module_block_table(m) for m in MODULE_NAMES)]
    tables += [view.module_table(), view.robustness_table()]
    tables += [view.agreement_table(kind) for kind in found.kinds() if len(found.raters[kind]) > 1]
    if len(found.kinds()) == 2:
        tables.append(view.concordance_table())
    return tables


class _View:
    """The report's episodes seen through their labels."""

    def __init__(self, a: Analysis, found: ReportLabels) -> None:
        self.a = a
        self.found = found
        self.kinds = {
            cond: kind
            for cond in a.conditions
            if (kind := found.kind_for(self.keys(cond, self.all_tasks))) is not None
        }

    @property
    def all_tasks(self) -> list[str]:
        return [*self.a.base_tasks, *self.a.variants, *(t for ts in self.a.other_tracks.values() for t in ts)]

    def keys(self, cond: Condition, tasks: Iterable[str]) -> list[str]:
        wanted = set(tasks)
        return [episode_key(e) for e in self.a.episodes if e.condition == cond and e.task in wanted]

    def every_key(self, tasks: Iterable[str]) -> list[str]:
        """The keys of every condition's episodes of ``tasks``."""
        wanted = set(tasks)
        return [episode_key(e) for e in self.a.episodes if e.task in wanted]

    def labels(self, cond: Condition, rule: Rule = "majority") -> dict[str, EpisodeLabels]:
        return self.found.of(self.kinds[cond], rule)

    def scores(self, cond: Condition, tasks: Iterable[str], rule: Rule = "majority") -> dict[str, Score]:
        return criterion_scores(self.labels(cond, rule), self.keys(cond, tasks))

    def source_cell(self, cond: Condition) -> str:
        kind = self.kinds[cond]
        return f"{kind} ({len(self.found.raters[kind])})"

    def label_notes(self) -> list[str]:
        kinds = [kind for kind in RATER_KINDS if kind in self.kinds.values()]
        sources = "; ".join(f"{k}: {KIND_NAMES[k]} {', '.join(self.found.raters[k])}" for k in kinds)
        notes = [
            f"Labels (raters): {sources}. Each label is the majority of the raters' judgments; a condition "
            "is scored by human labels when any of its episodes has them, else by the judges'."
        ]
        judged = [c.label for c, k in self.kinds.items() if k == "judge"]
        if judged:
            notes.append(f"Judge labels, not human annotation: {', '.join(judged)}.")
        unlabeled = [c.label for c in self.a.conditions if c not in self.kinds]
        if unlabeled:
            notes.append(f"Not annotated, left out: {', '.join(unlabeled)}.")
        return notes

    def criteria_table(self) -> Table:
        """Table 11: the nine criteria pooled over base tasks, with annotation coverage."""
        codes = list(CRITERION_GATES)
        table = Table(
            DIAGNOSTICS_TABLE,
            "Trajectory diagnostics (%), base tasks pooled: positive / applicable episodes per criterion",
            ["Condition", "Labels", "Annotated", *codes, "Missing judgments"],
        )
        for cond in self.kinds:
            keys = self.keys(cond, self.a.base_tasks)
            labels = self.labels(cond)
            scores = criterion_scores(labels, keys)
            annotated = sum(k in labels for k in keys)
            missing = sum(sum(labels[k].missing.values()) for k in keys if k in labels)
            table.add(
                [
                    cond.label,
                    self.source_cell(cond),
                    f"{annotated}/{len(keys)}",
                    *(_score_cell(scores[c]) for c in codes),
                    str(missing),
                ]
            )
            table.records += [
                _score_record(cond, self.kinds[cond], "all", code, scores[code]) for code in codes
            ]
        table.notes += [
            "Each cell: positive rate (positive / applicable episodes). ED, OC and PF apply only to episodes "
            "whose recovery gate is 1, AE only where the ambiguity gate is 1; NA: no applicable episode.",
            "Annotated: base-task episodes with labels / all base-task episodes of the condition. Missing "
            "judgments: answers a rater owed (a gate, or an applicable criterion) and did not give.",
            *self.label_notes(),
            *self.unlabeled_notes(),
        ]
        return table

    def unlabeled_notes(self) -> list[str]:
        notes = []
        for cond in self.kinds:
            scores = self.scores(cond, self.a.base_tasks)
            gaps = {code: s.unlabeled for code, s in scores.items() if s.unlabeled}
            if gaps:
                detail = ", ".join(f"{code} {n}" for code, n in gaps.items())
                notes.append(f"{cond.label}: episodes without a label, out of the denominators: {detail}.")
        return notes

    def subsets(self) -> list[Subset]:
        return [s for s in ARM_SUBSETS if self.a.subset_tasks(s)]

    def module_block_table(self, module: Module) -> Table:
        """Tables 12-14: one module's criteria in single-arm and dual-arm blocks (base tasks)."""
        number = {"SPU": 12, "RM": 13, "ER": 14}[module]
        codes = [c.code for c in module_criteria(module)]
        subsets = self.subsets()
        table = Table(
            f"table{number}_{module.lower()}",
            f"Base-task {MODULE_NAMES[module]} diagnostics (%) by arm count",
            ["Condition", "Labels", *(f"{SUBSET_NAMES[s]} {c}" for s in subsets for c in codes)],
        )
        for cond in self.kinds:
            cells = []
            for subset in subsets:
                scores = self.scores(cond, self.a.subset_tasks(subset))
                cells += [_score_cell(scores[c]) for c in codes]
                table.records += [_score_record(cond, self.kinds[cond], subset, c, scores[c]) for c in codes]
            table.add([cond.label, self.source_cell(cond), *cells])
        table.notes.append("Each cell: positive rate (positive / applicable episodes); NA: none applicable.")
        if module == "ER":
            table.notes.append("Error-free episodes (recovery gate 0) are NA and excluded before each rate.")
        return table

    def module_table(self) -> Table:
        """Table 16: SPU, RM and ER as equal-weight means of their criteria; over held-out variants when
        some are annotated, else over every annotated episode."""
        held_out = any(k in self.labels(c) for c in self.kinds for k in self.keys(c, self.a.variants))
        tasks = self.a.variants if held_out else self.all_tasks
        scope = (
            "held-out variants" if held_out else "all annotated episodes (no held-out variant is annotated)"
        )
        table = Table(
            "table16_modules",
            f"Module-level diagnostics (%), equal-weight means of three criteria, over {scope}",
            ["Condition", "Labels", *MODULE_NAMES],
        )
        for cond in self.kinds:
            scores = self.scores(cond, tasks)
            means = module_scores(scores)
            cells = []
            for module, value in means.items():
                counts = "/".join(str(scores[c.code].applicable) for c in module_criteria(module))
                cells.append(f"{_pct(value)} (n {counts})")
                table.records.append(
                    {
                        **condition_fields(cond),
                        "labels": self.kinds[cond],
                        "scope": "held_out" if held_out else "annotated",
                        "module": module,
                        "mean_pct": percent_or_blank(value),
                        **{
                            f"{c.code}_applicable": scores[c.code].applicable for c in module_criteria(module)
                        },
                    }
                )
            table.add([cond.label, self.source_cell(cond), *cells])
        table.notes.append(
            "n: applicable episodes of the module's three criteria. A module is NA when any of its criteria "
            "is NA; it never averages fewer. Descriptive profiles, not an overall score."
        )
        return table

    def robustness_table(self) -> Table:
        """The nine-criterion mean per condition under the majority, strict and permissive label rules."""
        table = Table(
            "robustness_rules",
            "Robustness to the label rule: mean of the nine criteria (%), base tasks",
            [
                "Condition",
                "Labels",
                "Majority",
                "Strict",
                "Permissive",
                "Strict − majority",
                "Permissive − majority",
                "Range",
            ],
        )
        for cond in self.kinds:
            means = {}
            for rule in RULES:
                scores = self.scores(cond, self.a.base_tasks, rule)
                means[rule] = criteria_mean(scores)
                table.records += [
                    {**_score_record(cond, self.kinds[cond], "all", code, score), "rule": rule}
                    for code, score in scores.items()
                ]
            known = [v for v in means.values() if v is not None]
            table.add(
                [
                    cond.label,
                    self.source_cell(cond),
                    *(_pct(means[rule]) for rule in RULES),
                    _delta(means["strict"], means["majority"]),
                    _delta(means["permissive"], means["majority"]),
                    f"{100 * (max(known) - min(known)):.2f}" if len(known) == len(RULES) else NA,
                ]
            )
        table.notes += [
            "Gates are decided by majority under every rule. Majority: more than half of the judgments are "
            "positive; strict: all; permissive: any. The mean is NA when any criterion is NA.",
            "Per-criterion rates under each rule are in the CSV file.",
        ]
        return table

    def agreement_table(self, kind: RaterKind) -> Table:
        """Table 28: agreement among the raters of ``kind`` over applicable items every rater answered."""
        keys = self.every_key(self.a.base_tasks)
        labels = self.found.of(kind)
        scope = "base-task episodes"
        if not any(k in labels for k in keys):
            keys = self.every_key(self.all_tasks)
            scope = "all annotated episodes (no base-task episode is annotated)"
        rows = rater_agreement(labels, keys)
        raters = self.found.raters[kind]
        table = Table(
            "table28_agreement" if kind == "human" else "table28_agreement_judge",
            f"Agreement among the {len(raters)} {KIND_NAMES[kind]} over the nine criteria, {scope}, "
            "all conditions",
            ["Module", "Criterion", "n", "Unanimity", "Pos. rate", "Fleiss κ", "Gwet AC1"],
            printed=True,
        )
        undefined = []
        for name, row in rows.items():
            module = criterion(name).module if name in CRITERION_GATES else ", ".join(MODULE_NAMES)
            kind_row: RowKind = "data" if name in CRITERION_GATES else "total"
            table.add(
                [
                    module,
                    name,
                    f"{row.n:,}",
                    NA if row.unanimity is None else f"{100 * row.unanimity:.2f}%",
                    _fraction(row.positive_rate),
                    _fraction(row.fleiss.value),
                    _fraction(row.ac1.value),
                ],
                kind_row,
            )
            table.records.append(_agreement_record(kind, name, row))
            coefficients = (("Fleiss κ", row.fleiss), ("Gwet AC1", row.ac1))
            undefined += [f"{label} of {name}: {c.reason}" for label, c in coefficients if c.reason]
        total = rows[next(iter(POOLS))]
        table.notes += [
            f"n: applicable episode-criterion items that all {total.raters or len(raters)} raters answered "
            f"({total.n * total.raters:,} judgments); unanimity: items where every rater agrees; positive "
            "rate: majority labels equal to 1. ED, OC and PF count only episodes whose recovery gate is 1.",
            f"Raters: {', '.join(raters)}.",
        ]
        if total.incomplete:
            table.notes.append(
                f"{total.incomplete} applicable item(s) left out: some rater did not answer them (annotation "
                "incomplete)."
            )
        table.notes += [f"NA: {reason}." for reason in undefined]
        return table

    def concordance_table(self) -> Table:
        """Human majority against judge labels per gate and criterion: 2x2 counts and Cohen's kappa."""
        keys = self.every_key(self.all_tasks)
        rows = source_concordance(self.found.of("human"), self.found.of("judge"), keys)
        table = Table(
            "human_judge_agreement",
            "Human majority vs judge labels: items both label, all conditions and tasks",
            ["Item", "n", "Both 1", "Human 1, judge 0", "Human 0, judge 1", "Both 0", "Observed", "Cohen κ"],
            printed=True,
        )
        undefined = []
        for item, row in rows.items():
            table.add(
                [
                    item,
                    str(row.n),
                    str(row.both_positive),
                    str(row.first_only),
                    str(row.second_only),
                    str(row.both_negative),
                    _fraction(row.observed),
                    _fraction(row.kappa.value),
                ],
                "data" if item in (*GATE_ITEMS, *CRITERION_GATES) else "total",
            )
            table.records.append(
                {
                    "item": item,
                    "n": row.n,
                    "both_positive": row.both_positive,
                    "human_only": row.first_only,
                    "judge_only": row.second_only,
                    "both_negative": row.both_negative,
                    "observed": "" if row.observed is None else round(row.observed, 6),
                    **_coefficient_fields("cohen_kappa", row.kappa),
                }
            )
            if row.kappa.reason:
                undefined.append(f"{item}: {row.kappa.reason}")
        table.notes += [
            "A criterion counts where it applies under both label sources (each by its own majority gates); "
            "a gate counts where both decided it. Observed: fraction of items with the same label.",
            *(f"NA: {reason}." for reason in undefined),
        ]
        return table


def _score_cell(score: Score) -> str:
    return NA if score.rate is None else f"{100 * score.rate:.1f} ({score.positive}/{score.applicable})"


def _score_record(
    cond: Condition, kind: RaterKind, subset: str, code: str, score: Score
) -> dict[str, object]:
    return {
        **condition_fields(cond),
        "condition": cond.label,
        "labels": kind,
        "subset": subset,
        "module": criterion(code).module,
        "criterion": code,
        "positive": score.positive,
        "applicable": score.applicable,
        "unlabeled": score.unlabeled,
        "rate_pct": percent_or_blank(score.rate),
    }


def _agreement_record(kind: RaterKind, name: str, row: Agreement) -> dict[str, object]:
    return {
        "labels": kind,
        "module": criterion(name).module if name in CRITERION_GATES else "",
        "criterion": name,
        "n": row.n,
        "raters": row.raters,
        "incomplete": row.incomplete,
        "unanimity": "" if row.unanimity is None else round(row.unanimity, 6),
        "positive_rate": "" if row.positive_rate is None else round(row.positive_rate, 6),
        **_coefficient_fields("fleiss_kappa", row.fleiss),
        **_coefficient_fields("gwet_ac1", row.ac1),
    }


def _coefficient_fields(name: str, value: Coefficient) -> dict[str, object]:
    return {
        name: "" if value.value is None else round(value.value, 6),
        f"{name}_undefined": value.reason or "",
    }


def _pct(value: float | None) -> str:
    return NA if value is None else f"{100 * value:.1f}"


def _fraction(value: float | None) -> str:
    return NA if value is None else f"{value:.3f}"


def _delta(value: float | None, reference: float | None) -> str:
    return NA if value is None or reference is None else f"{100 * (value - reference):+.2f}"
