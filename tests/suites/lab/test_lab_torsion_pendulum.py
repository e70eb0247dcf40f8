"""The torsion turntable and the scoring of #5 (torsion pendulum): the stepped swing against the closed-form
period (with a load off its axis by the parallel-axis theorem), riders turning rigidly with the turntable,
the photogate's periods and their freedom, the brake, the LCD, gates, milestones, the restored bench and the
two-period shortcut.

Test scaffolding stands in for the agent's hands: a load is set on the turntable or back in its place by
setting its pose, the turntable twisted by setting its state, the logger and the brake switched by setting
them, and the robot's touch by the bench's contact test answering so."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.torsion_pendulum import SPEC, TorsionEvaluator
from actloop.suites.lab.physics.torsion import TorsionWire, about_axis
from actloop.suites.lab.platforms.turntable import FACE, FACE_CENTRES, LOAD_PLACES, TOP_Z, Load
from actloop.suites.lab.reference.torsion_pendulum import inertia, rows_of
from actloop.suites.lab.rig import DT
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from lcd_scaffold import assert_faces_read_back
from scoring_scaffold import succeeds_on_tolerance
from turntable_scaffold import flat, logged_groups, means, set_pose, table

KEY = "torsion_pendulum"
TOLERANCE = 0.01
Citation = dict[str, object]


# --- the motion ---
@pytest.mark.parametrize("damping", [0.0, 0.0005])
def test_the_stepped_swing_keeps_the_closed_form_damped_oscillation(damping: float) -> None:
    """θ0 e^(−γt)(cos ωd t + γ/ωd sin ωd t) over 60 s, to 1e-12 rad: the period within 1e-9 of itself, a
    millionth of the 1 % tolerance."""
    stiffness, moment = 0.03, 0.004
    wire = TorsionWire(stiffness, damping, DT)
    gamma = damping / (2 * moment)
    wd = math.sqrt(stiffness / moment - gamma**2)
    theta, rate = 0.3, 0.0
    for k in range(1, 60 * 240 + 1):
        theta, rate = wire.step(theta, rate, moment)
        t = k * DT
        exact = 0.3 * math.exp(-gamma * t) * (math.cos(wd * t) + gamma / wd * math.sin(wd * t))
        assert abs(theta - exact) < 1e-12


def test_a_load_off_the_axis_adds_m_d_squared() -> None:
    assert about_axis(0.001, 0.5, 0.02) == pytest.approx(0.001 + 0.5 * 0.02**2, rel=1e-15)


# --- the bench ---
@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def watcher(env: LabEnv) -> TorsionEvaluator:
    assert isinstance(env.evaluator, TorsionEvaluator)
    return env.evaluator


def load_of(env: LabEnv, name: str) -> Load:
    return next(x for x in table(env).loads if x.name == name)


def put(env: LabEnv, name: str, on_turntable: bool, offset: float = 0.0) -> None:
    """Stand a load on the turntable's centre (``offset`` along x) or back in its place, braked meanwhile."""
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    x, y = (offset, 0.0) if on_turntable else LOAD_PLACES[name]
    base = TOP_Z if on_turntable else TABLE_TOP_Z
    set_pose(env, name, x, y, base + load_of(env, name).height / 2 + 0.0003)
    env.wait(0.5)
    table(env).braked = False
    env.wait(DT)


def swing(env: LabEnv, seconds: float = 14.0) -> tuple[float, float]:
    """Twist the turntable by 15 degrees, let it swing ``seconds``: (the time it was let go, now)."""
    table(env).swing = [math.radians(15.0), 0.0]
    start = env.clock.time_s
    env.wait(seconds)
    return start, env.clock.time_s


def expected_period(env: LabEnv) -> float:
    moment = table(env).inertia()
    wire = table(env).wire
    return 2 * math.pi / math.sqrt(wire.stiffness / moment - (wire.damping / (2 * moment)) ** 2)


def test_a_load_set_off_centre_rides_rigidly_and_swings_with_m_d_squared(env: LabEnv) -> None:
    put(env, "disc", True, offset=0.01)
    disc = load_of(env, "disc")
    assert table(env).riders == frozenset({"disc"})
    assert table(env).inertia() == pytest.approx(
        table(env).own_inertia + about_axis(disc.inertia, 0.5, 0.01), rel=1e-3
    )
    swing(env, 10.0)
    assert table(env).period_free and table(env).shown_period == pytest.approx(expected_period(env), rel=1e-7)
    theta = table(env).swing[0]
    x, y = (float(v) for v in env.data.body("disc").xpos[:2])
    assert math.atan2(y, x) == pytest.approx(theta, abs=0.01) and math.hypot(x, y) == pytest.approx(
        0.01, abs=5e-4
    )


