"""Scoring an episode from its record: the evaluator side every experiment shares.

An experiment's :class:`Evaluator` watches each physics step (contacts, motion, loads) and says which
measurement conditions hold; the tracker turns those into intervals in the sealed record. At the end,
:func:`score_episode` applies the gates (evidence, conditions, refit for ∗ experiments, restored), asks the
experiment for its milestones L1–L4 and its targets, and scores the run by the seed's eq. 2–3.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Generic, TypeVar, cast, get_args

import mujoco

from actloop.errors import ConfigError
from actloop.suites.lab.attribution import attribute, facts_of
from actloop.suites.lab.evidence import (
    Citation,
    Conditions,
    ConditionTracker,
    Required,
    Verdict,
    condition_gate,
    evidence_gate,
    minima_gate,
    parse_citation,
    refit_gate,
)
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.record import Record
from actloop.suites.lab.rig import ARM, HOME_Q
from actloop.suites.lab.scoring import Check, Score, score
from actloop.suites.lab.spec import REFIT_FRACTION, ExperimentSpec
from actloop.suites.lab.watch import ContactWatch, robot_holds_nothing

P = TypeVar("P", bound=Platform)


class Evaluator(ABC):
    """The evaluator's view of one experiment's episode (never reachable from the agent)."""

    required_conditions: Required = ()
    """Conditions every cited reading must have been taken under (or, given a citation, those it must)."""
    one_reading_per_observation: ClassVar[bool] = False
    """Whether each cited reading must come from a different observation (the card says so)."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        self.spec = spec
        self.record = record
        self.instance = instance
        self.platform = platform
        self.tracker = ConditionTracker(record.append)

    @abstractmethod
    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Watch one physics step; call ``self.tracker.update`` with the conditions that hold."""

    @abstractmethod
    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        """L1–L4 from what happened and the valid readings (those passing evidence and conditions)."""

    @abstractmethod
    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        """Whether the bench is left as the card requires."""

    @abstractmethod
    def targets(self) -> Mapping[str, float | str]:
        """y* for every scored quantity (a measure objective's hidden truth)."""

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """The value of property ``name`` (an evidence minimum's ``over``) for a valid reading."""
        raise ConfigError(f"{self.spec.key} gives no property {name!r} of its readings")

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float | str]:
        """The evaluator's fit of the valid cited readings (∗ experiments); ValueError when they give none."""
        raise ConfigError(f"{self.spec.key} has no refit")


class BenchEvaluator(Evaluator, Generic[P]):
    """An evaluator watching the robot on one kind of platform ``P`` (``BenchEvaluator[CircuitBoard]``):
    it notes whether the robot ever touched what :meth:`handled` names (L1's action), hands every step's
    touched geoms to :meth:`observe`, and checks the bench restored by the platform's rules
    (:meth:`restore_problems`) with the robot holding nothing."""

    platform_type: ClassVar[type[Platform]]
    """The kind of platform it watches (``P``, taken from the subscripted base class)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            watched = [arg for arg in get_args(base) if isinstance(arg, type) and issubclass(arg, Platform)]
            if watched:
                cls.platform_type = watched[0]

    restored_text: ClassVar[str] = "the bench is restored"
    """What the restore check says when nothing is wrong."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        if not isinstance(platform, self.platform_type):
            raise TypeError(f"{type(self).__name__} watches a {self.platform_type.__name__}")
        self.platform: P = cast(P, platform)  # checked against platform_type above
        self.acted = False
        self._watch: ContactWatch | None = None
        self._handled: frozenset[int] = frozenset()

    def watch(self, model: mujoco.MjModel) -> ContactWatch:
        """The contact watch of ``model`` (made on first use)."""
        if self._watch is None:
            self._watch = ContactWatch(model)
            self._handled = self.handled(self._watch)
        return self._watch

    @abstractmethod
    def handled(self, watch: ContactWatch) -> frozenset[int]:
        """The geoms whose touch by the robot counts as acting on the apparatus."""

    @abstractmethod
    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        """Watch one physics step, given the geoms the robot touches; update ``self.tracker``."""

    @abstractmethod
    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        """What is not as the card's restore rules require (the robot's hold is checked besides)."""

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        touched = self.watch(model).touched(data)
        self.acted |= not self._handled.isdisjoint(touched)
        self.observe(time_s, data, touched)

    def handled_check(self) -> Check:
        """L1 as most benches state it: the robot touched what :meth:`handled` names."""
        return Check(
            "L1", self.acted, "the robot handled the apparatus" if self.acted else "nothing was handled"
        )

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = [*self.restore_problems(data), *robot_holds_nothing(self.watch(model), data)]
        return Check("restored", not problems, "; ".join(problems) or self.restored_text)


