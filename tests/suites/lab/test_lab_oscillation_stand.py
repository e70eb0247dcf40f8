"""The exactly stepped hanging spring and the oscillation stand driven by it: the motion against the
closed-form damped oscillation, the period with a weight on the tray against 2π √((m + m_s/3)/k), the
hand-over to the physics engine while the robot touches the tray, and the encoder's log and LCD.

Test scaffolding stands in for the agent's hands: the tray is displaced by setting its state, a weight set
on the tray by setting its pose, and the robot's touch by the stand's contact watch answering so."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import unreleased
from actloop.suites.lab.experiments.hookes_law import EXPERIMENT as HOOKE
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.oscillator import G, HangingSpring
from actloop.suites.lab.platforms.oscillation_stand import FACE, FACE_CENTRE, LOG_HZ, OscillationStand
from actloop.suites.lab.platforms.spring_stand import (
    TRAY_OFFSET_Y,
    TRAY_PLATE_HALF_HEIGHT,
    TRAY_PLATE_Z,
    WEIGHT_HEIGHT,
)
from actloop.suites.lab.rig import DT
from key_scaffold import log_key_presses
from lcd_scaffold import assert_faces_read_back

K, SPRING_KG, DAMPING, FREE = 30.0, 0.02, 0.004, 0.12
TRAY_KG, WEIGHT_KG = 0.05, 0.1
KEY = "oscillation_stand"
ZERO = 0.15


def closed_form(spring: HangingSpring, load: float, x0: float, v0: float, t: float) -> float:
    """The damped oscillation's exact drop below the anchor at ``t`` from (x0, v0)."""
    moving = spring.moving_mass(load)
    omega0 = math.sqrt(spring.stiffness / moving)
    zeta = spring.damping / (2 * moving * omega0)
    omega = omega0 * math.sqrt(1 - zeta * zeta)
    a = x0 - spring.equilibrium(load)
    b = (v0 + zeta * omega0 * a) / omega
    return spring.equilibrium(load) + math.exp(-zeta * omega0 * t) * (
        a * math.cos(omega * t) + b * math.sin(omega * t)
    )


def test_the_hanging_spring_steps_the_damped_oscillation_exactly() -> None:
    spring = HangingSpring(K, SPRING_KG, DAMPING, FREE, DT)
    x, v = spring.equilibrium(0.15) + 0.01, 0.0
    for k in range(1, 2401):
        x, v = spring.step(x, v, 0.15)
        if k % 240 == 0:
            assert x == pytest.approx(
                closed_form(spring, 0.15, spring.equilibrium(0.15) + 0.01, 0.0, k * DT), abs=1e-12
            )


def test_the_spring_hangs_its_load_and_half_its_own_weight() -> None:
    spring = HangingSpring(K, SPRING_KG, 0.0, FREE, DT)
    assert spring.equilibrium(0.15) == pytest.approx(FREE + (0.15 + SPRING_KG / 2) * G / K, rel=1e-15)
    assert spring.moving_mass(0.15) == pytest.approx(0.15 + SPRING_KG / 3, rel=1e-15)


def stand(instance: Instance) -> OscillationStand:
    return OscillationStand(K, SPRING_KG, DAMPING, FREE, TRAY_KG, ZERO, WEIGHT_KG)


@pytest.fixture
def env() -> Iterator[LabEnv]:
    spec = dataclasses.replace(HOOKE.spec, key=KEY)
    with unreleased(Experiment(spec, stand, HOOKE.evaluator)):
        bench = LabEnv(KEY, 1, render=False)
        yield bench
        bench.close()


def platform(env: LabEnv) -> OscillationStand:
    assert isinstance(env.platform, OscillationStand)
    return env.platform


def tray_drop(env: LabEnv) -> float:
    return float(env.data.qpos[platform(env).tray_joint])


