"""The spectrophotometer's kit: its published layout is the scene's, and carries nothing hidden; its part
texts follow its constants; a sample is a cuvette with something in it."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms import spectrophotometer
from actloop.suites.lab.platforms.display import FACE_DEPTH_M
from actloop.suites.lab.platforms.spectrophotometer import (
    CUVETTE_HALF,
    DECK_Z,
    FACES,
    SpectrophotometerBench,
)


@pytest.fixture(scope="module")
def env() -> Iterator[LabEnv]:
    bench = LabEnv("dye_absorptivity", 1, render=False)
    yield bench
    bench.close()


def test_the_published_layout_is_where_the_scene_has_it(env: LabEnv) -> None:
    layout = env.calibration()["layout"]
    model, data = env.model, env.data
    bench = env.platform
    assert isinstance(bench, SpectrophotometerBench)
    holder_walls = np.array([data.geom(f"holder_{side}").xpos for side in "nsew"])
    assert np.allclose(layout["holder"][:2], holder_walls.mean(axis=0)[:2], atol=1e-9)
    assert layout["holder"][2] == pytest.approx(DECK_Z, abs=1e-9)
    deck = float(data.geom("spectro_body").xpos[2] + model.geom("spectro_body").size[2])
    assert deck == pytest.approx(DECK_Z)
    for cuvette in bench.cuvettes:
        centre = model.body(cuvette.name).pos
        assert np.allclose(layout[f"{cuvette.name}_slot"][:2], centre[:2], atol=1e-9)
        assert layout[f"{cuvette.name}_slot"][2] == pytest.approx(TABLE_TOP_Z, abs=1e-9)
    for name in ("lambda_down", "lambda_up", "blank"):
        cap = data.geom(f"key_{name}")
        top = float(cap.xpos[2] + model.geom(f"key_{name}").size[1])  # a cylinder: radius, half height
        assert np.allclose(layout[f"key_{name}"], [cap.xpos[0], cap.xpos[1], top], atol=1e-9)
    for face in FACES:
        window = data.geom(face.geom).xpos
        assert np.allclose(
            layout[f"{face.instrument}_lcd"], [*window[:2], window[2] + FACE_DEPTH_M], atol=1e-9
        )
        assert layout[f"{face.instrument}_lcd_size"] == pytest.approx([face.width_m, face.height_m])
    assert layout["cuvette_size"] == pytest.approx([2 * CUVETTE_HALF[0]] * 2 + [2 * CUVETTE_HALF[1]])


def test_part_texts_follow_the_kit_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {p.name: p.function for p in spectrophotometer.instrument_parts()}
    assert keys["key_lambda_up"].endswith("held for 0.5 s it repeats every 0.05 s")
    monkeypatch.setattr(spectrophotometer, "REPEAT_S", 0.1)
    keys = {p.name: p.function for p in spectrophotometer.instrument_parts()}
    assert keys["key_lambda_down"].endswith("held for 0.5 s it repeats every 0.1 s")
    assert spectrophotometer.rack_part(4).function.startswith("four slots in a row")


def test_only_a_cuvette_with_contents_is_a_sample(env: LabEnv) -> None:
    evaluator = env.evaluator
    assert [evaluator.is_sample(i) for i in range(len(env.platform.cuvettes))] == [False] + [True] * 6
    assert not evaluator.is_sample(None)
