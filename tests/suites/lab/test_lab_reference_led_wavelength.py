"""The LED wavelength reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import pytest

from actloop.suites.lab.reference.led_wavelength import wavelength


def test_the_calibration_line_reads_off_the_unknown_whatever_the_offset_and_zero_error() -> None:
    def volts(nm: float) -> float:
        return 1239.84 / nm - 0.31 + 0.012  # photon energy, less the family's offset, plus a zero error

    known = [(nm, volts(nm)) for nm in (455.0, 525.0, 590.0, 660.0)]
    assert wavelength(known, volts(561.3)) == pytest.approx(561.3, rel=1e-12)
    assert wavelength(known[::3], volts(612.0)) == pytest.approx(612.0, rel=1e-12)
