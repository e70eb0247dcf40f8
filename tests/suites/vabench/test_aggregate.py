"""Episode labels from judgments: gates first by majority, NA out of denominators, missing judgments counted,
the three label rules, module means that are NA when a criterion is NA, and a judge's votes collapsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from actloop.suites.vabench.diagnostics.aggregate import (
    Score,
    criteria_mean,
    criterion_scores,
    decide,
    episode_labels,
    module_scores,
)
from actloop.suites.vabench.diagnostics.records import (
    CRITERION_ITEMS,
    Judgment,
    Judgments,
    append_judgment,
    read_judgments,
)

RATERS = ("ann1", "ann2", "ann3")


def judgments(answers: dict[str, dict[str, tuple[int | None, ...]]], kind: str = "human") -> Judgments:
    """``{episode: {item: (value of ann1, ann2, ann3)}}`` as judgments; None leaves the rater's answer out."""
    found = Judgments()
    for episode, items in answers.items():
        for item, values in items.items():
            for rater, value in zip(RATERS, values, strict=False):
                if value is not None:
                    found.judgments.append(Judgment(rater, kind, episode, item, value))  # type: ignore[arg-type]
    return found


def full(**items: tuple[int | None, ...]) -> dict[str, tuple[int | None, ...]]:
    """Both gates positive and every criterion (1, 1, 1), except what ``items`` sets."""
    base: dict[str, tuple[int | None, ...]] = {"gate:ambiguity": (1, 1, 1), "gate:recovery": (1, 1, 1)}
    base.update(dict.fromkeys(CRITERION_ITEMS, (1, 1, 1)))
    base.update({key.replace("_", ":"): value for key, value in items.items()})
    return base


def test_decide_rules_and_the_even_tie() -> None:
    # (positives, judgments) -> (majority, strict, permissive)
    expected = {(3, 3): (1, 1, 1), (2, 3): (1, 0, 1), (1, 3): (0, 0, 1), (0, 3): (0, 0, 0), (1, 2): (0, 0, 1)}
    for (positive, total), labels in expected.items():
        assert tuple(decide(positive, total, rule) for rule in ("majority", "strict", "permissive")) == labels
    assert decide(2, 4) == 0  # half is not a majority
    assert decide(0, 0) is None
    with pytest.raises(ValueError, match="unknown rule"):
        decide(1, 1, "mean")  # type: ignore[arg-type]


def test_rules_change_criteria_but_never_gates() -> None:
    found = judgments({"ep": full(TL=(1, 1, 0), SR=(1, 0, 0), gate_recovery=(1, 0, 0), ED=(1, 1, 1))})
    by_rule = {rule: episode_labels(found, rule=rule)["ep"] for rule in ("majority", "strict", "permissive")}
    assert {rule: (lab.labels["TL"], lab.labels["SR"]) for rule, lab in by_rule.items()} == {
        "majority": (1, 0),
        "strict": (0, 0),
        "permissive": (1, 1),
    }
    for labels in by_rule.values():
        # one of three raters saw an error: the gate is 0 under every rule, so ED/OC/PF are NA
        assert labels.gates["gate:recovery"] == 0
        assert [labels.labels[c] for c in ("ED", "OC", "PF")] == [None, None, None]
        assert labels.applies("ED") is False and not labels.unlabeled("ED")
    assert by_rule["majority"].positives["TL"] == 2 and by_rule["majority"].raters["TL"] == 3


def test_each_gate_decides_only_its_criteria() -> None:
    found = judgments(
        {
            "no_ambiguity": full(gate_ambiguity=(0, 0, 1)),
            "no_error": full(gate_recovery=(0, 1, 0)),
        }
    )
    labels = episode_labels(found)
    assert labels["no_ambiguity"].labels == {**dict.fromkeys(CRITERION_ITEMS, 1), "AE": None}
    assert labels["no_error"].labels == {
        **dict.fromkeys(CRITERION_ITEMS, 1),
        "ED": None,
        "OC": None,
        "PF": None,
    }
    scores = criterion_scores(labels, ["no_ambiguity", "no_error"])
    # eq. 11: an NA episode leaves the denominator; the always-applicable criteria keep both episodes
    assert scores["AE"] == Score(1, 1) and scores["ED"] == Score(1, 1) and scores["TL"] == Score(2, 2)


