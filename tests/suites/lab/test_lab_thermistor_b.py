"""Scoring the thermistor's B and R25 on the thermal bench: gates, milestones, the restored bench, the
switch and keys, and the displays.

Test scaffolding stands in for the agent's hands and eyes: the probe is moved by setting its position, the
switch by setting its angle, the setpoint by setting it, and close-up images of the meters are logged as
served with the readability a close wrist camera has (the readability geometry is tested on a projection).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.thermistor_b import ThermistorEvaluator
from actloop.suites.lab.physics.heat import T25
from actloop.suites.lab.platforms.thermal_bench import (
    BLOCK,
    BLOCK_HALF,
    FACE_CENTRES,
    FACES,
    HOLDER,
    HOLDER_HALF,
    KEY_TRAVEL,
    ROCKER_THROW_RAD,
    TEST_CURRENT,
    WELL_CONDUCTANCE,
    WELL_DEPTH,
    ThermalBench,
)
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.thermistor_b import fit_thermistor
from close_up_scaffold import cite_shown, serve_close_up
from copy_scaffold import own_copy
from lcd_scaffold import assert_faces_read_back

METERS = ("thermometer", "ohmmeter")


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("thermistor_b", 3, render=False)
    yield bench
    bench.close()


def bench(env: LabEnv) -> ThermalBench:
    assert isinstance(env.platform, ThermalBench)
    return env.platform


def watcher(env: LabEnv) -> ThermistorEvaluator:
    assert isinstance(env.evaluator, ThermistorEvaluator)
    return env.evaluator


def put_probe(env: LabEnv, centre: tuple[float, float], box_half_z: float) -> None:
    """Stand the probe upright with its stem in the well at ``centre`` (scaffolding: no hands)."""
    model, data = env._model, env._world.data
    joint = model.joint("probe_free")
    z = TABLE_TOP_Z + 2 * box_half_z - WELL_DEPTH + 0.0005
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*centre, z, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def switch(env: LabEnv, on: bool) -> None:
    env._world.data.qpos[env._model.joint("rocker").qposadr[0]] = ROCKER_THROW_RAD * (1 if on else -1)


def close_up(env: LabEnv) -> str:
    """Serve a close-up of the meters (scaffolding: what a wrist camera near the panel makes readable)."""
    return serve_close_up(env, METERS, 20.0)


def cite(env: LabEnv, observation_id: str) -> list[dict[str, object]]:
    return cite_shown(env, observation_id, METERS)


def measure(env: LabEnv, setpoints: tuple[float, ...] = (30.0, 45.0, 60.0)) -> list[dict[str, object]]:
    """Readings at each setpoint once the block and probe have settled, the probe in the well."""
    put_probe(env, BLOCK, BLOCK_HALF[2])
    switch(env, True)
    citations: list[dict[str, object]] = []
    for setpoint in setpoints:
        bench(env).setpoint = setpoint
        env.wait(100.0)
        citations += cite(env, close_up(env))
    return citations


Measured = tuple[LabEnv, list[dict[str, object]]]


@pytest.fixture(scope="module")
def measurement() -> Iterator[Measured]:
    """Seed 3 measured once at the three default setpoints (:func:`measure`): the bench and the readings."""
    bench = LabEnv("thermistor_b", 3, render=False)
    yield bench, measure(bench)
    bench.close()


@pytest.fixture
def measured(measurement: Measured) -> Iterator[Measured]:
    """The test's own copy of the measurement, to go on from."""
    yield from own_copy(measurement)


def fit(citations: list[dict[str, object]]) -> dict[str, float]:
    pairs = zip(citations[::2], citations[1::2], strict=True)
    b, r25, _ = fit_thermistor([(float(t["value"]), 1000 * float(r["value"])) for t, r in pairs])  # type: ignore[arg-type]
    return {"B": b, "R25": r25}


