"""The optical rail's kit: its published layout is the scene's and carries nothing hidden (the scale's zero
is read, never published); its focus rule follows its constants; the screen's blur lowers contrast
monotonically; T2's skills work its controls."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.physics.optics import Rail, ThinLens
from actloop.suites.lab.platforms import optical_rail
from actloop.suites.lab.platforms.optical_rail import LENS_APERTURE, OpticalRail, screen_image
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills


@pytest.fixture(scope="module")
def env() -> Iterator[LabEnv]:
    bench = LabEnv("lens_focal_length", 1, render=False)
    yield bench
    bench.close()


def test_the_published_layout_is_where_the_scene_has_it(env: LabEnv) -> None:
    layout = env.calibration()["layout"]
    model, data = env.model, env.data
    rail = env.platform
    assert isinstance(rail, OpticalRail)
    slide = data.geom("lamp_slide").xpos
    assert np.allclose(layout["slide"], [slide[0] + 0.0005, slide[1], slide[2]], atol=1e-9)  # its plane
    for carriage in rail.sliders:
        assert np.allclose(layout[f"{carriage.name}_carriage"], model.body(f"{carriage.name}_carriage").pos)
    assert np.allclose(layout["lens_grip"], data.geom("lens_knob").xpos, atol=1e-9)
    post = data.geom("screen_post")
    post_top = [post.xpos[0], post.xpos[1], post.xpos[2] + model.geom("screen_post").size[2]]
    assert np.allclose(layout["screen_post"], post_top, atol=1e-9)
    assert layout["screen_post_behind"][0] == pytest.approx(post.xpos[0] - data.geom("screen_face").xpos[0])
    for item in rail.items:
        floor = data.geom(f"{item.name}_stand_floor")
        top = floor.xpos[2] + model.geom(f"{item.name}_stand_floor").size[2]
        assert np.allclose(layout[f"{item.name}_stand"], [floor.xpos[0], floor.xpos[1], top], atol=1e-9)
        frame, grip = data.geom(f"{item.name}_frame"), data.geom(f"{item.name}_stem")
        assert layout[f"{item.name}_size"] == pytest.approx(2 * model.geom(f"{item.name}_frame").size)
        assert layout[f"{item.name}_grip_above_centre"][0] == pytest.approx(
            grip.xpos[2] - frame.xpos[2], abs=1e-9
        )
    published = [v for values in layout.values() for v in values]
    assert not any(np.isclose(v, rail.scale_zero_x, rtol=1e-9, atol=0) for v in published)  # it is read
    face = data.geom("rail_scale_face")
    assert layout["scale_face"][0] == pytest.approx(face.xpos[1] - model.geom("rail_scale_face").size[1])


def test_the_focus_rule_follows_the_kit_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "is at most 0.5 mm across" in optical_rail.focus_rule()
    monkeypatch.setattr(optical_rail, "FOCUS_BLUR_M", 0.0004)
    assert "is at most 0.4 mm across" in optical_rail.focus_rule()
    assert "of 36 mm (the lens's clear aperture)" in optical_rail.focus_rule()


@pytest.mark.parametrize("u", [0.12, 0.16, 0.24])
def test_the_screens_contrast_falls_monotonically_with_the_blur_circle(u: float) -> None:
    """Gradient energy of the screen (relative to its brightness) never rises again (by more than 0.5 %) as
    the screen leaves the image plane, either way: no pattern sharpens out of focus, so a focus search has
    one peak. (A uniform disc blur, point-sampled edges or a hard clip of the brightness rise by 5-13 %
    here.)"""

    def energy(defocus: float) -> float:
        f = 0.08
        v = u * f / (u - f)
        grey = screen_image(Rail(0.0, (ThinLens(u, f, LENS_APERTURE),), u + v + defocus)).astype(float)
        grey = grey.mean(axis=2)
        gx, gy = np.diff(grey, axis=1), np.diff(grey, axis=0)
        return float(((gx * gx).mean() + (gy * gy).mean()) / grey.mean() ** 2)

    for side in (1.0, -1.0):
        values = [energy(side * 0.0004 * k) for k in range(30)]
        assert all(b <= a * 1.005 for a, b in itertools.pairwise(values)), values
        assert values[-1] < 0.5 * values[0]


def test_t2_skills_slide_the_carriages_and_seat_the_lens_and_stand_it_back(tmp_path: Path) -> None:
    """The workspace's skills work the rail's controls: slide draws a carriage along the rail (it closes on
    it from above, so the carriage also centres under the fingers), grasp, carry and place take the lens
    from its stand into the holder and back."""
    env = LabEnv("lens_focal_length", 1, level="T2")
    rail = env.platform
    assert isinstance(rail, OpticalRail)
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]

        def at(name: str) -> float:
            return server.run(lambda: {"x": rail.carriage_x(env.data, name)})["x"]

        skills.slide(lab, "lens_carriage", [1.0, 0.0, 0.0], 0.05, across=True)
        skills.slide(lab, "screen_carriage", [-1.0, 0.0, 0.0], 0.04, across=True)
        lens_x, screen_x = at("lens"), at("screen")
        assert 0.04 < lens_x - layout["lens_carriage"][0] < 0.08
        assert 0.03 < layout["screen_carriage"][0] - screen_x < 0.07
        stand_x, stand_y, floor = layout["lens_stand"]
        held = skills.grasp(lab, "lens")  # lifted by the clearance from where the fingers closed
        grip = (
            held["hand_position"][2]
            - skills.PAD_REACH
            - skills.CLEARANCE
            - floor
            - layout["lens_size"][2] / 2
        )
        pads = layout["slide"][2] + grip  # the fingers' height on a lens seated on the axis
        skills.carry(lab, [lens_x, 0.0, pads])
        skills.place(lab, [lens_x, 0.0, pads + 0.001])
        assert server.run(lambda: {"seat": rail.seats["lens"]})["seat"] == "lens"
        skills.grasp(lab, "lens", camera="side")  # the front camera sees the seated lens behind the grip
        skills.carry(lab, [stand_x, stand_y, floor + grip])
        skills.place(lab, [stand_x, stand_y, floor + layout["lens_size"][2] / 2 + grip + 0.001])
        lab.close()
    assert rail.in_stand(env.data, rail.items[0]) and rail.seats["lens"] is None, rail.item_pose(
        env.data, "lens"
    )
    assert abs(rail.carriage_x(env.data, "screen") - screen_x) < 0.002  # nothing carried knocked it
