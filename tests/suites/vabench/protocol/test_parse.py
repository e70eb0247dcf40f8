"""Parsing model replies into decisions: JSON extraction, schema, ranges, availability and fuzzing."""

from __future__ import annotations

import json
import math
import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    CameraAction,
    Decision,
    DualMoveWorld,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Stop,
    ToolCall,
    Translation,
)
from actloop.suites.vabench.protocol.parse import (
    DecisionError,
    _fenced_blocks,
    decision_from_json,
    extract_json,
    parse_decision,
)

SINGLE = ActionSpace()
PASSIVE = ActionSpace(camera=False)
DUAL = ActionSpace(arms=("left", "right"))
DUAL_PASSIVE = ActionSpace(arms=("left", "right"), camera=False, tools=())
SPACES = (SINGLE, PASSIVE, DUAL, DUAL_PASSIVE)

MOVE = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20}
ROTATE = {"action": "gripper.rotate_local", "axis": "rz", "sign": "+", "angle_deg": 15}


def error(result: Decision | DecisionError, kind: str) -> str:
    """Assert ``result`` is an error of ``kind`` and return its message."""
    assert isinstance(result, DecisionError), result
    assert result.kind == kind, result.message
    return result.message


def check(obj: dict[str, Any], space: ActionSpace = SINGLE) -> Decision | DecisionError:
    """Validate ``obj`` both directly and through its JSON text; the two paths must agree."""
    direct = decision_from_json(obj, space)
    assert parse_decision(json.dumps(obj), space) == direct
    return direct


# --- JSON extraction -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"stop": true}',
        '  \n{"stop": true}\n ',
        '```json\n{"stop": true}\n```',
        '```\n{"stop": true}\n```',
        'Here is my decision:\n```json\n{"stop": true}\n```\nThat should work.',
        'I will stop now. {"stop": true} Done.',
        '<think>maybe {"action": "gripper.open"} or {not json}</think>\n{"stop": true}',
        'thinking without an opening tag {"tool": 1}</think>{"stop": true}',
        '```python\nprint({1: 2})\n```\n```json\n{"stop": true}\n```',
    ],
)
def test_extract_json_finds_the_object(text: str) -> None:
    assert extract_json(text) == {"stop": True}


def test_extract_json_prefers_the_first_fenced_object() -> None:
    text = '```json\n[1, 2]\n```\n```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```'
    assert extract_json(text) == {"a": 1}


def test_extract_json_keeps_a_reasoning_tag_inside_a_json_string() -> None:
    assert extract_json('{"stop": true, "reason": "</think>"}') == {"stop": True, "reason": "</think>"}


def test_extract_json_keeps_nested_braces() -> None:
    text = 'Plan: {"action": "dual_gripper.move_world", "left": {"axis": "x"}, "right": {"axis": "y"}} ok'
    assert extract_json(text) == {
        "action": "dual_gripper.move_world",
        "left": {"axis": "x"},
        "right": {"axis": "y"},
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"stop": true,}', ["trailing comma", "remove the comma"]),
        ('```json\n{"action": "gripper.open", "arm": "right",\n}\n```', ["trailing comma", "line 2"]),
        ("{'stop': true}", ["single quote", "double quotes"]),
        ("[1, 2]", ["JSON object", "array"]),
        ("42", ["JSON object", "got 42"]),
        ('"stop"', ["JSON object", '"stop"']),
        ("null", ["JSON object", "null"]),
        ("", ["no text at all"]),
        ("   \n", ["no text at all"]),
        ("<think>I should stop.</think>", ["after the reasoning"]),
        ("I would like to move the gripper down.", ["no JSON object found"]),
        ('{"stop": true} and also {"stop": true}', ["after the JSON object", "reason"]),
        ('{"stop": tru}', ["invalid JSON", "line 1 column"]),
        ("[" * 100_000, ["no JSON object found"]),
        ('{"action": "gripper.move_world", "axis": "z", "sign"', ["ends before the object is closed"]),
        ("{" + '"a":' * 50_000, ["Expecting ',' delimiter at line 1 column 9"]),
        ('{"distance_mm": ' + "9" * 5000 + "}", ["far too many digits"]),
    ],
)
def test_extract_json_errors(text: str, expected: list[str]) -> None:
    message = error(extract_json(text), "json")
    for fragment in expected:
        assert fragment in message


def test_extract_json_reports_deep_nesting() -> None:
    message = error(extract_json('{"a": ' * 5000 + "1" + "}" * 5000), "json")
    assert "nested too deeply" in message


