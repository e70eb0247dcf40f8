"""The scoring of #14 (spring launcher): the continuation run firing at the set notch, the shot conditions
(a touched shot, a shot at the set notch), the evidence, the restore rule, the tolerance's edges, the one-shot
shortcut, the reference end to end and the T2 skills on the latch and the FIRE key.

Test scaffolding stands in for the agent's hands: the latch is slid by setting its joint, FIRE pressed by
the bench's fire(), and the robot's touch of the ball by the bench's contact test answering so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.spring_launcher import NEVER_AT_SET, SPEC, LauncherEvaluator
from actloop.suites.lab.manifests import run_reference
from actloop.suites.lab.physics.launcher import ballistic_range
from actloop.suites.lab.platforms.launcher import (
    COMPRESSIONS_MM,
    LAND_Z,
    MUZZLE,
    SpringLauncher,
    notch_position,
)
from actloop.suites.lab.reference import reference
from actloop.suites.lab.reference.spring_launcher import predict
from actloop.suites.lab.rig import DT
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from close_up_scaffold import cite_shown, serve_close_up
from scoring_scaffold import succeeds_on_tolerance

KEY = "spring_launcher"
HEIGHT = MUZZLE[2] - LAND_Z
Citation = dict[str, object]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def launcher(env: LabEnv) -> SpringLauncher:
    assert isinstance(env.platform, SpringLauncher)
    return env.platform


def watcher(env: LabEnv) -> LauncherEvaluator:
    assert isinstance(env.evaluator, LauncherEvaluator)
    return env.evaluator


def set_notch(env: LabEnv) -> int:
    return round(env.instance.public["notch"])


def true_range(env: LabEnv, notch: int) -> float:
    bench = launcher(env)
    return ballistic_range(bench.muzzle_speed(notch), bench.elevation, HEIGHT)


def shoot(env: LabEnv, notch: int) -> Citation:
    """The latch set at ``notch``, fired, the ball landed and back in the cup; the RANGE LCD cited from a
    close-up."""
    env.data.qpos[int(env.model.joint("latch").qposadr[0])] = notch_position(notch)
    env.wait(DT)
    assert launcher(env).fire(launcher(env).notch(env.data), env.clock.time_s)
    env.wait(1.6)
    (citation,) = cite_shown(env, serve_close_up(env, ["range"], 40.0), ["range"])
    return citation


def others(env: LabEnv) -> list[int]:
    return [n for n in (2, 3, 4, 5, 6) if n != set_notch(env)][-4:]


def careful(env: LabEnv) -> tuple[float, list[Citation]]:
    """Shots at four other notches, cited; the prediction from them (m)."""
    citations = [shoot(env, n) for n in others(env)]
    ranges = {n: float(c["value"]) / 1000 for n, c in zip(others(env), citations, strict=True)}  # type: ignore[arg-type]
    return predict(ranges, set_notch(env), HEIGHT), citations


def test_a_careful_run_succeeds_and_the_continuation_run_fires_at_the_set_notch(env: LabEnv) -> None:
    prediction, citations = careful(env)
    watcher(env).acted = True
    env.submit({"range": prediction}, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    exact = true_range(env, set_notch(env))
    assert result.errors["range"] == pytest.approx(abs(prediction / exact - 1) / 0.02, rel=1e-9)
    assert result.errors["range"] <= 0.2
    # the continuation ran on a copy: the episode's launcher never fired at the set notch
    assert all(shot.notch != set_notch(env) for shot in launcher(env).shots)


def test_the_continuation_measures_the_set_notchs_landing_in_closed_form(env: LabEnv) -> None:
    env.wait(0.2)
    measured = watcher(env).continue_run(env.model, env.data)
    assert measured["range"] == pytest.approx(true_range(env, set_notch(env)), abs=1e-12)
    assert launcher(env).shots == [] and launcher(env).state == "loaded"


def test_a_continuation_from_a_ball_in_flight_fires_once_it_is_back_in_the_cup(env: LabEnv) -> None:
    launcher(env).fire(1, env.clock.time_s)
    env.wait(0.05)
    measured = watcher(env).continue_run(env.model, env.data)
    assert measured["range"] == pytest.approx(true_range(env, set_notch(env)), abs=1e-12)
    assert [shot.notch for shot in launcher(env).shots] == [1]


def test_a_test_shot_at_the_set_notch_fails_the_condition_gate_for_every_reading(env: LabEnv) -> None:
    prediction, citations = careful(env)
    shoot(env, set_notch(env))  # after every cited reading
    env.submit({"range": prediction}, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert all(not v.valid and NEVER_AT_SET in v.reason for v in verdicts)


def test_a_shot_the_robot_touched_fails_the_condition_gate(
    env: LabEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    citations = [shoot(env, n) for n in others(env)[:3]]
    bench = launcher(env)
    env.data.qpos[int(env.model.joint("latch").qposadr[0])] = notch_position(others(env)[3])
    env.wait(DT)
    bench.fire(bench.notch(env.data), env.clock.time_s)
    env.wait(0.1)
    real = bench._contacts.touched
    launcher_geoms = set(bench._launcher_geoms)
    monkeypatch.setattr(bench._contacts, "touched", lambda data: real(data) | launcher_geoms)
    env.wait(DT)
    monkeypatch.undo()
    env.wait(1.5)
    assert bench.shots[-1].landed_s is not None and not bench.shots[-1].complete
    (touched,) = cite_shown(env, serve_close_up(env, ["range"], 40.0), ["range"])
    env.submit({"range": 0.5}, [*citations, touched])
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed
    assert "shows a complete shot did not hold" in verdicts[3].reason and verdicts[0].valid


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    prediction, citations = careful(env)
    citations[1] = {**citations[1], "value": float(citations[1]["value"]) + 3.0}  # type: ignore[arg-type]
    env.submit({"range": prediction}, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_two_notches_are_too_few_for_l4_and_the_evidence(env: LabEnv) -> None:
    citations = [shoot(env, n) for n in others(env)[:2]]
    env.submit({"range": 0.5}, citations)
    result, _ = env.score()
    assert result.milestones["L2"].passed and result.milestones["L3"].passed
    assert not result.milestones["L4"].passed and not result.gates["evidence"].passed


def test_a_ball_not_back_in_the_cup_fails_only_l6(env: LabEnv) -> None:
    prediction, citations = careful(env)
    watcher(env).acted = True
    launcher(env).fire(1, env.clock.time_s)
    env.wait(0.1)
    env.submit({"range": prediction}, citations)
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success
    assert "the ball is not in the cup" in result.gates["restored"].evidence


def test_one_shot_scaled_by_the_compressions_squared_misses(env: LabEnv) -> None:
    n = set_notch(env)
    naive = true_range(env, n - 1) * (COMPRESSIONS_MM[n - 1] / COMPRESSIONS_MM[n - 2]) ** 2
    assert abs(naive / true_range(env, n) - 1) > 0.05
    line = (
        2 * true_range(env, 4) - true_range(env, 3) if n == 5 else 2 * true_range(env, 5) - true_range(env, 4)
    )
    assert abs(line / true_range(env, n) - 1) > 0.02


@pytest.mark.parametrize(
    ("factor", "passes"), [(1.0199, True), (0.9801, True), (1.0201, False), (0.9799, False)]
)
def test_the_range_is_scored_within_two_percent(factor: float, passes: bool) -> None:
    judged = succeeds_on_tolerance({"range": 0.6 * factor}, {"range": 0.6}, SPEC.quantities)
    assert judged is passes


def test_the_reference_solves_an_instance_through_the_client() -> None:
    env = LabEnv(KEY, 3)
    try:
        assert run_reference(env, reference(KEY)) is None
        result, _ = env.score()
        assert result.success and result.e <= 0.5, (result.gates, result.milestones)
        assert sorted({shot.notch for shot in launcher(env).shots}) == [2, 3, 4, 6] or set_notch(env) == 6
        assert all(shot.complete for shot in launcher(env).shots)
    finally:
        env.close()


def test_t2_skills_slide_the_latch_to_a_notch_and_press_fire() -> None:
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.slide(lab, "latch", [1.0, 0.0, 0.0], 2 * 0.015, across=True)
        notch = server.run(lambda: launcher(env).notch(env.data))
        skills.press(lab, "fire", across=True)
        lab.wait(1.5)
        shots = server.run(lambda: list(launcher(env).shots))
        lab.close()
    env.close()
    assert notch == 3
    assert len(shots) == 1 and shots[0].notch == 3 and shots[0].complete


def test_a_reading_taken_as_the_ball_lands_does_not_count(env: LabEnv) -> None:
    """Until the LCD has surely refreshed after a landing it may show the shot before: no reading counts."""
    citations = [shoot(env, n) for n in others(env)[:3]]
    bench = launcher(env)
    env.data.qpos[int(env.model.joint("latch").qposadr[0])] = notch_position(others(env)[3])
    env.wait(DT)
    bench.fire(bench.notch(env.data), env.clock.time_s)
    while bench.shots[-1].landed_s is None:
        env.wait(DT)
    env.wait(0.05)
    (early,) = cite_shown(env, serve_close_up(env, ["range"], 40.0), ["range"])
    env.submit({"range": 0.5}, [*citations, early])
    _, verdicts = env.score()
    assert all(v.valid for v in verdicts[:3]) and not verdicts[3].valid
    assert "shows a complete shot did not hold" in verdicts[3].reason
