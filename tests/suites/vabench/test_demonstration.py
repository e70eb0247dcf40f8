"""Demonstration videos: the expert on the demonstration seed, filmed without changing the physics."""

from __future__ import annotations

import io
from pathlib import Path

import imageio.v2 as imageio
from PIL import Image

from actloop.suites.vabench.demonstration import SAMPLED_FRAMES, load_demonstration, record_demonstration
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.seeds import load_manifest, play_expert

TASK = "grasp_single_cube"


def test_demonstration_films_the_expert_on_the_demo_seed(tmp_path: Path) -> None:
    demo = record_demonstration(TASK, tmp_path, width=160, height=120)
    manifest = load_manifest(TASK)
    assert demo.seed == manifest.demo_seed and demo.seed not in manifest.seed_list()
    assert load_demonstration(tmp_path, TASK) == demo
    directory = tmp_path / TASK
    video = imageio.mimread(directory / demo.video)
    assert len(video) == demo.video_frames > SAMPLED_FRAMES and video[0].shape == (120, 160, 3)
    assert len(demo.frames) == SAMPLED_FRAMES
    first = Image.open(io.BytesIO((directory / demo.frames[0]).read_bytes()))
    last = Image.open(io.BytesIO((directory / demo.frames[-1]).read_bytes()))
    assert first.size == (160, 120) and first.tobytes() != last.tobytes()  # the scene changed


def test_filming_does_not_change_the_physics() -> None:
    seed = load_manifest(TASK).demo_seed
    assert seed is not None
    hashes = []
    for observed in (False, True):
        env = SpatialEnv(TASK, seed, width=64, height=48)
        try:
            first = env.reset()
            if observed:
                with env.world.observe(lambda world: None, every_n_steps=7):
                    ok, _, _ = play_expert(env, first)
            else:
                ok, _, _ = play_expert(env, first)
            assert ok
            hashes.append(env.evaluate().state_hash)
        finally:
            env.close()
    assert hashes[0] == hashes[1]