def test_extract_json_handles_huge_text() -> None:
    prose = "The cube is to the left of the gripper. " * 50_000
    assert extract_json(prose + '{"stop": true}' + prose) == {"stop": True}


PATHOLOGICAL = {
    "unclosed fence with a long tag": "```" + "a" * 30_000,
    "unclosed fence with a long tag and spaces": "```" + "json" * 5_000 + " " * 15_000,
    "backticks": "`" * 30_001,
    "fences": "```\n" * 10_000,
    "tagged fences": "```json " * 5_000,
    "open braces in a fence": "```\n" + "{" * 30_000,
    "braces": "{}" * 15_000 + "{" * 15_000,
    "unclosed objects": '```json\n{"a": ' * 3_000,
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_extract_json_takes_linear_time_on_pathological_replies(text: str) -> None:
    started = time.perf_counter()
    assert isinstance(parse_decision(text, SINGLE), DecisionError)
    assert time.perf_counter() - started < 0.5  # the quadratic fence regex took ~6 s on the first


FENCE_REGEX = re.compile(r"```[\w-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
"""The former (quadratic) definition of a fenced block, to check that the same blocks are found."""


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["```", "`", "json", "é", "-", " ", "\t", "\r", "\n", "{}"])).map("".join))
def test_fenced_blocks_are_those_of_the_former_regex(text: str) -> None:
    assert _fenced_blocks(text) == [m.group(1) for m in FENCE_REGEX.finditer(text)]


def test_parse_decision_json_error_includes_an_example_for_the_space() -> None:
    single = error(parse_decision("move down please", SINGLE), "json")
    dual = error(parse_decision("move down please", DUAL), "json")
    assert 'Example: {"action": "gripper.move_world"' in single
    assert '"arm": "left"' in dual and '"arm"' not in single


# --- Valid decisions -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "space", "expected"),
    [
        (MOVE, SINGLE, MoveWorld(Translation("z", "-", 20.0))),
        ({**MOVE, "arm": "right"}, SINGLE, MoveWorld(Translation("z", "-", 20.0), arm="right")),
        ({**MOVE, "arm": None}, SINGLE, MoveWorld(Translation("z", "-", 20.0))),
        ({**MOVE, "arm": "left"}, DUAL, MoveWorld(Translation("z", "-", 20.0), arm="left")),
        ({**ROTATE, "arm": "right"}, DUAL, RotateLocal("rz", "+", 15.0, arm="right")),
        (ROTATE, PASSIVE, RotateLocal("rz", "+", 15.0)),
        ({"action": "gripper.open"}, SINGLE, SetGripper("open")),
        ({"action": "gripper.close", "arm": "left"}, DUAL, SetGripper("close", "left")),
        ({"action": "right_gripper.close"}, SINGLE, SetGripper("close", "right")),
        ({"action": "left_gripper.open", "arm": "left"}, DUAL, SetGripper("open", "left")),
        ({"action": "dual_gripper.close"}, DUAL, SetGripper("close", "both")),
        (
            {
                "action": "dual_gripper.move_world",
                "left": {"axis": "x", "sign": "+", "distance_mm": 10},
                "right": {"axis": "y", "sign": "-", "distance_mm": 12.5},
            },
            DUAL,
            DualMoveWorld(Translation("x", "+", 10.0), Translation("y", "-", 12.5)),
        ),
        ({"action": "camera.view_topdown"}, SINGLE, CameraAction("view_topdown")),
        ({"action": "camera.view_left_side"}, DUAL, CameraAction("view_left_side")),
        ({"action": "camera.zoom_in"}, DUAL, CameraAction("zoom_in")),
        ({"tool": "camera.history", "args": {"step": 3}}, PASSIVE, ToolCall("camera.history", {"step": 3})),
        ({"tool": "camera.history"}, SINGLE, ToolCall("camera.history", {})),
        ({"stop": True, "reason": "done"}, SINGLE, Stop("done")),
    ],
)
def test_valid_decisions(obj: dict[str, Any], space: ActionSpace, expected: Decision) -> None:
    assert check(obj, space) == expected


def test_extra_keys_are_ignored_and_reason_is_kept() -> None:
    obj = {**MOVE, "reason": "lower onto the cube", "confidence": 0.9, "plan": ["a", "b"]}
    assert check(obj) == MoveWorld(Translation("z", "-", 20.0), reason="lower onto the cube")


