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
from actloop.suites.lab import audit
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.hookes_law import SPEC
from actloop.suites.lab.instance import Instance, draw
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.platforms.spring_stand import WEIGHTS, G
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.hookes_law import coils_open
from actloop.suites.lab.reference.hookes_law import fit_k as reference_fit
from stand_scaffold import on_tray, place


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("hookes_law", 5, render=False)
    yield bench
    bench.close()


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


def points(env: LabEnv, citations: list[dict[str, object]]) -> list[tuple[float, float]]:
    """(load in kg, reading in mm) of readings taken at 0, 1, 2, ... weights."""
    mass = env.instance.public["weight_mass"]
    return [(n * mass, float(c["value"])) for n, c in enumerate(citations)]  # type: ignore[arg-type]


def fit_k(env: LabEnv, citations: list[dict[str, object]]) -> float:
    """What the agent computes from its readings at 0, 1, 2, ... weights (the reference's own fit, over the
    loads that opened the close-wound spring's coils)."""
    return reference_fit(coils_open(points(env, citations)))


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
    assert "- **spring**: a close-wound coil spring, its coils pressed together until the load" in card


def test_the_close_wound_spring_holds_the_empty_tray_shut_and_opens_to_the_closed_form_line(
    env: LabEnv,
) -> None:
    """The empty tray rests on the closed coils at the unloaded length; past the initial tension each
    weight extends the spring by m g / k, the first by ((tray + weight) g - F0) / k, within a tenth of the
    tolerance (0.2 %) of the closed form."""
    stand, data = env.platform, env._world.data
    unloaded = stand.pointer_reading_mm(data)
    env.wait(3.0)
    assert stand.pointer_reading_mm(data) == pytest.approx(unloaded, abs=0.002)  # on the stop, unmoved
    sunk_mm = 1000 * (float(data.qpos[stand.tray_joint]) - stand.unloaded_length)
    assert abs(sunk_mm) < 0.002
    assert stand.tray_mass * G < stand.initial_tension < (stand.tray_mass + stand.weight_mass) * G
    shown = [unloaded]
    for n in range(1, WEIGHTS + 1):
        on_tray(env, n)
        env.wait(12.0)
        shown.append(stand.pointer_reading_mm(data))
        closed_form = 1000 * (stand.hanging_length(n) - stand.unloaded_length)
        assert unloaded - shown[-1] == pytest.approx(closed_form, abs=0.005)
    first = 1000 * ((stand.tray_mass + stand.weight_mass) * G - stand.initial_tension) / stand.k
    assert shown[0] - shown[1] == pytest.approx(first, rel=2e-3)
    per_weight = 1000 * stand.weight_mass * G / stand.k
    for n in range(1, WEIGHTS):
        assert shown[n] - shown[n + 1] == pytest.approx(per_weight, rel=2e-3)


def test_the_initial_tension_always_lies_between_the_empty_tray_and_one_weight() -> None:
    """Over the whole drawn ranges: F0 above the heaviest tray's weight, below the lightest tray's with the
    lightest weight, so the empty tray always hangs on the shut coils and one weight always opens them."""
    drawn = {p.name: p.distribution for p in SPEC.parameters}
    tension, tray, weight = drawn["initial_tension"], drawn["tray_mass"], drawn["weight_mass"]
    assert tray.high * G < tension.low and tension.high < (tray.low + min(weight.choices)) * G


def test_the_naive_unloaded_and_one_weight_difference_fails(env: LabEnv) -> None:
    """The empty tray hangs on the shut coils: the first weight's extension falls short of m g / k by
    (F0 - tray weight) / k, so k from that one difference is tens of percent off."""
    citations = measure(env, 4)
    env.evaluator.acted = True
    restore(env)
    naive = reference_fit(points(env, citations)[:2])
    env.submit({"k": naive}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and score.gates["evidence"].passed
    assert naive > 1.1 * env.instance.hidden["k"] and score.e > 5 and not score.success
    assert not score.gates["refit"].passed


def test_the_refit_fits_only_the_loads_that_open_the_coils(env: LabEnv) -> None:
    """Readings at 0-4 weights are cited; the refit is the line through those at 1-4 (the empty tray is off
    it), so a fit that takes the unloaded reading in fails the refit gate and the tolerance."""
    citations = measure(env, 5)
    env.evaluator.acted = True
    restore(env)
    with_unloaded = reference_fit(points(env, citations))
    env.submit({"k": with_unloaded}, citations)
    score, verdicts = env.score()
    refit = env.evaluator.refit([v for v in verdicts if v.valid])["k"]
    assert refit == pytest.approx(fit_k(env, citations), rel=1e-12)
    assert abs(with_unloaded / env.instance.hidden["k"] - 1) > 0.05 and score.e > 1
    assert not score.gates["refit"].passed and "does not agree" in score.gates["refit"].evidence


def test_readings_at_one_load_that_opens_the_coils_do_not_suffice(env: LabEnv) -> None:
    """L4 wants readings at two loads past the initial tension: the empty tray and one weight are two loads
    but only one of them opens the coils, and the refit has no line to fit."""
    citations = measure(env, 2)
    env.evaluator.acted = True
    restore(env)
    env.submit({"k": env.instance.hidden["k"]}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts)
    assert not score.milestones["L4"].passed and "[1] of them opening" in score.milestones["L4"].evidence
    assert "readings at two or more loads that open the spring's coils" in score.gates["refit"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env, 4)
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 1.0}  # type: ignore[arg-type]
    restore(env)
    env.submit({"k": env.instance.hidden["k"]}, citations)
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
    env.submit({"k": env.instance.hidden["k"]}, citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and "did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0199, True), (1.0202, False)])
def test_the_tolerance_is_two_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env, 5)
    env.evaluator.acted = True
    restore(env)
    k = env.instance.hidden["k"] * factor
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


def test_the_audit_finds_the_unloaded_difference_fails_every_instance_and_the_slope_solves_them() -> None:
    result = audit.audit("hookes_law", 200)
    assert result["naive_shortcut"]["name"] == "unloaded and one weight" and result["naive_rate"] == 0.0
    assert result["standard_design"]["name"] == "slope of five loads" and result["standard_rate"] >= 0.95
    assert "ruler readings at 1 to 5 weights" in result["standard_design"]["method"]


def test_the_unloaded_difference_is_off_by_the_initial_tension_and_the_slope_is_not() -> None:
    """With no initial tension (an open-coiled spring) the unloaded and one-weight difference solves the
    instance again: it is the tension holding the coils shut, not the ruler's resolution, that the shortcut
    misses."""
    plan = plan_of("hookes_law")

    def open_coiled(instance: Instance) -> Instance:
        hidden = {**instance.hidden, "initial_tension": 0.0}
        return Instance(instance.experiment, instance.seed, instance.public, hidden)

    instance = next(
        i
        for i in (draw(SPEC, seed) for seed in range(1, 50))
        if audit._within(SPEC, plan.naive.estimate(open_coiled(i)), plan.target(i))
    )
    target = plan.target(instance)
    assert not audit._within(SPEC, plan.naive.estimate(instance), target)
    assert audit._within(SPEC, plan.standard.estimate(instance), target)
