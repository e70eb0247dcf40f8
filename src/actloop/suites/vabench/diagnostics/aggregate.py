"""From raters' judgments to episode labels and criterion scores (the seed's equations 9-11).

Per episode, the applicability gates are decided first, always by majority over the raters (equation 9):
``gate:ambiguity`` decides AE, ``gate:recovery`` decides ED, OC and PF together; the other criteria always
apply. An applicable criterion's label then follows the chosen rule over the raters' judgments:

- ``majority``: positive when more than half of the available judgments are positive (equation 10; with
  three raters, two or more). With an even number of judgments a tie is 0: half is not a majority;
- ``strict``: positive when every available judgment is positive;
- ``permissive``: positive when any available judgment is positive.

A criterion whose gate is 0 is NA (``None``) and leaves every denominator. A rater with no current answer
to an item it had to answer (every gate; a criterion only when it applies) is *missing* for that item: the
label uses the judgments available, and the missing count says the annotation is incomplete. An item
without any judgment, or a criterion behind a gate nobody answered, has no label and is counted as
unlabeled, never as NA or as 0.

Human raters answer once (vote 0). A judge asked for several votes is first collapsed to one label per
item, the majority over its own votes (a tie is 0); that label is the judge's judgment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from actloop.suites.vabench.diagnostics.records import GATE_ITEMS, Judgments, RaterKind
from actloop.suites.vabench.diagnostics.rubric import CRITERIA, MODULE_NAMES, Module, module_criteria

Rule = Literal["majority", "strict", "permissive"]
RULES: tuple[Rule, ...] = ("majority", "strict", "permissive")
CRITERION_GATES: dict[str, str | None] = {
    c.code: None if c.gate.kind == "always" else f"gate:{c.gate.kind}" for c in CRITERIA
}
"""Criterion code -> the gate item deciding it (None: always applies)."""

RaterValues = dict[str, dict[str, dict[str, int]]]
"""rater -> episode -> item -> 0/1: each rater's current answers (a judge's votes already collapsed)."""


def decide(positive: int, total: int, rule: Rule = "majority") -> int | None:
    """The label ``positive`` of ``total`` judgments give under ``rule``; None when there is no judgment."""
    if total == 0:
        return None
    if rule == "majority":
        return int(2 * positive > total)
    if rule == "strict":
        return int(positive == total)
    if rule == "permissive":
        return int(positive > 0)
    raise ValueError(f"unknown rule {rule!r}; rules are {', '.join(RULES)}")


@dataclass(frozen=True)
class EpisodeLabels:
    """One episode's gates and criterion labels under one rule, with the counts behind them."""

    gates: dict[str, int | None]
    """Gate item -> majority decision; None when no rater answered it."""
    labels: dict[str, int | None]
    """Criterion code -> label; None when NA (gate 0) or unlabeled (see :meth:`applies`)."""
    positives: dict[str, int]
    """Item -> number of positive judgments."""
    raters: dict[str, int]
    """Item -> number of judgments."""
    missing: dict[str, int]
    """Item -> number of raters who had to answer it and did not."""

    def applies(self, code: str) -> bool | None:
        """Whether a criterion applies: its gate's decision (True when ungated; None when undecided)."""
        gate = CRITERION_GATES[code]
        if gate is None:
            return True
        decision = self.gates[gate]
        return None if decision is None else decision == 1

    def unlabeled(self, code: str) -> bool:
        """True when the criterion may apply but has no label (no judgment, or its gate undecided)."""
        return self.applies(code) is not False and self.labels[code] is None


def rater_values(judgments: Judgments, kind: RaterKind = "human") -> RaterValues:
    """Each rater's current answers of ``kind``; a rater's several votes collapse by majority per item.
    Every rater who ever judged is present, even when all its answers were withdrawn."""
    votes: dict[str, dict[str, dict[str, list[int]]]] = {rater: {} for rater in judgments.raters(kind)}
    for (rater_kind, rater, _), episodes in judgments.current().items():
        if rater_kind != kind:
            continue
        for episode, items in episodes.items():
            answers = votes[rater].setdefault(episode, {})
            for item, value in items.items():
                answers.setdefault(item, []).append(value)
    return {
        rater: {
            episode: {
                item: label
                for item, values in items.items()
                if (label := decide(sum(values), len(values))) is not None
            }
            for episode, items in episodes.items()
        }
        for rater, episodes in votes.items()
    }


def label_values(values: RaterValues, rule: Rule = "majority") -> dict[str, EpisodeLabels]:
    """Episode labels from per-rater answers (every rater in ``values`` is expected on every episode)."""
    episodes = sorted({episode for answers in values.values() for episode in answers})
    out = {}
    for episode in episodes:
        answers = [rater.get(episode, {}) for rater in values.values()]
        positives = {}
        counts = {}
        for item in (*GATE_ITEMS, *CRITERION_GATES):
            given = [a[item] for a in answers if item in a]
            positives[item], counts[item] = sum(given), len(given)
        gates = {gate: decide(positives[gate], counts[gate]) for gate in GATE_ITEMS}
        labels: dict[str, int | None] = {}
        missing = {gate: len(answers) - counts[gate] for gate in GATE_ITEMS}
        for code, gate in CRITERION_GATES.items():
            applies = gate is None or gates[gate] == 1
            labels[code] = decide(positives[code], counts[code], rule) if applies else None
            missing[code] = len(answers) - counts[code] if applies else 0
        out[episode] = EpisodeLabels(gates, labels, positives, counts, missing)
    return out


def episode_labels(
    judgments: Judgments, kind: RaterKind = "human", rule: Rule = "majority"
) -> dict[str, EpisodeLabels]:
    """Labels of every episode some rater of ``kind`` judged, keyed by the episode's record name."""
    return label_values(rater_values(judgments, kind), rule)


@dataclass(frozen=True)
class Score:
    """A criterion's positive labels over the episodes it applies to (equation 11)."""

    positive: int
    applicable: int
    unlabeled: int = 0
    """Episodes it may apply to that have no label (not annotated, or annotated incompletely)."""

    @property
    def rate(self) -> float | None:
        """``positive / applicable``; None (NA) when no episode is applicable."""
        return self.positive / self.applicable if self.applicable else None


def criterion_scores(
    labels_by_episode: Mapping[str, EpisodeLabels], episodes: Iterable[str]
) -> dict[str, Score]:
    """Per criterion, the score over ``episodes``; an episode without labels counts as unlabeled."""
    names = list(episodes)
    out = {}
    for code in CRITERION_GATES:
        positive = applicable = unlabeled = 0
        for name in names:
            found = labels_by_episode.get(name)
            if found is None or found.unlabeled(code):
                unlabeled += 1
            elif (label := found.labels[code]) is not None:
                applicable += 1
                positive += label
        out[code] = Score(positive, applicable, unlabeled)
    return out


def module_scores(scores: Mapping[str, Score]) -> dict[Module, float | None]:
    """Per module, the equal-weight mean of its three criterion rates; None (NA) when any of them is NA."""
    return {
        module: _mean_or_na([scores[c.code].rate for c in module_criteria(module)]) for module in MODULE_NAMES
    }


def criteria_mean(scores: Mapping[str, Score]) -> float | None:
    """The mean of the nine criterion rates; None (NA) when any of them is NA."""
    return _mean_or_na([scores[code].rate for code in CRITERION_GATES])


def _mean_or_na(rates: list[float | None]) -> float | None:
    known = [r for r in rates if r is not None]
    return sum(known) / len(known) if known and len(known) == len(rates) else None
