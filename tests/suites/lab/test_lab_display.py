"""Seven-segment display faces: every character drawn, faces read back from images under perspective and at
small sizes, unreadable faces refused, and the world-to-pixel projection from the published calibration."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from PIL import Image

from actloop.errors import ConfigError
from actloop.suites.lab.cameras import calibration, wrist_pose
from actloop.suites.lab.env import CAMERAS
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec
from actloop.suites.lab.platforms.display import DisplayFace, faces_textures
from actloop.suites.lab.readability import project as bench_project
from actloop.suites.lab.reference.display import (
    CHARACTERS,
    Camera,
    homography,
    project,
    read_display,
    rotation_matrix,
    window_corners,
)

FACE = DisplayFace("lcd", "meter", 6, 0.06, 0.018, 2)
TEXTS = ["-12.34", "OL", "1234.56", "987.65", "-0.01", "5.0", "24680", "13579.0", "0.00"]


def _corners(image: np.ndarray) -> np.ndarray:
    h, w, _ = image.shape
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)


def _warped(face: np.ndarray, corners: np.ndarray, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """``face`` pasted onto a dark canvas with its corners at ``corners`` (a perspective warp)."""
    h = homography(corners, _corners(face))  # PIL maps output pixels back to input pixels
    coefficients = (h / h[2, 2]).reshape(9)[:8]
    rgba = Image.fromarray(face).convert("RGBA")
    warped = rgba.transform(size, Image.Transform.PERSPECTIVE, tuple(coefficients), Image.Resampling.BILINEAR)
    canvas = Image.new("RGBA", size, (40, 40, 45, 255))
    canvas.alpha_composite(warped)
    return np.asarray(canvas.convert("RGB"))


def test_every_character_is_drawn_distinctly_and_read_back() -> None:
    seen = set()
    for char in [c for c in CHARACTERS if c.strip()]:
        text = "OL" if char == "L" else f"{char}8" if char == "-" else char
        image = FACE.texture_image(text)
        seen.add(image.tobytes())
        assert read_display(image, _corners(image), FACE.digits) == text
    assert len(seen) == len(CHARACTERS) - 1
    assert (FACE.texture_image("") == FACE.texture_image("")[0, 0]).all()  # blank: the window alone


@pytest.mark.parametrize("text", TEXTS)
def test_faces_read_back_exactly(text: str) -> None:
    image = FACE.texture_image(text)
    assert read_display(image, _corners(image), FACE.digits) == text


@pytest.mark.parametrize(
    "corners",
    [
        [[40, 80], [280, 60], [285, 140], [38, 150]],  # seen from the left and below
        [[60, 50], [250, 90], [240, 160], [70, 150]],  # turned and foreshortened
        [[100, 100], [190, 104], [189, 131], [99, 127]],  # small: digits about 19 px
        [[120, 110], [182, 111], [182, 128], [120, 127]],  # smaller: digits about 12 px
    ],
)
def test_faces_read_back_under_perspective_and_at_small_sizes(corners: list[list[float]]) -> None:
    for text in ("-12.34", "987.65", "OL"):
        image = _warped(FACE.texture_image(text), np.array(corners, dtype=float))
        assert read_display(image, np.array(corners), FACE.digits) == text


def test_an_unreadable_face_is_refused() -> None:
    tiny = [[150, 110], [168, 110], [168, 116], [150, 116]]
    image = _warped(FACE.texture_image("-12.34"), np.array(tiny, dtype=float))
    with pytest.raises(ValueError, match="too small"):
        read_display(image, np.array(tiny), FACE.digits)
    corners = np.array([[40, 80], [280, 60], [285, 140], [38, 150]], dtype=float)
    for size in (25, 20, 15):  # a blurred face is refused, never read as something else
        for text in ("-12.34", "987.65", "OL", "24680"):
            small = Image.fromarray(_warped(FACE.texture_image(text), corners)).resize((size, size * 3 // 4))
            with pytest.raises(ValueError):
                read_display(np.asarray(small.resize((320, 240))), corners, FACE.digits)
    blank = FACE.texture_image("")
    with pytest.raises(ValueError, match="no segment"):
        read_display(blank, _corners(blank), FACE.digits)
    shifted = corners + np.array([12.0, 0.0])  # corners a third of a cell off: segments half covered
    with pytest.raises(ValueError):
        read_display(_warped(FACE.texture_image("88.88"), corners), shifted, FACE.digits)
    with pytest.raises(ValueError, match="not wholly"):
        read_display(_warped(FACE.texture_image("1.0"), corners), corners - 100, FACE.digits)


def test_faces_refuse_what_they_cannot_show() -> None:
    with pytest.raises(ValueError):
        FACE.texture_image("1234567")
    with pytest.raises(ValueError):
        FACE.texture_image("12a")
    with pytest.raises(ConfigError):
        DisplayFace("wide", "meter", 2, 0.10, 0.01)


def test_a_face_follows_its_instrument() -> None:
    spec = InstrumentSpec("ohm", "kΩ", DigitalDisplay(digits=5, decimals=3, min_digit_px=10.0))
    face = DisplayFace.of("ohm_lcd", spec, 0.066, 0.02, sign=True)
    assert (face.digits, face.decimals, face.instrument) == (6, 3, "ohm")
    shown = {"ohm": 12.5}
    faces = faces_textures([face], shown.get)
    assert read_display(faces["ohm_lcd"], _corners(faces["ohm_lcd"]), face.digits) == "12.500"
    assert face.text("OL") == "OL" and face.text(None) == ""
    assert face.digit_height_m() == pytest.approx(0.72 * 0.02)


def test_a_rendered_face_is_read_from_a_camera_through_the_projection() -> None:
    """The face's texture lies upright on the box's −y side, and its window's projected corners find it."""
    centre = np.array([0.0, 0.0, 0.0])
    xml = f"""<mujoco><asset>{FACE.material_xml()}</asset><worldbody><light pos="0 -1 1" dir="0 1 -1"/>
      <body pos="0 0 0">{FACE.geom_xml("0 0 0")}</body></worldbody></mujoco>"""
    spec = mujoco.MjSpec.from_string(xml)
    face = FACE.texture_image("-3.14")
    texture = spec.add_texture(
        name="lcd", type=mujoco.mjtTexture.mjTEXTURE_2D, width=face.shape[1], height=face.shape[0]
    )
    texture.nchannel = 3
    texture.data = face.tobytes()
    spec.worldbody.add_camera(name="c")
    model = spec.compile()
    data = mujoco.MjData(model)
    eye = np.array([0.05, -0.15, 0.04])
    backward = (eye - centre) / np.linalg.norm(eye - centre)
    right = np.cross([0.0, 0.0, 1.0], backward)
    right /= np.linalg.norm(right)
    rotation = np.column_stack([right, np.cross(backward, right), backward])
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, rotation.reshape(9))
    model.cam_pos[0], model.cam_quat[0], model.cam_fovy[0] = eye, quat, 50.0
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, 480, 640) as renderer:
        renderer.update_scene(data, camera="c")
        image = renderer.render()
    fy = 240 / math.tan(math.radians(25))
    camera = Camera(eye, rotation, fy, fy, 320.0, 240.0)
    front = centre - np.array([0.0, 0.001, 0.0])
    world = window_corners(front, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], FACE.width_m, FACE.height_m)
    assert read_display(image, project(world, camera), FACE.digits) == "-3.14"


