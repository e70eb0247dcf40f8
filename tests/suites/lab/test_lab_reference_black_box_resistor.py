"""The black-box reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import pytest

from actloop.suites.lab.reference.black_box_resistor import fit_resistance


def test_the_fit_cancels_zero_errors_and_corrects_for_the_voltmeter() -> None:
    ohms, voltmeter = 2200.0, 1e7
    points = [(v + 0.013, 1000 * v * (1 / ohms + 1 / voltmeter) - 0.017) for v in (2.0, 5.0, 9.0)]
    assert fit_resistance(points, voltmeter) == pytest.approx(ohms, rel=1e-12)
