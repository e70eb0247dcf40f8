"""The spring launcher (#14's platform): the shot's muzzle speed and closed-form flight against the ballistic
range, the bench firing from the latch's notch on the FIRE key, the ball stepped in closed form and landing,
resting and coming back to the cup, the hand-over to the engine while the robot touches the ball, the latch's
notches and the console's LCDs.

Test scaffolding stands in for the agent's hands: the FIRE key is held down by setting its joint, the latch
slid by setting its joint, and the robot's touch of the ball by the bench's contact test answering so."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence

import mujoco
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import unreleased
from actloop.suites.lab.experiments.hookes_law import EXPERIMENT as HOOKE
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.launcher import (
    Flight,
    G,
    ballistic_range,
    direction,
    landing_time,
    muzzle_speed_squared,
)
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.platforms.launcher import (
    BALL_KG,
    COMPRESSIONS_MM,
    FACE_CENTRES,
    FACES,
    LAND_Z,
    MUZZLE,
    NOTCH_CATCH,
    NOTCH_PITCH,
    RETURN_S,
    SpringLauncher,
    notch_at,
    notch_position,
)
from actloop.suites.lab.rig import DT
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.watch import ContactWatch
from lcd_scaffold import assert_faces_read_back

KEY = "launcher_kit"
TOLERANCE = 0.02
SPRING_K, PISTON_KG, FRICTION_N = 300.0, 0.018, 0.12
ELEVATION = math.radians(35.0)


# --- the shot in closed form ---
def test_the_muzzle_speed_is_the_springs_energy_less_the_climb_and_the_friction() -> None:
    x, moving = 0.02, BALL_KG + PISTON_KG
    v2 = muzzle_speed_squared(x, SPRING_K, BALL_KG, PISTON_KG, FRICTION_N, ELEVATION)
    energy = SPRING_K * x * x / 2 - moving * G * math.sin(ELEVATION) * x - FRICTION_N * x
    assert moving * v2 / 2 == pytest.approx(energy, rel=1e-14)
    assert muzzle_speed_squared(0.0005, 10.0, BALL_KG, PISTON_KG, 1.0, ELEVATION) == 0.0


def test_the_elevations_direction_is_the_libm_free_sine_and_cosine() -> None:
    for degrees in (20.0, 35.0, 50.0):
        cos_e, sin_e = direction(math.radians(degrees))
        assert cos_e == pytest.approx(math.cos(math.radians(degrees)), abs=1e-15)
        assert sin_e == pytest.approx(math.sin(math.radians(degrees)), abs=1e-15)


@pytest.mark.parametrize("notch", [1, 3, 6])
def test_the_flight_stepped_at_240_hz_lands_at_the_ballistic_range(notch: int) -> None:
    """Each physics step's position lies on the parabola, and the landing between two steps is placed at the
    closed-form range R = v cos θ (v sin θ + √(v² sin² θ + 2 g h)) / g to 1e-12 m: under 1e-9 of the 2 %
    tolerance."""
    v = math.sqrt(muzzle_speed_squared(COMPRESSIONS_MM[notch - 1] / 1000, SPRING_K, BALL_KG, PISTON_KG,
                                       FRICTION_N, ELEVATION))  # fmt: skip
    cos_e, sin_e = direction(ELEVATION)
    flight = Flight(0.0, MUZZLE, (-v * cos_e, 0.0, v * sin_e), LAND_Z)
    height = MUZZLE[2] - LAND_Z
    exact = ballistic_range(v, ELEVATION, height)
    k = 0
    while not flight.landed(k * DT):
        (x, _, z), _ = flight.at(k * DT)
        t = k * DT
        assert x == pytest.approx(MUZZLE[0] - v * math.cos(ELEVATION) * t, abs=1e-12)
        assert z == pytest.approx(MUZZLE[2] + v * math.sin(ELEVATION) * t - G * t * t / 2, abs=1e-12)
        k += 1
    assert k == math.ceil(landing_time(v * sin_e, height) / DT)
    measured = MUZZLE[0] - flight.landing[0]
    assert flight.landing[2] == pytest.approx(LAND_Z, abs=1e-12)
    assert abs(measured - exact) / (TOLERANCE * exact) < 1e-9
    assert exact == pytest.approx(v * cos_e * (v * sin_e + math.sqrt((v * sin_e) ** 2 + 2 * G * height)) / G)


def test_a_flight_from_below_the_sand_ends_at_once() -> None:
    flight = Flight(1.0, (0.0, 0.0, LAND_Z - 0.01), (0.0, 0.0, -0.1), LAND_Z)
    assert flight.duration == 0.0 and flight.landed(1.0)


# --- the bench ---
class KitEvaluator(BenchEvaluator[SpringLauncher]):
    """Watches nothing: the kit's stand-in evaluator."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies("latch", "ball", "key_fire")

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        return

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        return [Check(name, False, "kit") for name in ("L1", "L2", "L3", "L4")]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def targets(self) -> dict[str, float]:
        return {}


