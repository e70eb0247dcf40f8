"""The thermistor reference's fits on known data (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.reference.thermistor_b import fit_b_r25, fit_thermistor


def two_wire(b: float, r25: float, leads: float, celsius: tuple[float, ...]) -> list[tuple[float, float]]:
    return [(t, leads + r25 * math.exp(b * (1 / (t + 273.15) - 1 / 298.15))) for t in celsius]


def test_the_line_recovers_b_and_r25_from_the_b_law() -> None:
    assert fit_b_r25(two_wire(3650.0, 12_345.0, 0.0, (30.0, 45.0, 70.0))) == pytest.approx(
        (3650.0, 12_345.0), rel=1e-12
    )


@pytest.mark.parametrize("leads", [0.0, 20.0, 60.0])
def test_the_three_parameter_fit_recovers_b_r25_and_the_leads(leads: float) -> None:
    b, r25, r = fit_thermistor(two_wire(4150.0, 5_200.0, leads, (30.0, 40.0, 50.0, 60.0, 70.0, 80.0)))
    assert (b, r25) == pytest.approx((4150.0, 5_200.0), rel=1e-9) and r == pytest.approx(leads, abs=1e-6)


def test_the_line_takes_the_leads_for_the_thermistor() -> None:
    """40 ohm of leads move a two-point line by more than the 0.3 % tolerance."""
    b, r25 = fit_b_r25(two_wire(4150.0, 5_200.0, 40.0, (30.0, 40.0)))
    assert abs(b / 4150.0 - 1) > 0.003 and abs(r25 / 5_200.0 - 1) > 0.003


def test_the_three_parameter_fit_needs_three_temperatures() -> None:
    with pytest.raises(ValueError, match="three or more"):
        fit_thermistor(two_wire(4150.0, 5_200.0, 40.0, (30.0, 40.0, 40.0)))
