"""The exactly stepped coupled gliders and the air track driven by them: the motion against the closed-form
normal-mode solution, the damping's shift of the modes' frequencies, the hand-over to the physics engine
while the robot touches a glider (the same equilibrium and nearly the same modes), the positions' log, the
LOG key and the LCDs.

Test scaffolding stands in for the agent's hands: a glider is displaced by setting the exact state, the
logger started by its key's joint, and the robot's touch by the track's contact watch answering so."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence

import mujoco
import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import unreleased
from actloop.suites.lab.experiments.hookes_law import EXPERIMENT as HOOKE
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.coupled import CoupledGliders, normal_modes
from actloop.suites.lab.platforms.air_track import (
    FACE_CENTRES,
    FACES,
    GLIDERS,
    LOG_HZ,
    REST_X,
    TRAVEL_M,
    AirTrack,
)
from actloop.suites.lab.rig import DT
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.watch import ContactWatch
from key_scaffold import log_key_presses
from lcd_scaffold import assert_faces_read_back

KEY = "air_track_kit"
MASSES, SPRINGS = (0.2, 0.24), (10.0, 4.0, 13.0)
ZEROS = (-0.34, -0.336)
TOLERANCE = 0.002
"""The coupled oscillators' tolerance on each mode's frequency."""


def gliders(damping: tuple[float, float] = (0.0, 0.0)) -> CoupledGliders:
    k1, kc, k2 = SPRINGS
    return CoupledGliders(*MASSES, k1, kc, k2, *damping, DT)


def closed_form(motion: CoupledGliders, x0: Sequence[float], t: float) -> tuple[float, float]:
    """The undamped gliders' positions at ``t`` from rest at ``x0``: each mode q_i cos ω_i t on its shape."""
    (_, r1), (_, r2) = motion.shapes()
    q2 = (x0[1] - r1 * x0[0]) / (r2 - r1)
    q1 = x0[0] - q2
    w1, w2 = motion.omegas()
    c1, c2 = q1 * math.cos(w1 * t), q2 * math.cos(w2 * t)
    return c1 + c2, r1 * c1 + r2 * c2


def test_the_normal_modes_are_the_roots_of_det_k_minus_omega_squared_m() -> None:
    k1, kc, k2 = SPRINGS
    stiffness = np.array([[k1 + kc, -kc], [-kc, k2 + kc]])
    expected = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(np.diag(MASSES), stiffness)).real))
    assert normal_modes(*MASSES, *SPRINGS) == pytest.approx(tuple(expected), rel=1e-14)


def test_the_stepped_gliders_follow_the_closed_form_modes_to_a_ten_millionth_of_the_tolerance() -> None:
    """60 s of exact steps from glider A displaced 3 cm: positions within 1e-10 m of the closed form. A
    frequency error δω shifts a mode's phase by δω t, its position by up to A ω t δω/ω, so the positions
    bound each mode's relative frequency error by (error / (A ω t)), here under 1e-7 of the tolerance."""
    motion = gliders()
    x0 = (0.03, 0.0)
    state = [*x0, 0.0, 0.0]
    worst = 0.0
    for k in range(1, 60 * 240 + 1):
        state = motion.step(state)
        if k % 97 == 0:
            exact = closed_form(motion, x0, k * DT)
            worst = max(worst, abs(state[0] - exact[0]), abs(state[1] - exact[1]))
    assert worst < 1e-10
    (_, r1), (_, r2) = motion.shapes()
    q2 = (x0[1] - r1 * x0[0]) / (r2 - r1)
    bound = worst / (min(abs(x0[0] - q2), abs(q2)) * motion.omegas()[0] * 60.0)
    assert bound < 1e-7 * TOLERANCE


def test_the_damping_shifts_each_modes_frequency_by_under_a_fiftieth_of_the_tolerance() -> None:
    """The damped motion's frequencies (the imaginary parts of A's eigenvalues) at the heaviest damping
    (ζ = 0.006 on the stiffest springs and lightest gliders) against the undamped modes."""
    k1, kc, k2 = 15.0, 6.0, 15.0
    ma, mb = 0.18, 0.18
    ca, cb = (2 * 0.006 * math.sqrt((k + kc) * m) for k, m in ((k1, ma), (k2, mb)))
    motion = CoupledGliders(ma, mb, k1, kc, k2, ca, cb, DT)
    damped = sorted({abs(float(v.imag)) for v in np.linalg.eigvals(np.array(motion.matrix()))})
    for omega_d, omega in zip(damped, motion.omegas(), strict=True):
        assert abs(omega_d / omega - 1) < TOLERANCE / 50  # measured 1.3e-2 of it


def test_a_mode_shape_alone_excites_only_its_mode() -> None:
    motion = gliders()
    for i, shape in enumerate(motion.shapes()):
        amplitudes = motion.modal_amplitudes([0.01 * shape[0], 0.01 * shape[1], 0.0, 0.0])
        largest = 0.01 * max(abs(shape[0]), abs(shape[1]))
        assert amplitudes[i] == pytest.approx(largest, rel=1e-12) and amplitudes[1 - i] < 1e-15


