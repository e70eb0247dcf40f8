"""The Hooke's-law reference's fit on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import pytest

from actloop.suites.lab.reference.hookes_law import OPEN_MM, coils_open, fit_k


def test_the_fit_recovers_a_known_stiffness() -> None:
    k, mass = 30.0, 0.025
    readings = [(n * mass, 150.0 - 1000 * 9.81 * n * mass / k) for n in range(4)]
    assert abs(fit_k(readings) - k) < 1e-9


def test_only_loads_that_left_the_closed_coils_are_fitted() -> None:
    """A close-wound spring: the empty tray and any load below the initial tension read where the shut
    coils hold the tray; the loads past it lie on the line, and the fit over them recovers k."""
    k, mass, tension, tray = 30.0, 0.025, 0.45, 0.02

    def reading(n: int) -> float:
        pull = (tray + n * mass) * 9.81
        return 150.0 - 1000 * max(0.0, pull - tension) / k

    readings = [(n * mass, reading(n)) for n in range(6) for _ in range(2)]  # two reads of each load
    opened = coils_open(readings)
    assert sorted({round(m / mass) for m, _ in opened}) == [2, 3, 4, 5]  # one weight (0.44 N) stays shut
    assert fit_k(opened) == pytest.approx(k, rel=1e-9)
    assert abs(fit_k(readings) / k - 1) > 0.1  # a line through every reading is far off
    barely = [(0.0, 150.0), (mass, 150.0 - OPEN_MM / 2), (2 * mass, 150.0 - 5.0)]
    assert [m for m, _ in coils_open(barely)] == [2 * mass]  # within OPEN_MM of the stop: not counted
    with pytest.raises(ValueError, match="no reading of the empty tray"):
        coils_open(readings[2:])