def test_the_free_tray_moves_as_the_stepped_spring_in_closed_form(env: LabEnv) -> None:
    bench = platform(env)
    assert bench.motion is not None
    start = bench.motion.equilibrium(TRAY_KG)
    assert tray_drop(env) == start
    bench.state = [start + 0.008, 0.0]
    began = env.clock.time_s
    bench.logging = True
    env.wait(720 * DT)
    exact = closed_form(bench.motion, TRAY_KG, start + 0.008, 0.0, 720 * DT)
    assert tray_drop(env) == pytest.approx(exact, abs=1e-12)
    # every logged row holds the encoder at the row's own time (a row every second physics step)
    rows = env.instrument_log.rows("logger")
    assert len(rows) >= 3 * LOG_HZ - 1
    for row in rows[::37]:
        drop = closed_form(bench.motion, TRAY_KG, start + 0.008, 0.0, row.time_s - began)
        assert row.values[0] == pytest.approx(1000 * (drop - ZERO), abs=0.015)


def test_a_weight_on_the_tray_oscillates_with_a_third_of_the_springs_mass(env: LabEnv) -> None:
    """A weight set on the plate at the empty tray's rest: the tray falls towards the loaded rest and swings
    about it (the weight riding with it); ten periods between upward crossings give the damped period of
    2π √((m_tray + m_w + m_s/3) / k) within 1e-6 (the crossings' linear interpolation; measured 6e-8)."""
    bench = platform(env)
    assert bench.motion is not None
    anchor = env.model.body("tray").pos
    joint = env.model.joint("weight_1_free")
    top = anchor[2] - tray_drop(env) + TRAY_PLATE_Z + TRAY_PLATE_HALF_HEIGHT
    pose = [anchor[0], anchor[1] - TRAY_OFFSET_Y, top + WEIGHT_HEIGHT / 2, 1.0, 0.0, 0.0, 0.0]
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = pose
    env.wait(0.5)
    rest = bench.motion.equilibrium(TRAY_KG + WEIGHT_KG)
    crossings = []
    last = tray_drop(env) - rest
    while len(crossings) < 11:
        env.wait(DT)
        now = tray_drop(env) - rest
        if last > 0 >= now:  # rising through the rest (the drop shrinking)
            crossings.append(env.clock.time_s - DT * now / (now - last))
        last = now
    period = (crossings[-1] - crossings[0]) / 10
    moving = TRAY_KG + WEIGHT_KG + SPRING_KG / 3
    omega0 = math.sqrt(K / moving)
    zeta = DAMPING / (2 * moving * omega0)
    assert period == pytest.approx(2 * math.pi / (omega0 * math.sqrt(1 - zeta * zeta)), rel=1e-6)


def test_while_the_robot_touches_the_tray_the_engine_moves_it_and_the_spring_takes_over_after(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = platform(env)
    assert bench.motion is not None and bench._contacts is not None
    monkeypatch.setattr(bench._contacts, "touched", lambda data: {bench._plate})
    env.data.qvel[bench.tray_dof] = -0.05  # the hand lifts it
    env.wait(0.2)
    held = [tray_drop(env), float(env.data.qvel[bench.tray_dof])]
    assert bench.state == held
    monkeypatch.undo()
    env.wait(1.0)
    exact = closed_form(bench.motion, TRAY_KG, held[0], held[1], 1.0)
    assert tray_drop(env) == pytest.approx(exact, abs=1e-9)


def test_the_log_key_starts_and_stops_the_logger(env: LabEnv) -> None:
    assert log_key_presses(env, lambda: platform(env).logging) == [True, False]


def test_the_encoders_lcd_shows_what_the_instrument_log_says() -> None:
    spec = dataclasses.replace(HOOKE.spec, key=KEY)
    with unreleased(Experiment(spec, stand, HOOKE.evaluator)):
        env = LabEnv(KEY, 2)
        try:
            env.wait(0.5)
            env.observe()  # the faces are redrawn before frames
            assert_faces_read_back(env, [FACE], {FACE.texture: FACE_CENTRE})
        finally:
            env.close()
