"""The pH solver against closed-form titration curves: strong and weak acid, before, at, after equivalence."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest

from actloop.suites.lab.physics.acid_base import KW, Solution, hcl, naoh, ph, weak_acid

C_ACID = 0.1000  # mol/L
C_BASE = 0.1000  # mol/L
V_ACID = 0.02500  # L
PKA = 4.76  # acetic acid
KA = 10.0**-PKA


def _strong(base_ml: float) -> Solution:
    return hcl(C_ACID, V_ACID).mix(naoh(C_BASE, base_ml / 1000.0))


def _weak(base_ml: float) -> Solution:
    return weak_acid(C_ACID, V_ACID, PKA).mix(naoh(C_BASE, base_ml / 1000.0))


def _excess(base_ml: float) -> float:
    """Strong base less all acid (mol/L) after adding ``base_ml`` mL: negative before equivalence."""
    vb = base_ml / 1000.0
    return (C_BASE * vb - C_ACID * V_ACID) / (V_ACID + vb)


def _quadratic_ph(acid: float) -> float:
    """The exact pH of a strong acid (``acid`` > 0) or base (``acid`` < 0) of that concentration in water:
    [H⁺] = (C + √(C² + 4 Kw)) / 2, and likewise [OH⁻]."""
    root = (abs(acid) + math.sqrt(acid * acid + 4.0 * KW)) / 2.0
    return -math.log10(root) if acid > 0.0 else -math.log10(KW / root)


def _base_volume_l(ph_value: float, ka: float | None) -> float:
    """The exact titration curve inverted: the volume of base (L) that brings the acid to ``ph_value``,
    from the charge balance solved for V_b: V_b = V_a (C_a α − h + Kw/h) / (C_b + h − Kw/h), α the acid's
    dissociated fraction (1 for HCl, Ka / (Ka + h) for HA)."""
    h = 10.0**-ph_value
    alpha = 1.0 if ka is None else ka / (ka + h)
    return V_ACID * (C_ACID * alpha - h + KW / h) / (C_BASE + h - KW / h)


@pytest.mark.parametrize("base_ml", [0.0, 10.0, 24.9])
def test_strong_acid_before_equivalence(base_ml: float) -> None:
    excess_acid = -_excess(base_ml)
    assert ph(_strong(base_ml)) == pytest.approx(-math.log10(excess_acid), abs=1e-6)  # water negligible
    assert ph(_strong(base_ml)) == pytest.approx(_quadratic_ph(excess_acid), abs=1e-9)


def test_strong_acid_at_equivalence_is_neutral() -> None:
    assert ph(_strong(25.0)) == pytest.approx(7.0, abs=1e-9)


@pytest.mark.parametrize("base_ml", [25.1, 30.0, 50.0])
def test_strong_acid_after_equivalence(base_ml: float) -> None:
    excess_base = _excess(base_ml)
    assert ph(_strong(base_ml)) == pytest.approx(14.0 + math.log10(excess_base), abs=1e-6)
    assert ph(_strong(base_ml)) == pytest.approx(_quadratic_ph(-excess_base), abs=1e-9)


def test_dilute_strong_acid_where_water_matters() -> None:
    # 1e-7 M HCl: [H⁺] = 1e-7 (1 + √5) / 2, not 1e-7.
    assert ph(hcl(1e-7, 1.0)) == pytest.approx(_quadratic_ph(1e-7), abs=1e-9)
    assert ph(hcl(1e-7, 1.0)) == pytest.approx(6.7910, abs=1e-4)
    assert ph(naoh(1e-7, 1.0)) == pytest.approx(14.0 - 6.7910, abs=1e-4)


def test_weak_acid_initial_ph() -> None:
    x = (-KA + math.sqrt(KA * KA + 4.0 * KA * C_ACID)) / 2.0  # x² / (C − x) = Ka, water neglected
    assert ph(_weak(0.0)) == pytest.approx(-math.log10(x), abs=1e-6)


def test_weak_acid_half_equivalence() -> None:
    solution = _weak(12.5)
    value = ph(solution)
    assert abs(value - PKA) < 0.01
    # Henderson–Hasselbalch with the [H⁺] and [OH⁻] corrections is exact.
    h = 10.0**-value
    oh = KW / h
    salt = solution.strong_base_mol / solution.volume_l
    acid = solution.weak_acid_mol / solution.volume_l - salt
    assert value == pytest.approx(PKA + math.log10((salt + h - oh) / (acid - h + oh)), abs=1e-9)


def test_weak_acid_equivalence_from_the_hydrolysis_of_the_salt() -> None:
    c = C_ACID * V_ACID / (2.0 * V_ACID)  # A⁻ diluted by an equal volume of base
    kb = KW / KA
    oh = (-kb + math.sqrt(kb * kb + 4.0 * kb * c)) / 2.0  # x² / (C − x) = Kb
    assert ph(_weak(25.0)) == pytest.approx(14.0 + math.log10(oh), abs=1e-4)
    assert ph(_weak(25.0)) == pytest.approx(8.73, abs=0.01)


def test_weak_acid_after_equivalence_follows_the_excess_base() -> None:
    excess_base = _excess(30.0)
    assert ph(_weak(30.0)) == pytest.approx(_quadratic_ph(-excess_base), abs=1e-6)


@pytest.mark.parametrize(
    ("sample", "ka", "lowest"),
    [(hcl(C_ACID, V_ACID), None, 1.5), (weak_acid(C_ACID, V_ACID, PKA), KA, 3.0)],
    ids=["strong", "weak"],
)
def test_exact_curve_from_start_to_far_past_equivalence(
    sample: Solution, ka: float | None, lowest: float
) -> None:
    for k in range(int((12.5 - lowest) * 4) + 1):
        target = lowest + 0.25 * k
        assert ph(sample.mix(naoh(C_BASE, _base_volume_l(target, ka)))) == pytest.approx(target, abs=1e-9)


@pytest.mark.parametrize("make", [_strong, _weak], ids=["strong", "weak"])
def test_curve_rises_and_is_steepest_at_equivalence(make: Callable[[float], Solution]) -> None:
    step = 0.05  # mL, one drop
    volumes = [k * step for k in range(1001)]
    curve = [ph(make(v)) for v in volumes]
    rises = [b - a for a, b in itertools.pairwise(curve)]
    assert min(rises) > 0.0
    steepest = max(range(len(rises)), key=rises.__getitem__)
    assert abs((volumes[steepest] + volumes[steepest + 1]) / 2.0 - 25.0) <= step


def test_mixing_adds_and_does_not_depend_on_order() -> None:
    sample, titrant = weak_acid(C_ACID, V_ACID, PKA), naoh(C_BASE, 0.010)
    assert sample.mix(titrant) == titrant.mix(sample)
    mixed = sample.mix(titrant)
    assert mixed.volume_l == pytest.approx(0.035, rel=1e-15)
    assert mixed.weak_acid_mol == pytest.approx(2.5e-3, rel=1e-15)
    assert mixed.strong_base_mol == pytest.approx(1.0e-3, rel=1e-15)
    assert mixed.pka == PKA
    in_two = sample.mix(naoh(C_BASE, 0.004)).mix(naoh(C_BASE, 0.006))
    assert ph(in_two) == pytest.approx(ph(mixed), abs=1e-12)
    water = Solution(0.1)
    assert ph(water) == pytest.approx(7.0, abs=1e-12)
    assert ph(hcl(0.2, 0.05).mix(water)) == pytest.approx(-math.log10(0.2 * 0.05 / 0.15), abs=1e-9)


def test_ph_is_bit_identical() -> None:
    first = [ph(_weak(v)).hex() for v in (0.0, 12.5, 25.0, 30.0)] + [ph(_strong(25.0)).hex()]
    second = [ph(_weak(v)).hex() for v in (0.0, 12.5, 25.0, 30.0)] + [ph(_strong(25.0)).hex()]
    assert first == second
    # Only + − × ÷ and the project's exp touch the numbers: the same bits on every IEEE-754 machine.
    assert first[2] == "0x1.17585e59dc8c6p+3"
    assert first[4] == "0x1.bfffffffffffep+2"


def test_invalid_solutions_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        ph(Solution(0.0))
    with pytest.raises(ValueError, match="negative"):
        Solution(0.01, strong_acid_mol=-1e-3)
    with pytest.raises(ValueError, match="negative"):
        hcl(0.1, -0.01)
    with pytest.raises(ValueError, match="volume"):
        Solution(0.0, strong_base_mol=1e-3)
    with pytest.raises(ValueError, match="pKa"):
        Solution(0.01, weak_acid_mol=1e-3)
    with pytest.raises(ValueError, match="different pKa"):
        weak_acid(0.1, 0.01, 4.76).mix(weak_acid(0.1, 0.01, 3.75))
    with pytest.raises(ValueError, match="range"):
        ph(hcl(2000.0, 1.0))
    assert weak_acid(0.1, 0.01, 4.76).mix(Solution(0.01, pka=3.75)).pka == 4.76