@pytest.mark.parametrize(("reason", "expected"), [(3, "3"), (["a"], "['a']"), (None, ""), (True, "True")])
def test_non_string_reason_is_coerced(reason: Any, expected: str) -> None:
    assert check({"stop": True, "reason": reason}) == Stop(expected)


@pytest.mark.parametrize("value", [1, 1.0, 55.5, 100, 100.0])
def test_distance_bounds_are_inclusive(value: float) -> None:
    result = check({**MOVE, "distance_mm": value})
    assert isinstance(result, MoveWorld)
    assert result.translation.distance_mm == value
    assert isinstance(result.translation.distance_mm, float)


@pytest.mark.parametrize("value", [1, 45.5, 90, 90.0])
def test_angle_bounds_are_inclusive(value: float) -> None:
    result = check({**ROTATE, "angle_deg": value})
    assert isinstance(result, RotateLocal)
    assert result.angle_deg == value


# --- Errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (250, "got 250. Split longer moves into several actions."),
        (100.01, "got 100.01. Split longer moves"),
        (0.99, "got 0.99. The smallest allowed value is 1."),
        (0, "got 0."),
        (-20, "got -20."),
        (10**400, "got a very large integer. Split longer moves"),
    ],
)
def test_distance_out_of_range(value: float, expected: str) -> None:
    message = error(decision_from_json({**MOVE, "distance_mm": value}, SINGLE), "range")
    assert message.startswith("distance_mm must be a number between 1 and 100 (millimetres); ")
    assert expected in message


@pytest.mark.parametrize(("value", "expected"), [(90.5, "Split larger rotations"), (0.5, "smallest")])
def test_angle_out_of_range(value: float, expected: str) -> None:
    message = error(check({**ROTATE, "angle_deg": value}), "range")
    assert f"angle_deg must be a number between 1 and 90 (degrees); got {value}." in message
    assert expected in message


@pytest.mark.parametrize(
    ("value", "shown"), [(math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity")]
)
def test_non_finite_numbers_are_rejected(value: float, shown: str) -> None:
    message = error(check({**MOVE, "distance_mm": value}), "range")
    assert f"distance_mm must be a number between 1 and 100 (millimetres); got {shown}" in message
    assert "not a finite number" in message


def test_nan_literal_in_text_is_rejected_per_field() -> None:
    message = error(
        parse_decision(
            '{"action": "gripper.rotate_local", "axis": "rx", "sign": "+", "angle_deg": NaN}', SINGLE
        ),
        "range",
    )
    assert "angle_deg" in message and "NaN" in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("50", 'must be a JSON number, not a string: write 50 instead of "50"'),
        (" 12.5 ", 'write 12.5 instead of " 12.5 "'),
        ("far", 'must be a number between 1 and 100 (millimetres); got "far"'),
        ("nan", 'got "nan"'),
        (True, "got true"),
        (False, "got false"),
        (None, "got null"),
        ([20], "got an array"),
        ({"value": 20}, "got an object"),
    ],
)
def test_distance_must_be_a_json_number(value: Any, expected: str) -> None:
    message = error(check({**MOVE, "distance_mm": value}), "schema")
    assert message.startswith("distance_mm must be ")
    assert expected in message


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({**MOVE, "sign": "positive"}, 'sign must be one of "+", "-"; got "positive"'),
        ({**MOVE, "sign": 1}, 'sign must be one of "+", "-"; got 1'),
        ({**MOVE, "axis": "rx"}, 'axis must be one of "x", "y", "z" (world axes'),
        ({**ROTATE, "axis": "z"}, 'axis must be one of "rx", "ry", "rz" (gripper-local axes'),
        ({**ROTATE, "axis": ["rx"]}, "got an array"),
    ],
)
def test_bad_choices(obj: dict[str, Any], expected: str) -> None:
    assert expected in error(check(obj), "schema")


@pytest.mark.parametrize(
    ("missing", "expected"),
    [
        ("axis", 'gripper.move_world needs "axis": one of "x", "y", "z"'),
        ("sign", 'gripper.move_world needs "sign": one of "+", "-"'),
        ("distance_mm", 'gripper.move_world needs "distance_mm": a number between 1 and 100 (millimetres)'),
    ],
)
def test_missing_move_fields(missing: str, expected: str) -> None:
    obj = {k: v for k, v in MOVE.items() if k != missing}
    message = error(check(obj), "schema")
    assert expected in message
    assert 'Example: {"action": "gripper.move_world", "axis": "z", "sign": "+", "distance_mm": 20}' in message


