"""Predict and configure objectives scored by a continuation run, and a categorical quantity, on two
unreleased test experiments: a puck on a damped slide (it coasts to rest after a push).

Predict: where the puck comes to rest (mm from its start) and on which side of its start (a label). Configure:
leave the puck so that it rests at the card's set position. Both targets are measured after the submission
in a continuation run from the state the run leaves, with no one acting."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import mujoco
import pytest

from actloop.errors import ConfigError
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.card import task_card
from actloop.suites.lab.env import LabEnv, LabRequestError
from actloop.suites.lab.evaluation import ContinuationEvaluator, score_episode
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import experiment_keys, unreleased
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentLog, InstrumentSpec, Visibility
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, Quantity, choice

MASS_KG, DAMPING = 0.5, 1.0
"""The puck's time constant m / c is 0.5 s: after the 5 s continuation it has stopped."""
CONTINUATION_S = 5.0
POSITION = InstrumentSpec("position", "mm", DigitalDisplay(6, 2, min_digit_px=10.0), refresh_hz=240.0)


class PuckTrack(Platform):
    """A puck on a slide along x with viscous damping, touching nothing; a display shows its position."""

    def bodies_xml(self) -> str:
        return f"""
<body name="puck" pos="0.55 0.35 {TABLE_TOP_Z + 0.3:.3f}">
  <joint name="puck_slide" type="slide" axis="1 0 0" damping="{DAMPING}"/>
  <geom name="puck" type="box" size="0.02 0.02 0.02" mass="{MASS_KG}" contype="0" conaffinity="0"/>
</body>"""

    def instruments(self) -> list[InstrumentSpec]:
        return [POSITION]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {"position": 1000.0 * float(data.joint("puck_slide").qpos[0])}


def spec(
    objective: str, quantities: tuple[Quantity, ...], parameters: tuple[Parameter, ...] = ()
) -> ExperimentSpec:
    return ExperimentSpec(
        key=f"test_puck_{objective}", number=0, title=f"Puck ({objective})", platform="puck_track",
        discipline="mechanics", dimension="manipulation", tier="basic", objective=objective,  # type: ignore[arg-type]
        question="The puck coasts on a damped slide.", quantities=quantities, evidence="position readings",
        budget_s=200.0, parameters=parameters, parts=(Part("puck", "slides along x", restore="any"),),
        continuation_s=CONTINUATION_S,
    )  # fmt: skip


PREDICT = spec(
    "predict",
    (
        Quantity("rest_x", "where the puck comes to rest, from its start", "mm", 1.0, relative=False),
        Quantity("side", "the side of its start the puck rests on", "", 1.0, labels=("left", "right")),
    ),
)
CONFIGURE = spec(
    "configure",
    (Quantity("x", "the puck at rest at", "mm", 1.0, relative=False, setpoint="target_x"),),
    (Parameter("target_x", "where the puck must rest", "mm", choice(30.0, 40.0), public=True),),
)


