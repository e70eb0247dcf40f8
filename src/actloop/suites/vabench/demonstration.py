"""Demonstration videos: the expert on a task's demonstration seed, filmed from a fixed camera.

The demonstration seed is never an evaluation seed (see ``seeds``). The video is clean RGB (no
overlays, no poses, no actions), as the model would see a recording of a successful execution. Next to
the MP4 a fixed set of evenly sampled frames is stored as PNG: the frames the learning phase serves
through its ``demo.frames`` tool.

A long-horizon task has no video of the whole task (the seed's sections 3.3 and C.8): it declares the
atomic skills it combines (:class:`SkillComposition`), and each skill gets its own video of the expert
performing that skill alone, from reset, on a scene that is never an evaluation scene: skill by skill, the
first seed from the demonstration seed on (every evaluation seed lies below it) on which the skill's expert
succeeds, each seed used once. The videos are stored in one subdirectory per skill, and the task's
``demonstration.json`` lists them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import imageio.v2 as imageio
import numpy as np

from actloop.errors import ConfigError
from actloop.sim import camera as cam
from actloop.sim.render import DEFAULT_HEIGHT, DEFAULT_WIDTH, Renderer, encode_png
from actloop.sim.world import World
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import EnvAction
from actloop.suites.vabench.protocol.step import Transition
from actloop.suites.vabench.seeds import load_manifest, play_expert
from actloop.suites.vabench.task import TaskContext, get_task

VIDEO_FPS = 10
"""Frames per second of simulated time (the video plays in real time)."""
SAMPLED_FRAMES = 24
META_FILE = "demonstration.json"
VIDEO_FILE = "demonstration.mp4"
SKILL_SEED_TRIES = 10
"""How many consecutive seeds a skill's video may try before filming gives up."""


@runtime_checkable
class SkillComposition(Protocol):
    """A long-horizon task that combines atomic skills and can demonstrate each one alone."""

    skills: Mapping[str, str]
    """Skill name -> what the skill handles (task-specific), in the order the videos are listed."""

    def skill_expert(self, ctx: TaskContext, skill: str) -> Iterator[EnvAction]:
        """The privileged plan of one skill alone, from reset."""
        ...

    def skill_done(self, ctx: TaskContext, skill: str) -> bool:
        """The skill's outcome holds in the current state."""
        ...


@dataclass(frozen=True)
class SkillVideo:
    """One atomic skill's video within a long-horizon task's demonstration (paths relative to the task's
    demonstration directory)."""

    skill: str
    seed: int
    video: str
    frames: list[str]
    video_frames: int


@dataclass(frozen=True)
class Demonstration:
    """Where a task's demonstration lives and what it shows.

    A long-horizon task has ``video`` None and no ``frames``: its videos are the ``skills``, one per atomic
    skill; ``seed`` is then the manifest's demonstration seed and ``video_frames`` their total.
    """

    task: str
    seed: int
    video: str | None
    frames: list[str]
    """Sampled frame PNGs, in time order (paths relative to the demonstration directory)."""
    fps: int
    video_frames: int
    expert_success: bool
    skills: list[SkillVideo] = field(default_factory=list)

    def frame_path(self, directory: Path, index: int) -> Path:
        return directory / self.frames[index]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Demonstration:
        skills = [SkillVideo(**s) for s in data.get("skills", [])]
        return cls(**{**data, "skills": skills})


def demonstration_dir(root: Path, task: str) -> Path:
    return root / task


def load_demonstration(root: Path, task: str) -> Demonstration:
    """The stored demonstration of ``task`` under ``root``; raises FileNotFoundError if absent."""
    meta = demonstration_dir(root, task) / META_FILE
    if not meta.exists():
        raise FileNotFoundError(
            f"no demonstration of {task!r} in {root}; run `actloop demos --tasks {task} --out {root}`"
        )
    return Demonstration.from_json(json.loads(meta.read_text()))


def demonstration_frames(root: Path, task: str) -> list[bytes] | dict[str, list[bytes]]:
    """The sampled frames the learning phase serves: a list for a task's own video, or per skill (in the
    task's order) for a long-horizon task's skill videos."""
    demo = load_demonstration(root, task)
    directory = demonstration_dir(root, task)
    if demo.skills:
        return {s.skill: [(directory / f).read_bytes() for f in s.frames] for s in demo.skills}
    return [demo.frame_path(directory, i).read_bytes() for i in range(len(demo.frames))]


