"""Agreement statistics against hand computations and published worked examples, their degenerate cases,
and table 28's item sets (applicable, complete) built from episode labels."""

from __future__ import annotations

import pytest

from actloop.suites.vabench.diagnostics.aggregate import episode_labels
from actloop.suites.vabench.diagnostics.agreement import (
    ALL,
    ALL_BUT_FG,
    binary_agreement,
    cohen,
    fleiss,
    gwet_ac1,
    rater_agreement,
    source_concordance,
)
from actloop.suites.vabench.diagnostics.records import CRITERION_ITEMS, Judgment, Judgments

# Fleiss (1971) as worked on Wikipedia ("Fleiss' kappa"): 10 subjects, 14 raters, 5 categories.
FLEISS_1971 = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Gwet's cac.raw4raters (irrCAC documentation, from Gwet's Handbook of Inter-Rater Reliability): 12 units,
# 4 raters, categories 1-5, None where a rater gave no rating. Published: p_a = 0.8181818, p_e = 0.1903212,
# AC1 = 0.7754.
RAW_4_RATERS = [
    (1, 1, None, 1),
    (2, 2, 3, 2),
    (3, 3, 3, 3),
    (3, 3, 3, 3),
    (2, 2, 2, 2),
    (1, 2, 3, 4),
    (4, 4, 4, 4),
    (1, 1, 2, 1),
    (2, 2, 2, 2),
    (None, 5, 5, 5),
    (None, None, 1, 1),
    (None, None, 3, None),
]

# irrCAC's cont3x3abstractors: 100 women classified by two abstractors (rows: abstractor 1, columns: 2).
# Published: Gwet's AC1 = 0.8493305.
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


def test_fleiss_kappa_published_example() -> None:
    value = fleiss(FLEISS_1971).value
    assert value is not None and round(value, 3) == 0.210


def test_gwet_ac1_published_examples() -> None:
    counts = [[sum(r == k for r in unit) for k in range(1, 6)] for unit in RAW_4_RATERS]
    # unit 12 has one rating: it enters pi_k but not p_a. Of the 11 others, 8 agree fully, units 2 and 8
    # score 3*2/(4*3) = 1/2 each and unit 6 scores 0: p_a = (8 + 1/2 + 1/2)/11 = 9/11
    value = gwet_ac1(counts).value
    assert value is not None and round(value, 4) == 0.7754
    # two raters: every woman is one item rated twice, in the row's and the column's category
    items = []
    for i, row in enumerate(ABSTRACTORS):
        for j, count in enumerate(row):
            items += [[(k == i) + (k == j) for k in range(3)]] * count
    value = gwet_ac1(items).value
    assert value is not None and round(value, 7) == 0.8493305


def test_binary_agreement_by_hand_where_kappa_and_ac1_part() -> None:
    # 4 items, 3 raters, positives 3, 3, 3, 2.
    # per-item agreement P_i: 1, 1, 1, (2*1 + 1*0)/(3*2) = 1/3 -> P = (3 + 1/3)/4 = 5/6
    # p(1) = 11/12, p(0) = 1/12
    # Fleiss: P_e = (11/12)^2 + (1/12)^2 = 122/144 = 61/72 -> kappa = (60/72 - 61/72)/(11/72) = -1/11
    # AC1: p_e = 2 * (11/12) * (1/12) / (2 - 1) = 11/72 -> AC1 = (60/72 - 11/72)/(61/72) = 49/61
    result = binary_agreement([3, 3, 3, 2], raters=3)
    assert result.fleiss.value == pytest.approx(-1 / 11)
    assert result.ac1.value == pytest.approx(49 / 61)
    assert (result.n, result.unanimity, result.positive_rate) == (4, 0.75, 1.0)


def test_binary_agreement_by_hand_balanced() -> None:
    # positives 3, 2, 0, 1 of 3: P_i = 1, 1/3, 1, 1/3 -> P = 2/3; p(1) = 6/12 = 1/2
    # Fleiss P_e = 1/4 + 1/4 = 1/2 -> kappa = (2/3 - 1/2)/(1/2) = 1/3; AC1 p_e = 2 * 1/4 = 1/2 -> also 1/3
    result = binary_agreement([3, 2, 0, 1], raters=3)
    assert result.fleiss.value == pytest.approx(1 / 3) and result.ac1.value == pytest.approx(1 / 3)
    assert (result.unanimity, result.positive_rate) == (0.5, 0.5)  # majority labels 1, 1, 0, 0


def test_degenerate_cases_are_reasons_not_nan() -> None:
    same = binary_agreement([3, 3, 3], raters=3)
    assert same.fleiss.value is None and "chance agreement is 1" in (same.fleiss.reason or "")
    assert same.ac1.value == 1.0  # AC1's chance term is 0 when every judgment is the same
    empty = binary_agreement([], raters=3)
    assert (empty.n, empty.unanimity, empty.positive_rate) == (0, None, None)
    assert empty.fleiss == empty.ac1 and empty.fleiss.reason == "no items"
    assert gwet_ac1([[1, 0], [0, 1]]).reason == "no item has two ratings"
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss([[2, 1], [1, 0]])
    with pytest.raises(ValueError, match="one column per category"):
        gwet_ac1([[3], [2]])


