"""The evaluators' building blocks: each on small inputs, with the near misses that must not count."""

from __future__ import annotations

import math

import mujoco
import pytest

from actloop.suites.lab.record import Record
from actloop.suites.lab.watch import (
    ContactWatch,
    HeldFor,
    Settled,
    Timeline,
    back_in_place,
    on_the_bench,
    robot_holds_nothing,
    switched_off,
)

SCENE = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <geom name="table" type="box" size="0.5 0.5 0.37" pos="0 0 0.37"/>
    <body name="right_finger" pos="0 0 0.7898">
      <freejoint/><geom name="right_pad" type="box" size="0.01 0.01 0.01"/>
    </body>
    <body name="block" pos="0 0 0.7599"><freejoint/><geom name="block" type="box" size=".02 .02 .02"/></body>
    <body name="cup" pos="0.2 0 0.7599"><freejoint/><geom name="cup" type="box" size=".02 .02 .02"/></body>
  </worldbody>
</mujoco>
"""


@pytest.fixture
def scene() -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def test_the_contact_watch_sees_what_the_robot_touches(scene: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, data = scene
    watch = ContactWatch(model)
    block, cup, table = (model.geom(n).id for n in ("block", "cup", "table"))
    assert watch.touched(data) == {block}  # the pad rests on the block; the block and the cup on the table
    assert {frozenset(pair) for pair in watch.links(data)} == {
        frozenset((block, table)),
        frozenset((cup, table)),
    }
    assert watch.held(data) == {block}
    assert robot_holds_nothing(watch, data) == ["the robot is touching block"]
    assert watch.geoms_of_bodies("cup") == {cup} and watch.geoms("block", "cup") == {block, cup}
    data.qpos[2] = 1.5  # lift the pad clear
    mujoco.mj_forward(model, data)
    assert watch.touched(data) == set() and robot_holds_nothing(watch, data) == []


def test_held_for_counts_from_when_the_condition_last_began() -> None:
    timer = HeldFor()
    assert timer.update(0.0, False) == 0.0
    assert timer.update(1.0, True) == 0.0
    assert timer.update(2.5, True) == 1.5
    assert timer.update(3.0, False) == 0.0
    assert timer.update(4.0, True) == 0.0  # a break starts it again


def test_settled_needs_a_full_window_within_the_tolerance() -> None:
    settled = Settled(window_s=1.0, tolerance=0.05, sample_s=0.25)
    times = [0.25 * i for i in range(5)]
    assert [settled.sample(t, (20.0, 30.0)) for t in times] == [False, False, False, False, True]
    assert settled.sample(1.25, (20.0, 30.049))  # a 0.049 swing is within 0.05
    assert not settled.sample(1.5, (20.051, 30.0))  # 0.051 from the window's lowest: not settled
    assert settled.due(1.75) and not settled.due(1.6)
    for t in (1.75, 2.0, 2.25, 2.5, 2.75):
        settled.sample(t, (20.051, 30.0))
    assert settled.settled  # the excursion left the window


def test_a_timeline_records_each_change_once() -> None:
    record = Record()
    loads = Timeline(record, "load", "weights_on_tray", 0)
    for t, n in ((0.5, 0), (1.0, 1), (1.5, 1), (2.0, 2)):
        loads.update(t, n)
    assert [(e.kind, e.data) for e in record.entries] == [
        ("load", {"time_s": 1.0, "weights_on_tray": 1}),
        ("load", {"time_s": 2.0, "weights_on_tray": 2}),
    ]
    assert (loads.at(0.99), loads.at(1.0), loads.at(5.0), loads.now) == (0, 1, 2, 2)


def test_restore_checks_name_what_is_wrong(scene: tuple[mujoco.MjModel, mujoco.MjData]) -> None:
    model, data = scene
    home = [0.0, 0.0, 0.7599]
    assert back_in_place(data, "block", home, "its place", 0.01, 0.003, math.radians(10)) == []
    data.qpos[7:10] = [0.015, 0.0, 0.7599]  # the block's free joint: 15 mm off
    mujoco.mj_forward(model, data)
    assert back_in_place(data, "block", home, "its place", 0.01, 0.003, 0.2) == [
        "block is 15 mm from its place"
    ]
    data.qpos[7:10] = home
    data.qpos[10:14] = [math.cos(0.1), math.sin(0.1), 0.0, 0.0]  # tipped 11.5 degrees about x
    mujoco.mj_forward(model, data)
    assert back_in_place(data, "block", home, "its place", 0.01, 0.003, math.radians(10)) == [
        "block is tipped by 11 degrees"
    ]
    assert on_the_bench(data, "block") == []
    data.qpos[9] = 0.5
    mujoco.mj_forward(model, data)
    assert on_the_bench(data, "block") == ["block is off the bench"]
    assert switched_off(True, "heater") == ["the heater is on"] and switched_off(False, "heater") == []


def test_a_bench_evaluator_watches_only_its_kind_of_platform() -> None:
    from actloop.suites.lab.experiments import experiment
    from actloop.suites.lab.instance import draw
    from actloop.suites.lab.platforms.circuit_board import CircuitBoard

    board, stand = experiment("black_box_resistor"), experiment("hookes_law")
    instance = draw(board.spec, 1)
    evaluator = board.evaluator(board.spec, Record(), instance, board.platform(instance))
    assert type(evaluator).platform_type is CircuitBoard  # taken from BenchEvaluator[CircuitBoard]
    with pytest.raises(TypeError, match="BlackBoxEvaluator watches a CircuitBoard"):
        board.evaluator(board.spec, Record(), instance, stand.platform(draw(stand.spec, 1)))
