"""The mixture reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import itertools
import math

import pytest

from actloop.suites.lab.reference.two_dye_mixture import COUNT, MARGIN_NM, chosen_wavelengths, unmix


def test_the_wavelengths_span_both_peaks_with_a_margin_either_side() -> None:
    chosen = chosen_wavelengths(560, 500)  # in either order
    assert chosen[0] == 500 - MARGIN_NM and chosen[-1] == 560 + MARGIN_NM and len(chosen) == COUNT
    assert all(b > a for a, b in itertools.pairwise(chosen))


def test_unmixing_recovers_both_concentrations_from_overlapping_bands() -> None:
    def band(nm: float, centre: float) -> float:
        return math.exp(-0.5 * ((nm - centre) / 25.0) ** 2)

    wavelengths = chosen_wavelengths(480, 530)
    epsilon_1 = [4e4 * band(nm, 480) for nm in wavelengths]
    epsilon_2 = [6e4 * band(nm, 530) for nm in wavelengths]
    c_std, c_1, c_2 = 1e-5, 1.2e-5, 0.7e-5
    standard_1 = [e * c_std for e in epsilon_1]
    standard_2 = [e * c_std for e in epsilon_2]
    mixed = [a * c_1 + b * c_2 for a, b in zip(epsilon_1, epsilon_2, strict=True)]
    assert unmix(standard_1, standard_2, mixed, c_std) == pytest.approx((c_1, c_2), rel=1e-9)
