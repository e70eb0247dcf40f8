"""The plate reference's focusing on a model screen whose post slips in the fingers each time the hand turns
back along the rail (its end-to-end run is in test_lab_references)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from actloop.suites.lab.reference.motion import GC_OFFSET
from actloop.suites.lab.reference.optical_rail import RailOperator
from actloop.suites.lab.reference.plate_index import PlateOperator

IMAGE = 0.1
SLIP_PER_TURN = 0.0003
"""What a turn of the hand costs the screen (the bench's fingers slip by 0.1-0.4 mm)."""


class SlippingScreen:
    """The screen held by the hand: it follows the hand's x less a slip that grows at every turn back."""

    def __init__(self) -> None:
        self.hand = 0.0
        self.slip = 0.0
        self.heading = 0.0

    def move(self, x: float) -> None:
        heading = math.copysign(1.0, x - self.hand) if x != self.hand else self.heading
        if self.heading and heading != self.heading:
            self.slip += SLIP_PER_TURN
        self.hand, self.heading = x, heading

    @property
    def screen(self) -> float:
        return self.hand - self.slip


class Arm:
    def __init__(self, screen: SlippingScreen, operator: PlateOperator) -> None:
        self.screen, self.operator = screen, operator

    def line(self, position: list[float], orientation: Any = None) -> float:
        self.screen.move(position[0] - self.operator.post_behind - GC_OFFSET)
        return 0.0


def operator(monkeypatch: pytest.MonkeyPatch) -> tuple[PlateOperator, SlippingScreen]:
    """A plate operator on a model screen, its sharpness a bell over the screen's distance from the image
    (the true one, slip and all)."""
    screen = SlippingScreen()
    me = PlateOperator.__new__(PlateOperator)
    me.post_behind, me.rail_y, me.post_grip_z, me.samples = 0.04, 0.0, 1.0, []
    me.carriage_x = {"lens": -0.08, "block": -0.035}
    me.arm = Arm(screen, me)  # type: ignore[assignment]

    def sharpness_at(self: RailOperator, x: float) -> float:
        self.arm.line(self._hold_point(x))
        return math.exp(-(((screen.screen - IMAGE) / 0.002) ** 2) / 2)

    monkeypatch.setattr(RailOperator, "sharpness_at", sharpness_at)
    return me, screen


def test_the_operators_search_alone_leaves_the_screen_off_by_its_last_turns_slip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    me, screen = operator(monkeypatch)
    me.find_focus(IMAGE + 0.002)
    assert screen.screen - IMAGE < -0.8 * SLIP_PER_TURN


def test_the_approach_from_below_puts_the_screen_at_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    me, screen = operator(monkeypatch)
    me.approach(me.find_focus(IMAGE + 0.002))
    assert abs(screen.screen - IMAGE) < 0.00005 and screen.heading > 0
    assert screen.slip >= 4 * SLIP_PER_TURN  # every turn of the search and the two to and from the flank


def test_the_coarse_search_starts_beyond_the_block_carriage_and_stops_once_the_image_fades(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    me, _ = operator(monkeypatch)
    found = me.coarse_focus()
    xs = [x for x, _ in me.samples]
    assert xs[0] == pytest.approx(-0.035 + 0.045) and abs(found - IMAGE) <= 0.005
    assert xs[-1] < IMAGE + 0.03  # it stopped soon after the peak
