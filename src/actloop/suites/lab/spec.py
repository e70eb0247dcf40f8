"""The declarative specification of a lab experiment, from which its task card, instances and scoring
derive (so the card and the scorer cannot drift apart).

An experiment poses an objective about a physical system whose parameters θ are hidden and drawn anew
per instance (possibly depending on public parameters φ); it names every part of its bench with its
function, the quantities it scores with their tolerances, what evidence a run must contain, how the bench
must be left, and its budget of simulated time. It prescribes no method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

Discipline = Literal["mechanics", "electricity", "optics", "thermal", "chemistry"]
Dimension = Literal["manipulation", "long-horizon", "reading", "data"]
"""The capability dimension where the interaction is hard (table 4): fine manipulation and contact,
long-horizon multi-stage work, fine reading, multi-point acquisition and analysis."""
Tier = Literal["basic", "advanced"]
Decision = Literal["a", "b", "c", "d"]
"""Decisions an advanced experiment requires: (a) choosing the conditions, (b) sequential design,
(c) model identification, (d) acting on the result."""
ObjectiveKind = Literal["measure", "predict", "configure"]

DISCIPLINES: tuple[Discipline, ...] = ("mechanics", "electricity", "optics", "thermal", "chemistry")
DIMENSIONS: tuple[Dimension, ...] = ("manipulation", "long-horizon", "reading", "data")
REFIT_FRACTION = 0.5
"""A ∗ result must agree with the evaluator's refit of the cited readings within half its tolerance (the
project's choice: the seed asks for agreement without a number), stated on the card."""
MIN_BUDGET_S = 200.0
MAX_BUDGET_S = 1500.0


@dataclass(frozen=True)
class Quantity:
    """A scored quantity: the submission must give ``name``; ``tolerance`` is relative (a fraction) when
    ``relative``, else absolute in ``unit``.

    A *categorical* quantity (``labels`` given, e.g. a network's topology) takes one of its labels and is
    scored by equality: its error is 0 when the submitted label is the target's and infinite otherwise, so a
    wrong label fails the run at L5 as a missing value does (``tolerance`` is then unused). A *configured*
    quantity (``setpoint`` names a public parameter, configure objectives) is not submitted: the value the
    card sets is scored against what the continuation run measures. A *set-up* quantity (``set_up``,
    configure objectives) is not submitted either: the continuation run reads it from the apparatus as the
    agent left it (which module a supply is built with) and scores it against y*."""

    name: str
    description: str
    unit: str
    tolerance: float
    relative: bool = True
    labels: tuple[str, ...] = ()
    setpoint: str = ""
    set_up: bool = False

    def __post_init__(self) -> None:
        if not self.tolerance > 0:
            raise ValueError(f"quantity {self.name}: tolerance must be positive")
        if self.labels and (len(set(self.labels)) != len(self.labels) or not all(self.labels)):
            raise ValueError(f"quantity {self.name}: labels must be distinct and non-empty")
        if self.labels and self.setpoint:
            raise ValueError(f"quantity {self.name}: a categorical quantity has no setpoint")
        if self.set_up and self.setpoint:
            raise ValueError(f"quantity {self.name}: a set-up quantity is read from the bench, not set")

    @property
    def submitted(self) -> bool:
        """Whether the agent submits it (configured and set-up quantities are read from the bench)."""
        return not (self.setpoint or self.set_up)

    @property
    def categorical(self) -> bool:
        return bool(self.labels)

    @property
    def tolerance_text(self) -> str:
        if self.categorical:
            return "exactly (a wrong label fails the run)"
        return f"{100 * self.tolerance:g} %" if self.relative else f"{self.tolerance:g} {self.unit}"

    def refusal(self, value: object) -> str:
        """Why ``value`` cannot be submitted for this quantity ("" when it can)."""
        if self.categorical:
            ok = isinstance(value, str) and value in self.labels
            return "" if ok else f"result {self.name} must be one of {list(self.labels)}, got {value!r}"
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and math.isfinite(value):  # type: ignore[arg-type]
            return ""
        return f"result {self.name} must be a finite number, got {value!r}"


@dataclass(frozen=True)
class ReadingsAt:
    """An evidence minimum (table 6's "the run must contain"): valid cited readings of each of
    ``instruments`` at ``count`` or more different values of ``over``, a property the evaluator gives each
    reading (the load on the spring, the block's temperature), values closer than ``gap`` counting as one.
    The evidence gate checks it over the valid readings and the card states it in the same words."""

    instruments: tuple[str, ...]
    over: str
    """The evaluator's name of the property, e.g. ``load``."""
    count: int
    label: str
    """The property on the card, plural, e.g. ``loads (numbers of weights on the tray)``."""
    gap: float = 0.0
    unit: str = ""
    shared: bool = False
    """The values must be common to every instrument's readings (one collision's three times), not merely
    as many for each."""

    def __post_init__(self) -> None:
        if not self.instruments or self.count < 1 or self.gap < 0 or (self.shared and self.gap):
            raise ValueError(
                f"evidence minimum over {self.over}: needs instruments, a count ≥ 1, a gap ≥ 0 (none when "
                "shared)"
            )

    @property
    def text(self) -> str:
        """The rule as the card and the gate's evidence state it."""
        apart = f" at least {self.gap:g} {self.unit} apart".rstrip() if self.gap else ""
        read = " and ".join(self.instruments)
        common = ", the same for each" if self.shared else ""
        return f"{read} readings at {self.count} or more different {self.label}{apart}{common}"


