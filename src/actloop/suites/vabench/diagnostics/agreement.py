"""Agreement statistics for the nine criteria: among the raters of one kind (the seed's table 28) and
between two label sources, human majority against judge labels.

Among raters, an *item* is one applicable episode-criterion pair (its gate decided 1 by majority, or
ungated) that every rater answered; items with a missing judgment are counted, not used. Per item set:

- n, and unanimity: the fraction of items on which every rater gave the same answer;
- positive rate: the fraction of majority labels equal to 1;
- Fleiss' kappa (Fleiss 1971), computed by statsmodels;
- Gwet's AC1 (Gwet 2008), computed here (statsmodels has none): with r_ik raters of item i choosing
  category k, r_i = sum_k r_ik, q categories and n items,

      p_a = mean over items with r_i >= 2 of  sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))
      pi_k = mean over items of r_ik / r_i
      p_e = sum_k pi_k (1 - pi_k) / (q - 1)
      AC1 = (p_a - p_e) / (1 - p_e)

  (Gwet, K. L. 2008, "Computing inter-rater reliability and its variance in the presence of high
  agreement", British Journal of Mathematical and Statistical Psychology 61, 29-48.)

Between two sources, Cohen's kappa (statsmodels) with the 2x2 counts and observed agreement, over the items
both label. A coefficient that is undefined (no items, or chance agreement of 1 because every answer is the
same) is reported as a :class:`Coefficient` without a value and with the reason, never as NaN.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from actloop.suites.vabench.diagnostics.aggregate import CRITERION_GATES, EpisodeLabels, decide
from actloop.suites.vabench.diagnostics.records import GATE_ITEMS

ALL = "All criteria"
ALL_BUT_FG = "All except FG"
POOLS: dict[str, tuple[str, ...]] = {
    ALL: tuple(CRITERION_GATES),
    ALL_BUT_FG: tuple(code for code in CRITERION_GATES if code != "FG"),
}
"""The pooled rows of table 28 and the criteria each pools."""


@dataclass(frozen=True)
class Coefficient:
    """An agreement coefficient, or why it is undefined."""

    value: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Agreement:
    """Agreement among m raters over n binary items (a row of table 28)."""

    n: int
    raters: int
    unanimity: float | None
    positive_rate: float | None
    fleiss: Coefficient
    ac1: Coefficient
    incomplete: int = 0
    """Applicable items left out because some rater did not answer them."""


@dataclass(frozen=True)
class Concordance:
    """Two label sources on the same binary items: the 2x2 counts, observed agreement and Cohen's kappa."""

    both_positive: int
    first_only: int
    second_only: int
    both_negative: int
    kappa: Coefficient

    @property
    def n(self) -> int:
        return self.both_positive + self.first_only + self.second_only + self.both_negative

    @property
    def observed(self) -> float | None:
        return (self.both_positive + self.both_negative) / self.n if self.n else None


def fleiss(counts: Sequence[Sequence[int]]) -> Coefficient:
    """Fleiss' kappa of an items x categories count table, every item rated by the same number of raters."""
    table = np.asarray(counts, dtype=float)
    undefined = _undefined(table)
    if undefined:
        return Coefficient(None, undefined)
    if len(set(table.sum(axis=1))) != 1:
        raise ValueError("Fleiss' kappa needs the same number of ratings on every item")
    from statsmodels.stats.inter_rater import fleiss_kappa  # 2 s to import: only when there is data

    return Coefficient(float(fleiss_kappa(table, method="fleiss")))


def gwet_ac1(counts: Sequence[Sequence[int]]) -> Coefficient:
    """Gwet's AC1 of an items x categories count table (items may have different rater counts; see the
    module docstring for the formula). With q categories, q is the table's column count."""
    table = np.asarray(counts, dtype=float)
    if table.size == 0:
        return Coefficient(None, "no items")
    if table.ndim != 2 or table.shape[1] < 2:
        raise ValueError("a count table has one row per item and one column per category (at least two)")
    table = table[table.sum(axis=1) > 0]
    per_item = table.sum(axis=1)
    paired = table[per_item >= 2]
    if not len(paired):
        return Coefficient(None, "no item has two ratings")
    r = paired.sum(axis=1)
    p_a = float(np.mean((paired * (paired - 1)).sum(axis=1) / (r * (r - 1))))
    pi = (table / per_item[:, None]).mean(axis=0)
    p_e = float((pi * (1 - pi)).sum() / (table.shape[1] - 1))
    return Coefficient((p_a - p_e) / (1 - p_e))


