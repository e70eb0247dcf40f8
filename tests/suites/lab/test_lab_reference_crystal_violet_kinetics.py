"""The kinetics reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.crystal_violet_kinetics import decay_rate, rows_of


def test_a_logged_decay_gives_its_rate_and_rows_keep_their_index() -> None:
    text = "time_s,wavelength,absorbance\n" + "".join(
        f"{t / 2:.1f},590,{0.7 * math.exp(-0.012 * t / 2):.3f}\n" for t in range(240)
    )
    rows = rows_of(text)
    assert rows[3] == (3, 1.5, pytest.approx(0.7 * math.exp(-0.018), abs=5e-4))
    assert decay_rate(rows) == pytest.approx(0.012, rel=2e-3)  # three decimals of absorbance
