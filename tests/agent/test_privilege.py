"""The privilege boundary as a type: no evaluator-only ``Evaluation`` reaches the code that talks to the
model. Every call into the decision loop, the solver, the model session and the message builders is
watched during a whole episode (arguments and return values)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from actloop.suites.vabench.protocol.step import Evaluation, Transition
from episode_rows import run_json

MODEL_SIDE = (
    "actloop.suites.vabench.agent.loop",
    "actloop.suites.vabench.agent.messages",
    "actloop.agent.solver",
    "actloop.agent.session",
    "actloop.agent.messages",
    "actloop.agent.compaction",
)
PRIVILEGED = (Evaluation, Transition)


def privileged(value: Any) -> bool:
    """``value`` is, or directly holds, an evaluator-only object."""
    if isinstance(value, PRIVILEGED):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, list | tuple) and any(isinstance(v, PRIVILEGED) for v in value)


class Watch:
    def __init__(self) -> None:
        self.calls = 0
        self.leaks: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        module = frame.f_globals.get("__name__", "")
        if event not in ("call", "return") or module not in MODEL_SIDE:
            return
        self.calls += 1
        where = f"{module}.{frame.f_code.co_name}"
        if event == "call":
            self.leaks += [f"{where}({name})" for name, v in frame.f_locals.items() if privileged(v)]
            self.leaks += [
                f"{where}: self.{k}" for k, v in vars_of(frame.f_locals.get("self")) if privileged(v)
            ]
        elif privileged(arg):
            self.leaks.append(f"{where} returned {type(arg).__name__}")


def vars_of(obj: Any) -> list[tuple[str, Any]]:
    return list(getattr(obj, "__dict__", {}).items()) if obj is not None else []


def test_no_evaluation_reaches_the_model_side(tmp_path: Path) -> None:
    decisions = tmp_path / "decisions.json"
    move = {"action": "gripper.move_world", "axis": "z", "sign": "-", "distance_mm": 20, "reason": "down"}
    turn = {"action": "camera.orbit_left", "reason": "look"}
    decisions.write_text(json.dumps([turn, move, {"action": "gripper.close", "reason": "grasp"}]))
    watch = Watch()
    sys.setprofile(watch)
    try:
        (row,) = run_json(
            "fake", [("pick_cube", 0, 0)], "actloop/replay", {"decisions": str(decisions)}, tmp_path,
            isolation="inline",
        )  # fmt: skip
    finally:
        sys.setprofile(None)
    assert row["success"] is True and row["model_calls"] == 3  # the evaluator's verdict reaches the row
    assert watch.calls > 50  # the watch saw the loop at work
    assert watch.leaks == []


def test_the_watch_catches_a_leak() -> None:
    watch = Watch()
    evaluation = Evaluation(True, {}, {}, "h")
    frame_globals: dict[str, Any] = {"__name__": MODEL_SIDE[0]}  # a function "in" the decision loop
    code = compile("def f(result):\n    return result\n", MODEL_SIDE[0], "exec")
    exec(code, frame_globals)
    sys.setprofile(watch)
    try:
        frame_globals["f"](evaluation)
    finally:
        sys.setprofile(None)
    assert watch.leaks == [f"{MODEL_SIDE[0]}.f(result)", f"{MODEL_SIDE[0]}.f returned Evaluation"]
