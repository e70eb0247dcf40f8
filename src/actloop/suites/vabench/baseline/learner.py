"""The baseline in the learning phase: look at the first, middle and last frames, then state its procedure.

It reads nothing from the frames (its procedures are built in); it follows the learning protocol so
that the summary conditions can be exercised end to end with a model that needs no provider. With several
skill videos (a long-horizon task) it looks at the first, middle and last frames of each, one video per
call, in the order the prompt lists them.
"""

from __future__ import annotations

import json
import re

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from actloop.suites.vabench.agent.learning import DEMO_TOOL
from actloop.suites.vabench.baseline.conversation import instruction
from actloop.suites.vabench.baseline.recipes import Recipe, recipe_for

_FRAME_COUNT = re.compile(r"The video has (\d+) sampled frames")
_SKILL_VIDEO = re.compile(r'^- "([^"]+)": (\d+) sampled frames$', re.MULTILINE)


def is_learning(messages: list[ChatMessage]) -> bool:
    return any(isinstance(m, ChatMessageSystem) and DEMO_TOOL in m.text for m in messages)


def decide_learning(messages: list[ChatMessage]) -> str:
    system = next(m.text for m in messages if isinstance(m, ChatMessageSystem))
    results = [m.text for m in messages if isinstance(m, ChatMessageUser) and m.text.startswith(DEMO_TOOL)]
    videos = {name: int(count) for name, count in _SKILL_VIDEO.findall(system)}
    for name, count in videos.items():
        if not any(text.startswith(f"{DEMO_TOOL} result: video {name},") for text in results):
            return json.dumps({"tool": DEMO_TOOL, "args": {"video": name, "indices": _spread(count)}})
    if not videos and not any(text.startswith(f"{DEMO_TOOL} result") for text in results):
        count_match = _FRAME_COUNT.search(system)
        count = int(count_match.group(1)) if count_match else 1
        return json.dumps({"tool": DEMO_TOOL, "args": {"indices": _spread(count)}})
    recipe = recipe_for(instruction(messages))
    summary = _summary(recipe)
    if videos:
        summary["coordination_order"] = (
            f"one object at a time, each with its skill ({', '.join(videos)}): locate, grasp, lift, carry "
            "over the goal, lower and release, then the next"
        )
    return json.dumps({"summary": summary})


def _spread(count: int) -> list[int]:
    """The first, middle and last frame indices of a video with ``count`` frames."""
    return sorted({0, count // 2, count - 1})


def _summary(recipe: Recipe | None) -> dict:
    shape = recipe.shape if recipe else "object"
    goal = f"the {recipe.goal}" if recipe and recipe.goal else "no goal object"
    return {
        "grasp_object_part": f"the {shape} object named in the instruction",
        "grasp_region": "its middle, across the narrow side",
        "grasp_height_or_depth": "half the object's height, fingertips clear of the table",
        "finger_placement": "one finger on each side of the narrow width",
        "approach_strategy": "look straight down, hover 8 cm above, descend vertically",
        "posture_or_rotation": "gripper pointing down, closing axis turned across the object",
        "arm_assignment": "the right arm does everything",
        "coordination_order": f"locate, grasp, lift, then move over {goal} and release or act",
        "pre_close_checks": ["fingers straddle the object", "fingertips above the table"],
        "completion_conditions": ["object lifted clear of the table", "goal relation reached, if any"],
        "required_arms": 1,
    }
