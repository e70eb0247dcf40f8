"""The action reference and system prompt teach exactly the vocabulary of the action space."""

from __future__ import annotations

import re

import pytest

from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import SEMANTIC_VIEWS, MoveWorld
from actloop.suites.vabench.protocol.parse import example_json, parse_decision, robot_actions
from actloop.suites.vabench.protocol.prompt import action_reference, system_prompt

SINGLE = ActionSpace()
PASSIVE = ActionSpace(camera=False)
DUAL = ActionSpace(arms=("left", "right"))
DUAL_PASSIVE = ActionSpace(arms=("left", "right"), camera=False)
ALL_CAMERA_NAMES = tuple(f"camera.{name}" for name in DUAL.camera_actions())


@pytest.mark.parametrize("space", [SINGLE, PASSIVE, DUAL, DUAL_PASSIVE])
def test_reference_covers_robot_actions_units_and_frames(space: ActionSpace) -> None:
    text = action_reference(space)
    for name in robot_actions(space):
        assert name in text
    for fragment in (
        "distance_mm: 1 to 100 millimetres",
        "angle_deg: 1 to 90 degrees",
        '"axis": "x|y|z"',
        '"axis": "rx|ry|rz"',
        '"sign": "+|-"',
        "+x points to the robot's right, +y away from the robot, +z up",
        "z = 0.74 m",
        "rx is the approach/twist axis, pointing towards the fingertips",
        "ry is the finger-closing axis",
        "rz is the palm-side axis",
        "right-hand rule",
        "GC stays approximately fixed",
        "waypoints of at most 10°",
        "clamped to the robot workspace",
        '{"stop": true',
        '{"tool": "camera.history", "args": {"step": N}}',
        "use no budget",
        "Answer with exactly one JSON object per turn; you may add a short reason field",
    ):
        assert fragment in text, fragment


def test_single_arm_reference_does_not_offer_dual_actions() -> None:
    text = action_reference(SINGLE)
    assert "dual_gripper" not in text and "left_gripper" not in text
    assert "view_<target>" not in text
    assert 'only the right arm; "arm" may be omitted' in text


def test_dual_arm_reference_requires_arm() -> None:
    text = action_reference(DUAL)
    assert '"arm": "left|right"' in text
    assert 'must name "arm"' in text


@pytest.mark.parametrize("space", [SINGLE, DUAL])
def test_active_reference_lists_every_camera_action(space: ActionSpace) -> None:
    text = action_reference(space)
    for name in space.camera_actions():
        targeted = re.fullmatch(r"view_(left|right|both)_(\w+)", name)
        if targeted:
            assert "camera.view_<target>_<view> with <target> one of left, right, both" in text
            assert targeted[2] in SEMANTIC_VIEWS
        else:
            assert f"camera.{name}" in text, name
    for fragment in (
        "5 cm",
        "8 cm",
        "10° about the world Z axis",
        "At most 5 camera actions",
        "only changes",
    ):
        assert fragment in text
    for view in ("world XY position and yaw", "table clearance", "occlusion", "lateral alignment", "3D"):
        assert view in text


@pytest.mark.parametrize("space", [PASSIVE, DUAL_PASSIVE])
def test_passive_reference_names_no_camera_action(space: ActionSpace) -> None:
    text = system_prompt("Put the cup on the coaster.", space, 30)
    assert not [name for name in ALL_CAMERA_NAMES if name in text]
    assert not re.search(r"camera\.(?!history)", text)
    assert "no camera actions" in text
    assert (
        "five fixed views, always in this order: topdown, side, front_side_45, side_top_45, oblique_45"
        in text
    )


def test_reference_omits_tools_section_without_tools() -> None:
    text = action_reference(ActionSpace(camera=False, tools=()))
    assert "## Tools" not in text and "camera." not in text


@pytest.mark.parametrize("space", [SINGLE, PASSIVE, DUAL, DUAL_PASSIVE])
def test_reference_examples_parse(space: ActionSpace) -> None:
    text = action_reference(space)
    example = example_json(space)
    assert example in text
    assert isinstance(parse_decision(example, space), MoveWorld)


def test_system_prompt_composition() -> None:
    prompt = system_prompt(
        "  Stack the green block on the blue block.\n", SINGLE, 42, summary="Grasp from above."
    )
    assert prompt.startswith("You control a robot in a physics simulation")
    assert "## Task\nStack the green block on the blue block.\n" in prompt
    assert "You have 42 steps. Every robot action and every camera action uses one step" in prompt
    assert action_reference(SINGLE) in prompt
    assert "fingers straddling the object" in prompt and "lift gently" in prompt
    assert "Check alignment before closing" in prompt
    summary = prompt.split("## Demonstration summary\n")[1]
    assert "successful execution" in summary and summary.endswith("\nGrasp from above.")


def test_system_prompt_without_summary_and_passive_budget() -> None:
    prompt = system_prompt("Open the drawer.", PASSIVE, 25)
    assert "Demonstration summary" not in prompt
    assert "You have 25 steps. Every robot action uses one step" in prompt
