"""The optical-rail operator's close-up of the scale when the hand's turn on its way down ends in another
branch of the arm's solutions: solved again from the close-up's posture, or a clear error (its end-to-end
runs are in test_lab_references)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from actloop.suites.lab.reference import optical_rail
from actloop.suites.lab.reference.optical_rail import LOOK_SCALE, LOOK_SEED, MISSED_M, SAFE_Z, RailOperator


class Lab:
    """The client calls a close-up makes: the hand is where the last move sent it."""

    def __init__(self) -> None:
        self.iks: list[tuple[list[float], list[float] | None]] = []

    def state(self) -> dict[str, Any]:
        return {"hand_position": [0.0, 0.0, SAFE_Z], "hand_quaternion": [1.0, 0.0, 0.0, 0.0]}

    def ik(self, position: list[float], quaternion: list[float], start: list[float] | None = None) -> Any:
        self.iks.append((position, start))
        return {"joints": [0.0] * 7}

    def observe(self) -> dict[str, Any]:
        return {"observation_id": "o-1"}


class Arm:
    """Moves that miss their goal by ``misses[k]`` metres on the k-th line (0 after the list)."""

    def __init__(self, misses: list[float]) -> None:
        self.misses, self.lines, self.joint_moves = misses, list[tuple[list[float], Any]](), 0

    def line(self, position: list[float], orientation: Any = None) -> float:
        self.lines.append((list(position), orientation))
        return self.misses[len(self.lines) - 1] if len(self.lines) <= len(self.misses) else 0.0

    def joints_to(self, target: np.ndarray) -> None:
        self.joint_moves += 1


def operator(misses: list[float]) -> tuple[RailOperator, Lab, Arm]:
    me = RailOperator.__new__(RailOperator)
    lab, arm = Lab(), Arm(misses)
    me.lab, me.arm = lab, arm  # type: ignore[assignment]
    me.ready = np.zeros(7)
    me.scale_view_z, me.scale_face_y = 1.0, -0.023
    return me, lab, arm


def test_a_close_up_that_arrives_is_not_solved_again() -> None:
    me, lab, arm = operator([])
    me._look_at_scale(-0.15)
    assert lab.iks == [] and arm.joint_moves == 1  # only the way to the starting posture


@pytest.mark.parametrize("missed_line", [0, 1])
def test_a_missed_way_down_comes_down_again_from_the_close_ups_posture(missed_line: int) -> None:
    misses = [0.0, 0.0]
    misses[missed_line] = 3 * MISSED_M
    me, lab, arm = operator(misses)
    assert me._look_at_scale(-0.15)["observation_id"] == "o-1"
    ((position, start),) = lab.iks
    assert start == list(LOOK_SEED) and position[0] == -0.15 and position[2] == SAFE_Z
    assert arm.joint_moves == 3  # to the starting posture twice, then into the close-up's posture
    assert arm.lines[-2][1] == LOOK_SCALE and arm.lines[-2][0][1] == pytest.approx(
        -0.023 - optical_rail.VIEW_DISTANCE
    )


def test_a_close_up_missed_twice_is_an_error_naming_where() -> None:
    me, _, _ = operator([0.0, 3 * MISSED_M, 0.0, 0.0, 3 * MISSED_M])  # the way down, and again after
    with pytest.raises(RuntimeError, match=r"cannot reach the close-up of the scale at x = -0.150 m"):
        me._look_at_scale(-0.15)


SKEWED = [(-7.2, 0.47), (-6.22, 0.54), (-5.22, 0.62), (-4.22, 0.72), (-3.22, 0.8), (-2.22, 0.85),
          (-1.22, 0.93), (-0.21, 1.0), (0.79, 0.94), (1.79, 0.87), (2.79, 0.75), (3.79, 0.64), (4.79, 0.52),
          (5.8, 0.42), (6.8, 0.34), (7.8, 0.29)]  # fmt: skip
"""A fine scan of an image magnified 1.8 times through two lenses as the wrist camera saw it (mm from the
image plane, sharpness over its peak): broad, and falling off slower on the near side."""


def test_the_focus_between_high_crossings_of_a_skewed_peak_is_near_the_image_plane() -> None:
    samples = [(x / 1000, m) for x, m in SKEWED]
    assert optical_rail.focus(samples) < -0.0008  # the half-maximum crossings: 0.9 mm short
    assert abs(optical_rail.focus(samples, 0.85)) < 0.00015  # 85 % of the peak: 0.1 mm
