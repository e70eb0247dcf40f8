"""Scoring Hooke's law on the bench: gates, refit, milestones and the restored bench.

Test scaffolding stands in for the agent's hands and eyes: weights are put on the tray by setting their
positions, and close-up images of the ruler are logged as served with the readability a close wrist
camera has (the readability geometry itself is tested below on a real projection).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.platforms.spring_stand import WEIGHTS
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.hookes_law import fit_k as reference_fit


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("hookes_law", 5, render=False)
    yield bench
    bench.close()


def place(env: LabEnv, weight: int, position: tuple[float, float, float]) -> None:
    model, data = env._model, env._world.data
    joint = model.joint(f"weight_{weight}_free")
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*position, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


SPOTS = ((-0.032, -0.015), (0.0, -0.015), (0.032, -0.015), (-0.016, 0.02), (0.016, 0.02))
"""Places for the weights on the tray plate, relative to its centre."""


def on_tray(env: LabEnv, weight: int) -> None:
    """Set ``weight`` on the tray plate at its own spot."""
    data, model = env._world.data, env._model
    x, y, z = data.geom_xpos[model.geom("tray_plate").id]
    dx, dy = SPOTS[weight - 1]
    place(env, weight, (float(x) + dx, float(y) + dy, float(z) + 0.003 + 0.012 + 0.0005))


def close_up(env: LabEnv) -> str:
    """Serve a close-up of the ruler (scaffolding: what a wrist camera 5 cm away would make readable)."""
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    env.instrument_log.serve_observation(
        observation_id, env.clock.time_s, [Visibility("ruler", "wrist", True, True, 6.0)]
    )
    return observation_id


def shown(env: LabEnv, observation_id: str) -> float:
    value = env.instrument_log.observations[observation_id].shown["ruler"]
    assert isinstance(value, float)
    return value


def measure(env: LabEnv, loads: int) -> list[dict[str, object]]:
    """Readings at 0..loads-1 weights, each after the tray has come to rest; the weights stay on the tray."""
    citations: list[dict[str, object]] = []
    for n in range(loads):
        if n:
            on_tray(env, n)
        env.wait(12.0)
        seen = close_up(env)
        citations.append(
            {"observation_id": seen, "instrument": "ruler", "value": round(shown(env, seen) * 2) / 2}
        )
    return citations


def fit_k(env: LabEnv, citations: list[dict[str, object]]) -> float:
    """What the agent computes from its readings at 0, 1, 2, ... weights (the reference's own fit)."""
    mass = env.instance.public["weight_mass"]
    return reference_fit([(n * mass, float(c["value"])) for n, c in enumerate(citations)])  # type: ignore[arg-type]


def restore(env: LabEnv) -> None:
    for i in range(1, WEIGHTS + 1):
        x, y, z = env.platform.rack_position(i)
        place(env, i, (x, y, z + 0.0005))
    env.wait(2.0)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env, 5)
    env.evaluator.acted = True  # scaffolding: the robot would have carried the weights
    restore(env)
    env.submit({"k": fit_k(env, citations)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.e <= 1 and score.process_score == 100, score.gates
    assert score.gates["refit"].passed and score.milestones["L4"].passed


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = measure(env, 5)
    env.evaluator.acted = True
    env.submit({"k": fit_k(env, citations)}, citations)  # the weights are still on the tray
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "weight_1 is" in score.gates["restored"].evidence


@pytest.mark.parametrize("loads", [3, 4])
def test_readings_at_three_loads_fail_the_evidence_gate_naming_the_rule(env: LabEnv, loads: int) -> None:
    citations = measure(env, loads)
    env.evaluator.acted = True
    restore(env)
    env.submit({"k": fit_k(env, citations)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and score.milestones["L4"].passed  # two loads suffice for k
    rule = "the run must contain ruler readings at 4 or more different loads (numbers of weights on the tray)"
    assert score.gates["evidence"].passed == score.success == (loads == 4), score.gates
    assert (rule in score.gates["evidence"].evidence) == (loads == 3)
    if loads == 3:
        assert "ruler at [0.0, 1.0, 2.0]" in score.gates["evidence"].evidence and score.level == 4
        assert score.failure_cause == "knowing: stopping" and score.to_fields()["failure_cause"] == (
            "knowing: stopping"
        )


def test_an_idle_run_fails_at_motion_and_a_wandering_arm_at_locating(env: LabEnv) -> None:
    idle, _ = env.score()
    assert (idle.level, idle.failure_cause) == (0, "acting: motion")
    assert idle.failure_evidence == "the robot never moved (L1: no weight was touched)"
    start = env.robot_state()["joints"]
    env.move_joints([[start[0] + 0.2 * i / 240, *start[1:]] for i in range(1, 241)])
    wandered, _ = env.score()
    assert (wandered.level, wandered.failure_cause) == (0, "observing: locating")


def test_the_card_states_the_evidence_minimum_and_the_refit_bound(env: LabEnv) -> None:
    from actloop.suites.lab.card import task_card

    card = task_card(env.spec, env.instance)
    assert "- The run must contain ruler readings at 4 or more different loads" in card
    assert "`k` within 1 % of the refit value" in card


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env, 4)
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 1.0}  # type: ignore[arg-type]
    restore(env)
    env.submit({"k": env.evaluator.k}, citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert (
        "3 of 4 citations match" in score.gates["evidence"].evidence
        and [v.valid for v in verdicts].count(False) == 1 == len(verdicts) - 3
    )


def test_a_reading_of_a_moving_tray_fails_the_condition_gate(env: LabEnv) -> None:
    citations = measure(env, 4)
    on_tray(env, 4)
    env.wait(0.2)  # the tray is still bouncing
    seen = close_up(env)
    citations.append({"observation_id": seen, "instrument": "ruler", "value": shown(env, seen)})
    restore(env)
    env.submit({"k": env.evaluator.k}, citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0199, True), (1.0202, False)])
def test_the_tolerance_is_two_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env, 5)
    env.evaluator.acted = True
    restore(env)
    k = env.evaluator.k * factor
    env.submit({"k": k}, citations)
    score, _ = env.score()
    assert score.errors["k"] == pytest.approx(abs(factor - 1) / 0.02, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds


def test_a_close_camera_reads_the_ruler_and_a_far_one_does_not(env: LabEnv) -> None:
    site = env.platform.reading_sites(env._world.data)["ruler"]
    fy = 342.8
    for distance, readable in ((0.05, True), (1.0, False)):
        pose = look_at(site.point + np.array([0.0, -distance, 0.0]), site.point)
        (seen,) = visibility(
            env._model,
            env._world.data,
            "test",
            (np.array(pose.position), pose.rotation()),
            fy,
            {"ruler": site},
        )
        assert seen.in_view and seen.unoccluded and (seen.pixel_size >= 3.0) is readable
