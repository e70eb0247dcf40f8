"""Dye spectra, Beer–Lambert and the single-beam spectrophotometer; seeded noise."""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy as np
import pytest

from actloop.suites.lab.physics.noise import seeded_normal, seeded_uniform
from actloop.suites.lab.physics.spectra import Band, Dye, Spectrophotometer, absorbance

CRYSTAL_VIOLET = Dye("crystal violet", (Band(590.0, 28.0, 1.0), Band(545.0, 22.0, 0.45)), 87_000.0)
TARTRAZINE = Dye("tartrazine", (Band(427.0, 35.0),), 27_000.0)


def test_single_band_peaks_at_its_centre() -> None:
    assert TARTRAZINE.lambda_max == pytest.approx(427.0, abs=1e-9)
    assert TARTRAZINE.epsilon(427.0) == pytest.approx(27_000.0, rel=1e-15)
    assert TARTRAZINE.epsilon(427.0 + 35.0) == pytest.approx(27_000.0 * math.exp(-0.5), rel=1e-14)


def test_two_band_spectrum_is_scaled_to_its_true_maximum() -> None:
    grid = np.arange(500.0, 650.0, 0.001)
    values = [CRYSTAL_VIOLET.epsilon(x) for x in grid]
    assert CRYSTAL_VIOLET.lambda_max == pytest.approx(grid[int(np.argmax(values))], abs=2e-3)
    assert CRYSTAL_VIOLET.epsilon(CRYSTAL_VIOLET.lambda_max) == pytest.approx(87_000.0, rel=1e-15)
    assert max(values) <= 87_000.0 * (1 + 1e-15)


def test_beer_lambert_mixture_adds() -> None:
    mixture = [(CRYSTAL_VIOLET, 5e-6), (TARTRAZINE, 2e-5)]
    for wavelength in (430.0, 520.0, 590.0):
        single = sum(absorbance([part], wavelength, 1.0) for part in mixture)
        assert absorbance(mixture, wavelength, 2.0) == pytest.approx(2.0 * single, rel=1e-14)


def _instrument(**kwargs: Any) -> Spectrophotometer:
    spectro = Spectrophotometer("spectro", seed=11, **kwargs)
    spectro.set_wavelength(CRYSTAL_VIOLET.lambda_max)
    spectro.blank(0.0)
    return spectro


def test_display_is_linear_in_concentration_at_low_absorbance() -> None:
    spectro = _instrument(noise=0.0, drift=0.0)
    for c in (1e-7, 1e-6, 3e-6, 5e-6):
        true = absorbance([(CRYSTAL_VIOLET, c)], spectro.wavelength)
        assert spectro.read(5.0, true) == pytest.approx(true, abs=0.0005 + 0.003 * true)
    assert spectro.read(5.0, 0.0) == 0.0


def test_stray_light_saturates_the_display() -> None:
    stray = 2e-3
    spectro = _instrument(noise=0.0, drift=0.0, stray_light=stray)
    ceiling = -math.log10(stray / (1 + stray))
    shown = [spectro.read(1.0, a) for a in (1.0, 2.0, 3.0, 5.0, 8.0)]
    assert shown == sorted(shown)
    assert shown[-1] == pytest.approx(ceiling, abs=0.001)
    assert shown[2] < 3.0 - 0.3  # far below the true 3.0
    expected = -math.log10((10**-2.0 + stray) / (1 + stray))
    assert shown[1] == pytest.approx(expected, abs=0.0005)


def test_noise_grows_with_absorbance_and_is_reproducible() -> None:
    spectro = _instrument(drift=0.0)
    times = [0.5 * k for k in range(400)]
    low = [spectro.read(t, 0.1) for t in times]
    high = [spectro.read(t, 1.5) for t in times]
    assert statistics.stdev(high) > 10 * statistics.stdev(low)
    again = _instrument(drift=0.0)
    assert [again.read(t, 1.5) for t in times] == high
    assert spectro.read(0.1, 1.5) == spectro.read(0.4, 1.5)  # one sample per display refresh


def test_drift_grows_with_time_since_the_blank() -> None:
    steady = _instrument(noise=0.0, drift=0.0, decimals=6).read(0.0, 0.5)  # stray light alone
    spectro = _instrument(noise=0.0, drift=1e-5, decimals=6)
    early, late = spectro.read(10.0, 0.5) - steady, spectro.read(1000.0, 0.5) - steady
    assert abs(late) > 10 * abs(early) > 0.0
    spectro.blank(1000.0)
    assert spectro.read(1000.0, 0.5) == pytest.approx(steady, abs=1e-6)


def test_wavelength_setting_resolution_and_stale_blank() -> None:
    spectro = _instrument(noise=0.0, drift=0.0)
    assert spectro.set_wavelength(512.4) == 512.0
    assert spectro.set_wavelength(10.0) == 340.0
    spectro.set_wavelength(700.0)
    assert spectro.blank_wavelength == pytest.approx(CRYSTAL_VIOLET.lambda_max, abs=0.5)
    assert spectro.read(1.0, 0.0) != 0.0  # the blank was taken elsewhere: single-beam instruments re-blank


def test_seeded_noise_is_deterministic_and_independent() -> None:
    assert seeded_normal(1, "voltmeter", 7) == seeded_normal(1, "voltmeter", 7)
    assert seeded_normal(1, "voltmeter", 7) != seeded_normal(1, "ammeter", 7)
    assert seeded_normal(1, "voltmeter", 7) != seeded_normal(2, "voltmeter", 7)
    a = [seeded_normal(5, "a", k) for k in range(4000)]
    b = [seeded_normal(5, "b", k) for k in range(4000)]
    assert abs(statistics.fmean(a)) < 0.06 and abs(statistics.stdev(a) - 1.0) < 0.04
    assert abs(float(np.corrcoef(a, b)[0, 1])) < 0.06
    assert all(0.0 < seeded_uniform(9, "u", k) < 1.0 for k in range(1000))
