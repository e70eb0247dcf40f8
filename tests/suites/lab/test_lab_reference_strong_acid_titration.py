"""The strong-acid titration reference's analysis on known data: the equivalence volume two pH readings
before it imply (the electrode's offset cancelling), the drip's drop-by-drop readings and the drop that
raised the pH most (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.titration import per_drop, ratio_equivalence, rows_of, steepest_rise

SAMPLE_ML, ACID_M, TITRANT_M = 45.0, 0.0834, 0.2
EQUIVALENCE_ML = ACID_M * SAMPLE_ML / TITRANT_M


def ph_before_equivalence(ml: float) -> float:
    """The exact pH of the sample after ``ml`` of titrant (water's ions included)."""
    excess = (ACID_M * SAMPLE_ML - TITRANT_M * ml) / (SAMPLE_ML + ml)
    return -math.log10(excess / 2 + math.sqrt(excess * excess / 4 + 1e-14))


@pytest.mark.parametrize("offset", [0.0, 0.15, -0.15])
def test_two_readings_before_the_equivalence_point_predict_it_whatever_the_electrodes_offset(
    offset: float,
) -> None:
    for later in (5.0, 12.0, 17.0):
        predicted = ratio_equivalence(
            0.0, ph_before_equivalence(0.0) + offset, later, ph_before_equivalence(later) + offset, SAMPLE_ML
        )
        assert predicted == pytest.approx(EQUIVALENCE_ML, rel=1e-6)


def test_a_slope_error_shifts_the_prediction_less_the_closer_the_second_reading() -> None:
    def predicted(later: float) -> float:
        ph0, ph1 = ph_before_equivalence(0.0), ph_before_equivalence(later)
        return ratio_equivalence(0.0, 7 + 0.97 * (ph0 - 7), later, 7 + 0.97 * (ph1 - 7), SAMPLE_ML)

    far, near = abs(predicted(5.0) / EQUIVALENCE_ML - 1), abs(predicted(17.0) / EQUIVALENCE_ML - 1)
    assert near < far and near < 0.02  # the drip, started a millilitre early, absorbs it


def test_the_drop_that_raised_the_ph_most_marks_the_equivalence_point() -> None:
    text = "time_s,ph,drops\n" + "".join(
        f"{t:.1f},{ph:.2f},{n}\n"
        for t, ph, n in [
            (0.0, 3.10, 370), (0.5, 3.12, 370), (1.0, 3.40, 371), (1.5, 3.52, 371), (2.0, 3.60, 372),
            (2.5, 4.35, 373), (3.0, 4.80, 373), (3.5, 8.10, 374), (4.0, 9.60, 374), (4.5, 10.10, 375),
            (5.0, 10.30, 376), (5.5, 10.35, 376),
        ]
    )  # fmt: skip
    rows = rows_of(text)
    assert rows[7].ph == 8.10 and rows[7].drops == 374 and rows[7].index == 7
    points = per_drop(rows)
    assert [n for n, _ in points] == [370, 371, 372, 373, 374, 375, 376]
    assert [row.ph for _, row in points][3:5] == [4.80, 9.60]  # each drop's last, most settled row
    assert steepest_rise([(n, row.ph) for n, row in points]) == 374


def test_rows_without_both_values_shown_are_skipped() -> None:
    rows = rows_of("time_s,ph,drops\n0.0,,0\n0.5,7.01,\n1.0,7.01,0\n")
    assert [(r.index, r.ph, r.drops) for r in rows] == [(2, 7.01, 0)]
