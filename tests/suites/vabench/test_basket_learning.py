"""The long-horizon task's demonstration (four atomic-skill videos, no video of the whole task) and its
learning phase: the gate over every video, the video named in each frames call, the stored summary."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from actloop.suites.vabench import demonstration
from actloop.suites.vabench.agent.learn_run import learn
from actloop.suites.vabench.agent.learning import MIN_DISTINCT_FRAMES, SUMMARY_FIELDS, LearningLoop
from actloop.suites.vabench.agent.summaries import load_summary, resolve_summaries
from actloop.suites.vabench.demonstration import (
    META_FILE,
    SAMPLED_FRAMES,
    Demonstration,
    SkillVideo,
    demonstration_dir,
    demonstration_frames,
    load_demonstration,
    record_demonstration,
)
from actloop.suites.vabench.seeds import load_manifest
from actloop.suites.vabench.task import get_task

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
TASK = "place_five_objects_in_basket"
SKILLS = list(get_task(TASK).skills)
SUMMARY = {name: "per skill: take it from above" for name in SUMMARY_FIELDS} | {
    "pre_close_checks": ["fingers straddle the object"],
    "completion_conditions": ["all five objects in the basket"],
    "required_arms": 1,
}


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Demonstration]]:
    """The task's skill videos, filmed small and at 4 frames per simulated second (rendering dominates)."""
    root = tmp_path_factory.mktemp("demos")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demonstration, "VIDEO_FPS", 4)
        yield root, record_demonstration(TASK, root, width=64, height=48)


def test_four_skill_videos_and_no_video_of_the_whole_task(demos: tuple[Path, Demonstration]) -> None:
    root, demo = demos
    manifest = load_manifest(TASK)
    assert demo.video is None and demo.frames == [] and demo.seed == manifest.demo_seed
    assert [video.skill for video in demo.skills] == SKILLS
    seeds = [video.seed for video in demo.skills]
    assert len(set(seeds)) == 4 and min(seeds) >= demo.seed
    assert not set(seeds) & set(manifest.seed_list())  # never an evaluation scene
    assert demo.video_frames == sum(video.video_frames for video in demo.skills)
    directory = demonstration_dir(root, TASK)
    assert not (directory / "demonstration.mp4").exists()
    for video in demo.skills:
        assert (directory / video.video).is_file() and video.video_frames > SAMPLED_FRAMES
        assert len(video.frames) == SAMPLED_FRAMES and all(
            f.startswith(f"{video.skill}/") for f in video.frames
        )
        first, last = (Image.open(io.BytesIO((directory / f).read_bytes())) for f in video.frames[::23])
        assert first.size == (64, 48) and first.tobytes() != last.tobytes()  # the scene changed
    assert load_demonstration(root, TASK) == demo
    frames = demonstration_frames(root, TASK)
    assert isinstance(frames, dict) and list(frames) == SKILLS
    assert all(len(f) == SAMPLED_FRAMES for f in frames.values())


def test_the_baseline_inspects_every_video_before_its_summary(
    demos: tuple[Path, Demonstration], tmp_path: Path
) -> None:
    root, demo = demos
    (row,) = learn([TASK], "actloop/baseline", {}, root, tmp_path)
    assert row["accepted"] is True and row["repairs"] == 0
    assert row["frames_seen"] == {skill: [0, SAMPLED_FRAMES // 2, SAMPLED_FRAMES - 1] for skill in SKILLS}
    assert row["skill_seeds"] == {video.skill: video.seed for video in demo.skills}
    stored = load_summary(tmp_path, "actloop/baseline", TASK)
    assert stored["frames_inspected"] == row["frames_seen"]
    assert set(stored["summary"]) == set(SUMMARY_FIELDS)
    texts = resolve_summaries("own", "actloop/baseline", {TASK: TASK}, tmp_path)
    assert "- coordination order: one object at a time" in texts[TASK]


def fake_skill_demonstration(root: Path, frames: int = 5) -> None:
    """A long-horizon demonstration directory with small distinct PNG frames (no simulation needed)."""
    directory = demonstration_dir(root, TASK)
    videos = []
    for k, skill in enumerate(SKILLS):
        (directory / skill).mkdir(parents=True)
        names = []
        for i in range(frames):
            buffer = io.BytesIO()
            Image.new("RGB", (8, 8), (40 * i, 60 * k, 0)).save(buffer, format="PNG")
            names.append(f"{skill}/frame_{i:02d}.png")
            (directory / names[-1]).write_bytes(buffer.getvalue())
        videos.append(SkillVideo(skill, 1100 + k, f"{skill}/demonstration.mp4", names, 40))
    demo = Demonstration(TASK, 1100, None, [], 10, 160, True, videos)
    (directory / META_FILE).write_text(json.dumps(asdict(demo)))


def frames_tool(video: str | None, *indices: int) -> dict[str, Any]:
    args: dict[str, Any] = {"indices": list(indices)}
    if video is not None:
        args["video"] = video
    return {"tool": "demo.frames", "args": args}


def test_the_gate_needs_three_distinct_frames_of_every_video(tmp_path: Path) -> None:
    fake_skill_demonstration(tmp_path / "demos")
    first, *rest = SKILLS
    replies = [
        frames_tool(first, 0, 1, 2),
        *(frames_tool(skill, 0, 2, 4) for skill in rest[:-1]),
        frames_tool(rest[-1], 0, 0, 4),  # only two distinct frames of the last video
        {"summary": SUMMARY},
        frames_tool(rest[-1], 3),
        {"summary": SUMMARY},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    demos, sums = tmp_path / "demos", tmp_path / "sums"
    (row,) = learn([TASK], "actloop/replay", {"decisions": str(script)}, demos, sums)
    assert row["accepted"] is True and row["repairs"] == 1
    assert row["frames_seen"][rest[-1]] == [0, 4, 3] and row["frames_seen"][first] == [0, 1, 2]
    assert load_summary(sums, "actloop/replay", TASK)["summary"] == SUMMARY


def test_repairs_name_the_videos_and_the_missing_frames() -> None:
    videos = {skill: [b"png"] * 5 for skill in SKILLS}
    loop = LearningLoop(model=None, messages=[], frames=videos)  # type: ignore[arg-type]
    missing = str(loop._handle(json.dumps(frames_tool(None, 0, 1))))
    assert '"video"' in missing and all(f'"{skill}"' in missing for skill in SKILLS)
    assert "one of" in str(loop._handle(json.dumps(frames_tool("whole_task", 0))))
    assert "between 0 and 4" in str(loop._handle(json.dumps(frames_tool(SKILLS[0], 5))))
    for skill in SKILLS[:-1]:
        assert loop._handle(json.dumps(frames_tool(skill, 0, 1, 2))) is None
    gate = str(loop._handle(json.dumps({"summary": SUMMARY})))
    assert f'"{SKILLS[-1]}" 0' in gate and f'"{SKILLS[0]}"' not in gate
    assert loop._handle(json.dumps(frames_tool(SKILLS[-1], 2, 3, 4))) is None
    assert loop._handle(json.dumps({"summary": SUMMARY})) is None and loop.outcome.summary == SUMMARY
    seen = loop.outcome.frames_seen
    assert isinstance(seen, dict) and all(len(indices) == MIN_DISTINCT_FRAMES for indices in seen.values())
    assert loop.messages[-1].text.startswith(f"demo.frames result: video {SKILLS[-1]}, frames [2, 3, 4].")