def test_missing_judgments_are_counted_and_labels_use_what_is_there() -> None:
    found = judgments(
        {"ep": full(SR=(1, 0, None), MP=(1, 1, None), FG=(None, None, None), gate_recovery=(0, 0, None))}
    )
    labels = episode_labels(found)["ep"]
    assert labels.raters["SR"] == 2 and labels.missing["SR"] == 1
    assert labels.labels["SR"] == 0  # 1 of 2: a tie is not a majority
    assert labels.labels["MP"] == 1  # 2 of 2
    assert labels.labels["FG"] is None and labels.unlabeled("FG") and labels.missing["FG"] == 3
    # ann3 left the recovery gate open: missing there, but not on ED/OC/PF, which are NA
    assert labels.missing["gate:recovery"] == 1 and labels.missing["ED"] == 0
    assert criterion_scores({"ep": labels}, ["ep"])["FG"] == Score(0, 0, unlabeled=1)


def test_a_rater_who_skipped_an_episode_is_missing_on_all_its_items() -> None:
    found = judgments({"a": full(), "b": full()})
    found.judgments = [j for j in found.judgments if not (j.episode == "b" and j.rater == "ann3")]
    labels = episode_labels(found)
    assert set(labels["a"].missing.values()) == {0}
    assert labels["b"].missing["TL"] == 1 and labels["b"].missing["gate:ambiguity"] == 1


def test_undecided_gate_leaves_its_criteria_unlabeled_not_na() -> None:
    found = judgments({"ep": {**full(), "gate:ambiguity": ()}})
    labels = episode_labels(found)["ep"]
    assert labels.gates["gate:ambiguity"] is None and labels.applies("AE") is None
    assert labels.unlabeled("AE")
    scores = criterion_scores({"ep": labels}, ["ep", "never_annotated"])
    assert scores["AE"] == Score(0, 0, unlabeled=2)
    assert scores["TL"] == Score(1, 1, unlabeled=1)  # the other episode has no labels at all


def test_withdrawn_answer_counts_as_missing(tmp_path: Path) -> None:
    for rater in RATERS:
        append_judgment(tmp_path, Judgment(rater, "human", "ep", "TL", 1))
    append_judgment(tmp_path, Judgment("ann2", "human", "ep", "TL", None))
    labels = episode_labels(read_judgments(tmp_path))["ep"]
    assert (labels.positives["TL"], labels.raters["TL"], labels.missing["TL"]) == (2, 2, 1)
    assert labels.labels["TL"] == 1


def test_judge_votes_collapse_by_majority_before_the_rule(tmp_path: Path) -> None:
    # judge-a: TL votes 1,1,0 -> 1; SR votes 1,0 -> 0 (a tie); judge-b: TL 0 -> 0, SR 1 -> 1
    for vote, value in enumerate((1, 1, 0)):
        append_judgment(tmp_path, Judgment("judge-a", "judge", "ep", "TL", value, vote=vote))
    for vote, value in enumerate((1, 0)):
        append_judgment(tmp_path, Judgment("judge-a", "judge", "ep", "SR", value, vote=vote))
    append_judgment(tmp_path, Judgment("judge-b", "judge", "ep", "TL", 0))
    append_judgment(tmp_path, Judgment("judge-b", "judge", "ep", "SR", 1))
    append_judgment(tmp_path, Judgment("ann1", "human", "ep", "TL", 1))
    found = read_judgments(tmp_path)
    judge = episode_labels(found, kind="judge")["ep"]
    assert (judge.positives["TL"], judge.raters["TL"]) == (1, 2)  # one label per judge, not per vote
    assert (judge.positives["SR"], judge.raters["SR"]) == (1, 2)
    assert episode_labels(found, kind="judge", rule="permissive")["ep"].labels["TL"] == 1
    assert episode_labels(found, kind="judge", rule="strict")["ep"].labels["TL"] == 0
    assert episode_labels(found, kind="human")["ep"].raters["TL"] == 1  # humans are scored apart


def test_module_means_are_na_when_any_criterion_is() -> None:
    found = judgments(
        {
            "e1": full(AE=(0, 0, 0), SR=(0, 0, 1), gate_recovery=(0, 0, 0)),
            "e2": full(SR=(0, 0, 0), FG=(0, 1, 0), gate_recovery=(0, 0, 0)),
        }
    )
    scores = criterion_scores(episode_labels(found), ["e1", "e2"])
    # TL 2/2, AE 1/2, SR 0/2 -> SPU (1 + 0.5 + 0) / 3; MS 2/2, MP 2/2, FG 1/2 -> RM 2.5 / 3; ER: no error
    assert module_scores(scores) == {"SPU": pytest.approx(0.5), "RM": pytest.approx(2.5 / 3), "ER": None}
    assert scores["ED"] == Score(0, 0) and scores["ED"].rate is None
    assert criteria_mean(scores) is None
    with_error = criterion_scores(episode_labels(judgments({"e": full(OC=(0, 0, 1))})), ["e"])
    assert criteria_mean(with_error) == pytest.approx(8 / 9)