def restore(env: LabEnv) -> None:
    switch(env, False)
    put_probe(env, HOLDER, HOLDER_HALF[2])
    env.wait(1.0)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env, (30.0, 40.0, 50.0, 60.0, 70.0, 80.0))
    watcher(env).acted = True  # scaffolding: the robot would have carried the probe
    restore(env)
    result = fit(citations)
    env.submit(result, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, (score.gates, score.milestones)
    assert score.e <= 0.5, score.errors


def test_two_temperatures_do_not_suffice_for_b_r25_and_the_leads(env: LabEnv) -> None:
    citations = measure(env, (30.0, 45.0))
    watcher(env).acted = True
    restore(env)
    env.submit(env.evaluator.targets(), citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert not score.milestones["L4"].passed and "2 temperatures" in score.milestones["L4"].evidence


def test_the_ohmmeter_reads_the_b_law_at_the_bead_plus_the_leads(env: LabEnv) -> None:
    """Settled in the well at 60 degC, the ohmmeter's true value is the closed form: the B law at the block's
    temperature raised by the steady self-heating I^2 R / G, plus the leads' resistance, to far within a
    tenth of the tolerance."""
    the_bench = bench(env)
    hidden = env.instance.hidden
    assert the_bench.lead_ohms == hidden["leads"] and 20.0 <= hidden["leads"] <= 60.0
    put_probe(env, BLOCK, BLOCK_HALF[2])
    switch(env, True)
    the_bench.setpoint = 60.0
    env.wait(200.0)
    block = the_bench.network.temperature("block")
    bead = block
    for _ in range(50):
        bead = (
            block
            + TEST_CURRENT**2
            * hidden["R25"]
            * math.exp(hidden["B"] * (1 / bead - 1 / T25))
            / WELL_CONDUCTANCE
        )
    closed = hidden["R25"] * math.exp(hidden["B"] * (1 / bead - 1 / T25)) + hidden["leads"]
    shown = 1000.0 * the_bench.true_values(env._world.data)["ohmmeter"]
    assert shown == pytest.approx(closed, rel=0.003 / 10 / 100)
    assert shown - hidden["leads"] == pytest.approx(
        the_bench.network._thermistors["bead"].resistance(bead), rel=1e-5
    )


def test_an_unrestored_bench_fails_only_l6(measured: Measured) -> None:
    env, citations = measured
    watcher(env).acted = True
    env.submit(fit(citations), citations)  # the heater is on and the probe in the block
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "the heater is on" in score.gates["restored"].evidence
    assert "not in its holder" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(measured: Measured) -> None:
    env, citations = measured
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) * 1.01}  # type: ignore[arg-type]
    restore(env)
    env.submit(env.evaluator.targets(), citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "5 of 6 citations match" in score.gates["evidence"].evidence


def test_a_reading_with_the_probe_out_of_the_well_fails_the_condition_gate(measured: Measured) -> None:
    env, citations = measured
    put_probe(env, HOLDER, HOLDER_HALF[2])
    env.wait(2.0)
    citations += cite(env, close_up(env))
    restore(env)
    env.submit(env.evaluator.targets(), citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


def test_a_reading_while_the_block_still_heats_fails_the_condition_gate(measured: Measured) -> None:
    env, citations = measured
    bench(env).setpoint = 70.0
    env.wait(20.0)
    heating = cite(env, close_up(env))
    restore(env)
    env.submit(env.evaluator.targets(), citations + heating)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed
    assert [v.reason.split(" at t")[0] for v in verdicts[-2:]] == ["temperature settled did not hold"] * 2
    assert all(v.valid for v in verdicts[:-2]), [v.reason for v in verdicts]


@pytest.mark.parametrize(
    ("block_drift", "probe_drift", "span_s", "settled"),
    [(0.049, 0.0, 10.0, True), (0.051, 0.0, 10.0, False), (0.0, 0.051, 10.0, False), (0.0, 0.0, 9.75, False)],
)
def test_settled_means_both_temperatures_within_the_bound_over_ten_seconds(
    env: LabEnv, block_drift: float, probe_drift: float, span_s: float, settled: bool
) -> None:
    """Samples, a quarter second apart, cooling by the drift over the window down to the present
    temperatures, given to the evaluator's fresh watch of them."""
    watch = watcher(env).settled
    block, bead = bench(env).temperatures_k()
    samples = round(span_s / 0.25)
    for i in range(samples + 1):
        left = (samples - i) / samples
        assert watch.due(i * 0.25)
        watch.sample(i * 0.25, (block + block_drift * left, bead + probe_drift * left))
    assert watch.settled is settled


@pytest.mark.parametrize(("factor", "succeeds"), [(1.00299, True), (1.00302, False)])
def test_the_tolerance_is_three_tenths_of_a_percent(
    measured: Measured, factor: float, succeeds: bool
) -> None:
    env, citations = measured
    watcher(env).acted = True
    restore(env)
    targets = env.evaluator.targets()
    env.submit({"B": targets["B"] * factor, "R25": targets["R25"]}, citations)
    score, _ = env.score()
    assert score.errors["B"] == pytest.approx(abs(factor - 1) / 0.003, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds


def test_the_switch_is_bistable_and_each_key_press_steps_the_setpoint(env: LabEnv) -> None:
    data, model = env._world.data, env._model
    rocker = model.joint("rocker").qposadr[0]
    data.qpos[rocker] = 0.03  # pushed just past the middle: it snaps on
    env.wait(0.5)
    assert data.qpos[rocker] == pytest.approx(ROCKER_THROW_RAD, abs=0.01) and bench(env).heater_on(data)
    data.qpos[rocker] = -0.03
    env.wait(0.5)
    assert not bench(env).heater_on(data)
    up = model.joint("key_1").qposadr[0]
    for _ in range(3):
        data.qpos[up] = -0.9 * KEY_TRAVEL
        env.wait(0.3)  # the spring returns the key
    assert bench(env).setpoint == 40.0 and env.panel.shown("setpoint") == 40.0
    data.qpos[up] = -0.5 * KEY_TRAVEL  # not past the threshold
    env.wait(0.3)
    assert bench(env).setpoint == 40.0


def test_a_close_camera_reads_the_meters_and_a_far_one_does_not(env: LabEnv) -> None:
    sites = env.platform.reading_sites(env._world.data)
    fy = 514.6
    for distance, readable in ((0.12, True), (1.2, False)):
        for name in METERS:
            pose = look_at(sites[name].point + np.array([0.0, -distance, 0.0]), sites[name].point)
            (seen,) = visibility(
                env._model, env._world.data, "test", (np.array(pose.position), pose.rotation()), fy,
                {name: sites[name]},
            )  # fmt: skip
            min_px = env.platform.instruments()[METERS.index(name)].display.min_digit_px  # type: ignore[union-attr]
            assert seen.in_view and seen.unoccluded and (seen.pixel_size >= min_px) is readable


def test_the_faces_show_what_the_instrument_log_says() -> None:
    env = LabEnv("thermistor_b", 4)
    try:
        put_probe(env, BLOCK, BLOCK_HALF[2])
        switch(env, True)
        bench(env).setpoint = 50.0
        env.wait(20.0)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, FACES, FACE_CENTRES)
    finally:
        env.close()
