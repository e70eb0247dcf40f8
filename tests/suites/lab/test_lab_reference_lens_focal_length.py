"""The lens reference's focusing on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

from actloop.suites.lab.reference.lens_focal_length import focus


def test_the_focus_is_midway_between_the_half_maximum_crossings() -> None:
    peak = [(x / 1000, max(0.0, 1.0 - abs(x - 3.3) / 4)) for x in range(-6, 13)]
    assert abs(focus(peak) - 0.0033) < 1e-9
    lopsided = [(x, m) for x, m in peak if x < 0.007]  # the scan stopped short on one side
    assert abs(focus(lopsided) - 0.0033) < 0.002
