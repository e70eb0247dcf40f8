"""The calorimetry kit on the thermal bench: the sample takes the block's temperature in its well, warms the
water in the calorimeter's as the closed-form two-body solution with the insulation's loss says, cools in
the air otherwise; the LOG key records both thermometers.

The kit is served under a scaffold experiment (its spec is #24's row, its evaluator watches nothing); the
sample is moved by setting its position and the switch and the setpoint by setting them."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping, Sequence

import mujoco
import pytest

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.catalog import specify
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import unreleased
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.linear import exp
from actloop.suites.lab.platforms.calorimeter import (
    CALORIMETER,
    CALORIMETER_HALF,
    IN_AIR_W_PER_K,
    IN_WATER_W_PER_K,
    WATER_C,
    CalorimeterBench,
    bench_parts,
)
from actloop.suites.lab.platforms.thermal_bench import (
    BLOCK,
    BLOCK_HALF,
    HOLDER,
    HOLDER_HALF,
)
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, uniform
from actloop.suites.lab.watch import ContactWatch
from calorimeter_scaffold import bench, heater, press_log, stand

KEY = "calorimetry_kit"
SAMPLE_J_PER_K = 70.0
WATER_J_PER_K = 0.1 * WATER_C + 25.0
INSULATION = 0.08


class Unwatched(BenchEvaluator[CalorimeterBench]):
    """Scaffolding: an evaluator that watches nothing."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return frozenset()

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        return

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        return [Check(name, False, "scaffolding") for name in ("L1", "L2", "L3", "L4")]

    def targets(self) -> Mapping[str, float]:
        return {"c_s": 0.0}


SPEC = dataclasses.replace(
    specify(
        "specific_heat",
        question="scaffolding for the calorimetry kit",
        budget_s=1200.0,
        parameters=(Parameter("room", "temperature of the room", "degC", uniform(19.0, 23.0)),),
        parts=bench_parts(25.0),
    ),
    key=KEY,
)


def kit(instance: Instance) -> CalorimeterBench:
    return CalorimeterBench(SAMPLE_J_PER_K, WATER_J_PER_K, INSULATION, instance.hidden["room"])


@pytest.fixture
def env() -> Iterator[LabEnv]:
    with unreleased(Experiment(SPEC, kit, Unwatched)):
        bench = LabEnv(KEY, 1, render=False)
        yield bench
        bench.close()


def heat(env: LabEnv, celsius: float, seconds: float) -> None:
    """The sample in the block's well, the heater on at ``celsius`` for ``seconds``."""
    stand(env, BLOCK, BLOCK_HALF[2])
    heater(env, True)
    bench(env).setpoint = celsius
    env.wait(seconds)


def test_the_sample_takes_the_blocks_temperature_in_its_well(env: LabEnv) -> None:
    """It lags the block by its own time constant (C_s / G, 35 s here): the block's reading settles well
    before the sample has; after ten minutes they agree to a millikelvin, a degree under the setpoint (the
    controller is proportional)."""
    heat(env, 80.0, 300.0)
    t = bench(env).temperatures_c()
    assert bench(env).sample_at == "block" and t["block"] - t["sample"] > 0.2
    env.wait(300.0)
    t = bench(env).temperatures_c()
    assert abs(t["sample"] - t["block"]) < 0.001 and 78.5 < t["block"] < 80.0


def test_the_sample_warms_the_water_as_the_closed_form_two_body_solution_with_the_loss(env: LabEnv) -> None:
    """From the moment the sample stands in the water, the two temperatures follow the exact solution of
    C_s dTs/dt = G (Tw - Ts), C_w dTw/dt = G (Ts - Tw) - L (Tw - room), to far within a tenth of the
    tolerance (1 %) of anything a reading gives."""
    heat(env, 80.0, 100.0)  # hot enough: the closed form starts from where the sample and the water are
    room = env.instance.hidden["room"]
    stand(env, CALORIMETER, CALORIMETER_HALF[2])
    env.wait(0.1)  # the next step of the heat model couples the sample to the water
    assert bench(env).sample_at == "water"
    start = bench(env).temperatures_c()
    s0, w0 = start["sample"] - room, start["water"] - room
    g, cs, cw = IN_WATER_W_PER_K, SAMPLE_J_PER_K, WATER_J_PER_K
    # the 2x2 system's eigenvalues and eigenvectors, in closed form
    a11, a12, a21, a22 = -g / cs, g / cs, g / cw, -(g + INSULATION) / cw
    mean, gap = (a11 + a22) / 2, math.sqrt(((a11 - a22) / 2) ** 2 + a12 * a21)
    lams = (mean + gap, mean - gap)
    vecs = [(a12, lam - a11) for lam in lams]  # (sample, water) per eigenvalue
    det = vecs[0][0] * vecs[1][1] - vecs[1][0] * vecs[0][1]
    c0 = (s0 * vecs[1][1] - w0 * vecs[1][0]) / det
    c1 = (vecs[0][0] * w0 - vecs[0][1] * s0) / det
    elapsed = 0.0
    for seconds in (20.0, 40.0, 140.0):
        env.wait(seconds)
        elapsed += seconds
        e0, e1 = exp(lams[0] * elapsed), exp(lams[1] * elapsed)
        sample = room + c0 * vecs[0][0] * e0 + c1 * vecs[1][0] * e1
        water = room + c0 * vecs[0][1] * e0 + c1 * vecs[1][1] * e1
        now = bench(env).temperatures_c()
        assert abs(now["sample"] - sample) < 1e-6 and abs(now["water"] - water) < 1e-6, (elapsed, now)


def test_in_the_air_the_sample_cools_at_its_small_conductance(env: LabEnv) -> None:
    heat(env, 80.0, 100.0)
    room = env.instance.hidden["room"]
    joint = env.model.joint("sample_free")
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 3] = [0.2, -0.1, TABLE_TOP_Z + 0.3]
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0
    env.model.body_gravcomp[env.model.body("sample").id] = 1.0  # held up in the air by scaffolding
    env.wait(0.1)
    assert bench(env).sample_at == "air"
    before = bench(env).temperatures_c()["sample"] - room
    env.wait(30.0)
    after = bench(env).temperatures_c()["sample"] - room
    assert after == pytest.approx(before * exp(-IN_AIR_W_PER_K * 30.0 / SAMPLE_J_PER_K), rel=1e-6)


def test_the_log_key_records_both_thermometers(env: LabEnv) -> None:
    stand(env, HOLDER, HOLDER_HALF[2])
    press_log(env)
    assert bench(env).logging
    env.wait(3.0)
    rows = env.instrument_log.rows("logger")
    assert len(rows) >= 6 and all(len(row.values) == 2 for row in rows)
    room = env.instance.hidden["room"]
    assert all(abs(float(v) - room) < 0.05 for row in rows[2:] for v in row.values)