def test_the_projection_agrees_with_the_bench_for_fixed_and_wrist_cameras() -> None:
    published = calibration(CAMERAS)
    point = np.array([0.1, 0.05, 0.9])
    front = CAMERAS[0]
    position, rotation = front.fixed_pose()
    expected = bench_project(point, position, rotation, front.intrinsics()["fy"])
    assert project(point, Camera.fixed(published, "front"))[0] == pytest.approx(expected)
    hand_position = np.array([0.3, -0.1, 1.1])
    quat = np.array([0.7, 0.1, -0.6, 0.2])
    quat /= np.linalg.norm(quat)
    hand = np.empty(9)
    mujoco.mju_quat2Mat(hand, quat)
    assert rotation_matrix(quat) == pytest.approx(hand.reshape(3, 3))
    position, rotation = wrist_pose(hand_position, hand.reshape(3, 3))
    target = position - 0.2 * rotation[:, 2] + 0.01 * rotation[:, 0]
    expected = bench_project(target, position, rotation, CAMERAS[2].intrinsics()["fy"])
    got = project(target, Camera.wrist(published, hand_position.tolist(), quat.tolist()))[0]
    assert got == pytest.approx(expected)
    assert np.isnan(
        project(position + 0.1 * rotation[:, 2], Camera.wrist(published, hand_position, quat))
    ).all()
