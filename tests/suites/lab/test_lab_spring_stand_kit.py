"""The spring stand's kit: its published layout is the scene's and carries nothing of the instance; its part
texts and rule follow its constants; the weights a tray carries are found through stacks."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms import spring_stand_evaluation
from actloop.suites.lab.platforms.spring_stand import RACK_CENTRE, SpringStand, stand_parts, weight_parts
from actloop.suites.lab.platforms.spring_stand_evaluation import rest_rule
from actloop.suites.lab.watch import carried_by


@pytest.fixture(scope="module")
def envs() -> Iterator[list[LabEnv]]:
    benches = [LabEnv("hookes_law", seed, render=False) for seed in (1, 2)]
    yield benches
    for bench in benches:
        bench.close()


def test_the_published_layout_is_where_the_scene_has_it(envs: list[LabEnv]) -> None:
    env = envs[0]
    layout = env.calibration()["layout"]
    model, data = env.model, env.data
    stand = env.platform
    assert isinstance(stand, SpringStand)

    def geom(name: str) -> tuple[np.ndarray, np.ndarray]:
        return data.geom(name).xpos, model.geom(name).size

    table_top = data.geom("table").xpos[2] + model.geom("table").size[2]
    plate, plate_size = geom("tray_plate")
    pointer, _ = geom("tray_pointer")
    face, face_size = geom("ruler_face")
    checked = {
        "spring_top": data.site("spring_top").xpos,
        **{f"{w}_place": [*model.body(w).pos[:2], table_top] for w in stand.weights},
        "tray_plate": plate[:2],
        "ruler_face": [face[0] - face_size[0], face[1] - face_size[1]],
        "weight_size": [2 * geom("weight_1")[1][0], 2 * geom("weight_1")[1][1]],
        "tray_plate_size": 2 * plate_size[:2],
        "pointer_above_plate": [pointer[2] - plate[2] - plate_size[2]],
    }
    assert set(layout) == set(checked)
    for name, position in checked.items():
        assert np.allclose(layout[name], position, rtol=0, atol=1e-9), name


def test_the_tray_height_would_show_in_a_layout_that_published_it(envs: list[LabEnv]) -> None:
    """What hangs on a hidden parameter (the tray's height) differs between the instances, so publishing it
    would fail test_lab_layouts' check that every instance publishes the same layout."""
    heights = [float(env.data.geom("tray_plate").xpos[2]) for env in envs]
    assert abs(heights[0] - heights[1]) > 1e-4


def test_part_texts_and_the_rule_follow_the_kit_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    three = weight_parts(3)
    assert [p.name for p in three] == ["weight_1", "weight_2", "weight_3", "rack"]
    assert three[-1].function == "holds the three weights" and three[-1].restore == "fixed"
    parts = stand_parts(three)
    assert [p.name for p in parts] == ["stand", "spring", "tray", *(p.name for p in three), "ruler"]
    assert "moving slower than 0.2 mm/s for at least 0.5 s" in rest_rule()
    monkeypatch.setattr(spring_stand_evaluation, "REST_SPEED_M_S", 5e-4)
    monkeypatch.setattr(spring_stand_evaluation, "REST_HOLD_S", 1.5)
    assert "moving slower than 0.5 mm/s for at least 1.5 s" in rest_rule()


def test_a_rack_of_another_size_is_centred_and_published_whole() -> None:
    stand = SpringStand(30.0, 0.25, 0.14, 0.016, 0.0, 0.02, weights=3)
    assert stand.weights == ("weight_1", "weight_2", "weight_3")
    assert stand.rack_position(2)[:2] == pytest.approx(RACK_CENTRE)
    places = [name for name in stand.layout() if name.endswith("_place")]
    assert places == ["weight_1_place", "weight_2_place", "weight_3_place"]
    assert 'name="weight_3"' in stand.bodies_xml() and 'name="weight_4"' not in stand.bodies_xml()


def test_the_tray_carries_weights_on_it_and_stacked_but_not_those_beside_it() -> None:
    plate, table, weights = 0, 1, (10, 11, 12, 13)
    links = [(plate, 10), (11, 10), (12, table), (13, 12), (plate, table)]
    assert carried_by(plate, weights, links) == {10, 11}
    assert carried_by(plate, weights, []) == set()
    assert carried_by(plate, weights, [(13, 11), (11, 10), (10, plate)]) == {10, 11, 13}
