"""The pendulum frame and the scoring of #2 (pendulum g): the stepped swing against the closed-form period at
any amplitude and the damped small swing, the pure-Python sine, the bench swinging and timing its pendulums,
the hand-over to the engine while touched, the timer console's LCDs, gates, milestones and the one-pendulum
shortcut.

Test scaffolding stands in for the agent's hands: a bob is let go by setting its pendulum's state, a START
key pressed by arming its timer, and the robot's touch of a bob by the bench's contact test answering so."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.pendulum_g import SPEC, PendulumEvaluator
from actloop.suites.lab.physics.linear import sin
from actloop.suites.lab.physics.pendulum import Pendulum, period
from actloop.suites.lab.platforms.pendulum import FACE_CENTRES, FACES, LENGTHS, PERIODS, PendulumFrame
from actloop.suites.lab.reference.pendulum_g import gravity
from actloop.suites.lab.rig import DT
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from close_up_scaffold import cite_shown, serve_close_up
from lcd_scaffold import assert_faces_read_back
from scoring_scaffold import succeeds_on_tolerance

KEY = "pendulum_g"
TOLERANCE = 0.003
TIMERS = ("timer_1", "timer_2", "timer_3")
Citation = dict[str, object]


# --- the motion ---
def crossings(pendulum: Pendulum, amplitude: float, count: int) -> list[float]:
    """The times the pendulum let go from ``amplitude`` crosses the vertical, interpolated as the bench's
    gates do."""
    theta, rate, t, out = amplitude, 0.0, 0.0, []
    while len(out) < count:
        after, rate = pendulum.step(theta, rate)
        if (theta >= 0.0) != (after >= 0.0):
            out.append(t + DT * theta / (theta - after))
        theta, t = after, t + DT
    return out


@pytest.mark.parametrize("amplitude", [0.05, 0.3, 1.0])
def test_the_stepped_swing_keeps_the_closed_form_period_at_any_amplitude(amplitude: float) -> None:
    """Over ten periods of the longest and the shortest pendulum, undamped: the elliptic-integral period to
    1e-7 of itself, under a ten-thousandth of the 0.3 % tolerance."""
    for length in (LENGTHS[0] + 0.02, LENGTHS[-1] + 0.03):
        pendulum = Pendulum(9.8, length, 0.0125, 0.0, DT)
        times = crossings(pendulum, amplitude, 2 * PERIODS + 1)
        measured = (times[-1] - times[0]) / PERIODS
        exact = period(pendulum.omega0, amplitude)
        assert abs(measured / exact - 1) < 1e-7, (measured, exact)
        assert abs(measured / exact - 1) / TOLERANCE < 1e-4


def test_a_small_damped_swing_follows_the_linear_closed_form() -> None:
    """At 1e-6 rad (nonlinearity below 1e-13 of the swing) and ζ = 0.01: θ0 e^(−ζω0t)(cos ωd t +
    ζ/√(1−ζ²) sin ωd t) over 20 s to 1e-9 of the amplitude."""
    zeta, theta0 = 0.01, 1e-6
    pendulum = Pendulum(9.8, 0.4, 0.0125, zeta, DT)
    w0 = pendulum.omega0
    wd = w0 * math.sqrt(1 - zeta**2)
    theta, rate = theta0, 0.0
    for k in range(1, 4801):
        theta, rate = pendulum.step(theta, rate)
        t = k * DT
        exact = (
            theta0
            * math.exp(-zeta * w0 * t)
            * (math.cos(wd * t) + zeta / math.sqrt(1 - zeta**2) * math.sin(wd * t))
        )
        assert abs(theta - exact) < 1e-9 * theta0


def test_the_equivalent_length_is_that_of_a_sphere_on_a_massless_string() -> None:
    pendulum = Pendulum(9.8, 0.5, 0.0125, 0.0, DT)
    assert pendulum.equivalent_length == pytest.approx(0.5 + 2 * 0.0125**2 / (5 * 0.5), rel=1e-15)
    assert period(pendulum.omega0, 1e-9) == pytest.approx(
        2 * math.pi * math.sqrt(pendulum.equivalent_length / 9.8)
    )


def test_the_pure_python_sine_is_within_an_ulp_or_two_and_refuses_what_it_cannot_reduce() -> None:
    draw = random.Random(7)
    for _ in range(20000):
        x = draw.uniform(-8.0, 8.0)
        assert abs(sin(x) - math.sin(x)) <= 2 * math.ulp(max(abs(math.sin(x)), 1e-3))
    assert sin(0.0) == 0.0 and sin(1e-300) == 1e-300 and sin(math.pi / 2) == 1.0
    for bad in (math.inf, math.nan, 1e6):
        with pytest.raises(ValueError, match="sin of"):
            sin(bad)


# --- the bench ---
@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def frame(env: LabEnv) -> PendulumFrame:
    assert isinstance(env.platform, PendulumFrame)
    return env.platform


def watcher(env: LabEnv) -> PendulumEvaluator:
    assert isinstance(env.evaluator, PendulumEvaluator)
    return env.evaluator


def let_go(env: LabEnv, amplitude_deg: float = 3.0, pendulums: tuple[int, ...] = (0, 1, 2)) -> None:
    """The bobs let go from rest at ``amplitude_deg`` towards the robot; a short wait; START pressed."""
    for i in pendulums:
        frame(env).swings[i] = [-math.radians(amplitude_deg), 0.0]
    env.wait(0.2)
    for i in pendulums:
        frame(env).timers[i].arm()


def time_them(
    env: LabEnv, amplitude_deg: float = 3.0, pendulums: tuple[int, ...] = (0, 1, 2)
) -> list[Citation]:
    """Each of ``pendulums`` let go and timed to the end; a close-up of the console, its timers cited."""
    let_go(env, amplitude_deg, pendulums)
    env.wait(17.0)
    names = [TIMERS[i] for i in pendulums]
    return cite_shown(env, serve_close_up(env, names, 40.0), names)


def g_of(citations: list[Citation]) -> float:
    return gravity([float(c["value"]) for c in citations])  # type: ignore[arg-type]


def test_the_bench_swings_each_pendulum_by_the_stepper_under_its_own_gravity(env: LabEnv) -> None:
    g = env.instance.hidden["g"]
    assert tuple(env.model.opt.gravity) == (0.0, 0.0, -g)
    frame(env).swings[2] = [-0.05, 0.0]
    expected = frame(env).pendulums[2]
    theta, rate = -0.05, 0.0
    for _ in range(240):
        theta, rate = expected.step(theta, rate)
    env.wait(1.0)
    assert frame(env).swings[2] == [theta, rate]
    assert env.data.qpos[env.model.joint("pendulum_3").qposadr[0]] == theta
    assert frame(env).swings[0] == [0.0, 0.0]


def test_a_timer_shows_ten_periods_of_its_pendulum_to_the_millisecond(env: LabEnv) -> None:
    citations = time_them(env, 2.0)
    for i, citation in enumerate(citations):
        pendulum = frame(env).pendulums[i]
        exact = PERIODS * period(pendulum.omega0, math.radians(2.0))
        assert float(citation["value"]) == pytest.approx(exact, abs=0.0015)  # type: ignore[arg-type]
        assert frame(env).timers[i].completed


def test_the_engine_swings_a_touched_pendulum_and_hands_it_back(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Touched, the bob moves under the engine (its period within a percent of the stepper's) and its timing
    is marked disturbed; let go, the stepper takes over from the engine's state."""
    let_go(env, 4.0, (1,))
    monkeypatch.setattr(frame(env), "_touched_pendulums", lambda data: [False, True, False])
    env.wait(3.0)
    engine = list(frame(env).swings[1])
    assert frame(env).timers[1].disturbed and max(abs(engine[0]), 1e-3) < math.radians(4.5)
    monkeypatch.undo()
    env.wait(DT)
    assert frame(env).swings[1] == list(frame(env).pendulums[1].step(*engine))


