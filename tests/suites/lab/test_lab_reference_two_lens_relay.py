"""The relay reference's pieces on models of the bench: its thin-lens stages, the pairs fitted into the rail's
length, a carriage placed by correcting the aim of each push, readings cited only with the screen focused,
and close-ups chained along the front of the rail (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

from typing import Any

import pytest

from actloop.suites.lab.reference.optical_rail import FRONT_Y, LOOK_SCALE, VIEW_DISTANCE, WRIST_UP_M
from actloop.suites.lab.reference.two_lens_relay import (
    PLACE_TOLERANCE,
    RelayBench,
    RelayOperator,
    stage,
    within,
)


@pytest.mark.parametrize(("m", "u", "v"), [(-1.0, 2.0, 2.0), (-2.0, 1.5, 3.0), (-0.5, 3.0, 1.5)])
def test_a_stage_images_at_its_magnification(m: float, u: float, v: float) -> None:
    f = 0.05
    assert stage(f, m) == pytest.approx((u * f, v * f))
    assert 1 / (u * f) + 1 / (v * f) == pytest.approx(1 / f)


def test_a_pair_that_would_leave_the_rail_comes_towards_u_equals_2f() -> None:
    f = 0.06
    assert within(3.0, f, 0.30) == 3.0  # 4.5 f = 0.27 m fits
    for k in (3.0, 1.6):
        fitted = within(k, f, 0.25)
        assert f * fitted**2 / (fitted - 1) <= 0.25 and abs(fitted - 2) < abs(k - 2)
    assert within(3.0, f, 0.2) == pytest.approx(2.0, abs=0.05)  # not even u = v fits: it stops there


class Carriage:
    """A carriage pushed by the hand stops ``lag`` short of the aim; its mark reads where it is."""

    def __init__(self, lag: float) -> None:
        self.x, self.lag, self.pushes = 0.0, lag, 0

    def push(self, aim: float) -> None:
        self.x, self.pushes = aim - self.lag, self.pushes + 1


def bench_on(carriage: Carriage) -> RelayBench:
    bench = RelayBench.__new__(RelayBench)
    bench.citations, bench.focused = [], False
    bench.move = lambda name, distance: carriage.push(distance)  # type: ignore[method-assign]
    bench.read_carriage = lambda name: carriage.x  # type: ignore[method-assign]
    return bench


def test_a_carriage_is_placed_by_correcting_the_aim_of_each_push() -> None:
    carriage = Carriage(lag=0.0007)
    read = bench_on(carriage).place("far", 0.3)
    assert abs(read - 0.3) <= PLACE_TOLERANCE and carriage.pushes == 2  # the second push aims 0.7 mm beyond


class Operator:
    """Three close-ups read 100.0, 100.2 and 100.1 mm; the mark is found at x = 0.05."""

    def __init__(self) -> None:
        self.carriage_x = {"far": 0.05}
        self.screen_x = 0.2

    def read_steadily(self, x: float) -> tuple[list[tuple[str, float]], float, float]:
        return [("o-1", 100.0), ("o-2", 100.2), ("o-3", 100.1)], 100.1, 0.0501


def test_readings_are_cited_only_with_the_screen_focused_since_anything_moved() -> None:
    bench = RelayBench.__new__(RelayBench)
    bench.me, bench.citations, bench.object_mm = Operator(), [], 50.0  # type: ignore[assignment]
    bench.focused = False
    assert bench.read_carriage("far") == pytest.approx(0.0501) and bench.citations == []
    assert bench.me.carriage_x["far"] == 0.0501
    bench.focused = True
    bench.read_carriage("far")
    assert [c["value"] for c in bench.citations] == [100.0, 100.2, 100.1]
    assert {c["instrument"] for c in bench.citations} == {"far_index"}


class Lab:
    def __init__(self, hand: list[float]) -> None:
        self.hand = hand

    def state(self) -> dict[str, Any]:
        return {"hand_position": self.hand, "hand_quaternion": LOOK_SCALE}

    def observe(self) -> dict[str, Any]:
        return {"observation_id": "o-9"}


class Arm:
    def __init__(self, misses: float = 0.0) -> None:
        self.lines: list[list[float]] = []
        self.misses = misses

    def line(self, position: list[float], orientation: Any = None) -> float:
        self.lines.append(list(position))
        return self.misses


def operator(hand: list[float], misses: float = 0.0) -> RelayOperator:
    me = RelayOperator.__new__(RelayOperator)
    me.lab, me.arm = Lab(hand), Arm(misses)  # type: ignore[assignment]
    me.scale_view_z, me.scale_face_y = 1.0, -0.023
    return me


def test_a_close_up_from_another_close_ups_posture_goes_straight_along_the_front_of_the_rail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    front_z = 1.0 - WRIST_UP_M
    me = operator([0.10, FRONT_Y, front_z])
    monkeypatch.setattr("actloop.suites.lab.reference.optical_rail.RailOperator._look_at_scale", _refused)
    assert me._look_at_scale(-0.05)["observation_id"] == "o-9"
    assert me.arm.lines == [  # type: ignore[attr-defined]
        [-0.05, FRONT_Y, front_z],
        [-0.05, -0.023 - VIEW_DISTANCE, front_z],
        [-0.05, FRONT_Y, front_z],
    ]


@pytest.mark.parametrize("hand", [[0.10, 0.0, 1.24], [0.10, FRONT_Y, 1.24]])
def test_a_close_up_from_anywhere_else_goes_by_way_of_the_starting_posture(
    monkeypatch: pytest.MonkeyPatch, hand: list[float]
) -> None:
    me = operator(hand)
    monkeypatch.setattr("actloop.suites.lab.reference.optical_rail.RailOperator._look_at_scale", _by_ready)
    assert me._look_at_scale(-0.05)["observation_id"] == "by way of the starting posture"
    assert me.arm.lines == []  # type: ignore[attr-defined]


def test_a_chained_close_up_that_misses_goes_by_way_of_the_starting_posture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    me = operator([0.10, FRONT_Y, 1.0 - WRIST_UP_M], misses=0.01)
    monkeypatch.setattr("actloop.suites.lab.reference.optical_rail.RailOperator._look_at_scale", _by_ready)
    assert me._look_at_scale(-0.05)["observation_id"] == "by way of the starting posture"


def _refused(self: Any, x: float) -> dict[str, Any]:
    raise AssertionError("went by way of the starting posture")


def _by_ready(self: Any, x: float) -> dict[str, Any]:
    return {"observation_id": "by way of the starting posture"}
