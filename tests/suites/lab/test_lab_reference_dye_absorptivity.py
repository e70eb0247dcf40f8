"""The dye reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.dye_absorptivity import fine_peak, fit_epsilon
from actloop.suites.lab.reference.spectrophotometer import Reading, coarse_peak, corrected


def band(nm: float, centre: float = 553.3, width: float = 25.0) -> float:
    return 0.8 * math.exp(-0.5 * ((nm - centre) / width) ** 2)


def test_the_peak_is_found_from_the_baseline_corrected_spectrum() -> None:
    lamp = [Reading(f"b{nm}", nm, -0.006 * (nm - 500)) for nm in range(460, 661, 10)]
    sample = [Reading(f"s{nm}", nm, band(nm) - 0.006 * (nm - 500)) for nm in range(465, 656, 10)]
    peak, height = coarse_peak(corrected(sample, lamp))
    assert abs(peak - 553.3) <= 3 and height == pytest.approx(0.8, abs=0.01)
    fine = [(float(nm), round(band(nm), 3)) for nm in range(538, 569)]
    assert fine_peak(fine) == pytest.approx(553.3, abs=0.2)
    assert corrected([Reading("o", 500.0, math.nan)], lamp) == []  # an OL reading says nothing


def test_epsilon_is_the_least_squares_slope_through_the_origin() -> None:
    assert fit_epsilon([(1e-5, 0.5), (2e-5, 1.0)]) == pytest.approx(5e4)
