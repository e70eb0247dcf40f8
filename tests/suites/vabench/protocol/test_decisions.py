"""Every decision survives ``to_json`` -> JSON text -> ``parse_decision`` unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    MAX_ANGLE_DEG,
    MAX_DISTANCE_MM,
    MIN_ANGLE_DEG,
    MIN_DISTANCE_MM,
    CameraAction,
    Decision,
    DualMoveWorld,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Stop,
    ToolCall,
    Translation,
    action_name,
    to_json,
)
from actloop.suites.vabench.protocol.parse import parse_decision

SINGLE = ActionSpace()
DUAL = ActionSpace(arms=("left", "right"))
UP = Translation("z", "+", 20.0)

CASES: list[tuple[Decision, ActionSpace]] = [
    (MoveWorld(UP), SINGLE),
    (MoveWorld(Translation("x", "-", 1.0), arm="right", reason="align"), SINGLE),
    (MoveWorld(Translation("y", "+", 100.0), arm="left"), DUAL),
    (RotateLocal("rx", "-", 90.0), SINGLE),
    (RotateLocal("ry", "+", 12.5, arm="right", reason="square up"), DUAL),
    (SetGripper("open"), SINGLE),
    (SetGripper("close", "right"), SINGLE),
    (SetGripper("close", "left"), DUAL),
    (SetGripper("open", "both", reason="release"), DUAL),
    (DualMoveWorld(UP, Translation("x", "-", 33.3), reason="lift together"), DUAL),
    (CameraAction("view_side_top_45", reason="check height"), SINGLE),
    (CameraAction("view_both_oblique_45"), DUAL),
    (CameraAction("pitch_down"), DUAL),
    (ToolCall("camera.history", {"step": 4}, reason="compare"), SINGLE),
    (ToolCall("camera.history"), DUAL),
    (Stop("cannot reach the object"), SINGLE),
    (Stop(), DUAL),
]


@pytest.mark.parametrize(
    ("decision", "space"), CASES, ids=lambda x: action_name(x) if not isinstance(x, ActionSpace) else ""
)
def test_round_trip(decision: Decision, space: ActionSpace) -> None:
    assert parse_decision(json.dumps(to_json(decision)), space) == decision


def test_cases_cover_every_decision_kind() -> None:
    kinds = {type(decision) for decision, _ in CASES}
    assert kinds == {MoveWorld, RotateLocal, SetGripper, DualMoveWorld, CameraAction, ToolCall, Stop}


def test_every_camera_action_round_trips() -> None:
    for space in (SINGLE, DUAL):
        for name in space.camera_actions():
            decision = CameraAction(name)
            assert parse_decision(json.dumps(to_json(decision)), space) == decision


DISTANCES = st.floats(MIN_DISTANCE_MM, MAX_DISTANCE_MM)
TRANSLATIONS = st.builds(
    Translation, st.sampled_from(("x", "y", "z")), st.sampled_from(("+", "-")), DISTANCES
)
REASONS = st.text(max_size=30)
DUAL_DECISIONS = st.one_of(
    st.builds(MoveWorld, TRANSLATIONS, st.sampled_from(("left", "right")), REASONS),
    st.builds(
        RotateLocal,
        st.sampled_from(("rx", "ry", "rz")),
        st.sampled_from(("+", "-")),
        st.floats(MIN_ANGLE_DEG, MAX_ANGLE_DEG),
        st.sampled_from(("left", "right")),
        REASONS,
    ),
    st.builds(
        SetGripper, st.sampled_from(("open", "close")), st.sampled_from(("left", "right", "both")), REASONS
    ),
    st.builds(DualMoveWorld, TRANSLATIONS, TRANSLATIONS, REASONS),
    st.builds(CameraAction, st.sampled_from(DUAL.camera_actions()), REASONS),
    st.builds(
        ToolCall, st.just("camera.history"), st.fixed_dictionaries({"step": st.integers(0, 500)}), REASONS
    ),
    st.builds(Stop, REASONS),
)


@settings(max_examples=300, deadline=None)
@given(DUAL_DECISIONS)
def test_round_trip_property(decision: Decision) -> None:
    assert parse_decision(json.dumps(to_json(decision)), DUAL) == decision