def test_missing_angle_names_the_field_and_gives_a_rotation_example() -> None:
    message = error(check({"action": "gripper.rotate_local", "axis": "ry", "sign": "-"}), "schema")
    assert 'needs "angle_deg": a number between 1 and 90 (degrees)' in message
    assert '"action": "gripper.rotate_local"' in message


@pytest.mark.parametrize(
    "obj",
    [MOVE, ROTATE, {"action": "gripper.open"}, {"action": "gripper.close", "arm": None}],
)
def test_dual_arm_requires_arm(obj: dict[str, Any]) -> None:
    message = error(check(obj, DUAL), "schema")
    assert f'{obj["action"]} needs "arm": "left" or "right"' in message
    assert '"arm": "left"' in message.split("Example:")[1]


@pytest.mark.parametrize(
    "obj",
    [
        {**MOVE, "arm": "left"},
        {**ROTATE, "arm": "left"},
        {"action": "gripper.open", "arm": "left"},
        {"action": "left_gripper.close"},
    ],
)
def test_single_arm_rejects_left(obj: dict[str, Any]) -> None:
    message = error(check(obj, SINGLE), "unavailable")
    assert 'arm "left" is not available: this task exposes only the right arm' in message


@pytest.mark.parametrize("arm", ["both", "Right", 1])
def test_invalid_arm_value(arm: Any) -> None:
    message = error(check({**MOVE, "arm": arm}, DUAL), "schema")
    assert '"arm" must be one of "left", "right"' in message


@pytest.mark.parametrize(
    "obj",
    [
        {"action": "dual_gripper.open"},
        {"action": "dual_gripper.move_world", "left": MOVE, "right": MOVE},
    ],
)
def test_dual_actions_unavailable_in_single_arm(obj: dict[str, Any]) -> None:
    message = error(check(obj, SINGLE), "unavailable")
    assert "only available in dual-arm tasks" in message and "only the right arm" in message


def test_dual_action_rejects_arm() -> None:
    message = error(check({"action": "dual_gripper.close", "arm": "left"}, DUAL), "schema")
    assert 'commands both arms; remove "arm"' in message


def test_conflicting_gripper_arm() -> None:
    message = error(check({"action": "left_gripper.open", "arm": "right"}, DUAL), "schema")
    assert 'left_gripper.open commands the left arm but "arm" says "right"' in message


def test_dual_move_needs_both_sides_and_names_nested_fields() -> None:
    left = {"axis": "x", "sign": "+", "distance_mm": 10}
    missing = error(check({"action": "dual_gripper.move_world", "left": left}, DUAL), "schema")
    assert 'dual_gripper.move_world needs "right": an object with axis, sign and distance_mm' in missing
    assert '"left": {"axis": "z"' in missing
    too_far = {"action": "dual_gripper.move_world", "left": left, "right": {**left, "distance_mm": 150}}
    message = error(check(too_far, DUAL), "range")
    assert message.startswith("right.distance_mm must be a number between 1 and 100 (millimetres); got 150.")
    no_sign = {"action": "dual_gripper.move_world", "left": {"axis": "x", "distance_mm": 5}, "right": left}
    assert 'needs "left.sign"' in error(check(no_sign, DUAL), "schema")


def test_unknown_action_lists_valid_robot_actions() -> None:
    message = error(check({"action": "gripper.move", "axis": "x"}), "schema")
    assert message.startswith(
        'unknown action "gripper.move"; valid robot actions: '
        "gripper.move_world, gripper.rotate_local, gripper.open, gripper.close"
    )
    assert "camera.view_topdown" in message
    passive = error(check({"action": "fly"}, PASSIVE), "schema")
    assert "camera" not in passive
    dual = error(check({"action": "grip"}, DUAL), "schema")
    assert "dual_gripper.move_world" in dual and "left_gripper.close" in dual


@pytest.mark.parametrize("space", [PASSIVE, DUAL_PASSIVE])
@pytest.mark.parametrize("name", ["camera.view_topdown", "camera.zoom_in", "camera.teleport"])
def test_camera_actions_unavailable_in_passive_protocol(space: ActionSpace, name: str) -> None:
    message = error(check({"action": name}, space), "unavailable")
    assert "camera actions are not available in this protocol" in message
    assert "five fixed views (topdown, side, front_side_45, side_top_45, oblique_45)" in message


