"""The RC reference's analysis on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.rc_capacitance import Row, charging, fit_charge, read_rows


def curve(farads: float, ohms: float, voltmeter: float, zeros: tuple[float, float]) -> list[Row]:
    """Rows of an exact charge at 10 V, four a second from 0.4 s after switching on, with zero errors."""
    tau = farads * ohms * voltmeter / (ohms + voltmeter)
    v_th = 10.0 * voltmeter / (ohms + voltmeter)
    rows = []
    for i in range(400):
        t = 0.4 + i / 4
        volts = v_th * (1 - math.exp(-t / tau))
        rows.append((i, t, volts + zeros[0], 1000 * (10.0 - volts) / ohms + zeros[1]))
    return rows


@pytest.mark.parametrize("farads", [470e-6, 1500e-6, 4700e-6])
def test_the_fit_finds_tau_and_the_true_resistance_whatever_the_zero_errors(farads: float) -> None:
    ohms, voltmeter = 10_287.0, 1e7
    found, tau, fitted = fit_charge(curve(farads, ohms, voltmeter, (0.083, -0.017)), voltmeter)
    assert fitted == pytest.approx(ohms, rel=1e-6)
    assert tau == pytest.approx(farads * ohms * voltmeter / (ohms + voltmeter), rel=1e-6)
    assert found == pytest.approx(farads, rel=1e-6)


def test_the_charge_starts_two_rows_after_the_current_jumps_and_ends_before_switching_off() -> None:
    lines = ["time_s,voltmeter,ammeter", "0.0,0.012,-0.004", "0.25,0.012,-0.004", "0.5,0.090,0.990"]
    lines += [f"{0.5 + k / 4},{0.1 + k / 10:.3f},{0.98 - k / 100:.3f}" for k in range(1, 9)]
    rows = charging(read_rows("\n".join(lines) + "\n"), until_s=2.0)
    assert [r[0] for r in rows] == [4, 5, 6, 7, 8] and rows[0][1:] == (1.0, 0.3, 0.96)