def test_the_console_lcds_show_what_the_instrument_log_says() -> None:
    env = LabEnv(KEY, 3)
    try:
        let_go(env, 3.0)
        env.wait(4.0)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, FACES, FACE_CENTRES)
    finally:
        env.close()


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = time_them(env)
    watcher(env).acted = True
    env.submit({"g": g_of(citations)}, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.errors["g"] <= 0.1 and result.gates["refit"].passed


def test_one_pendulums_period_with_its_printed_length_misses_g(env: LabEnv) -> None:
    citations = time_them(env)
    t = float(citations[1]["value"]) / PERIODS  # type: ignore[arg-type]
    naive = 4 * math.pi**2 * LENGTHS[1] / t**2
    assert abs(naive / env.instance.hidden["g"] - 1) > 0.03


def test_a_swing_let_go_from_twelve_degrees_times_g_outside_the_tolerance(env: LabEnv) -> None:
    citations = time_them(env, 12.0)
    assert abs(g_of(citations) / env.instance.hidden["g"] - 1) > TOLERANCE


def test_a_timing_the_robot_touched_fails_the_condition_gate(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    let_go(env)
    env.wait(3.0)
    monkeypatch.setattr(frame(env), "_touched_pendulums", lambda data: [True, False, False])
    env.wait(DT)
    monkeypatch.undo()
    env.wait(14.0)
    citations = cite_shown(env, serve_close_up(env, TIMERS, 40.0), TIMERS)
    env.submit({"g": g_of(citations)}, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert "P1 timing completed did not hold" in verdicts[0].reason and verdicts[1].valid


def test_a_reading_of_a_running_timer_fails_the_condition_gate(env: LabEnv) -> None:
    let_go(env)
    env.wait(5.0)
    citations = cite_shown(env, serve_close_up(env, TIMERS, 40.0), TIMERS)
    env.submit({"g": 9.8}, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not any(v.valid for v in verdicts)
    assert not result.milestones["L2"].passed and not result.milestones["L4"].passed


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = time_them(env)
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 0.01}  # type: ignore[arg-type]
    env.submit({"g": g_of(citations)}, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_without_p3s_timing_l4_the_evidence_and_the_refit_fail(env: LabEnv) -> None:
    citations = time_them(env, pendulums=(0, 1))
    env.submit({"g": 9.8}, citations)
    result, _ = env.score()
    assert not result.milestones["L4"].passed and "P3" in result.milestones["L4"].evidence
    assert not result.gates["evidence"].passed and "timer_3 at []" in result.gates["evidence"].evidence
    assert not result.gates["refit"].passed and "P3" in result.gates["refit"].evidence
    assert result.milestones["L2"].passed and result.milestones["L3"].passed


def test_a_bob_still_held_at_submission_fails_only_l6(env: LabEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    citations = time_them(env)
    watcher(env).acted = True
    bob = env.model.geom("bob_1").id
    monkeypatch.setattr(watcher(env).watch(env.model), "held", lambda data: {bob})
    env.submit({"g": g_of(citations)}, citations)
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert "the robot is touching bob_1" in result.gates["restored"].evidence


@pytest.mark.parametrize(("factor", "passes"), [(1.00299, True), (0.99701, True), (1.00302, False)])
def test_g_is_scored_within_three_tenths_of_a_percent(factor: float, passes: bool) -> None:
    judged = succeeds_on_tolerance({"g": 9.7 * factor}, {"g": 9.7}, SPEC.quantities)
    assert judged is passes


def test_t2_skills_draw_a_bob_aside_let_it_go_and_press_start() -> None:
    """slide draws bob_3 2.5 cm towards the robot (2.3 degrees) and lets go as its stroke ends, the hand
    still moving: the bob is thrown on to a wider swing (about 6 degrees), the push a gentle release avoids by
    holding still before opening the fingers."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.slide(lab, "bob_3", [0.0, -1.0, 0.0], 0.025, across=True)
        skills.press(lab, "start_3", across=True)
        lab.wait(1.0)
        after = server.run(lambda: {"swing": frame(env).swings[2], "timer": frame(env).timers[2].state})
        lab.close()
    env.close()
    theta, rate = after["swing"]
    amplitude = math.hypot(theta, rate / frame(env).pendulums[2].omega0)
    assert math.radians(2.3) < amplitude < math.radians(10.0) and after["timer"] == "running"
