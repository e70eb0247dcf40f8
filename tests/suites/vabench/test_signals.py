"""The automatic signals beside the annotation rubric: positive and negative cases of each, on evidence built
like a vabench record (poses shown as the observation text shows them, proprioception after each action)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from actloop.suites.vabench.diagnostics.evidence import episode_evidence
from actloop.suites.vabench.diagnostics.signals import SIGNALS, Signal, episode_signals
from actloop.suites.vabench.protocol.observation import ArmState

sys.path.insert(0, str(Path(__file__).parents[2] / "report"))
from report_records import row, write_record

DOWN = {"rx": (0.0, 0.0, -1.0), "ry": (1.0, 0.0, 0.0), "rz": (0.0, -1.0, 0.0)}
HOME = (0.25, -0.10, 0.95)


def arm(gc: tuple[float, float, float], axes: dict[str, tuple[float, float, float]] = DOWN) -> ArmState:
    ee = (gc[0], gc[1], gc[2] + 0.1)
    return ArmState("right", ee, (0.5, 0.5, 0.5, -0.5), (-171.0, 90.0, 99.0), "open", gc, axes, 0.0)


def move(axis: str, sign: str, mm: float) -> dict[str, Any]:
    return {"action": "gripper.move_world", "axis": axis, "sign": sign, "distance_mm": mm}


def rotate(axis: str, sign: str, deg: float) -> dict[str, Any]:
    return {"action": "gripper.rotate_local", "axis": axis, "sign": sign, "angle_deg": deg}


class Episode:
    """Evidence as :func:`episode_evidence` returns it, built one decision at a time."""

    def __init__(self, gc: tuple[float, float, float] = HOME) -> None:
        self.pose = arm(gc)
        self.steps: list[dict[str, Any]] = []
        self._observe()

    def _observe(self) -> None:
        number = len(self.steps)
        text = f"step: {number} of budget 50\n{self.pose.text()}"
        self.steps.append({"step": number, "text": text, "frames": [], "actions": [], "turns": []})

    def act(
        self,
        decision: dict[str, Any],
        planner: bool | None = True,
        valid: bool = True,
        to: ArmState | None = None,
        proprioception: bool = True,
    ) -> Episode:
        """One action; ``to`` is the pose after it (default: unchanged). An invalid action is not
        dispatched and adds no observation."""
        self.pose = to or self.pose
        action: dict[str, Any] = {
            "decision": decision,
            "dispatched": valid,
            "valid": valid,
            "planner_success": planner if valid else None,
        }
        if proprioception:
            action["proprioception"] = [json.loads(json.dumps(asdict(self.pose)))]  # as recorded
        self.steps[-1]["actions"].append(action)
        if valid:
            self._observe()
        return self

    def reject(self, kind: str) -> Episode:
        self.steps[-1]["turns"].append({"type": "decision_rejected", "data": {"kind": kind, "message": "?"}})
        return self

    def signals(self) -> dict[str, Signal]:
        found = episode_signals({"steps": self.steps})
        assert [s.name for s in found] == list(SIGNALS)
        return {s.name: s for s in found}


def test_a_repeated_refused_target_is_found_and_a_different_one_is_not() -> None:
    same = Episode().act(move("z", "-", 100), planner=False).act(move("z", "-", 95), planner=False)
    signal = same.signals()["repeated_refused_target"]
    assert (signal.value, signal.steps) == (1, (0, 1))  # 5 mm apart: nearly the same target
    apart = Episode().act(move("z", "-", 100), planner=False).act(move("z", "-", 80), planner=False)
    assert apart.signals()["repeated_refused_target"].value == 0  # 20 mm apart
    other_axis = Episode().act(move("z", "-", 100), planner=False).act(move("x", "-", 100), planner=False)
    assert other_axis.signals()["repeated_refused_target"].value == 0
    assert other_axis.signals()["refused_actions"].value == 2


def test_a_target_is_the_shown_pose_plus_the_command() -> None:
    """The second failure starts 20 mm further along x (the first moved partway), so 30 mm more reaches the
    same point: a repeat, although the commands differ; with no recorded proprioception the pose comes
    from the observation text."""
    partway = arm((HOME[0] + 0.02, HOME[1], HOME[2]))
    episode = Episode().act(move("x", "+", 50), planner=False, to=partway, proprioception=False)
    episode.act(move("x", "+", 30), planner=False, proprioception=False)
    assert episode.signals()["repeated_refused_target"].value == 1
    restarted = Episode().act(move("x", "+", 50), planner=False, to=partway, proprioception=False)
    restarted.act(move("x", "+", 50), planner=False, proprioception=False)
    assert restarted.signals()["repeated_refused_target"].value == 0  # the same command, 20 mm further


def test_refused_camera_actions_repeat_by_name() -> None:
    episode = Episode()
    for _ in range(5):
        episode.act({"action": "camera.zoom_in"}, planner=None)
    episode.act({"action": "camera.zoom_in"}, valid=False).act({"action": "camera.zoom_in"}, valid=False)
    signals = episode.signals()
    assert signals["refused_actions"].value == 2 and signals["refused_actions"].detail.startswith("2 invalid")
    assert (signals["repeated_refused_target"].value, signals["repeated_refused_target"].steps) == (1, (5,))


def test_an_error_then_a_changed_estimate_or_a_repeat() -> None:
    episode = (
        Episode()
        .act(move("z", "-", 100), planner=False)  # step 0
        .act(move("z", "-", 100), planner=False)  # step 1: the same target again
        .act({"action": "camera.view_front"}, planner=None)  # step 2: a look, not an arm command
        .act(move("z", "-", 40))  # step 3: a materially different target
    )
    signals = episode.signals()
    assert (signals["error_then_repeated"].value, signals["error_then_repeated"].steps) == (1, (0, 1))
    assert (signals["error_then_changed"].value, signals["error_then_changed"].steps) == (1, (1, 3))
    assert signals["error_then_changed"].detail == "step 1 → 3"


def test_an_error_with_no_later_arm_command_is_neither_changed_nor_repeated() -> None:
    signals = Episode().act(move("y", "+", 100), planner=False).signals()
    assert signals["error_then_changed"].value == signals["error_then_repeated"].value == 0
    assert "1 refused action(s) with no later robot command" in signals["error_then_changed"].detail
    clean = Episode().act(move("y", "+", 100)).act(move("y", "+", 100)).signals()
    assert clean["refused_actions"].value == clean["error_then_repeated"].value == 0  # no error: no signal


def test_rotation_targets_compare_by_the_resulting_gripper_frame() -> None:
    near = Episode().act(rotate("rz", "+", 45), planner=False).act(rotate("rz", "+", 42), planner=False)
    assert near.signals()["error_then_repeated"].value == 1  # 3 degrees apart
    opposite = Episode().act(rotate("rz", "+", 45), planner=False).act(rotate("rz", "-", 45))
    assert opposite.signals()["error_then_changed"].value == 1
    other_axis = Episode().act(rotate("rz", "+", 45), planner=False).act(rotate("rx", "+", 45))
    assert other_axis.signals()["error_then_changed"].value == 1


def test_camera_actions_before_the_first_contact_opportunity() -> None:
    low = arm((HOME[0], HOME[1], 0.77))  # 30 mm above the table top
    episode = (
        Episode()
        .act({"action": "camera.view_topdown"}, planner=None)  # step 0
        .act(move("z", "-", 90))  # step 1: still 12 cm up
        .act({"action": "camera.zoom_in"}, planner=None)  # step 2
        .act(move("z", "-", 90), to=low)  # step 3: the opportunity
        .act({"action": "camera.zoom_out"}, planner=None)  # step 4: after it, not counted
    )
    signal = episode.signals()["camera_before_contact"]
    assert (signal.value, signal.steps) == (2, (0, 2))
    assert signal.detail == "first contact opportunity at step 3 (a gripper 30 mm above the table)"

    closing = Episode().act({"action": "gripper.close"}).act({"action": "camera.view_front"}, planner=None)
    signal = closing.signals()["camera_before_contact"]
    assert (signal.value, signal.detail) == (0, "first contact opportunity at step 0 (gripper close)")

    never = Episode().act({"action": "camera.view_front"}, planner=None).act({"action": "camera.zoom_in"})
    assert never.signals()["camera_before_contact"].value == 2
    assert "no contact opportunity" in never.signals()["camera_before_contact"].detail


def test_rejected_replies_count_unparseable_replies_not_refused_actions() -> None:
    episode = Episode().reject("json").reject("not_dispatched").act(move("z", "-", 10)).reject("schema")
    signal = episode.signals()["rejected_replies"]
    assert (signal.value, signal.steps) == (2, (0, 1))


def test_signals_of_a_written_record(tmp_path: Path) -> None:
    """Through :func:`episode_evidence`: the synthetic record's moves fail to plan at every odd step and
    repeat the same command from an unchanged recorded pose."""
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"), steps=5)
    signals = {s.name: s for s in episode_signals(episode_evidence(record))}
    assert (signals["refused_actions"].value, signals["refused_actions"].steps) == (2, (1, 3))
    assert signals["repeated_refused_target"].value == 1
    assert [s.to_json()["description"] for s in signals.values()] == list(SIGNALS.values())
