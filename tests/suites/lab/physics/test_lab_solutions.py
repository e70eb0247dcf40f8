"""Solutions as state: ideal mixing, pouring off a share, and crystal violet's fading against the analytic
pseudo-first-order decay."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET, EMPTY, HYDROXIDE, Portion, fade

DYE = Portion.of(2.0, {CRYSTAL_VIOLET: 1.5e-5})
BASE = Portion.of(1.0, {HYDROXIDE: 0.09})


def test_mixing_adds_volumes_and_amounts_and_dilutes() -> None:
    mixed = DYE.plus(BASE)
    assert mixed.volume_ml == 3.0 and mixed == BASE.plus(DYE)
    assert mixed.concentration(HYDROXIDE) == pytest.approx(0.03, rel=1e-12)
    assert mixed.concentration(CRYSTAL_VIOLET) == pytest.approx(1e-5, rel=1e-12)
    assert EMPTY.concentration(HYDROXIDE) == 0.0 and EMPTY.plus(DYE) == DYE


def test_pouring_off_takes_a_share_of_everything_and_never_more_than_there_is() -> None:
    taken, left = BASE.take(0.25)
    assert (taken.volume_ml, left.volume_ml) == (0.25, 0.75)
    assert taken.concentration(HYDROXIDE) == pytest.approx(0.09) == left.concentration(HYDROXIDE)
    assert taken.plus(left).moles(HYDROXIDE) == pytest.approx(BASE.moles(HYDROXIDE), rel=1e-15)
    assert BASE.take(5.0) == (BASE, EMPTY)
    with pytest.raises(ValueError, match="must not be negative"):
        Portion(-1.0)


@pytest.mark.parametrize("seconds", [1.0, 60.0, 600.0])
def test_fading_follows_the_analytic_pseudo_first_order_decay(seconds: float) -> None:
    k0, k2 = 8e-4, 0.25
    mixed = DYE.plus(BASE)
    faded = fade(mixed, seconds, k0, k2)
    expected = 1e-5 * math.exp(-(k0 + k2 * 0.03) * seconds)
    assert faded.concentration(CRYSTAL_VIOLET) == pytest.approx(expected, rel=1e-12)
    assert faded.moles(HYDROXIDE) == mixed.moles(HYDROXIDE) and faded.volume_ml == 3.0
    in_steps = mixed
    for _ in range(240):
        in_steps = fade(in_steps, seconds / 240, k0, k2)
    assert in_steps.concentration(CRYSTAL_VIOLET) == pytest.approx(expected, rel=1e-12)


def test_without_base_only_the_background_fades_and_a_second_addition_speeds_it() -> None:
    k0, k2 = 5e-4, 0.2
    alone = fade(DYE, 100.0, k0, k2)
    assert alone.concentration(CRYSTAL_VIOLET) == pytest.approx(1.5e-5 * math.exp(-k0 * 100.0), rel=1e-12)
    once = fade(DYE.plus(BASE), 50.0, k0, k2)
    twice = fade(once.plus(BASE), 50.0, k0, k2)  # 0.03 M for 50 s, then 0.045 M (4 mL) for 50 s
    diluted = 1e-5 * math.exp(-(k0 + k2 * 0.03) * 50.0) * 3.0 / 4.0
    assert twice.concentration(CRYSTAL_VIOLET) == pytest.approx(
        diluted * math.exp(-(k0 + k2 * 0.045) * 50.0), rel=1e-12
    )
