"""The baseline's perception against the simulator's ground truth (read here by the test only)."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image

from actloop.suites.vabench.baseline import views
from actloop.suites.vabench.baseline.perception import find, seen_from_topdown, top_height_from_side
from actloop.suites.vabench.baseline.recipes import Recipe, recipe_for
from actloop.suites.vabench.baseline.vision import colour_mask, regions
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import CameraAction, MoveWorld, Translation


def _image(result) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(result.observation.frames[0].png)).convert("RGB"))


def _gc(result) -> np.ndarray:
    return np.array(result.observation.arms[0].gc)


def test_topdown_estimate_of_the_cube_matches_the_simulation(env: SpatialEnv) -> None:
    # back away 20 cm and up 10 cm, so the gripper no longer hides the cube from above
    back, up = Translation("y", "-", 100.0), Translation("z", "+", 100.0)
    for translation in (back, back, up):
        env.step(MoveWorld(translation))
    result = env.step(CameraAction("view_topdown"))
    image = _image(result)
    camera = views.topdown(_gc(result), image.shape[1], image.shape[0])
    region = find(image, "red")
    assert region is not None
    seen = seen_from_topdown(camera, region, square=True)
    truth = env.world.body_position("cube")
    assert np.linalg.norm(seen.xy - truth[:2]) < 0.005
    # visible side faces widen the silhouette slightly away from the image centre
    assert seen.thickness == pytest.approx(0.044, abs=0.006)
    rot = env.world.body_rotation("cube")
    true_heading = math.atan2(rot[1, 0], rot[0, 0])
    error = (seen.heading - true_heading + math.pi / 4) % (math.pi / 2) - math.pi / 4
    assert abs(math.degrees(error)) < 4.0


def test_side_view_measures_the_top_of_the_cube(env: SpatialEnv) -> None:
    cube = env.world.body_position("cube")
    gc = np.array(env.reset().observation.arms[0].gc)
    for axis, i in (("x", 0), ("y", 1)):
        mm = 1000 * (cube[i] - gc[i])
        if abs(mm) >= 1:
            env.step(MoveWorld(Translation(axis, "+" if mm > 0 else "-", round(abs(mm), 1))))
    result = env.step(CameraAction("view_side"))
    image = _image(result)
    camera = views.side(_gc(result), image.shape[1], image.shape[0])
    top = top_height_from_side(camera, image, "red", cube[:2])
    assert top == pytest.approx(cube[2] + 0.022, abs=0.005)


def test_colour_masks_separate_palette_colours() -> None:
    image = np.zeros((20, 40, 3), dtype=np.uint8)
    image[:, :20] = (217, 31, 26)  # red
    image[:, 20:] = (26, 166, 51)  # green
    assert colour_mask(image, "red")[:, :20].all() and not colour_mask(image, "red")[:, 20:].any()
    assert colour_mask(image, "green")[:, 20:].all() and not colour_mask(image, "green")[:, :20].any()
    with pytest.raises(ValueError, match="unknown colour"):
        colour_mask(image, "mauve")


def test_region_rectangle_of_a_rotated_bar() -> None:
    mask = np.zeros((200, 200), dtype=bool)
    u, v = np.meshgrid(np.arange(200), np.arange(200))
    a = math.radians(30)
    along = (u - 100) * math.cos(a) + (v - 100) * math.sin(a)
    across = -(u - 100) * math.sin(a) + (v - 100) * math.cos(a)
    mask[(abs(along) <= 40) & (abs(across) <= 6)] = True
    (bar,) = regions(mask)
    assert bar.length_px == pytest.approx(81, abs=3) and bar.width_px == pytest.approx(13, abs=3)
    assert math.degrees(bar.angle_rad) == pytest.approx(30, abs=2)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("Pick up the red cube from the table and lift it.", Recipe("grasp", "cube", "red")),
        ("Put the red cube into the cyan bowl.", Recipe("place", "cube", "red", "bowl", "cyan")),
        ("Stack the red cube on top of the green cube.", Recipe("place", "cube", "red", "cube", "green")),
        ("Place the red cube on the blue pad.", Recipe("place", "cube", "red", "pad", "blue")),
        ("Pick up the lying blue bottle.", Recipe("grasp", "lying", "blue")),
        ("Pick up the upright blue bottle.", Recipe("grasp", "upright", "blue")),
        ("Press the bell.", Recipe("press", "bell", None)),
    ],
)
def test_recipes_follow_the_instruction(instruction: str, expected: Recipe) -> None:
    assert recipe_for(instruction) == expected


def test_unknown_instruction_has_no_recipe() -> None:
    assert recipe_for("Juggle three oranges.") is None
