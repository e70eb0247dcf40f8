"""The Hooke's-law reference's fit on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

from actloop.suites.lab.reference.hookes_law import fit_k


def test_the_fit_recovers_a_known_stiffness() -> None:
    k, mass = 30.0, 0.025
    readings = [(n * mass, 150.0 - 1000 * 9.81 * n * mass / k) for n in range(4)]
    assert abs(fit_k(readings) - k) < 1e-9