def record_demonstration(
    task: str, root: Path, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT
) -> Demonstration:
    """Film the task's demonstration and store the MP4 and sampled frames: the expert on the task's
    demonstration seed, or for a long-horizon task one video per atomic skill."""
    seed = load_manifest(task).demo_seed
    if seed is None:
        raise ConfigError(f"the manifest of {task!r} has no demonstration seed")
    directory = demonstration_dir(root, task)
    if get_task(task).track == "long_horizon":
        return _record_skills(task, seed, directory, width, height)
    images, failure = _film(task, seed, width, height, play_expert_to_success)
    if failure is not None:
        raise RuntimeError(f"the expert failed on the demonstration seed {seed} of {task}: {failure}")
    directory.mkdir(parents=True, exist_ok=True)
    video, frames = _store_video(images, directory, "")
    demo = Demonstration(task, seed, video, frames, VIDEO_FPS, len(images), True)
    return _save(demo, directory)


Play = Callable[[SpatialEnv, Transition], str | None]
"""Plays a plan on a reset env; returns why it failed, or None when it succeeded."""


def play_expert_to_success(env: SpatialEnv, first: Transition) -> str | None:
    """The task's full expert plan, to terminal success."""
    success, _, reason = play_expert(env, first)
    return None if success else reason


def play_skill(skill: str) -> Play:
    """One skill's plan alone: every action dispatched and planned, and the skill done at the end."""

    def play(env: SpatialEnv, first: Transition) -> str | None:
        task = _composition(env.task)
        for action in task.skill_expert(env.context, skill):
            result = env.step(action)
            if not result.dispatched or result.observation.feedback.planner_success is False:
                return f"{result.observation.feedback.message} ({action})"
        env.world.forward()
        return None if task.skill_done(env.context, skill) else f"skill {skill!r} not done at the end"

    return play


def _composition(task: object) -> SkillComposition:
    if not isinstance(task, SkillComposition):
        raise ConfigError(f"{task!r} is a long-horizon task but declares no atomic skills to demonstrate")
    return task


def _record_skills(task: str, demo_seed: int, directory: Path, width: int, height: int) -> Demonstration:
    videos = []
    seed = demo_seed
    for skill in _composition(get_task(task)(demo_seed)).skills:
        failures = []
        for candidate in range(seed, seed + SKILL_SEED_TRIES):
            images, failure = _film(task, candidate, width, height, play_skill(skill))
            if failure is None:
                break
            failures.append(f"seed {candidate}: {failure}")
        else:
            raise RuntimeError(f"{task}: the expert of skill {skill!r} failed: {'; '.join(failures)}")
        (directory / skill).mkdir(parents=True, exist_ok=True)
        video, frames = _store_video(images, directory, f"{skill}/")
        videos.append(SkillVideo(skill, candidate, video, frames, len(images)))
        seed = candidate + 1
    total = sum(v.video_frames for v in videos)
    return _save(Demonstration(task, demo_seed, None, [], VIDEO_FPS, total, True, videos), directory)


def _film(task: str, seed: int, width: int, height: int, play: Play) -> tuple[list[np.ndarray], str | None]:
    """Frames of ``play`` from the reset of ``task`` at ``seed``, filmed from the initial camera at
    ``VIDEO_FPS`` frames per simulated second, and why ``play`` failed (None if it succeeded)."""
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
            failure = play(env, first)
    finally:
        renderer.close()
        env.close()
    return images, failure


def _store_video(images: list[np.ndarray], directory: Path, prefix: str) -> tuple[str, list[str]]:
    """Write the MP4 and the sampled frames as ``directory/<prefix>...``; returns their relative paths."""
    video: list[Any] = list(images)
    name = f"{prefix}{VIDEO_FILE}"
    imageio.mimwrite(directory / name, video, fps=VIDEO_FPS, macro_block_size=1)
    picks = np.linspace(0, len(images) - 1, min(SAMPLED_FRAMES, len(images))).round().astype(int)
    frames = []
    for k, index in enumerate(picks):
        frame = f"{prefix}frame_{k:02d}.png"
        (directory / frame).write_bytes(encode_png(images[int(index)]))
        frames.append(frame)
    return name, frames


def _save(demo: Demonstration, directory: Path) -> Demonstration:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / META_FILE).write_text(json.dumps(asdict(demo), indent=2) + "\n")
    return demo
