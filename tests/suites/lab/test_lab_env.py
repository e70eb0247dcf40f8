"""LabEnv at T0 on the Hooke's-law bench: physics, budget, refusals, observations, submission."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image

from actloop.suites.lab.env import DT, HOME_Q, EpisodeOver, LabEnv, LabRequestError
from actloop.suites.lab.evidence import evidence_gate, parse_citation
from actloop.suites.lab.platforms.spring_stand import G
from actloop.suites.lab.spec import MIN_BUDGET_S
from least_budget import least_budget_spring


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("hookes_law", 1)
    yield bench
    bench.close()


def reading(env: LabEnv) -> float:
    return env.platform.pointer_reading_mm(env._world.data)


def load_tray(env: LabEnv, weight: int) -> None:
    """Put weight ``weight`` on the tray (test scaffolding: the agent would carry it)."""
    model, data = env._model, env._world.data
    tray_top = data.geom_xpos[model.geom("tray_plate").id].copy()
    adr = model.joint(f"weight_{weight}_free").qposadr[0]
    data.qpos[adr : adr + 3] = tray_top + np.array([0.0, 0.0, 0.003 + 0.012 + 0.0005])
    data.qvel[
        model.joint(f"weight_{weight}_free").dofadr[0] : model.joint(f"weight_{weight}_free").dofadr[0] + 6
    ] = 0


def test_the_empty_tray_rests_on_the_closed_coils_and_a_weight_opens_them_past_the_initial_tension(
    env: LabEnv,
) -> None:
    start = reading(env)
    env.wait(2.0)
    assert reading(env) == pytest.approx(start, abs=1e-3)  # on the closed-coil stop, within a micrometre
    load_tray(env, 1)
    env.wait(25.0)  # the tray oscillates, then comes to rest
    stand = env.platform
    pull = (stand.tray_mass + stand.weight_mass) * G
    expected_mm = 1000 * (pull - stand.initial_tension) / stand.k
    assert start - reading(env) == pytest.approx(expected_mm, rel=2e-3)


def test_every_step_is_charged_and_a_spent_budget_ends_the_episode() -> None:
    with least_budget_spring() as key:  # the quickest budget to spend
        env = LabEnv(key, 1, render=False)
        env.wait(1.0)
        assert env.clock.steps == 240 and env.robot_state()["time_s"] == pytest.approx(1.0)
        env.wait(10_000.0)  # more than the budget: it runs to the end of the budget
        assert env.clock.left_s == 0 and env.done
        with pytest.raises(EpisodeOver, match=f"budget of {MIN_BUDGET_S:g} s is spent"):
            env.wait(0.1)
        env.close()


@pytest.mark.parametrize(
    ("targets", "problem"),
    [
        ([], "non-empty list"),
        ([[0.0] * 6], r"targets\[0\] must be a list of 7 numbers"),
        ([[*HOME_Q[:6], math.nan]], "finite numbers"),
        ([[5.0, *HOME_Q[1:]]], "outside joint 1's limits"),
        ([[HOME_Q[0] + 0.2, *HOME_Q[1:]]], "moves joint 1 by 0.2000 rad in one step"),
        ("home", "non-empty list"),
    ],
)
def test_a_malformed_trajectory_is_refused_and_nothing_moves(
    env: LabEnv, targets: object, problem: str
) -> None:
    before = env._world.data.qpos.copy()
    with pytest.raises(LabRequestError, match=problem):
        env.move_joints(targets)  # type: ignore[arg-type]
    assert env.clock.steps == 0 and np.array_equal(env._world.data.qpos, before)


def test_a_slow_trajectory_is_followed_one_target_per_step(env: LabEnv) -> None:
    n = 240
    path = [[HOME_Q[0] + 0.3 * (i + 1) / n, *HOME_Q[1:]] for i in range(n)]
    moved = env.move_joints(path)
    assert moved["steps"] == n and moved["completed"] and env.clock.steps == n
    env.wait(0.5)
    assert env.robot_state()["joints"][0] == pytest.approx(HOME_Q[0] + 0.3, abs=2e-3)


def test_ik_answers_without_moving_and_the_gripper_closes(env: LabEnv) -> None:
    state = env.robot_state()
    lowered = [state["hand_position"][0], state["hand_position"][1], state["hand_position"][2] - 0.1]
    solved = env.ik(lowered, state["hand_quaternion"])
    assert solved["converged"] and solved["joints"] != state["joints"]
    assert env.clock.steps == 0 and env.robot_state()["joints"] == state["joints"]
    with pytest.raises(LabRequestError, match="quaternion must not be zero"):
        env.ik(lowered, [0, 0, 0, 0])
    assert env.gripper(0.0)["gripper_width"] < 0.002 and env.clock.steps == round(0.5 / DT)
    with pytest.raises(LabRequestError, match="width_m"):
        env.gripper(0.2)


def test_observations_are_three_images_with_ids_and_a_published_calibration(env: LabEnv) -> None:
    first, second = env.observe(), env.observe()
    assert (first["observation_id"], second["observation_id"]) == (
        f"{env.episode_token}-1",
        f"{env.episode_token}-2",
    )
    assert set(first["images"]) == {"front", "side", "wrist"}
    for png in first["images"].values():
        assert Image.open(io.BytesIO(png)).size == (640, 480)
    calib = env.calibration()
    assert set(calib) == {"convention", "front", "side", "wrist", "robot", "layout"}
    assert calib["layout"] == env.platform.layout() and calib["layout"]
    assert calib["robot"]["max_joint_speed_rad_s"][0] == 2.175 and calib["robot"]["physics_dt_s"] == 1 / 240
    assert calib["front"]["intrinsics"]["fx"] == pytest.approx(240 / math.tan(math.radians(25)))
    assert "extrinsics" in calib["side"] and "mount" in calib["wrist"]


def test_one_submission_ends_the_episode(env: LabEnv) -> None:
    with pytest.raises(LabRequestError, match="missing"):
        env.submit({}, [])
    with pytest.raises(LabRequestError, match="finite number"):
        env.submit({"k": math.inf}, [])
    assert env.submit({"k": 30.0}, [{"observation_id": 1, "instrument": "ruler", "value": 111.0}])[
        "submitted"
    ]
    with pytest.raises(EpisodeOver, match="already submitted"):
        env.submit({"k": 31.0}, [])
    with pytest.raises(EpisodeOver, match="submitted"):
        env.wait(1.0)


def test_the_same_seed_and_actions_give_bit_identical_states() -> None:
    states = []
    for _ in range(2):
        bench = LabEnv("hookes_law", 4, render=False)
        load_tray(bench, 2)
        bench.wait(3.0)
        bench.gripper(0.02)
        states.append(bench._world.data.qpos.copy())
        bench.close()
    assert states[0].tobytes() == states[1].tobytes()


def test_every_served_image_is_logged_with_what_the_ruler_showed_and_whether_it_was_readable(
    env: LabEnv,
) -> None:
    seen = env.observe()
    logged = env.instrument_log.observations[seen["observation_id"]]
    assert logged.shown["ruler"] == pytest.approx(reading(env), abs=1e-9)
    front = {view.camera: view for view in logged.views_of("ruler")}["front"]
    assert not front.readable and front.pixel_size < 3.0 and "px" in front.reason  # 1 mm marks from 1 m away
    citation = parse_citation(
        {"observation_id": seen["observation_id"], "instrument": "ruler", "value": reading(env)}
    )
    gate, (verdict,) = evidence_gate(env.instrument_log, [citation])
    assert not gate.passed and not verdict.valid and "px" in verdict.reason
    forged = parse_citation({"observation_id": "elsewhere-1", "instrument": "ruler", "value": reading(env)})
    assert not evidence_gate(env.instrument_log, [forged])[0].passed


def test_submission_seals_a_record_that_detects_any_later_change(env: LabEnv) -> None:
    env.observe()
    env.wait(0.5)
    sealed = env.submit({"k": 30.0}, [])["record_hash"]
    assert env.record.sealed
    env.record.verify(sealed)  # raises on any change, deletion, insertion or reordering


def test_a_bench_renders_from_one_thread_only(env: LabEnv) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from actloop.errors import EnvError

    env.observe()
    with ThreadPoolExecutor(1) as other, pytest.raises(EnvError, match="another thread"):
        other.submit(env.observe).result()