class PuckEvaluator(ContinuationEvaluator):
    """Every milestone and the bench pass (the puck is the whole apparatus); y* is where the puck is at the
    end of the continuation run."""

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        return

    def milestones(self, valid: list[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        return [Check(f"L{i}", True, "the puck is the apparatus") for i in range(1, 5)]

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        return Check("restored", True, "nothing to put back")

    def continued_targets(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> Mapping[str, float | str]:
        x = 1000.0 * float(data.joint("puck_slide").qpos[0])
        if self.spec.objective == "configure":
            return {"x": x}
        return {"rest_x": x, "side": "right" if x > 0 else "left"}


def _experiment(s: ExperimentSpec) -> Experiment:
    return Experiment(s, lambda instance: PuckTrack(), PuckEvaluator)


@pytest.fixture
def envs() -> Iterator[dict[str, LabEnv]]:
    with unreleased(_experiment(PREDICT), _experiment(CONFIGURE)):
        built = {
            "predict": LabEnv(PREDICT.key, 1, render=False),
            "configure": LabEnv(CONFIGURE.key, 1, render=False),
        }
        yield built
        for env in built.values():
            env.close()


def slide(env: LabEnv, x_m: float, v_m_s: float) -> None:
    """Scaffolding for a hand: set the puck at ``x_m`` moving at ``v_m_s``."""
    joint = env._model.joint("puck_slide")
    env._world.data.qpos[joint.qposadr[0]] = x_m
    env._world.data.qvel[joint.dofadr[0]] = v_m_s


def cite_position(env: LabEnv) -> list[dict[str, object]]:
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    env.instrument_log.serve_observation(
        observation_id, env.clock.time_s, [Visibility("position", "wrist", True, True, 20.0)]
    )
    shown = env.instrument_log.observations[observation_id].shown["position"]
    return [{"observation_id": observation_id, "instrument": "position", "value": shown}]


def state(env: LabEnv) -> tuple[float, float]:
    joint = env._model.joint("puck_slide")
    return float(env._world.data.qpos[joint.qposadr[0]]), float(env._world.data.qvel[joint.dofadr[0]])


def test_the_test_experiments_are_served_but_never_released(envs: dict[str, LabEnv]) -> None:
    assert PREDICT.key not in experiment_keys() and CONFIGURE.key not in experiment_keys()
    with pytest.raises(ValueError, match="already taken"), unreleased(_experiment(PREDICT)):
        pass
    with pytest.raises(ValueError, match="continuation"):
        ExperimentSpec(**{**PREDICT.__dict__, "continuation_s": 0.0})
    with pytest.raises(ValueError, match="continuation"):
        ExperimentSpec(**{**PREDICT.__dict__, "objective": "measure"})


@pytest.mark.parametrize("side", ["right", "left"])
def test_a_prediction_is_scored_against_the_continuation_from_the_submitted_state(
    envs: dict[str, LabEnv], side: str
) -> None:
    env = envs["predict"]
    slide(env, 0.0, 0.1)  # a push to the right
    env.wait(0.2)
    citations = cite_position(env)
    x, v = state(env)
    rest_mm = 1000.0 * (x + v * MASS_KG / DAMPING)  # the damped puck coasts m v / c further
    assert rest_mm - 1000 * x > 30  # it is still well short of where it stops
    env.submit({"rest_x": rest_mm, "side": side}, citations)
    score, _ = env.score()
    assert state(env) == (x, v)  # the continuation ran on a copy
    assert score.errors["rest_x"] < 0.5
    assert score.errors["side"] == (0.0 if side == "right" else float("inf"))
    assert score.success is (side == "right")
    if side == "left":  # a wrong label fails the run at L5 as a missing value does
        assert (score.level, score.process_score, score.failure_cause) == (4, 40, "knowing: analysis")
        assert score.to_fields()["error_side"] is None


def test_a_prediction_of_where_the_puck_is_at_submission_fails(envs: dict[str, LabEnv]) -> None:
    env = envs["predict"]
    slide(env, 0.0, 0.1)
    env.wait(0.2)
    citations = cite_position(env)
    env.submit({"rest_x": 1000.0 * state(env)[0], "side": "right"}, citations)
    score, _ = env.score()
    assert not score.success and score.errors["rest_x"] > 30


def test_a_label_outside_the_categorical_quantity_is_refused(envs: dict[str, LabEnv]) -> None:
    env = envs["predict"]
    with pytest.raises(LabRequestError, match=r"side must be one of \['left', 'right'\]"):
        env.submit({"rest_x": 1.0, "side": "up"}, [])
    with pytest.raises(LabRequestError, match="rest_x must be a finite number"):
        env.submit({"rest_x": "1.0", "side": "left"}, [])
    assert env.submission is None


@pytest.mark.parametrize(
    ("offset_mm", "speed_m_s", "succeeds"),
    [(0.0, 0.0, True), (0.9, 0.0, True), (1.1, 0.0, False), (0.0, 0.004, False), (0.0, 0.0015, True)],
)
def test_a_configuration_is_scored_where_the_continuation_leaves_it(
    envs: dict[str, LabEnv], offset_mm: float, speed_m_s: float, succeeds: bool
) -> None:
    """Set at the target but still moving 4 mm/s, the puck rests 2 mm on: outside the 1 mm tolerance."""
    env = envs["configure"]
    target = env.instance.public["target_x"]
    slide(env, (target + offset_mm) / 1000, speed_m_s)
    citations = cite_position(env)
    env.submit({}, citations)
    score, _ = env.score()
    drift_mm = 1000 * speed_m_s * MASS_KG / DAMPING
    assert score.errors["x"] == pytest.approx(offset_mm + drift_mm, abs=0.02)
    assert score.success is succeeds


def test_the_continuation_starts_only_from_a_sealed_submission(envs: dict[str, LabEnv]) -> None:
    env = envs["configure"]
    assert not env.record.sealed
    with pytest.raises(ConfigError, match="sealed"):
        score_episode(env.evaluator, env.record, env.instrument_log, {}, [], env._model, env._world.data)


def test_the_cards_state_labels_setpoints_and_the_continuation(envs: dict[str, LabEnv]) -> None:
    predict = task_card(PREDICT, envs["predict"].instance)
    assert (
        "- `side`: the side of its start the puck rests on, one of `left`, `right`; scored exactly" in predict
    )
    assert "continuation run of 5 s after your submission, from the state you leave it in" in predict
    configure = task_card(CONFIGURE, envs["configure"].instance)
    target = envs["configure"].instance.public["target_x"]
    assert f"## What to set up\n- the puck at rest at: {target:g} mm (`target_x`), within 1 mm" in configure
    assert "`x`" not in configure.split("## What to set up")[0]


def test_a_measure_evaluator_cannot_continue() -> None:
    measure = ExperimentSpec(**{**PREDICT.__dict__, "objective": "measure", "continuation_s": 0.0})
    with pytest.raises(ConfigError, match="no continuation"):
        PuckEvaluator(measure, Record(), Instance(measure.key, 1, {}, {}), PuckTrack())
