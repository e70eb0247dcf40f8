"""The renderer draws exactly what ``mujoco.Renderer`` draws with the same settings, on a shared context."""

from __future__ import annotations

import threading
import time

import mujoco
import numpy as np
import pytest

from actloop.errors import ConfigError
from actloop.sim import camera as cam
from actloop.sim.render import Renderer, msaa_samples
from actloop.sim.scene import OBSERVER_CAMERA
from actloop.suites.vabench.env import SpatialEnv


@pytest.fixture(scope="module")
def scene() -> tuple[mujoco.MjModel, mujoco.MjData]:
    env = SpatialEnv("place_cube_in_bowl", 1000, render=False)
    env.reset()
    return env.world.model, env.world.data


def _reference(model: mujoco.MjModel, data: mujoco.MjData, mode: str | None) -> np.ndarray:
    """MuJoCo's own renderer from the observer camera, with shadows and reflections off like ours."""
    with mujoco.Renderer(model, height=480, width=640) as reference:
        reference.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = 0
        reference.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = 0
        if mode:
            getattr(reference, f"enable_{mode}_rendering")()
        reference.update_scene(data, camera=model.camera(OBSERVER_CAMERA).id)
        return np.array(reference.render())


@pytest.mark.parametrize("samples", [0, 2])
def test_frames_match_mujocos_renderer(scene: tuple[mujoco.MjModel, mujoco.MjData], samples: int) -> None:
    model, data = scene
    pose = cam.initial_pose()
    with Renderer(model, samples=samples) as ours:
        image = ours.render(data, pose)
        objects, depth = ours.objects_and_depth_from(data, np.asarray(pose.position), pose.rotation())
    assert image.shape == (480, 640, 3) and image.dtype == np.uint8
    assert np.array_equal(image, _reference(model, data, None))  # the camera is still where ours put it
    assert np.array_equal(objects, _reference(model, data, "segmentation"))
    assert np.array_equal(depth, _reference(model, data, "depth"))
    assert (objects[..., 0] >= 0).any() and 0.05 < float(depth[240, 320]) < 5.0


def test_multisampling_changes_only_edges(scene: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, data = scene
    pose = cam.initial_pose()
    with Renderer(model, samples=0) as plain, Renderer(model, samples=4) as smooth:
        changed = np.any(plain.render(data, pose) != smooth.render(data, pose), axis=2).mean()
    assert 0.0 < changed < 0.05


def test_renderers_of_a_thread_share_one_gl_context(scene: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, data = scene
    Renderer(model).close()  # the thread's context exists from here on
    start = time.process_time()
    for _ in range(3):
        Renderer(model).close()
    assert (time.process_time() - start) / 3 < 0.15  # a fresh context costs about 0.25 s of CPU

    frames: list[np.ndarray] = []

    def other_thread() -> None:
        with Renderer(model) as renderer:
            frames.append(renderer.render(data, cam.initial_pose()))

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    with Renderer(model) as renderer:
        assert np.array_equal(frames[0], renderer.render(data, cam.initial_pose()))


def test_a_closed_renderer_refuses_to_render(scene: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, data = scene
    renderer = Renderer(model)
    renderer.close()
    renderer.close()
    with pytest.raises(RuntimeError, match="closed"):
        renderer.render(data, cam.initial_pose())


def test_msaa_setting_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTLOOP_MSAA_SAMPLES", "4")
    assert msaa_samples() == 4
    monkeypatch.setenv("ACTLOOP_MSAA_SAMPLES", "lots")
    with pytest.raises(ConfigError, match="ACTLOOP_MSAA_SAMPLES"):
        msaa_samples()
    monkeypatch.delenv("ACTLOOP_MSAA_SAMPLES")
    assert msaa_samples() == 0
