"""Demonstration videos: the expert on a task's demonstration seed, filmed from a fixed camera.

The demonstration seed is never an evaluation seed (see ``seeds``). The video is clean RGB (no
overlays, no poses, no actions), as the model would see a recording of a successful execution. Next to
the MP4 a fixed set of evenly sampled frames is stored as PNG: the frames the learning phase serves
through its ``demo.frames`` tool.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import imageio.v2 as imageio
import numpy as np

from actloop.errors import ConfigError
from actloop.sim import camera as cam
from actloop.sim.render import DEFAULT_HEIGHT, DEFAULT_WIDTH, Renderer, encode_png
from actloop.sim.world import World
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.seeds import load_manifest, play_expert

VIDEO_FPS = 10
"""Frames per second of simulated time (the video plays in real time)."""
SAMPLED_FRAMES = 24
META_FILE = "demonstration.json"


@dataclass(frozen=True)
class Demonstration:
    """Where a task's demonstration lives and what it shows."""

    task: str
    seed: int
    video: str
    frames: list[str]
    """Sampled frame PNGs, in time order (paths relative to the demonstration directory)."""
    fps: int
    video_frames: int
    expert_success: bool

    def frame_path(self, directory: Path, index: int) -> Path:
        return directory / self.frames[index]


def demonstration_dir(root: Path, task: str) -> Path:
    return root / task


def load_demonstration(root: Path, task: str) -> Demonstration:
    """The stored demonstration of ``task`` under ``root``; raises FileNotFoundError if absent."""
    meta = demonstration_dir(root, task) / META_FILE
    if not meta.exists():
        raise FileNotFoundError(
            f"no demonstration of {task!r} in {root}; run `actloop demos --tasks {task} --out {root}`"
        )
    return Demonstration(**json.loads(meta.read_text()))


def record_demonstration(
    task: str, root: Path, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT
) -> Demonstration:
    """Run the expert on the task's demonstration seed, film it and store the MP4 and sampled frames."""
    seed = load_manifest(task).demo_seed
    if seed is None:
        raise ConfigError(f"the manifest of {task!r} has no demonstration seed")
    env = SpatialEnv(task, seed, width=width, height=height, render=False)  # the expert reads no frames
    renderer = Renderer(env.world.model, width, height)
    pose = cam.initial_pose()
    images: list[np.ndarray] = []

    def film(world: World) -> None:
        images.append(renderer.render(world.data, pose).copy())

    try:
        first = env.reset()
        film(env.world)
        every = max(1, round(1.0 / (VIDEO_FPS * env.world.model.opt.timestep)))
        with env.world.observe(film, every):
            success, _, reason = play_expert(env, first)
        if not success:
            raise RuntimeError(f"the expert failed on the demonstration seed {seed} of {task}: {reason}")
    finally:
        renderer.close()
        env.close()
    return _store(task, seed, images, demonstration_dir(root, task))


def _store(task: str, seed: int, images: list[np.ndarray], directory: Path) -> Demonstration:
    directory.mkdir(parents=True, exist_ok=True)
    video: list[Any] = list(images)
    imageio.mimwrite(directory / "demonstration.mp4", video, fps=VIDEO_FPS, macro_block_size=1)
    picks = np.linspace(0, len(images) - 1, min(SAMPLED_FRAMES, len(images))).round().astype(int)
    frames = []
    for k, index in enumerate(picks):
        name = f"frame_{k:02d}.png"
        (directory / name).write_bytes(encode_png(images[int(index)]))
        frames.append(name)
    demo = Demonstration(task, seed, "demonstration.mp4", frames, VIDEO_FPS, len(images), True)
    (directory / META_FILE).write_text(json.dumps(asdict(demo), indent=2) + "\n")
    return demo
