"""The weak-acid titration reference's analysis on exact data from the pH solver: two readings in the
buffer region give the acid's amount and Ka, and each reading the pKa given c, through the charge balance
(its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.acid_base import Solution, ph
from actloop.suites.lab.reference.weak_acid_titration import TITRANT_M, acid_and_ka, pka_at

SAMPLE_ML = 45.0


def ph_after(c: float, pka: float, ml: float) -> float:
    return ph(
        Solution(
            (SAMPLE_ML + ml) / 1000.0,
            strong_base_mol=TITRANT_M * ml / 1000.0,
            weak_acid_mol=c * SAMPLE_ML / 1000.0,
            pka=pka,
        )
    )


@pytest.mark.parametrize(("c", "pka"), [(0.003, 3.3), (0.0045, 3.8), (0.006, 4.3)])
def test_two_buffer_readings_give_the_acid_and_its_ka(c: float, pka: float) -> None:
    v_eq = c * SAMPLE_ML / TITRANT_M
    for first, second in ((0.2, 0.5), (0.3, 0.9)):
        v1, v2 = first * v_eq, second * v_eq
        acid_ml, ka = acid_and_ka(SAMPLE_ML, (v1, ph_after(c, pka, v1)), (v2, ph_after(c, pka, v2)))
        assert acid_ml == pytest.approx(v_eq, rel=1e-6)
        assert -math.log10(ka) == pytest.approx(pka, abs=1e-6)


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_each_reading_gives_the_pka_and_the_half_neutralised_ph_does_not(share: float) -> None:
    c, pka = 0.003, 3.3
    v_eq = c * SAMPLE_ML / TITRANT_M
    reading = ph_after(c, pka, share * v_eq)
    assert pka_at(SAMPLE_ML, c, share * v_eq, reading) == pytest.approx(pka, abs=1e-6)
    if share == 0.5:
        assert reading - pka > 0.1  # the dilute acid's own H+: Henderson-Hasselbalch would miss by this