def binary_agreement(positives: Sequence[int], raters: int, incomplete: int = 0) -> Agreement:
    """Agreement over binary items each answered by ``raters`` raters, ``positives[i]`` of them positive."""
    counts = [[raters - p, p] for p in positives]
    n = len(positives)
    return Agreement(
        n=n,
        raters=raters,
        unanimity=sum(p in (0, raters) for p in positives) / n if n else None,
        positive_rate=sum(decide(p, raters) == 1 for p in positives) / n if n else None,
        fleiss=fleiss(counts),
        ac1=gwet_ac1(counts),
        incomplete=incomplete,
    )


def rater_agreement(labels: Mapping[str, EpisodeLabels], episodes: Iterable[str]) -> dict[str, Agreement]:
    """Table 28's rows over ``episodes``: each criterion, then :data:`POOLS`. Items are those that apply
    (gates by majority) and that every rater answered; where run directories had panels of different
    sizes, an item judged by fewer raters than the largest panel counts as incomplete too."""
    answered: dict[str, list[tuple[int, int]]] = {code: [] for code in CRITERION_GATES}
    incomplete = dict.fromkeys(CRITERION_GATES, 0)
    for name in episodes:
        found = labels.get(name)
        if found is None:
            continue
        for code in CRITERION_GATES:
            if found.applies(code) is not True:
                continue
            if found.missing[code]:
                incomplete[code] += 1
            else:
                answered[code].append((found.raters[code], found.positives[code]))
    raters = max((r for pairs in answered.values() for r, _ in pairs), default=0)
    items: dict[str, list[int]] = {}
    for code, pairs in answered.items():
        items[code] = [p for r, p in pairs if r == raters]
        incomplete[code] += len(pairs) - len(items[code])
    rows = {code: binary_agreement(items[code], raters, incomplete[code]) for code in CRITERION_GATES}
    for pool, codes in POOLS.items():
        pooled = [p for code in codes for p in items[code]]
        rows[pool] = binary_agreement(pooled, raters, sum(incomplete[code] for code in codes))
    return rows


def cohen(first: Sequence[int], second: Sequence[int]) -> Concordance:
    """Cohen's kappa between two binary label sequences of the same items, with the 2x2 counts."""
    if len(first) != len(second):
        raise ValueError(f"label sequences differ in length ({len(first)} and {len(second)})")
    pairs = list(zip(first, second, strict=True))
    cells = [[pairs.count((1, 1)), pairs.count((1, 0))], [pairs.count((0, 1)), pairs.count((0, 0))]]
    table = np.asarray(cells, dtype=float)
    undefined = _undefined_cohen(table)
    if undefined:
        kappa = Coefficient(None, undefined)
    else:
        from statsmodels.stats.inter_rater import cohens_kappa  # 2 s to import: only when there is data

        kappa = Coefficient(float(cohens_kappa(table, return_results=False)))
    return Concordance(cells[0][0], cells[0][1], cells[1][0], cells[1][1], kappa)


def source_concordance(
    first: Mapping[str, EpisodeLabels], second: Mapping[str, EpisodeLabels], episodes: Iterable[str]
) -> dict[str, Concordance]:
    """Per gate, per criterion and pooled over all criteria: Cohen's kappa between two label sources
    (e.g. human majority and judge labels) on the items both label (a criterion: applicable under both)."""
    pairs: dict[str, tuple[list[int], list[int]]] = {
        item: ([], []) for item in (*GATE_ITEMS, *CRITERION_GATES)
    }
    for name in episodes:
        a, b = first.get(name), second.get(name)
        if a is None or b is None:
            continue
        for item, (left, right) in pairs.items():
            x, y = _label(a, item), _label(b, item)
            if x is not None and y is not None:
                left.append(x)
                right.append(y)
    out = {item: cohen(left, right) for item, (left, right) in pairs.items()}
    out[ALL] = cohen(
        [v for code in CRITERION_GATES for v in pairs[code][0]],
        [v for code in CRITERION_GATES for v in pairs[code][1]],
    )
    return out


def _label(labels: EpisodeLabels, item: str) -> int | None:
    return labels.gates[item] if item in GATE_ITEMS else labels.labels[item]


def _undefined(table: np.ndarray) -> str | None:
    """Why a chance-corrected coefficient of this count table is undefined, if it is."""
    if table.size == 0 or table.sum() == 0:
        return "no items"
    if np.count_nonzero(table.sum(axis=0)) == 1:
        return "every judgment is the same: chance agreement is 1"
    return None


def _undefined_cohen(table: np.ndarray) -> str | None:
    if table.sum() == 0:
        return "no items"
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    if np.count_nonzero(rows) == 1 and np.array_equal(np.flatnonzero(rows), np.flatnonzero(columns)):
        return "both sources give every item the same label: chance agreement is 1"
    return None