def test_the_brake_locks_the_turntable_and_no_period_is_free_across_it(env: LabEnv) -> None:
    swing(env, 6.0)
    assert table(env).period_free
    table(env).braked = True
    env.wait(DT)  # the brake takes the turntable and its riders back to rest
    env.wait(1.0)
    assert table(env).swing == [0.0, 0.0] and env.data.qpos[env.model.joint("turntable").qposadr[0]] == 0.0


def test_the_period_lcd_shows_what_the_instrument_log_says() -> None:
    env = LabEnv(KEY, 3)
    try:
        swing(env, 6.0)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, (FACE,), FACE_CENTRES)
    finally:
        env.close()


def measure(
    env: LabEnv, tmp_path: Path, loads: tuple[str | None, ...] = (None, "disc", "body")
) -> list[list[Citation]]:
    """The logger on; each load in turn on the turntable's centre, swung; the log exported and the periods
    from 5 s after each twist cited, a period apart (a group for each load)."""
    table(env).logging = True
    windows = []
    for load in loads:
        if load is not None:
            put(env, load, True)
        start, end = swing(env)
        windows.append((start + 5.0, end))
        if load is not None:
            put(env, load, False)
    return logged_groups(env, tmp_path, windows)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    watcher(env).acted = True
    env.submit({"I": inertia(*means(groups))}, flat(groups))
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.errors["I"] <= 0.1


def test_the_body_against_the_disc_alone_misses_the_turntables_own_share(env: LabEnv, tmp_path: Path) -> None:
    _, disc, body = means(measure(env, tmp_path))
    naive = load_of(env, "disc").inertia * body**2 / disc**2
    assert abs(naive / env.instance.hidden["I"] - 1) > TOLERANCE


def test_a_period_the_robot_touched_fails_the_condition_gate(
    env: LabEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    groups = measure(env, tmp_path)
    citations = flat(groups)
    swing(env, 6.0)
    touch = env.clock.time_s
    handle = env.model.geom("handle").id
    monkeypatch.setattr(table(env)._contacts, "touched", lambda data: {handle})
    env.wait(DT)
    monkeypatch.undo()
    period = expected_period(env)
    env.wait(2 * period)
    text = env.export("logger", "late.csv")["csv"]
    (tmp_path / "late.csv").write_text(text)
    late = rows_of(text)
    # the period shown from the first crossing after the touch to the third spans the touch
    row = min(range(len(late)), key=lambda i: abs(late[i]["time_s"] - (touch + 0.75 * period)))
    citations.append({"file": "late.csv", "row": row, "column": "period", "value": late[row]["period"]})
    env.submit({"I": inertia(*means(groups))}, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert "period timed free did not hold" in verdicts[-1].reason and verdicts[0].valid


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    citations = flat(groups)
    citations[1] = {**citations[1], "value": float(citations[1]["value"]) + 0.001}  # type: ignore[arg-type]
    env.submit({"I": inertia(*means(groups))}, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_without_the_bodys_periods_l4_and_the_evidence_fail(env: LabEnv, tmp_path: Path) -> None:
    env.submit({"I": 0.001}, flat(measure(env, tmp_path, (None, "disc"))))
    result, _ = env.score()
    assert not result.milestones["L4"].passed and "body" in result.milestones["L4"].evidence
    assert not result.gates["evidence"].passed and "period at [0.0, 1.0]" in result.gates["evidence"].evidence
    assert not result.milestones["L2"].passed and result.milestones["L3"].passed


def test_the_body_left_on_the_turntable_fails_only_l6(env: LabEnv, tmp_path: Path) -> None:
    groups = measure(env, tmp_path)
    put(env, "body", True)
    watcher(env).acted = True
    env.submit({"I": inertia(*means(groups))}, flat(groups))
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert (
        "body is" in result.gates["restored"].evidence
        and "from its place" in result.gates["restored"].evidence
    )


@pytest.mark.parametrize(("factor", "passes"), [(1.00999, True), (0.99001, True), (1.01002, False)])
def test_i_is_scored_within_one_percent(factor: float, passes: bool) -> None:
    judged = succeeds_on_tolerance({"I": 0.0012 * factor}, {"I": 0.0012}, SPEC.quantities)
    assert judged is passes


def test_t2_skills_press_the_brake_and_twist_the_turntable_by_its_handle() -> None:
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.slide(lab, "handle", [1.0, 0.0, 0.0], 0.02)
        lab.wait(0.5)
        swung = server.run(lambda: {"swing": table(env).swing})["swing"]
        skills.press(lab, "brake_key")
        braked = server.run(lambda: {"braked": table(env).braked, "swing": table(env).swing})
        lab.close()
    env.close()
    assert math.hypot(swung[0], swung[1] / 3.0) > math.radians(5.0)
    assert braked == {"braked": True, "swing": [0.0, 0.0]}