def test_cohen_kappa_textbook_and_hand() -> None:
    # Wikipedia's "Cohen's kappa" example: 50 proposals; both yes 20, A only 5, B only 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5 -> kappa = 0.4
    first = [1] * 25 + [0] * 25
    second = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    result = cohen(first, second)
    assert (result.both_positive, result.first_only, result.second_only, result.both_negative) == (
        20,
        5,
        10,
        15,
    )
    assert result.observed == pytest.approx(0.7) and result.kappa.value == pytest.approx(0.4)
    # by hand: p_o = 3/4, p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2 -> kappa = 1/2
    assert cohen([1, 1, 0, 0], [1, 0, 0, 0]).kappa.value == pytest.approx(0.5)
    assert cohen([1, 1], [1, 1]).kappa.value is None
    assert cohen([1, 1], [0, 0]).kappa.value == pytest.approx(0.0)  # p_o = 0 = p_e
    assert cohen([], []).kappa.reason == "no items" and cohen([], []).observed is None
    with pytest.raises(ValueError, match="differ in length"):
        cohen([1], [])


def answers(kind: str, rows: dict[str, dict[str, tuple[int | None, ...]]]) -> list[Judgment]:
    out = []
    for episode, items in rows.items():
        for item, values in items.items():
            for rater, value in zip(("r1", "r2", "r3"), values, strict=False):
                if value is not None:
                    out.append(Judgment(rater, kind, episode, item, value))  # type: ignore[arg-type]
    return out


def everything(
    value: tuple[int | None, ...], **items: tuple[int | None, ...]
) -> dict[str, tuple[int | None, ...]]:
    rows = {"gate:ambiguity": (1, 1, 1), "gate:recovery": (1, 1, 1), **dict.fromkeys(CRITERION_ITEMS, value)}
    return {**rows, **{key.replace("_", ":"): v for key, v in items.items()}}


def test_rater_agreement_items_are_applicable_and_complete() -> None:
    found = Judgments(
        answers(
            "human",
            {
                # no error by majority: ED/OC/PF are not items here
                "e1": everything((1, 1, 1), gate_recovery=(0, 0, 1), FG=(1, 0, 0)),
                # r3 did not answer MP: an incomplete item, left out and counted
                "e2": everything((0, 0, 0), SR=(1, 1, 0), MP=(1, 1, None), ED=(1, 0, 1)),
            },
        )
    )
    rows = rater_agreement(episode_labels(found), ["e1", "e2", "unannotated"])
    assert rows["TL"].n == 2 and rows["TL"].unanimity == 1.0 and rows["TL"].positive_rate == 0.5
    assert rows["MP"].n == 1 and rows["MP"].incomplete == 1
    assert rows["ED"].n == 1 and rows["ED"].positive_rate == 1.0 and rows["ED"].unanimity == 0.0
    # items: TL AE SR MS FG from both episodes (10), MP from e1 (1), ED OC PF from e2 (3) -> 14
    assert rows[ALL].n == 14 and rows[ALL].incomplete == 1 and rows[ALL].raters == 3
    # splits: e1 FG, e2 SR, e2 ED -> unanimity 11/14
    assert rows[ALL].unanimity == pytest.approx(11 / 14)
    assert rows[ALL_BUT_FG].n == 12 and rows[ALL_BUT_FG].unanimity == pytest.approx(10 / 12)
    # positives per pooled item: e1 TL AE SR MS MP 3 each, FG 1; e2 TL AE MS FG 0, SR 2, ED 2, OC PF 0
    by_hand = binary_agreement([3, 3, 3, 3, 3, 1, 0, 0, 0, 0, 2, 2, 0, 0], raters=3, incomplete=1)
    assert rows[ALL] == by_hand


def test_human_judge_concordance_on_items_both_label() -> None:
    human = episode_labels(
        Judgments(
            answers(
                "human",
                {"e1": everything((1, 1, 0), gate_recovery=(0, 0, 0)), "e2": everything((1, 1, 1))},
            )
        )
    )
    judge = episode_labels(
        Judgments(answers("judge", {"e1": everything((1,)), "e2": everything((0,), TL=(1,))})), kind="judge"
    )
    rows = source_concordance(human, judge, ["e1", "e2"])
    # e1: human ED/OC/PF are NA -> only e2's count; e2: human all 1, judge 0 except TL
    assert (rows["ED"].n, rows["ED"].first_only) == (1, 1)
    assert (rows["TL"].both_positive, rows["TL"].n) == (2, 2) and rows["TL"].kappa.value is None
    assert rows["gate:recovery"].second_only == 1 and rows["gate:recovery"].both_positive == 1
    # pooled: e1 6 criteria both 1; e2 TL both 1, 8 others human-only -> 7 agree of 15
    assert (rows[ALL].n, rows[ALL].both_positive, rows[ALL].first_only) == (15, 7, 8)
    assert rows[ALL].observed == pytest.approx(7 / 15)


def test_items_of_a_smaller_panel_count_as_incomplete() -> None:
    three = episode_labels(Judgments(answers("human", {"e1": everything((1, 1, 0))})))
    two = episode_labels(Judgments(answers("human", {"e2": everything((1, 1))})))
    rows = rater_agreement({**three, **two}, ["e1", "e2"])
    # e2's two-rater items cannot join e1's three-rater items in one Fleiss table
    assert (rows["TL"].n, rows["TL"].incomplete, rows["TL"].raters) == (1, 1, 3)
    assert rows[ALL].n == 9 and rows[ALL].incomplete == 9
