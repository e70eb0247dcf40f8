"""The laser rail's kit: the pattern's features where the grating equation and the single slit's Fraunhofer
zeros put them, the screen drawing them there (spots bright, dark fringes dark), its printed scale reading
what the features' instruments say, nothing read while no slide is seated, and the workspace's skills working
both slides into their holders and back."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.physics.optics import Grating, Slit
from actloop.suites.lab.platforms.laser_rail import (
    SCREEN_PX_PER_MM,
    GratingSlide,
    LaserRail,
    SlitSlide,
    feature_names,
)
from actloop.suites.lab.platforms.optical_rail import OBJECT_X, RAIL_Y, Carriage
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills

WAVELENGTH = 650e-9
SCREEN_X = 0.30


def bench(element: Grating | Slit | None, scale_offset: float = 0.0021) -> LaserRail:
    item = GratingSlide(name="grating", stand_x=0.5, lines_per_m=3e5) if isinstance(element, Grating) else (
        SlitSlide(name="slit", stand_x=0.5, width=8e-5))  # fmt: skip
    rail = LaserRail((item,), (Carriage("slide", -0.05),), 0.0, WAVELENGTH, scale_offset)
    rail.diffracting = () if element is None else (element,)
    rail._screen_x = SCREEN_X
    return rail


def column(rail: LaserRail, offset: float) -> float:
    """The texture column (of the back, seen from behind) at ``offset`` from the axis."""
    return (offset + rail.screen_half[0]) * 1000 * SCREEN_PX_PER_MM - 0.5


def beam_row(face: np.ndarray) -> np.ndarray:
    return face[face.shape[0] // 2].astype(float).mean(axis=1)


def centroid(row: np.ndarray, around: float, half: int = 30) -> float:
    """The brightness-weighted centre (a column) of the spot near column ``around``."""
    start = round(around) - half
    window = row[start : start + 2 * half + 1] - row.min()
    return start + float((window * np.arange(window.size)).sum() / window.sum())


@pytest.mark.parametrize("lines_per_mm", [100.0, 300.0, 600.0])
def test_grating_orders_follow_the_grating_equation(lines_per_mm: float) -> None:
    grating = Grating(-0.05, lines_per_mm * 1000)
    offsets = bench(grating).feature_offsets()
    length = SCREEN_X + 0.05
    for m in (1, 2):
        sine = m * WAVELENGTH * grating.lines_per_m
        expected = length * math.tan(math.asin(sine)) if sine < 1 else None
        assert offsets[f"order_{m:+d}"] == (pytest.approx(expected, rel=1e-12) if expected else None)
        assert offsets[f"order_{-m:+d}"] == (pytest.approx(-expected, rel=1e-12) if expected else None)
    assert offsets["order_0"] == 0.0


def test_the_screen_shows_each_order_where_its_instrument_reads() -> None:
    rail = bench(Grating(-0.05, 1e5))
    row = beam_row(rail.screen_faces()["screen_back_tex"])
    for m in (-2, -1, 1, 2):
        offset = rail.feature_offsets()[f"order_{m:+d}"]
        assert offset is not None
        centre = column(rail, offset)
        assert centroid(row, centre) == pytest.approx(centre, abs=0.25)
        assert row[round(centre)] > row.min() + 40  # a visible spot


def test_slit_dark_fringes_are_the_fraunhofer_zeros_and_drawn_dark() -> None:
    slit = Slit(-0.05, 8e-5)
    rail = bench(slit)
    length = SCREEN_X + 0.05
    row = beam_row(rail.screen_faces()["screen_back_tex"])
    paper = row.min()
    for m in (-3, -1, 1, 3):
        offset = rail.feature_offsets()[f"dark_{m:+d}"]
        assert offset == pytest.approx(length * math.tan(math.asin(m * WAVELENGTH / slit.width)), rel=1e-12)
        assert slit.intensity(offset, WAVELENGTH, length) < 1e-25
        assert row[round(column(rail, offset))] <= paper + 2  # the fringe is as dark as the bare paper
        between = offset + math.copysign(0.5 * abs(offset) / abs(m), offset)  # the next lobe's middle
        assert row[round(column(rail, between))] > paper + 10


def test_the_printed_scale_reads_what_the_features_instruments_say() -> None:
    rail = bench(Grating(-0.05, 1e5), scale_offset=0.0033)
    back = rail.screen_faces()["screen_back_tex"]
    ink = back.astype(float).mean(axis=2) < 60
    tick_rows = ink.any(axis=1).nonzero()[0]
    top = int(tick_rows.min())
    for mm in (10, 50, 100):  # the long ticks, at the scale's zero plus mm
        y = rail.screen_scale_zero_y + mm / 1000 - RAIL_Y
        at = round(column(rail, y))
        assert ink[top + 20, at - 1 : at + 2].any(), mm  # a tick longer than the short ones
        assert not ink[top + 20, at + 3 : at + 5].any()
    offsets = rail.feature_offsets()
    assert offsets["order_+1"] is not None
    # the instruments' values are the features' places on the printed scale (true_values' formula)
    expected = 1000 * (RAIL_Y + offsets["order_+1"] - rail.screen_scale_zero_y)
    assert expected == pytest.approx(1000 * offsets["order_+1"] + 75.0 - 3.3, abs=1e-9)


def test_with_no_slide_seated_there_is_only_the_beam_and_no_feature() -> None:
    rail = bench(None)
    assert all(offset is None for offset in rail.feature_offsets().values())
    row = beam_row(rail.screen_faces()["screen_back_tex"])
    assert centroid(row, column(rail, 0.0)) == pytest.approx(column(rail, 0.0), abs=0.25)
    assert (row > row.min() + 10).sum() < 5 * SCREEN_PX_PER_MM  # one spot, under 5 mm across


def test_feature_names_by_slide() -> None:
    grating = GratingSlide(name="g", stand_x=0.5, lines_per_m=1e5)
    slit = SlitSlide(name="s", stand_x=0.5, width=1e-4)
    assert feature_names((grating,)) == ["order_-2", "order_-1", "order_0", "order_+1", "order_+2"]
    assert feature_names((slit,))[:2] == ["dark_-6", "dark_-5"] and "dark_0" not in feature_names((slit,))


@pytest.mark.parametrize(
    ("experiment", "seed", "slide"), [("single_slit", 4, "slit"), ("grating_wavelength", 3, "grating")]
)
def test_t2_skills_slide_the_carriage_and_seat_the_slide_and_stand_it_back(
    experiment: str, seed: int, slide: str
) -> None:
    """The workspace's skills work a laser rail's controls: slide draws the slide's carriage along the rail;
    grasp, carry and place take the slide from its stand into the holder (located where it hangs from the
    fingers and lowered to just above the holder first; the first-order features appear on the wide screen)
    and back, nothing carried knocking the screen."""
    env = LabEnv(experiment, seed, level="T2")
    bench = env.platform
    assert isinstance(bench, LaserRail)
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]

        def at(name: str) -> float:
            return server.run(lambda: {"x": bench.carriage_x(env.data, name)})["x"]

        skills.slide(lab, f"{slide}_carriage", [1.0, 0.0, 0.0], 0.05, across=True)
        slide_x, screen_x = at(slide), at("screen")
        assert 0.03 < slide_x - layout[f"{slide}_carriage"][0] < 0.07
        stand_x, stand_y, floor = layout[f"{slide}_stand"]
        skills.carry(lab, [stand_x, stand_y - 0.1, floor + 0.2])  # the arm out of the front camera's view
        held = skills.grasp(lab, slide)
        size = layout[f"{slide}_size"][2]
        grip = held["hand_position"][2] - skills.PAD_REACH - skills.CLEARANCE - floor - size / 2
        pads = layout["slide"][2] + grip  # the fingers' height on a slide seated on the axis
        skills.carry(lab, [slide_x, 0.0, pads])
        held_x = skills.locate(lab, slide)["centroid"][0]  # it hangs a little off the fingers' centre
        hand_x = lab.state()["hand_position"][0]
        skills.carry(lab, [slide_x + hand_x - held_x, 0.0, pads - skills.CLEARANCE + 0.03])  # just above
        skills.place(lab, [slide_x + hand_x - held_x, 0.0, pads + 0.001])
        seated = server.run(lambda: {"seat": bench.seats[slide], "features": bench.feature_offsets()})
        first = [v for name, v in seated["features"].items() if name.endswith(("-1", "+1"))]
        assert seated["seat"] == slide and len(first) == 2 and None not in first
        skills.grasp(lab, slide, camera="side")
        skills.carry(lab, [stand_x, stand_y, floor + grip])
        skills.place(lab, [stand_x, stand_y, floor + size / 2 + grip + 0.001])
        lab.close()
    assert bench.in_stand(env.data, bench.items[0]) and bench.seats[slide] is None
    assert abs(bench.carriage_x(env.data, "screen") - screen_x) < 0.002
    assert OBJECT_X < bench.carriage_x(env.data, slide) < screen_x
    env.close()