def test_every_active_camera_action_is_accepted() -> None:
    for space in (SINGLE, DUAL):
        for name in space.camera_actions():
            assert check({"action": f"camera.{name}"}, space) == CameraAction(name)


def test_unknown_camera_action_lists_valid_ones() -> None:
    message = error(check({"action": "camera.view_left_side"}, SINGLE), "schema")
    assert message.startswith('unknown camera action "camera.view_left_side"; valid camera actions: ')
    assert "camera.view_topdown" in message and "camera.pitch_down" in message


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"action": "gripper.open", "stop": True}, 'exactly one of "action", "tool", "stop"; got both'),
        ({"tool": "camera.history", "stop": True}, "got both"),
        ({"axis": "z", "sign": "+"}, "got none of them"),
        ({}, "got none of them"),
        ({"stop": False}, '"stop" must be true; got false'),
        ({"stop": "yes"}, '"stop" must be true; got "yes"'),
        ({"action": 3}, '"action" must be a string'),
        ({"action": "stop"}, 'to stop, write {"stop": true}'),
        (
            {"action": "camera.history"},
            'camera.history is a tool, not an action; write {"tool": "camera.history"',
        ),
        ({"tool": "camera.zoom_in"}, 'unknown tool "camera.zoom_in"; available tools: camera.history'),
        ({"tool": None}, "unknown tool null"),
        ({"tool": "camera.history", "args": [3]}, '"args" must be a JSON object; got an array'),
    ],
)
def test_schema_errors(obj: dict[str, Any], expected: str) -> None:
    assert expected in error(check(obj), "schema")


def test_tools_unavailable_when_space_has_none() -> None:
    message = error(check({"tool": "camera.history", "args": {"step": 1}}, DUAL_PASSIVE), "unavailable")
    assert "no tools are available" in message


@pytest.mark.parametrize("obj", [[1], "text", 3, None])
def test_decision_from_json_rejects_non_objects(obj: Any) -> None:
    assert "expected one JSON object" in error(decision_from_json(obj, SINGLE), "json")


def test_parse_decision_rejects_non_text() -> None:
    assert "expected the reply as text" in error(parse_decision(b"{}", SINGLE), "json")  # type: ignore[arg-type]


# --- Fuzzing ---------------------------------------------------------------------------------------

KEYS = (
    "action",
    "tool",
    "stop",
    "args",
    "reason",
    "arm",
    "axis",
    "sign",
    "distance_mm",
    "angle_deg",
    "left",
    "right",
)
WORDS = (
    "gripper.move_world",
    "gripper.rotate_local",
    "gripper.open",
    "left_gripper.close",
    "dual_gripper.move_world",
    "dual_gripper.open",
    "camera.view_topdown",
    "camera.view_left_side",
    "camera.history",
    "left",
    "right",
    "both",
    "x",
    "rz",
    "+",
    "-",
    "50",
)
LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from(WORDS) | st.text(max_size=12)
)
JSONISH = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=6)
    ),
    max_leaves=20,
)
OBJECTS = st.dictionaries(st.sampled_from(KEYS), JSONISH, max_size=7)
FUZZ = settings(max_examples=300, deadline=None)


def assert_outcome(result: object) -> None:
    if isinstance(result, DecisionError):
        assert result.kind in ("json", "schema", "range", "unavailable")
        assert result.message.strip()
    else:
        assert isinstance(
            result, MoveWorld | RotateLocal | SetGripper | DualMoveWorld | CameraAction | ToolCall | Stop
        )


@FUZZ
@given(st.text(), st.sampled_from(SPACES))
def test_fuzz_text_never_raises(text: str, space: ActionSpace) -> None:
    assert_outcome(parse_decision(text, space))


@FUZZ
@given(OBJECTS, st.sampled_from(SPACES), st.sampled_from(("{}", "```json\n{}\n```", "I think: {} done")))
def test_fuzz_objects_never_raise(obj: dict[str, Any], space: ActionSpace, wrapper: str) -> None:
    result = decision_from_json(obj, space)
    assert_outcome(result)
    text = wrapper.replace("{}", json.dumps(obj))
    assert_outcome(parse_decision(text, space))


@FUZZ
@given(JSONISH, st.sampled_from(SPACES))
def test_fuzz_any_json_value_never_raises(value: Any, space: ActionSpace) -> None:
    assert_outcome(decision_from_json(value, space))
    assert_outcome(parse_decision(json.dumps(value), space))
