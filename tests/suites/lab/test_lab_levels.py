"""Interface levels: T1's segmentation and planned hand motion, T2's skills in the workspace, and T0 benches
refusing both; every T0 call is the same at every level."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from actloop.suites.lab.env import LabEnv, LabRequestError
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills, write_workspace


def test_a_t0_bench_refuses_the_t1_calls_and_moves_nothing() -> None:
    env = LabEnv("hookes_law", 1, render=False)
    before = env.robot_state()
    with pytest.raises(LabRequestError, match="segment is a T1 call"):
        env.segment("tray", "front")
    with pytest.raises(LabRequestError, match="move_hand is a T1 call"):
        env.move_hand(before["hand_position"], before["hand_quaternion"])
    assert env.robot_state() == before


@pytest.mark.parametrize("key", experiment_keys())
def test_every_part_on_every_card_is_something_the_bench_draws(key: str) -> None:
    env = LabEnv(key, 1, render=False, level="T1")
    assert {part: bool(objects) for part, objects in env.part_objects().items()} == {
        part.name: True for part in env.spec.parts
    }


def test_segment_gives_the_visible_surface_of_a_part_in_world_coordinates() -> None:
    env = LabEnv("hookes_law", 1, level="T1")
    seen = env.segment("weight_1", "front")
    body = env.data.body("weight_1").xpos
    assert seen["pixels"] == len(seen["points"]) > 100
    mask = np.array(Image.open(io.BytesIO(seen["mask_png"])))
    assert mask.shape == (480, 640) and int((mask > 0).sum()) == seen["pixels"]
    for camera in ("front", "side", "wrist"):
        points = np.array(env.segment("weight_1", camera)["points"])
        # a cylinder of radius 16 mm and height 24 mm: every point lies on it, the highest on its top
        radial = np.hypot(points[:, 0] - body[0], points[:, 1] - body[1])
        assert radial.max() < 0.0175 and abs(points[:, 2].max() - (body[2] + 0.012)) < 0.001, camera
    with pytest.raises(LabRequestError, match="no part 'lens'"):
        env.segment("lens", "front")
    with pytest.raises(LabRequestError, match="camera must be one of"):
        env.segment("tray", "top")
    assert env.clock.steps == 0  # perception takes no simulated time


def test_move_hand_reaches_a_free_pose_and_refuses_one_inside_an_obstacle() -> None:
    env = LabEnv("hookes_law", 1, render=False, level="T1")
    start = env.robot_state()
    target = [0.25, -0.15, 1.0]
    moved = env.move_hand(target, start["hand_quaternion"])
    assert moved["completed"] and np.allclose(moved["hand_position"], target, atol=0.002)
    held = env.robot_state()
    with pytest.raises(LabRequestError, match=r"no collision-free path to that pose: .*table"):
        env.move_hand([0.25, -0.15, 0.76], start["hand_quaternion"])
    assert env.robot_state() == held


def test_t2_skills_in_the_workspace_grasp_a_weight_and_put_it_back(tmp_path: Path) -> None:
    env = LabEnv("hookes_law", 1, level="T2")
    home = env.data.body("weight_1").xpos.copy()
    skills = load_skills()
    with serving(env) as server:
        written = write_workspace(tmp_path, "card", server.url, server.token, "T2")
        assert "lab_skills.py" in {p.name for p in written}
        guide = (tmp_path / "README.md").read_text()
        assert "Level T1" in guide and "Level T2" in guide
        lab = load_client().Lab(server.url, server.token)
        skills.grasp(lab, "weight_1")
        lifted = server.run(lambda: {"z": float(env.data.body("weight_1").xpos[2])})["z"]
        assert lifted > home[2] + 0.08
        skills.place(lab, [float(x) for x in home])
        lab.close()
    back = env.data.body("weight_1").xpos
    assert np.hypot(back[0] - home[0], back[1] - home[1]) < 0.004 and abs(back[2] - home[2]) < 0.001


def test_a_t0_workspace_has_neither_skills_nor_t1_guide(tmp_path: Path) -> None:
    names = {p.name for p in write_workspace(tmp_path, "card", "http://127.0.0.1:1", "token")}
    assert "lab_skills.py" not in names and "Level T1" not in (tmp_path / "README.md").read_text()