# --- the track ---
class KitEvaluator(BenchEvaluator[AirTrack]):
    """Watches nothing (the kit's tests drive the track directly)."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return frozenset()

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        pass

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        return []

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def targets(self) -> dict[str, float]:
        return {}


def track(instance: Instance) -> AirTrack:
    return AirTrack(gliders((0.004, 0.005)), ZEROS)


@pytest.fixture(scope="module")
def kit() -> Iterator[None]:
    """The track served under a key of its own (the hookes_law card; the kit's evaluator)."""
    with unreleased(Experiment(dataclasses.replace(HOOKE.spec, key=KEY), track, KitEvaluator)):
        yield


@pytest.fixture
def env(kit: None) -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 1, render=False)
    yield bench
    bench.close()


def platform(env: LabEnv) -> AirTrack:
    assert isinstance(env.platform, AirTrack)
    return env.platform


def joints(env: LabEnv) -> list[float]:
    return [float(env.data.qpos[env.model.joint(name).qposadr[0]]) for name in GLIDERS]


def test_the_gliders_rest_at_the_springs_equilibrium_in_the_engine_too(env: LabEnv) -> None:
    """Untouched and at rest they stay at rest; moved by the engine from rest, they stay there as well
    (the joint stiffnesses and the coupling tendon have the exact law's equilibrium)."""
    body = [float(env.model.body(name).pos[0]) for name in GLIDERS]
    assert body == list(REST_X)
    env.wait(0.5)
    assert platform(env).state == [0.0, 0.0, 0.0, 0.0] and joints(env) == [0.0, 0.0]


def test_the_free_gliders_move_by_the_exact_law_and_the_log_holds_them_at_each_rows_time(env: LabEnv) -> None:
    bench = platform(env)
    bench.state = [0.03, 0.0, 0.0, 0.0]
    bench.logging = True
    began = env.clock.time_s
    env.wait(3.0)
    motion = gliders((0.004, 0.005))
    state = [0.03, 0.0, 0.0, 0.0]
    for _ in range(round(3.0 / DT)):
        state = motion.step(state)
    assert bench.state == state and joints(env) == state[:2]
    rows = env.instrument_log.rows("logger")
    assert len(rows) >= 3 * LOG_HZ - 1
    assert rows[1].time_s - rows[0].time_s == pytest.approx(2 * DT)
    replay = [0.03, 0.0, 0.0, 0.0]
    steps = 0
    for row in rows[:40]:
        while steps < round((row.time_s - began) / DT):
            replay = motion.step(replay)
            steps += 1
        for value, rest, x, zero in zip(row.values, REST_X, replay[:2], ZEROS, strict=True):
            assert value == pytest.approx(1000 * (rest + x - zero), abs=0.015)


def test_while_the_robot_touches_a_glider_the_engine_moves_both_and_the_exact_law_takes_over(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Touched, the engine's motion from A displaced 2 cm stays within 2 % of the amplitude of the exact
    law's over a second (its integration, not its springs, differs); let go, the exact law continues from
    the engine's state."""
    bench = platform(env)
    glider = next(iter(bench._glider_geoms))
    monkeypatch.setattr(bench._contacts, "touched", lambda data: {glider})
    env.data.qpos[env.model.joint(GLIDERS[0]).qposadr[0]] = 0.02
    env.wait(1.0)
    assert bench.touched
    state = [0.02, 0.0, 0.0, 0.0]
    for _ in range(240):
        state = bench.motion.step(state)
    assert bench.state[:2] == pytest.approx(state[:2], abs=0.02 * 0.02)
    held = list(bench.state)
    assert held == [*joints(env), *(float(env.data.qvel[env.model.joint(n).dofadr[0]]) for n in GLIDERS)]
    monkeypatch.undo()
    env.wait(DT)
    assert not bench.touched and bench.state == bench.motion.step(held)


def test_a_glider_thrown_past_its_stop_is_stopped_there_by_the_engine(env: LabEnv) -> None:
    """Thrown at 1 m/s, glider A would swing 14 cm out; the engine's joint limit holds it near 9 cm."""
    platform(env).state = [0.0, 0.0, 1.0, 0.0]
    reach = 0.0
    for _ in range(120):
        env.wait(DT)
        reach = max(reach, abs(joints(env)[0]))
    assert TRAVEL_M - 0.002 < reach < TRAVEL_M + 0.005


def test_the_log_key_starts_and_stops_the_logger(env: LabEnv) -> None:
    assert log_key_presses(env, lambda: platform(env).logging) == [True, False]


def test_the_meter_box_lcds_show_what_the_instrument_log_says(kit: None) -> None:
    env = LabEnv(KEY, 2)
    try:
        platform(env).state = [0.03, -0.01, 0.0, 0.0]
        env.wait(0.5)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, FACES, FACE_CENTRES)
    finally:
        env.close()
