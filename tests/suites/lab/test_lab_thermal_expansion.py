"""The expansion rig and the scoring of #29 (thermal expansion): the rod's heat against the closed-form
two-body solution, the dial's reading and its pointers read back from a close-up, gates, milestones, the
restored bench and the naive reading that catches the rod still growing.

Test scaffolding stands in for the agent's hands and eyes: the lever and the switch are moved by setting
their angles, the setpoint by setting it, settled states by setting the water's and the rod's temperatures
in the heat model, and close-ups of the dial and the thermometer are logged as served with the readability
a close wrist camera has (the rendered ones are read back in their own test)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.thermal_expansion import SPEC, ThermalExpansionEvaluator
from actloop.suites.lab.instance import draw
from actloop.suites.lab.platforms.expansion_rig import (
    COUNTER_OFFSET,
    COUNTER_RADIUS,
    COUNTER_TURNS,
    COUNTER_Y,
    DIAL_X,
    FACE_CENTRES,
    FACES,
    GRADUATION_RADIUS,
    LIFTED_MM,
    NEEDLE_Y,
    ROD_CAPACITY,
    ROD_LENGTH_MM,
    ROD_Z,
    TURN_MM,
    ExpansionRig,
)
from actloop.suites.lab.platforms.thermal_bench import (
    BLOCK_CAPACITY,
    BLOCK_LOSS,
    KELVIN,
    ROCKER_THROW_RAD,
    THERMAL_STEPS,
    steady_block_c,
)
from actloop.suites.lab.reference.dial import DialGeometry, read_dial
from actloop.suites.lab.reference.display import Camera
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from close_up_scaffold import Citation, cite_shown, serve_close_up
from lcd_scaffold import assert_faces_read_back
from scoring_scaffold import succeeds_on_tolerance

KEY = "thermal_expansion"
READ = ("thermometer", "dial")
DIAL = DialGeometry(
    (DIAL_X, NEEDLE_Y, ROD_Z), (DIAL_X, COUNTER_Y, ROD_Z - COUNTER_OFFSET), GRADUATION_RADIUS, COUNTER_RADIUS
)


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def rig(env: LabEnv) -> ExpansionRig:
    assert isinstance(env.platform, ExpansionRig)
    return env.platform


def watcher(env: LabEnv) -> ThermalExpansionEvaluator:
    assert isinstance(env.evaluator, ThermalExpansionEvaluator)
    return env.evaluator


def rock(env: LabEnv, joint: str, front_down: bool) -> None:
    env._world.data.qpos[env._model.joint(joint).qposadr[0]] = ROCKER_THROW_RAD * (1 if front_down else -1)


def settle_at(env: LabEnv, setpoint: float) -> None:
    """Water and rod at the controller's steady temperature for ``setpoint`` (scaffolding: no waiting for
    the heat to flow)."""
    bench = rig(env)
    bench.setpoint = setpoint
    steady = steady_block_c(setpoint, bench.room_c) + KELVIN
    for body in ("block", "rod"):
        bench.network.set_temperature(body, steady)


def cite(env: LabEnv) -> list[Citation]:
    """Cite the dial and the thermometer from a close-up of both (what the wrist camera between them makes
    readable)."""
    return cite_shown(env, serve_close_up(env, READ, 20.0), READ)


def measure(env: LabEnv, setpoints: tuple[float, ...] = (50.0, 80.0)) -> list[Citation]:
    """The spindle lowered; readings at the room and, the heater on, settled at each setpoint."""
    rock(env, "lift_lever", front_down=True)
    env.wait(1.0)
    citations = cite(env)
    rock(env, "rocker", front_down=True)
    for setpoint in setpoints:
        settle_at(env, setpoint)
        env.wait(40.0)  # the thermometer's lag (3 s) dies out
        citations += cite(env)
    return citations


def alpha_of(citations: list[Citation]) -> float:
    pairs = zip(citations[::2], citations[1::2], strict=True)
    mm_per_k, _ = line([(float(t["value"]), float(d["value"])) for t, d in pairs])  # type: ignore[arg-type]
    return mm_per_k / ROD_LENGTH_MM


def restore(env: LabEnv) -> None:
    rock(env, "rocker", front_down=False)
    rock(env, "lift_lever", front_down=False)
    env.wait(1.0)


def test_the_rod_and_the_water_cool_as_two_lumped_bodies_in_closed_form() -> None:
    """Heater off, the water at 60 degC and the rod at 30: the heat model against the exact solution of
    C_w T_w' = -G (T_w - T_r) - L (T_w - room), C_r T_r' = G (T_w - T_r), over 200 s."""
    instance = draw(SPEC, 4)
    bench = ExpansionRig(1.5e-5, instance.hidden["rod_lag"], 0.4, 21.0)
    bench.network.set_temperature("block", 60.0 + KELVIN)
    bench.network.set_temperature("rod", 30.0 + KELVIN)
    g = ROD_CAPACITY / instance.hidden["rod_lag"]
    a = np.array(
        [[-(g + BLOCK_LOSS) / BLOCK_CAPACITY, g / BLOCK_CAPACITY], [g / ROD_CAPACITY, -g / ROD_CAPACITY]]
    )
    rates, vectors = np.linalg.eig(a)
    start = np.linalg.solve(vectors, np.array([60.0 - 21.0, 30.0 - 21.0]))
    step_s = THERMAL_STEPS / 240.0
    for k in range(1, 2001):
        bench.heat(False)
        if k % 500 == 0:
            exact = 21.0 + vectors @ (start * np.exp(rates * k * step_s))
            assert bench.jacket_c() == pytest.approx(exact[0], abs=1e-9)
            assert bench.rod_c() == pytest.approx(exact[1], abs=1e-9)


def test_the_dial_reads_the_lifted_stop_or_the_preload_plus_the_rods_growth(env: LabEnv) -> None:
    bench = rig(env)
    assert bench.lifted and bench.dial_mm() == LIFTED_MM
    rock(env, "lift_lever", front_down=True)
    settle_at(env, 65.0)
    env.wait(0.5)
    growth = ROD_LENGTH_MM * bench.alpha * (bench.rod_c() - 20.0)
    assert not bench.lifted and bench.dial_mm() == bench.preload_mm + growth
    assert env.instrument_log.shown_at("dial", env.clock.time_s) == pytest.approx(bench.dial_mm(), abs=1e-12)


def test_the_dial_and_the_thermometer_read_back_from_a_close_up() -> None:
    """The pointers drawn where the reading puts them, across whole turns of the long pointer: read from a
    rendered close-up through the published camera model, the dial gives the logged value within a tenth
    of a graduation, its turn from the counter; the thermometer's LCD reads as logged."""
    env = LabEnv(KEY, 3)
    try:
        bench = rig(env)
        rock(env, "lift_lever", front_down=True)
        env.observe()  # the renderer is made for the first frame
        k = env.calibration()["wrist"]["intrinsics"]
        renderer = env._renderer
        assert renderer is not None
        centre = np.array([DIAL_X, NEEDLE_Y, ROD_Z])
        pose = look_at(centre + np.array([-0.03, -0.15, 0.02]), centre)
        camera = Camera(np.array(pose.position), pose.rotation(), k["fx"], k["fy"], k["cx"], k["cy"])
        for rise_c in (0.0, 11.0, 23.5, 37.0, 58.0):
            for body in ("block", "rod"):
                bench.network.set_temperature(body, bench.room_c + rise_c + KELVIN)
            env.wait(0.5)
            env.observe()
            image = renderer.render_from(env.data, np.array(pose.position), pose.rotation())
            shown = env.instrument_log.shown_at("dial", env.clock.time_s)
            assert isinstance(shown, float)
            assert read_dial(image, camera, DIAL, TURN_MM, COUNTER_TURNS) == pytest.approx(shown, abs=0.0002)
        assert_faces_read_back(env, FACES[:1], FACE_CENTRES)
    finally:
        env.close()


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env)
    watcher(env).acted = True
    restore(env)
    env.submit({"alpha": alpha_of(citations)}, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.e <= 0.2, result.errors


def test_a_reading_as_soon_as_the_thermometer_holds_steady_catches_the_rod_growing(env: LabEnv) -> None:
    """The naive shortcut run on the bench: heated from the room towards 80 degC, read once the water has
    changed by less than 0.02 degC over 10 s. The rod is still behind, and α comes out over 1 % low."""
    rock(env, "lift_lever", front_down=True)
    env.wait(1.0)
    citations = cite(env)
    rock(env, "rocker", front_down=True)
    rig(env).setpoint = 80.0
    history = [rig(env).jacket_c()]
    while len(history) <= 100 or abs(history[-1] - history[-101]) >= 0.02:
        env.wait(0.1)
        history.append(rig(env).jacket_c())
    assert rig(env).jacket_c() - rig(env).rod_c() > 0.5
    citations += cite(env)
    assert alpha_of(citations) < 0.99 * rig(env).alpha


def test_a_dial_reading_with_the_spindle_lifted_fails_the_condition_gate(env: LabEnv) -> None:
    citations = measure(env)
    rock(env, "lift_lever", front_down=False)
    env.wait(1.0)
    lifted = cite(env)
    restore(env)
    env.submit({"alpha": alpha_of(citations)}, citations + lifted)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert verdicts[-2].valid and "spindle on the rod did not hold" in verdicts[-1].reason


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env)
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) + 0.0012}  # type: ignore[arg-type]
    restore(env)
    env.submit({"alpha": alpha_of(citations)}, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success
    assert "5 of 6 citations match" in result.gates["evidence"].evidence


def test_readings_less_than_twenty_degrees_apart_reach_neither_l4_nor_the_evidence(env: LabEnv) -> None:
    citations = measure(env, setpoints=(35.0,))
    restore(env)
    env.submit({"alpha": alpha_of(citations)}, citations)
    result, _ = env.score()
    assert not result.milestones["L4"].passed and not result.gates["evidence"].passed
    assert result.milestones["L2"].passed and result.milestones["L3"].passed


def test_the_spindle_left_down_and_the_heater_on_fail_only_l6(env: LabEnv) -> None:
    citations = measure(env)
    watcher(env).acted = True
    env.submit({"alpha": alpha_of(citations)}, citations)
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert "the heater is on" in result.gates["restored"].evidence
    assert "spindle is down" in result.gates["restored"].evidence


@pytest.mark.parametrize(("factor", "passes"), [(1.00499, True), (0.99501, True), (1.00502, False)])
def test_alpha_is_scored_within_half_a_percent(factor: float, passes: bool) -> None:
    judged = succeeds_on_tolerance({"alpha": 1.7e-5 * factor}, {"alpha": 1.7e-5}, SPEC.quantities)
    assert judged is passes


def test_t2_skills_press_the_lift_lever_and_the_heater_switch() -> None:
    """Press, locating the part from the front camera, rocks the lever down onto the rod and the heater on,
    and again back."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    states = []
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        for _ in range(2):
            skills.press(lab, "lift_lever")
            skills.press(lab, "heater_switch")
            lab.wait(0.5)
            states.append(
                server.run(lambda: {"down": not rig(env).lifted, "on": rig(env).heater_on(env.data)})
            )
        lab.close()
    env.close()
    assert states == [{"down": True, "on": True}, {"down": False, "on": False}]


def test_the_needle_turns_clockwise_from_up_by_the_reading(env: LabEnv) -> None:
    rock(env, "lift_lever", front_down=True)
    env.wait(0.5)
    needle = env._world.data.xmat[env._model.body("dial_needle").id].reshape(3, 3)
    turn = rig(env).dial_mm() / TURN_MM
    assert needle[:, 2] == pytest.approx(
        [math.sin(2 * math.pi * turn), 0.0, math.cos(2 * math.pi * turn)], abs=1e-9
    )
