"""The calibration reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.spectro_calibration import calibration_wavelength, line


def test_the_calibration_wavelength_is_where_the_red_flank_falls_through_the_target() -> None:
    def band(nm: float) -> float:
        return min(3.0, 3.5 * math.exp(-0.5 * ((nm - 560.0) / 25.0) ** 2))  # flattened at the top

    blue_and_red = [(float(nm), band(nm)) for nm in range(470, 721, 10)]
    chosen = calibration_wavelength(blue_and_red, 1.0)
    exact = 560.0 + 25.0 * math.sqrt(2.0 * math.log(3.5))  # the red side, not the blue
    assert abs(chosen - exact) <= 1.5
    with pytest.raises(RuntimeError, match=r"reads above 1\.0 A up to 590 nm"):
        calibration_wavelength([p for p in blue_and_red if p[0] <= 590], 1.0)


def test_the_line_is_the_least_squares_fit_with_an_intercept() -> None:
    slope, intercept = line([(0.0, 0.01), (1e-5, 0.51), (2e-5, 1.01)])
    assert slope == pytest.approx(5e4) and intercept == pytest.approx(0.01)
