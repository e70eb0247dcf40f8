"""Paraxial optics against the thin-lens equation and its consequences."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.optics import Plate, Rail, ThinLens


def _one_lens(s: float, f: float, screen: float, aperture: float = 0.03) -> Rail:
    return Rail(0.0, (ThinLens(s, f, aperture),), s + screen)


@pytest.mark.parametrize(("s", "f"), [(0.3, 0.2), (0.5, 0.1), (0.25, 0.15)])
def test_thin_lens_equation_and_magnification(s: float, f: float) -> None:
    image = _one_lens(s, f, 2.0).image()
    s_image = image.position - s
    assert 1 / s + 1 / s_image == pytest.approx(1 / f, rel=1e-13)
    assert image.magnification == pytest.approx(-s_image / s, rel=1e-13)
    assert image.real


def test_virtual_image_inside_the_focal_length() -> None:
    image = _one_lens(0.05, 0.1, 0.5).image()
    assert not image.real
    assert image.position == pytest.approx(0.05 - 0.1, rel=1e-13)  # s′ = −0.1 m: 0.1 m before the lens
    assert image.magnification == pytest.approx(2.0, rel=1e-13)


def test_blur_is_zero_at_the_image_and_linear_away_from_it() -> None:
    s, f, aperture = 0.3, 0.2, 0.03
    s_image = 1 / (1 / f - 1 / s)
    assert _one_lens(s, f, s_image, aperture).blur_diameter() == pytest.approx(0.0, abs=1e-15)
    for screen in (0.3, 0.5, 0.6, 0.7, 0.9):
        blur = _one_lens(s, f, screen, aperture).blur_diameter()
        assert blur == pytest.approx(aperture * abs(1 - screen / s_image), rel=1e-12)


def test_screen_scale_and_object_blur() -> None:
    rail = _one_lens(0.3, 0.2, 0.7)
    # The chief ray through the lens centre: height −y·(screen distance / object distance).
    assert rail.screen_scale() == pytest.approx(-0.7 / 0.3, rel=1e-13)
    assert rail.object_blur() == pytest.approx(rail.blur_diameter() / (0.7 / 0.3), rel=1e-13)


def test_illuminance_falls_with_magnification() -> None:
    f, aperture, luminance = 0.1, 0.02, 1000.0
    previous = math.inf
    for s in (0.4, 0.2, 0.15, 0.12):
        s_image = 1 / (1 / f - 1 / s)
        rail = _one_lens(s, f, s_image, aperture)
        m = rail.image().magnification
        # E = π L τ (u/m)² with u = (a/2)/s the object-side cone half-angle.
        expected = math.pi * luminance * 0.92 * (aperture / 2 / s / m) ** 2
        assert rail.illuminance(luminance) == pytest.approx(expected, rel=1e-12)
        assert rail.illuminance(luminance, ambient=5.0) == pytest.approx(expected + 5.0, rel=1e-12)
        assert expected < previous
        previous = expected


@pytest.mark.parametrize("d", [0.0, 0.05, 0.12])
def test_two_lenses_against_the_combined_focal_length(d: float) -> None:
    f1, f2, s = 0.15, 0.2, 0.5
    rail = Rail(0.0, (ThinLens(s, f1, 0.03), ThinLens(s + d, f2, 0.03)), 3.0)
    c = rail.matrix_to(s + d)[2]
    assert -1 / c == pytest.approx(1 / (1 / f1 + 1 / f2 - d / (f1 * f2)), rel=1e-13)
    # Image of the first lens is the object of the second.
    s1_image = 1 / (1 / f1 - 1 / s)
    s2 = d - s1_image
    s2_image = 1 / (1 / f2 - 1 / s2)
    image = rail.image()
    assert image.position == pytest.approx(s + d + s2_image, rel=1e-12)
    assert image.magnification == pytest.approx((-s1_image / s) * (-s2_image / s2), rel=1e-12)


def test_aperture_stop_is_the_tighter_lens() -> None:
    wide = Rail(0.0, (ThinLens(0.3, 0.15, 0.05), ThinLens(0.4, 0.2, 0.005)), 1.5)
    narrow = Rail(0.0, (ThinLens(0.3, 0.15, 0.05), ThinLens(0.4, 0.2, 0.05)), 1.5)
    assert wide.blur_diameter() < narrow.blur_diameter()


def test_plate_shifts_the_image_by_t_times_one_minus_one_over_n() -> None:
    lens = ThinLens(0.3, 0.2, 0.03)
    without = Rail(0.0, (lens,), 1.5).image().position
    with_plate = Rail(0.0, (lens, Plate(0.5, 0.012, 1.52)), 1.5).image().position
    assert with_plate - without == pytest.approx(0.012 * (1 - 1 / 1.52), rel=1e-9)


def test_elements_beyond_the_screen_do_not_count() -> None:
    rail = Rail(0.0, (ThinLens(0.3, 0.2, 0.03), ThinLens(2.0, 0.05, 0.03)), 1.0)
    assert rail.image().position == pytest.approx(0.9, rel=1e-13)