class ContinuationEvaluator(Evaluator):
    """The evaluator of a predict or configure objective: y* = q(θ, s_τ) is measured in a continuation run
    after the record is sealed: a copy of the final physics state and of the apparatus runs on for the
    spec's ``continuation_s`` with no agent acting (the robot holds its last commands), and
    :meth:`continued_targets` measures the target there. The episode's own state is never changed."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        if spec.objective == "measure":
            raise ConfigError(f"{spec.key}: a measure objective has no continuation")
        super().__init__(spec, record, instance, platform)
        self._set_up: dict[str, float | str] = {}

    def targets(self) -> Mapping[str, float | str]:
        raise ConfigError(f"{self.spec.key}: y* is measured in the continuation run (continue_run)")

    def continuation_step(
        self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> None:
        """Watch one step of the continuation run (``time_s`` counts from the submission)."""
        return

    @abstractmethod
    def continued_targets(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        """y* of every quantity, measured at the end of the continuation run."""

    def set_up(
        self, model: mujoco.MjModel, data: mujoco.MjData, platform: Platform
    ) -> dict[str, float | str]:
        """ŷ of every set-up quantity, read from the apparatus at the end of the continuation run."""
        if any(q.set_up for q in self.spec.quantities):
            raise ConfigError(f"{self.spec.key}: set-up quantities need set_up()")
        return {}

    def configured(self) -> dict[str, float | str]:
        """ŷ of every configured quantity: the value the card sets (its public parameter), or what the
        continuation run read from the apparatus (set-up quantities)."""
        values: dict[str, float | str] = {
            q.name: self.instance.public[q.setpoint] for q in self.spec.quantities if q.setpoint
        }
        return {**values, **self._set_up}

    def continue_run(self, model: mujoco.MjModel, data: mujoco.MjData) -> dict[str, float | str]:
        """Run a copy of the final state and apparatus on for ``continuation_s``; y* at its end."""
        run, platform = copy.copy(data), copy.deepcopy(self.platform)
        dt = float(model.opt.timestep)
        for step in range(1, round(self.spec.continuation_s / dt) + 1):
            mujoco.mj_step(model, run)
            platform.after_step(model, run)
            self.continuation_step(step * dt, model, run, platform)
        self._set_up = self.set_up(model, run, platform)
        return self.continued_targets(model, run, platform)


def score_episode(
    evaluator: Evaluator,
    record: Record,
    log: InstrumentLog,
    result: Mapping[str, Any] | None,
    raw_citations: Sequence[Mapping[str, Any]],
    model: mujoco.MjModel,
    data: mujoco.MjData,
) -> tuple[Score, list[Verdict]]:
    """Score a finished episode; ``result`` is None when nothing was submitted. Returns the score and the
    verdict on every citation (a malformed citation fails the evidence gate with its reason)."""
    evaluator.tracker.close()
    conditions = Conditions.from_entries((e.kind, e.data) for e in record.entries)
    citations: list[Citation] = []
    malformed: list[str] = []
    for raw in raw_citations:
        try:
            citations.append(parse_citation(raw))
        except ConfigError as err:
            malformed.append(str(err))
    evidence, verdicts = evidence_gate(log, citations, evaluator.one_reading_per_observation)
    if malformed or not citations:
        problem = "; ".join(malformed) or "no reading was cited"
        evidence = Check("evidence", False, f"{problem}; {evidence.evidence}" if citations else problem)
    placed = [v for v in verdicts if v.valid]
    conditions_check, judged = condition_gate(placed, conditions, evaluator.required_conditions)
    if not placed:
        conditions_check = Check("conditions", False, "no valid reading to check")
    valid = [v for v in judged if v.valid]
    evidence = minima_gate(
        evidence, evaluator.spec.minima, valid, lambda name, v: evaluator.property_of(name, v, log)
    )
    gates = [evidence, conditions_check, evaluator.restored(model, data)]
    submitted: dict[str, object] = dict(result or {})
    targets: Mapping[str, float | str]
    if isinstance(evaluator, ContinuationEvaluator):
        if result is not None and not record.sealed:
            raise ConfigError("the continuation run starts from the sealed submission")
        targets = evaluator.continue_run(model, data)
        submitted.update(evaluator.configured())
    else:
        targets = evaluator.targets()
    if evaluator.spec.refit:
        fit = lambda _: evaluator.refit(valid)  # noqa: E731  (the gate hands citations; the fit needs times)
        gates.append(refit_gate(submitted, valid, fit, evaluator.spec.quantities, REFIT_FRACTION))
    milestones = evaluator.milestones(valid, log, conditions)
    by_citation = {id(v.citation): v for v in judged}
    every = [by_citation.get(id(v.citation), v) for v in verdicts]  # each citation's last verdict, in order
    scored = score(submitted, targets, evaluator.spec.quantities, gates, milestones)
    facts = facts_of(verdicts, judged, robot_moved(model, data) or scored.level > 0, result is not None)
    facts = replace(facts, evidence_failures=facts.evidence_failures + len(malformed))
    cause = attribute(scored, facts)
    if cause is not None:
        scored = replace(scored, failure_cause=cause.cause, failure_evidence=cause.evidence)
    return scored, every


HOME_TOLERANCE_RAD = 0.05
"""The arm has moved when a joint is this far from home, or its commands are no longer home."""


def robot_moved(model: mujoco.MjModel, data: mujoco.MjData) -> bool:
    """Whether the robot has left home, judged from the final state: an arm joint away from home or a
    command (arm or gripper) changed. An arm driven back to home with its exact commands reads as unmoved."""
    from actloop.sim.robot import FINGER_TRAVEL

    joints = [model.joint(f"{ARM}_joint{i}") for i in range(1, 8)]
    actuators = [model.actuator(f"{ARM}_act{i}").id for i in range(1, 8)]
    home = list(zip(joints, actuators, HOME_Q, strict=True))
    away = any(abs(float(data.qpos[j.qposadr[0]]) - q) > HOME_TOLERANCE_RAD for j, _, q in home)
    commanded = any(abs(float(data.ctrl[a]) - q) > 1e-9 for _, a, q in home)
    gripper = model.actuator(f"{ARM}_gripper").id
    return away or commanded or abs(float(data.ctrl[gripper]) - FINGER_TRAVEL) > 1e-9
