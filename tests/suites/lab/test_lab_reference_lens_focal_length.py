"""The lens reference's focusing on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import pytest

from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
from actloop.suites.lab.reference.optical_rail import focus


def test_the_focus_is_midway_between_the_half_maximum_crossings() -> None:
    peak = [(x / 1000, max(0.0, 1.0 - abs(x - 3.3) / 4)) for x in range(-6, 13)]
    assert abs(focus(peak) - 0.0033) < 1e-9
    lopsided = [(x, m) for x, m in peak if x < 0.007]  # the scan stopped short on one side
    assert abs(focus(lopsided) - 0.0033) < 0.002


def test_the_fit_recovers_the_focal_length_and_the_principal_planes_offset() -> None:
    f, delta = 0.073, 0.0095
    pairs = []
    for u in (0.20, 2.5 * f, 2.0 * f):
        true_u = u + delta
        pairs.append((u, true_u * f / (true_u - f) + delta))
    fitted, offset = fit_focal_length(pairs)
    assert fitted == pytest.approx(f, rel=1e-9) and offset == pytest.approx(delta, abs=1e-9)
    naive = fit_focal_length(pairs[:1])
    assert naive[1] == 0.0 and abs(naive[0] / f - 1) > 0.01  # one pair keeps the offset