def launcher(instance: Instance) -> SpringLauncher:
    return SpringLauncher(SPRING_K, PISTON_KG, FRICTION_N)


@pytest.fixture
def env() -> Iterator[LabEnv]:
    spec = dataclasses.replace(HOOKE.spec, key=KEY)
    with unreleased(Experiment(spec, launcher, KitEvaluator)):
        bench = LabEnv(KEY, 1, render=False)
        yield bench
        bench.close()


def platform(env: LabEnv) -> SpringLauncher:
    assert isinstance(env.platform, SpringLauncher)
    return env.platform


def ball(env: LabEnv) -> list[float]:
    q = int(env.model.joint("ball").qposadr[0])
    return [float(x) for x in env.data.qpos[q : q + 3]]


def slide_latch(env: LabEnv, position: float) -> None:
    env.data.qpos[int(env.model.joint("latch").qposadr[0])] = position
    env.data.qvel[int(env.model.joint("latch").dofadr[0])] = 0.0


def press_fire(env: LabEnv) -> float:
    """Hold the FIRE key down for a few steps; the time it went down."""
    key = int(env.model.joint("key_fire").qposadr[0])
    began = env.clock.time_s
    for _ in range(4):
        env.data.qpos[key] = -KEY_TRAVEL_M
        env.wait(DT)
    return began


def test_the_latchs_notches_catch_it_within_their_width() -> None:
    for n in range(1, len(COMPRESSIONS_MM) + 1):
        assert notch_at(notch_position(n)) == n
        assert notch_at(notch_position(n) + 0.9 * NOTCH_CATCH) == n
        assert notch_at(notch_position(n) - 0.9 * NOTCH_CATCH) == n
        assert notch_at(notch_position(n) - NOTCH_PITCH / 2) == 0
    assert notch_at(notch_position(len(COMPRESSIONS_MM)) + 1.1 * NOTCH_CATCH) == 0


def test_a_latch_let_go_near_a_notch_drops_into_it(env: LabEnv) -> None:
    slide_latch(env, notch_position(3) + 0.8 * NOTCH_CATCH)
    env.wait(DT)
    assert env.data.qpos[int(env.model.joint("latch").qposadr[0])] == notch_position(3)
    slide_latch(env, notch_position(3) + NOTCH_PITCH / 2)
    env.wait(0.05)
    assert platform(env).notch(env.data) == 0


