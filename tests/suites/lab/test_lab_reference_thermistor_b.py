"""The thermistor reference's fit on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.thermistor_b import fit_b_r25


def test_the_fit_recovers_b_and_r25_from_the_b_law() -> None:
    b, r25 = 3650.0, 12_345.0
    points = [(t, r25 * math.exp(b * (1 / (t + 273.15) - 1 / 298.15))) for t in (30.0, 45.0, 70.0)]
    assert fit_b_r25(points) == pytest.approx((b, r25), rel=1e-12)
