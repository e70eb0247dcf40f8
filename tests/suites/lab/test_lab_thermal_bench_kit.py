"""The thermal bench's kit: its published layout is the scene's and carries nothing of the instance; its part
texts and rule follow its constants; its restore rules and the operator's steadiness test."""

from __future__ import annotations

import math
from collections.abc import Iterator

import mujoco
import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms import thermal_bench, thermal_bench_evaluation
from actloop.suites.lab.platforms.display import FACE_DEPTH_M
from actloop.suites.lab.platforms.thermal_bench import FACES, HOLDER, bench_parts
from actloop.suites.lab.platforms.thermal_bench_evaluation import ThermalEvaluator, settled_rule
from actloop.suites.lab.reference.thermal_bench import steady


@pytest.fixture(scope="module")
def envs() -> Iterator[list[LabEnv]]:
    benches = [LabEnv("thermistor_b", seed, render=False) for seed in (1, 2)]
    yield benches
    for bench in benches:
        bench.close()


def test_the_published_layout_is_where_the_scene_has_it(envs: list[LabEnv]) -> None:
    env = envs[0]
    layout = env.calibration()["layout"]
    model, data = env.model, env.data

    def top(geom: str) -> float:
        return float(data.geom(geom).xpos[2] + model.geom(geom).size[2])

    def well(box: str) -> list[float]:
        return [*model.body(box).pos[:2], top(f"{box}_left")]

    def key(i: int) -> list[float]:
        body, cap = model.body(f"key_{i}"), model.geom(f"key_{i}_cap")
        return [*body.pos[:2], body.pos[2] + cap.pos[2] + cap.size[2]]

    handle = model.geom("probe_handle")  # a cylinder: radius, half height; the probe's origin is the tip
    checked = {
        "block_well": well("block"),
        "holder_well": well("holder"),
        "well_depth": [top("block_left") - top("block_floor")],
        "probe_handle": [handle.pos[2] - handle.size[1], handle.pos[2] + handle.size[1]],
        "rocker_pivot": model.body("rocker").pos,
        "down_key": key(0),
        "up_key": key(1),
    }
    for face in FACES:
        window = data.geom(face.geom).xpos
        checked[face.texture] = [window[0], window[1] - model.geom(face.geom).size[1], window[2]]
        checked[f"{face.texture}_size"] = 2 * model.geom(face.geom).size[[0, 2]]
    assert set(layout) == set(checked)
    for name, position in checked.items():
        assert np.allclose(layout[name], position, rtol=0, atol=1e-9), name
    assert model.geom(FACES[0].geom).size[1] == pytest.approx(FACE_DEPTH_M)


def test_part_texts_and_the_rule_follow_the_kit_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    names = [p.name for p in bench_parts()]
    assert names == ["block", "probe", "holder", "heater_switch", "setpoint_keys", "thermometer", "ohmmeter"]
    keys = next(p for p in bench_parts() if p.name == "setpoint_keys")
    assert "by 5 degC" in keys.function and "(25 to 80 degC)" in keys.function and keys.restore == "any"
    assert "less than 0.05 degC over the 10 s before it" in settled_rule()
    monkeypatch.setattr(thermal_bench, "SETPOINT_STEP", 2.5)
    monkeypatch.setattr(thermal_bench, "SETPOINT_RANGE", (20.0, 95.0))
    monkeypatch.setattr(thermal_bench, "LEAD_LENGTH_M", 1.5)
    monkeypatch.setattr(thermal_bench_evaluation, "SETTLE_C", 0.1)
    monkeypatch.setattr(thermal_bench_evaluation, "SETTLE_S", 20.0)
    texts = {p.name: p.function for p in bench_parts()}
    assert (
        "lowers the setpoint by 2.5 degC" in texts["setpoint_keys"]
        and "(20 to 95 degC)" in texts["setpoint_keys"]
    )
    assert "by a 1.5 m lead" in texts["probe"]
    assert "less than 0.1 degC over the 20 s before it" in settled_rule()


def test_a_probe_leaning_in_its_holder_or_out_of_it_is_not_restored(envs: list[LabEnv]) -> None:
    env = envs[1]
    watch = env.evaluator
    assert isinstance(watch, ThermalEvaluator)
    model, data = env.model, env.data
    assert watch.restore_problems(data) == []
    joint = model.joint("probe_free").qposadr[0]
    start = data.qpos[joint : joint + 7].copy()
    try:
        lean = math.radians(15)
        data.qpos[joint + 3 : joint + 7] = [math.cos(lean / 2), math.sin(lean / 2), 0.0, 0.0]
        mujoco.mj_forward(model, data)
        assert watch.restore_problems(data) == ["the probe leans by 15 degrees"]
        data.qpos[joint : joint + 2] = [HOLDER[0] + 0.02, HOLDER[1]]
        mujoco.mj_forward(model, data)
        (problem,) = watch.restore_problems(data)
        assert problem.startswith("the probe is not in its holder (its tip is at 0.170, -0.070,")
    finally:
        data.qpos[joint : joint + 7] = start
        mujoco.mj_forward(model, data)


@pytest.mark.parametrize(
    ("meter", "last", "now", "agree"),
    [
        ("thermometer", 50.0, 50.01, True),
        ("thermometer", 50.0, 50.03, False),
        ("ohmmeter", 2.0, 2.0014, True),  # about one count of the LCD, above the fraction
        ("ohmmeter", 2.0, 2.0025, False),
        ("ohmmeter", 10.0, 10.003, True),  # the fraction, above a count
        ("ohmmeter", 10.0, 10.0035, False),
    ],
)
def test_the_operator_reads_meters_steady_within_their_amount_or_fraction(
    meter: str, last: float, now: float, agree: bool
) -> None:
    assert steady(meter, last, now) is agree