@dataclass(frozen=True)
class Distribution:
    """How a parameter is drawn: uniform on [low, high], log-uniform on [low, high], or one of
    ``choices``."""

    kind: Literal["uniform", "log-uniform", "choice"]
    low: float = 0.0
    high: float = 0.0
    choices: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "choice":
            if not self.choices:
                raise ValueError("a choice distribution needs choices")
        elif not self.low < self.high or (self.kind == "log-uniform" and self.low <= 0):
            raise ValueError(f"bad {self.kind} range [{self.low}, {self.high}]")

    def value(self, u: float) -> float:
        """The parameter value at quantile ``u`` in [0, 1); the same bits on every machine (no libm)."""
        from actloop.suites.lab.physics.linear import exp, log

        if self.kind == "uniform":
            return self.low + (self.high - self.low) * u
        if self.kind == "log-uniform":
            return exp(log(self.low) + (log(self.high) - log(self.low)) * u)
        return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]


def uniform(low: float, high: float) -> Distribution:
    return Distribution("uniform", low, high)


def log_uniform(low: float, high: float) -> Distribution:
    return Distribution("log-uniform", low, high)


def choice(*values: float) -> Distribution:
    return Distribution("choice", choices=tuple(values))


@dataclass(frozen=True)
class Parameter:
    """A parameter of the physical system. Hidden parameters are evaluator-only; public ones appear on
    the card with their drawn value."""

    name: str
    description: str
    unit: str
    distribution: Distribution
    public: bool = False


@dataclass(frozen=True)
class Part:
    """A named part of the bench with its function as the card states it. ``restore`` says how it must
    be left at submission: ``place`` (back where it started), ``off`` (switched off or unpowered),
    ``closed`` (a valve or a stopcock), ``any`` (the objective uses it; left as the agent sets it), or
    ``fixed`` (cannot be moved)."""

    name: str
    function: str
    restore: Literal["place", "off", "closed", "any", "fixed"] = "place"


@dataclass(frozen=True)
class ExperimentSpec:
    """Everything that defines one experiment (table 6 plus the bench); see the module docstring."""

    key: str
    number: int
    title: str
    platform: str
    discipline: Discipline
    dimension: Dimension
    tier: Tier
    objective: ObjectiveKind
    question: str
    quantities: tuple[Quantity, ...]
    evidence: str
    """What the run must contain beyond cited readings that match the instruments (table 6's words)."""
    budget_s: float
    wall_clock_s: float = 3600.0
    refit: bool = False
    """∗ in table 6: the result must agree with the evaluator's refit of the cited readings."""
    decisions: tuple[Decision, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    parts: tuple[Part, ...] = ()
    rules: tuple[str, ...] = field(default_factory=tuple)
    """Experiment-specific rules on the card (what may not be done, what counts as a reading)."""
    minima: tuple[ReadingsAt, ...] = ()
    """The evidence minima the evidence gate checks over the valid readings (stated on the card)."""
    continuation_s: float = 0.0
    """Predict and configure objectives: y* = q(θ, s_τ) is measured in a continuation run of this long from
    the state at submission, with no agent acting (0 for a measure objective)."""

    def __post_init__(self) -> None:
        if not MIN_BUDGET_S <= self.budget_s <= MAX_BUDGET_S:
            raise ValueError(
                f"{self.key}: budget {self.budget_s} s is outside [{MIN_BUDGET_S}, {MAX_BUDGET_S}]"
            )
        if (self.tier == "advanced") != bool(self.decisions):
            raise ValueError(f"{self.key}: advanced experiments name their decisions, basic ones none")
        names = [p.name for p in self.parts]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.key}: part names repeat")
        if not self.quantities:
            raise ValueError(f"{self.key}: no scored quantity")
        if (self.objective == "measure") != (self.continuation_s == 0) or self.continuation_s < 0:
            raise ValueError(f"{self.key}: predict and configure objectives (only) need a continuation run")
        public = {p.name for p in self.public}
        for q in self.quantities:
            if q.setpoint and (self.objective != "configure" or q.setpoint not in public):
                raise ValueError(f"{self.key}: {q.name}'s setpoint must be a public parameter of a configure")
            if q.set_up and self.objective != "configure":
                raise ValueError(f"{self.key}: {q.name} is set up on the bench: only a configure objective")

    @property
    def answered(self) -> tuple[Quantity, ...]:
        """The quantities the agent submits (all but configured and set-up ones)."""
        return tuple(q for q in self.quantities if q.submitted)

    @property
    def hidden(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if not p.public)

    @property
    def public(self) -> tuple[Parameter, ...]:
        return tuple(p for p in self.parameters if p.public)