def test_the_fire_key_shoots_from_the_latchs_notch_in_closed_form_and_the_ball_comes_back(
    env: LabEnv,
) -> None:
    bench = platform(env)
    env.wait(0.1)
    assert ball(env) == list(MUZZLE) and bench.state == "loaded"
    slide_latch(env, notch_position(4))
    env.wait(0.05)
    assert bench.notch(env.data) == 4
    began = press_fire(env)
    (shot,) = bench.shots
    assert shot.notch == 4 and shot.fired_s == pytest.approx(began + DT, abs=1e-9)
    flight = bench.launch(4, shot.fired_s)
    env.wait(0.1)
    position, _ = flight.at(env.clock.time_s)
    assert ball(env) == pytest.approx(list(position), abs=1e-12)
    env.wait(1.0)
    assert shot.complete and bench.state == "resting"
    exact = ballistic_range(bench.muzzle_speed(4), bench.elevation, MUZZLE[2] - LAND_Z)
    assert shot.range_m == pytest.approx(exact, abs=1e-12)
    assert ball(env)[0] == pytest.approx(MUZZLE[0] - exact, abs=1e-12)
    assert bench.true_values(env.data)["range"] == pytest.approx(1000 * exact, abs=1e-9)
    env.wait(RETURN_S)
    assert bench.state == "loaded" and ball(env) == list(MUZZLE)


def test_the_fire_key_does_nothing_between_notches_or_without_the_ball(env: LabEnv) -> None:
    bench = platform(env)
    slide_latch(env, notch_position(2) + NOTCH_PITCH / 2)
    env.wait(0.05)
    assert bench.notch(env.data) == 0
    press_fire(env)
    assert bench.shots == [] and bench.state == "loaded"
    slide_latch(env, notch_position(2))
    env.wait(0.3)
    press_fire(env)
    env.wait(0.3)
    press_fire(env)  # the ball is in the air
    assert len(bench.shots) == 1


def test_while_the_robot_touches_the_ball_the_engine_moves_it_and_the_flight_goes_on_after(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = platform(env)
    slide_latch(env, notch_position(5))
    env.wait(0.05)
    press_fire(env)
    env.wait(0.05)
    real = bench._contacts.touched
    ball_geoms = set(bench._ball_geoms)
    monkeypatch.setattr(bench._contacts, "touched", lambda data: real(data) | ball_geoms)
    env.wait(4 * DT)
    assert bench.state == "held" and bench.shots[-1].disturbed
    monkeypatch.setattr(bench._contacts, "touched", real)
    env.wait(DT)
    assert bench.state == "flight" and bench.flight is not None
    let_go = bench.flight
    env.wait(1.0)
    (shot,) = bench.shots
    assert shot.landed_s is not None and not shot.complete
    assert shot.range_m == pytest.approx(MUZZLE[0] - let_go.landing[0], abs=1e-12)


def test_a_ball_put_back_at_the_cup_is_loaded_again(env: LabEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = platform(env)
    env.wait(0.05)
    real = bench._contacts.touched
    ball_geoms = set(bench._ball_geoms)
    monkeypatch.setattr(bench._contacts, "touched", lambda data: real(data) | ball_geoms)
    q = int(env.model.joint("ball").qposadr[0])
    env.data.qpos[q : q + 3] = (MUZZLE[0], MUZZLE[1], MUZZLE[2] + 0.004)
    env.data.qvel[:] = 0.0
    env.wait(DT)
    assert bench.state == "held"
    monkeypatch.setattr(bench._contacts, "touched", real)
    env.data.qpos[q : q + 3] = (MUZZLE[0], MUZZLE[1], MUZZLE[2] + 0.004)
    env.wait(DT)
    assert bench.state == "loaded" and ball(env) == list(MUZZLE)


def test_the_consoles_lcds_show_what_the_instrument_log_says() -> None:
    spec = dataclasses.replace(HOOKE.spec, key=KEY)
    with unreleased(Experiment(spec, launcher, KitEvaluator)):
        env = LabEnv(KEY, 2)
        try:
            slide_latch(env, notch_position(3))
            env.wait(0.05)
            press_fire(env)
            env.wait(1.0)
            env.observe()  # the faces are redrawn before frames
            assert platform(env).shots[0].complete
            assert_faces_read_back(env, list(FACES), FACE_CENTRES)
        finally:
            env.close()
