"""The spectrophotometer's kit: its published layout is the scene's, and carries nothing hidden; its part
texts follow its constants; a sample is a cuvette with something in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.platforms import spectrophotometer
from actloop.suites.lab.platforms.display import FACE_DEPTH_M
from actloop.suites.lab.platforms.spectrophotometer import (
    CUVETTE_HALF,
    DECK_Z,
    FACE_X,
    FACE_Y,
    FACES,
    SpectrophotometerBench,
)
from actloop.suites.lab.platforms.spectrophotometer_kinetics import KineticsBench
from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from spectro_scaffold import bench, press, seat

SPECTRO_EXPERIMENTS = [k for k in experiment_keys() if experiment(k).spec.platform == "spectrophotometer"]


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


def test_t2_skills_carry_a_cuvette_into_the_holder_press_the_keys_and_put_it_back(tmp_path: Path) -> None:
    """The workspace's skills work the bench's controls: grasp, carry and place stand a cuvette from its
    slot in the holder and back, press steps the wavelength and takes a blank."""
    env = LabEnv("spectro_calibration", 1, level="T2")
    bench = env.platform
    assert isinstance(bench, SpectrophotometerBench)
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]
        height = layout["cuvette_size"][2]

        def carry_cuvette(to: list[float]) -> None:
            """Grasp cuvette_3 (the pads close GRIP_DEPTH below its top) and stand it on the floor ``to``."""
            skills.grasp(lab, "cuvette_3")
            skills.carry(lab, [to[0], to[1], to[2] + height])
            skills.place(lab, [to[0], to[1], to[2] + height - skills.GRIP_DEPTH + 0.002])

        carry_cuvette(layout["holder"])
        assert server.run(lambda: {"in": bench.in_holder})["in"] == 3
        before = bench.meter.wavelength
        skills.press(lab, "key_lambda_up")
        skills.press(lab, "key_blank")
        assert bench.meter.wavelength == before + 1 and bench.blanks[-1][1:] == (before + 1, 3)
        carry_cuvette(layout["cuvette_3_slot"])
        lab.close()
    assert bench.in_holder is None
    assert not env.evaluator.restore_problems(env.data), env.data.body("cuvette_3").xpos


@pytest.mark.parametrize("key", SPECTRO_EXPERIMENTS)
def test_the_lcds_show_what_the_instrument_log_says(key: str) -> None:
    env = LabEnv(key, 4)
    try:
        seat(env, len(bench(env).cuvettes) - 1)
        for _ in range(2):
            press(env, "lambda_up")
        env.wait(1.0)
        env.observe()  # the faces are redrawn before frames
        k = env.calibration()["wrist"]["intrinsics"]
        renderer = env._renderer
        assert renderer is not None
        shown = []
        for face in FACES:
            centre = np.array([FACE_X, FACE_Y[face.instrument], DECK_Z + 0.0021])
            pose = look_at(centre + np.array([0.0, -0.03, 0.12]), centre)
            image = renderer.render_from(env._world.data, np.array(pose.position), pose.rotation())
            camera = Camera(np.array(pose.position), pose.rotation(), k["fx"], k["fy"], k["cx"], k["cy"])
            world = window_corners(centre, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], face.width_m, face.height_m)
            text = read_display(image, project(world, camera), face.digits)
            spec = next(s for s in env.platform.instruments() if s.name == face.instrument)
            assert text == spec.text(env.instrument_log.shown_at(face.instrument, env.clock.time_s))
            shown.append(text)
        assert shown[0] == "502" and re.fullmatch(r"-?\d\.\d{3}", shown[1])
    finally:
        env.close()


def test_t2_skills_press_the_log_key_and_lift_a_vial_and_stand_it_back(tmp_path: Path) -> None:
    """On the kinetics bench: press starts the logger; grasp, carry and place lift a vial of base off its
    stand and stand it back in its slot, upright and unspilled."""
    env = LabEnv("crystal_violet_kinetics", 1, level="T2")
    bench = env.platform
    assert isinstance(bench, KineticsBench)
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]
        skills.press(lab, "key_log")
        assert server.run(lambda: {"on": bench.logging})["on"]
        height = layout["vial_size"][2]
        skills.grasp(lab, "vial_2")
        lifted = server.run(lambda: {"z": float(env.data.body("vial_2").xpos[2])})["z"]
        x, y, floor = layout["vial_2_slot"]
        skills.carry(lab, [x, y, floor + height])
        skills.place(lab, [x, y, floor + height - skills.GRIP_DEPTH + 0.002])
        lab.close()
    assert lifted > floor + height / 2 + 0.05
    assert not env.evaluator.restore_problems(env.data) and not bench.vessels.spills
